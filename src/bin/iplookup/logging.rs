//! Logs to standard error, as text or JSON lines, filtered by `IPLOOKUP_LOG`
//! (`info` by default). The MCP library logs three lines per `/mcp` request
//! at `info`, which any client could turn into a flood, so its logs are
//! kept to warnings unless the filter names it (`IPLOOKUP_LOG=info,rmcp=info`).

/// The filter: `IPLOOKUP_LOG` or `info`, with `rmcp=warn` unless it names `rmcp`.
fn filter_spec(env: Option<String>) -> String {
    let spec = env
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "info".to_owned());
    if spec.contains("rmcp") {
        spec
    } else {
        format!("{spec},rmcp=warn")
    }
}

pub fn init(format: &str) {
    let spec = filter_spec(std::env::var("IPLOOKUP_LOG").ok());
    let filter = tracing_subscriber::EnvFilter::try_new(&spec)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}

#[cfg(test)]
mod tests {
    use super::filter_spec;

    #[test]
    fn the_mcp_library_is_kept_to_warnings_unless_named() {
        assert_eq!(filter_spec(None), "info,rmcp=warn");
        assert_eq!(filter_spec(Some("debug".into())), "debug,rmcp=warn");
        assert_eq!(filter_spec(Some("info,rmcp=info".into())), "info,rmcp=info");
    }
}
