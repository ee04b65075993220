//! Choosing the format of a response: `?format=` first, then the `Accept`
//! header (q-values and wildcards), then the route's default, which for pages
//! depends on whether the caller is a command-line client or a browser.
//!
//! One rule on top: where the default is JSON (the API,
//! [`crate::web::routes::JSON`]), `Accept` never picks HTML. A browser's
//! `Accept: text/html,...` gets the JSON answer there, so a page's "JSON"
//! link opens JSON; HTML is given only on `?format=html`.

use std::fmt;

/// The four renderings of every page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Json,
    Text,
    Markdown,
    Html,
}

impl Format {
    /// All formats, in the order the server prefers them on a tie.
    pub const ALL: [Format; 4] = [Format::Json, Format::Text, Format::Html, Format::Markdown];

    /// The `Content-Type` this format is sent with.
    pub const fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Text => "text/plain; charset=utf-8",
            Format::Markdown => "text/markdown; charset=utf-8",
            Format::Html => "text/html; charset=utf-8",
        }
    }

    /// The media type without parameters.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Text => "text/plain",
            Format::Markdown => "text/markdown",
            Format::Html => "text/html",
        }
    }

    /// The `?format=` value naming this format.
    pub fn query_name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Text => "text",
            Format::Markdown => "md",
            Format::Html => "html",
        }
    }

    /// Parses a `?format=` value (`json`, `text`/`txt`/`plain`, `md`/`markdown`, `html`).
    pub fn from_query(value: &str) -> Option<Format> {
        match value.to_ascii_lowercase().as_str() {
            "json" => Some(Format::Json),
            "text" | "txt" | "plain" => Some(Format::Text),
            "md" | "markdown" => Some(Format::Markdown),
            "html" => Some(Format::Html),
            _ => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.query_name())
    }
}

/// Why no format could be chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoFormat {
    /// `?format=` names no format (400).
    BadFormat(String),
    /// Nothing in `Accept` is offered (406).
    NotAcceptable,
}

/// Picks the format: `query` (the `format` parameter), then `accept`, then
/// `default`. When `default` is JSON, HTML is offered to `?format=html` only:
/// `Accept` is weighed among JSON, text and Markdown, and an `Accept` that
/// takes HTML but none of those gets the default (as RFC 9110 section 12.5.1
/// allows: the header is disregarded rather than answered with 406).
pub fn choose(
    query: Option<&str>,
    accept: Option<&str>,
    default: Format,
) -> Result<Format, NoFormat> {
    if let Some(q) = query {
        return Format::from_query(q)
            .ok_or_else(|| NoFormat::BadFormat(q.chars().take(40).collect()));
    }
    let Some(accept) = accept.map(str::trim).filter(|a| !a.is_empty()) else {
        return Ok(default);
    };
    // The values most clients send, answered as the general code below
    // answers them, without parsing.
    match accept {
        "*/*" => return Ok(default),
        "application/json" => return Ok(Format::Json),
        _ => {}
    }
    by_ranges(accept, default)
}

/// The format the media ranges of `accept` give (the general case).
fn by_ranges(accept: &str, default: Format) -> Result<Format, NoFormat> {
    let ranges = parse_accept(accept);
    let html_by_accept = default != Format::Json;
    let mut best: Option<(u16, bool, Format)> = None;
    for format in Format::ALL {
        if format == Format::Html && !html_by_accept {
            continue;
        }
        let q = quality(&ranges, format.media_type());
        if q == 0 {
            continue;
        }
        let candidate = (q, format == default, format);
        if best.is_none_or(|(bq, bd, _)| (q, format == default) > (bq, bd)) {
            best = Some(candidate);
        }
    }
    match best {
        Some((_, _, format)) => Ok(format),
        None if !html_by_accept && quality(&ranges, Format::Html.media_type()) > 0 => Ok(default),
        None => Err(NoFormat::NotAcceptable),
    }
}

/// One media range of an `Accept` header, with its quality in thousandths.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MediaRange {
    kind: String,
    subtype: String,
    q: u16,
}

