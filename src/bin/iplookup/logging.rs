//! Logs to standard error, as text or JSON lines, filtered by `IPLOOKUP_LOG`
//! (`info` by default).

pub fn init(format: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("IPLOOKUP_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}
