//! A raw HTTP/1.1 client for the tests: exactly the request line and headers
//! written by the test go out (no default `Accept` or `User-Agent`), one
//! request per connection (`Connection: close`), and the whole response is
//! read back, its chunked body decoded.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A response read off the wire. Header names are lower case; the body is
/// text (every page of the service is UTF-8, and [`parse`] checks it).
#[derive(Debug)]
pub struct Wire {
    /// What was asked (`METHOD target`, or a URL), for failure messages.
    pub what: String,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Wire {
    /// The first value of a header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a header, in order.
    pub fn header_all(&self, name: &str) -> Vec<String> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The first value of a header that must be there.
    pub fn must(&self, name: &str) -> &str {
        self.header(name)
            .unwrap_or_else(|| panic!("{}: no {name} header in {:?}", self.what, self.headers))
    }

    pub fn text(&self) -> &str {
        &self.body
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("{}: body is not JSON ({e}): {:?}", self.what, self.body))
    }
}

/// The bytes of one request. A `host` entry in `headers` replaces `host`.
pub fn request(
    method: &str,
    target: &str,
    host: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Vec<u8> {
    let is_host = |k: &str| k.eq_ignore_ascii_case("host");
    let host = headers
        .iter()
        .find(|(k, _)| is_host(k))
        .map_or(host, |(_, v)| *v);
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers.iter().filter(|(k, _)| !is_host(k)) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// One exchange on a fresh connection (tokio); panics after 30 s.
pub async fn send(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Wire {
    let what = format!("{method} {target}");
    let bytes = request(method, target, &addr.to_string(), headers, body);
    let raw = exchange_bytes(addr, &bytes, b"", &what).await;
    parse(&raw, what, method == "HEAD")
}

/// One exchange of bytes the test wrote itself (`head`, framing included,
/// then `body`) on a fresh connection, the answer read until the server
/// closes; panics after 30 s. The server may answer and close before the
/// body is all sent: what it answered counts.
pub async fn exchange(addr: SocketAddr, head: &[u8], body: &[u8]) -> Wire {
    let what = String::from_utf8_lossy(head)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let raw = exchange_bytes(addr, head, body, &what).await;
    parse(&raw, what, head.starts_with(b"HEAD "))
}

async fn exchange_bytes(addr: SocketAddr, head: &[u8], body: &[u8], what: &str) -> Vec<u8> {
    let io = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        stream.write_all(head).await?;
        let _ = stream.write_all(body).await;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await?;
        Ok::<_, std::io::Error>(raw)
    };
    tokio::time::timeout(Duration::from_secs(30), io)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer in 30 s"))
        .unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// `GET target` on a fresh connection (blocking); panics after 15 s of silence.
pub fn get_blocking(addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> Wire {
    let what = format!("GET {target}");
    let raw = get_bytes(addr, target, headers).unwrap_or_else(|e| panic!("{what}: {e}"));
    parse(&raw, what, false)
}

/// [`get_blocking`] for polling a server that may not listen yet: `None`
/// while nothing answers (refused, reset, or 15 s of silence).
pub fn try_get_blocking(addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> Option<Wire> {
    let raw = get_bytes(addr, target, headers).ok()?;
    Some(parse(&raw, format!("GET {target}"), false))
}

fn get_bytes(addr: SocketAddr, target: &str, headers: &[(&str, &str)]) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(15)))?;
    stream.write_all(&request("GET", target, &addr.to_string(), headers, b""))?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    Ok(raw)
}

/// A whole response; `head_only` for the answer to a HEAD request (its
/// framing headers describe a body that is not sent).
pub fn parse(raw: &[u8], what: String, head_only: bool) -> Wire {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| {
            panic!(
                "{what}: no header block in {:?}",
                String::from_utf8_lossy(raw)
            )
        });
    let head = std::str::from_utf8(&raw[..split])
        .unwrap_or_else(|e| panic!("{what}: header block is not UTF-8: {e}"));
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{what}: bad status line {status_line:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked"));
    if chunked && !head_only {
        body = dechunk(&body, &what);
    }
    let body = String::from_utf8(body).unwrap_or_else(|e| panic!("{what}: body is not UTF-8: {e}"));
    Wire {
        what,
        status,
        headers,
        body,
    }
}

/// The data of a chunked body; panics on a malformed one.
pub fn dechunk(mut data: &[u8], what: &str) -> Vec<u8> {
    let bad = || -> ! { panic!("{what}: malformed chunked body") };
    let mut out = Vec::new();
    loop {
        let eol = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .unwrap_or_else(|| bad());
        let size_text = std::str::from_utf8(&data[..eol]).unwrap_or_else(|_| bad());
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).unwrap_or_else(|_| bad());
        data = &data[eol + 2..];
        if size == 0 {
            return out;
        }
        if data.len() < size {
            bad();
        }
        out.extend_from_slice(&data[..size]);
        data = data.get(size + 2..).unwrap_or_else(|| bad());
    }
}