fn parse_accept(header: &str) -> Vec<MediaRange> {
    header
        .split(',')
        .filter_map(|item| {
            let mut parts = item.split(';');
            let (kind, subtype) = parts.next()?.trim().split_once('/')?;
            let mut q = 1000;
            for param in parts {
                if let Some((k, v)) = param.split_once('=') {
                    if k.trim().eq_ignore_ascii_case("q") {
                        q = parse_q(v.trim())?;
                    }
                }
            }
            Some(MediaRange {
                kind: kind.trim().to_ascii_lowercase(),
                subtype: subtype.trim().to_ascii_lowercase(),
                q,
            })
        })
        .collect()
}

/// A q-value (`0`, `0.5`, `1.000`) in thousandths; invalid values drop the range.
fn parse_q(v: &str) -> Option<u16> {
    let value: f64 = v.parse().ok()?;
    if !(0.0..=1.0).contains(&value) || v.len() > 5 {
        return None;
    }
    Some((value * 1000.0).round() as u16)
}

/// The quality the most specific matching range gives `media` (0 if none matches).
fn quality(ranges: &[MediaRange], media: &str) -> u16 {
    let (kind, subtype) = media.split_once('/').unwrap_or((media, ""));
    ranges
        .iter()
        .filter_map(|r| {
            let specificity = match (r.kind.as_str(), r.subtype.as_str()) {
                (k, s) if k == kind && s == subtype => 3,
                (k, "*") if k == kind => 2,
                ("*", "*") => 1,
                _ => return None,
            };
            Some((specificity, r.q))
        })
        .max_by_key(|(specificity, _)| *specificity)
        .map_or(0, |(_, q)| q)
}

/// Who is asking, as far as a route's default format goes
/// ([`crate::web::routes::Defaults`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientKind {
    /// A web browser (`Mozilla/...` or `Opera/...`, and not a known tool).
    Browser,
    /// A known command-line client or HTTP library, or no `User-Agent`.
    CommandLine,
    /// Any other program.
    Other,
}

impl ClientKind {
    /// The kind of the client that sent `user_agent`.
    pub fn of(user_agent: Option<&str>) -> Self {
        let Some(ua) = user_agent else {
            return ClientKind::CommandLine;
        };
        // The most common command-line client, known without a copy.
        if ua.starts_with("curl/") {
            return ClientKind::CommandLine;
        }
        let ua = ua.to_ascii_lowercase();
        if TOOLS.iter().any(|t| ua.contains(t)) {
            ClientKind::CommandLine
        } else if ua.starts_with("mozilla/") || ua.starts_with("opera/") {
            ClientKind::Browser
        } else {
            ClientKind::Other
        }
    }
}

/// Parts of the `User-Agent` of known command-line clients and HTTP
/// libraries (lower case).
const TOOLS: &[&str] = &[
    "curl/",
    "wget/",
    "httpie/",
    "xh/",
    "powershell",
    "go-http-client",
    "ddclient",
    "mikrotik",
    "fetch",
    "libfetch",
    "aria2",
    "python-requests",
    "python-urllib",
    "python-httpx",
    "aiohttp",
    "okhttp",
    "java/",
    "libwww-perl",
    "lwp::",
    "node-fetch",
    "undici",
    "axios",
    "reqwest",
    "ruby",
    "http.rb",
    "guzzle",
    "winhttp",
    "busybox",
    "openbsd ftp",
];

