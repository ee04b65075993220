//! Logs to standard error, as text or JSON lines, filtered by `IPLOOKUP_LOG`
//! (`info` by default). The MCP library logs three lines per `/mcp` request
//! at `info`, which any client could turn into a flood, so its logs are
//! kept to warnings unless the filter names it (`IPLOOKUP_LOG=info,rmcp=info`).
//!
//! Log lines carry bytes that clients choose (the MCP library logs a
//! JSON-RPC request's `id` as it came). JSON lines escape them; text lines
//! go through [`Clean`], which writes every control and bidi character as
//! an escape (`\u{1b}`), a line break inside a line included, so that no
//! request can retitle the operator's terminal or forge a log line. Text
//! lines are therefore written without colours.

use std::io::{self, Write};

use iplookup::fields::sanitize::is_unsafe;

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
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    if format == "json" {
        builder.with_writer(io::stderr).json().init();
    } else {
        builder
            .with_ansi(false)
            .with_writer(|| Clean(io::stderr()))
            .init();
    }
}

/// A writer of text log lines that escapes what a terminal would act on.
/// The formatter hands it one whole line per write, its line break last.
struct Clean<W>(W);

impl<W: Write> Write for Clean<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write_all(clean(buf).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// `line` with every control or bidi character but a final line break
/// written as `\u{..}` (bytes that are not UTF-8 as U+FFFD).
fn clean(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let (body, end) = match text.strip_suffix('\n') {
        Some(body) => (body, "\n"),
        None => (&*text, ""),
    };
    let mut out = String::with_capacity(text.len());
    for c in body.chars() {
        if is_unsafe(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out.push_str(end);
    out
}

#[cfg(test)]
mod tests {
    use super::{clean, filter_spec};

    #[test]
    fn the_mcp_library_is_kept_to_warnings_unless_named() {
        assert_eq!(filter_spec(None), "info,rmcp=warn");
        assert_eq!(filter_spec(Some("debug".into())), "debug,rmcp=warn");
        assert_eq!(filter_spec(Some("info,rmcp=info".into())), "info,rmcp=info");
    }

    #[test]
    fn escapes_and_inner_line_breaks_are_written_as_escapes() {
        let line = "WARN rmcp: id=\u{1b}]0;pwned\u{7}\u{1b}[31mRED\nINFO fake\u{202e}line\n";
        assert_eq!(
            clean(line.as_bytes()),
            "WARN rmcp: id=\\u{1b}]0;pwned\\u{7}\\u{1b}[31mRED\\u{a}INFO fake\\u{202e}line\n"
        );
        assert_eq!(clean(b"plain \xff text"), "plain \u{fffd} text");
    }
}