/// Whether a `User-Agent` belongs to a command-line client or a script rather
/// than a browser: anything that does not look like a browser is a program.
pub fn is_command_line(user_agent: Option<&str>) -> bool {
    ClientKind::of(user_agent) != ClientKind::Browser
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_kinds_by_user_agent() {
        let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/142.0";
        assert_eq!(ClientKind::of(Some(chrome)), ClientKind::Browser);
        assert_eq!(ClientKind::of(Some("curl/8.14.1")), ClientKind::CommandLine);
        assert_eq!(ClientKind::of(None), ClientKind::CommandLine);
        assert_eq!(ClientKind::of(Some("SomeBot/1.0")), ClientKind::Other);
    }

    #[test]
    fn query_parameter_wins() {
        assert_eq!(
            choose(Some("md"), Some("application/json"), Format::Html),
            Ok(Format::Markdown)
        );
        assert_eq!(choose(Some("TEXT"), None, Format::Json), Ok(Format::Text));
        assert_eq!(
            choose(Some("xml"), None, Format::Json),
            Err(NoFormat::BadFormat("xml".into()))
        );
    }

    #[test]
    fn accept_with_q_values_and_wildcards() {
        let pick = |a| choose(None, Some(a), Format::Html);
        assert_eq!(pick("text/html;q=0.9, text/markdown"), Ok(Format::Markdown));
        assert_eq!(pick("application/*"), Ok(Format::Json));
        assert_eq!(pick("*/*"), Ok(Format::Html));
        assert_eq!(choose(None, Some("*/*"), Format::Json), Ok(Format::Json));
        assert_eq!(
            pick("text/*;q=0.5, application/json;q=0.4"),
            Ok(Format::Html)
        );
        assert_eq!(pick("text/plain, */*;q=0.1"), Ok(Format::Text));
        assert_eq!(pick("TEXT/MARKDOWN"), Ok(Format::Markdown));
        assert_eq!(pick("text/html;q=0, */*"), Ok(Format::Json));
        assert_eq!(
            pick("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"),
            Ok(Format::Html)
        );
    }

    /// The values answered without parsing get what parsing gives them.
    #[test]
    fn the_fast_path_answers_as_the_general_code() {
        for default in Format::ALL {
            for accept in ["*/*", "application/json", " */* "] {
                let general = by_ranges(accept.trim(), default);
                assert_eq!(
                    choose(None, Some(accept), default),
                    general,
                    "{accept} {default:?}"
                );
            }
        }
        for ua in ["curl/8.14.1", "curl/"] {
            assert_eq!(ClientKind::of(Some(ua)), ClientKind::CommandLine);
        }
    }

    /// A browser's `Accept` never turns a JSON answer
    /// into a page; `?format=html` still does.
    #[test]
    fn accept_never_picks_html_where_the_default_is_json() {
        let json = |a| choose(None, Some(a), Format::Json);
        for browser in [
            "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "text/html",
            "text/html, image/png",
        ] {
            assert_eq!(json(browser), Ok(Format::Json), "{browser}");
        }
        assert_eq!(json("text/*"), Ok(Format::Text));
        assert_eq!(json("text/html, text/markdown;q=0.1"), Ok(Format::Markdown));
        assert_eq!(json("text/html, text/plain;q=0.5"), Ok(Format::Text));
        assert_eq!(json("image/png"), Err(NoFormat::NotAcceptable));
        assert_eq!(json("text/html;q=0"), Err(NoFormat::NotAcceptable));
        assert_eq!(
            choose(Some("html"), Some("text/html"), Format::Json),
            Ok(Format::Html)
        );
        // Pages keep HTML by `Accept`, whatever their default.
        assert_eq!(
            choose(None, Some("text/html"), Format::Text),
            Ok(Format::Html)
        );
    }

    #[test]
    fn unsatisfiable_accept_is_refused() {
        assert_eq!(
            choose(None, Some("image/png"), Format::Html),
            Err(NoFormat::NotAcceptable)
        );
        assert_eq!(
            choose(None, Some("*/*;q=0"), Format::Html),
            Err(NoFormat::NotAcceptable)
        );
        assert_eq!(
            choose(None, Some("garbage"), Format::Html),
            Err(NoFormat::NotAcceptable)
        );
    }

    #[test]
    fn empty_accept_gives_the_default() {
        assert_eq!(choose(None, Some(""), Format::Text), Ok(Format::Text));
        assert_eq!(choose(None, None, Format::Json), Ok(Format::Json));
    }

    #[test]
    fn command_line_clients_are_recognised() {
        for ua in [
            "curl/8.14.1",
            "Wget/1.25.0",
            "HTTPie/3.2.4",
            "xh/0.24.1",
            "Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.26100; en-US) PowerShell/7.5.1",
            "Mozilla/5.0 (Windows NT; Windows NT 10.0; en-US) WindowsPowerShell/5.1.26100.4061",
            "Go-http-client/1.1",
            "ddclient/3.11.2",
            "Mikrotik/7.x Fetch",
            "fetch libfetch/2.0",
            "python-requests/2.32.3",
        ] {
            assert!(is_command_line(Some(ua)), "{ua}");
        }
        assert!(is_command_line(None));
        for ua in [
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1",
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:145.0) Gecko/20100101 Firefox/145.0",
        ] {
            assert!(!is_command_line(Some(ua)), "{ua}");
        }
    }
}
