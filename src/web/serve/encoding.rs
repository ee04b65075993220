//! Content codings (RFC 9110, section 8.4 and 12.5.3): the one a client asks
//! for in `Accept-Encoding` ([`chosen`]), and a text answer compressed in it
//! ([`compress`]).
//!
//! Offered: `br` (brotli), then `gzip`; an answer is sent as is when the
//! client names neither (no header, `identity`, `br;q=0, gzip;q=0`, `*;q=0`),
//! when it is smaller than [`THRESHOLD`], when it is not text (JSON, HTML,
//! Markdown, plain text, SVG, JavaScript, CSV) or is a stream
//! (`text/event-stream`), or when it is partial or empty (206, 204, 304, a
//! `HEAD`'s empty body). The choice follows the q-values; on a tie brotli
//! wins. An answer that could be compressed says `Vary: Accept-Encoding`,
//! compressed or not, so a shared cache keeps one copy per coding; a
//! compressed one gets a weak `ETag` (RFC 9110, section 8.8.1: the same
//! content in another coding is only weakly the same), so that `If-Range`
//! never joins bytes of two codings.
//!
//! Pages and documents are compressed per answer at a fast level
//! ([`DYNAMIC_BROTLI`], [`DYNAMIC_GZIP`]: a 180 KB page in a few
//! milliseconds); the static assets once, at the best level, when first
//! asked for ([`crate::web::render::assets`]). The answer is compressed whole in
//! memory before it is sent, so its `Content-Length` is known and the byte
//! budgets of admission (unsent HTTP/2 answers) count the bytes sent.

use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use axum::body::{Body, Bytes, HttpBody};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::response::Response;

/// Answers smaller than this are sent as they are: a lookup's JSON (about
/// 650 bytes) never pays for a compressor, and below a packet's size the
/// saving is nothing.
pub const THRESHOLD: usize = 1024;

/// Brotli quality of answers compressed per request (0-11): close to gzip's
/// speed, smaller than its best.
const DYNAMIC_BROTLI: u32 = 5;
/// gzip level of answers compressed per request (0-9).
const DYNAMIC_GZIP: u32 = 6;

/// `Vary: Accept-Encoding`.
pub const VARY_ENCODING: &str = "Accept-Encoding";

/// A content coding this service sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Br,
    Gzip,
}

impl Coding {
    /// The coding's name in `Content-Encoding`.
    pub fn name(self) -> &'static str {
        match self {
            Coding::Br => "br",
            Coding::Gzip => "gzip",
        }
    }

    /// `body` in this coding, at `best` (once, for an asset) or at the
    /// per-request level.
    pub fn encode(self, body: &[u8], best: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(body.len() / 3 + 64);
        match self {
            Coding::Br => {
                let quality = if best { 11 } else { DYNAMIC_BROTLI };
                let mut w = brotli::CompressorWriter::new(&mut out, 4096, quality, 22);
                // Writing to a Vec cannot fail.
                let _ = w.write_all(body);
                drop(w);
            }
            Coding::Gzip => {
                let level = if best { 9 } else { DYNAMIC_GZIP };
                let mut w =
                    flate2::write::GzEncoder::new(&mut out, flate2::Compression::new(level));
                let _ = w.write_all(body);
                let _ = w.finish();
            }
        }
        out
    }
}

/// The coding `Accept-Encoding` asks for, among those offered: the one
/// with the highest q-value (brotli on a tie), `*` standing for each coding
/// it does not name; `None` (identity) when there is no header or it
/// accepts neither. A coding given twice counts once, its first q-value;
/// an unreadable q-value counts as 0.
pub fn chosen(headers: &HeaderMap) -> Option<Coding> {
    let mut br = None;
    let mut gzip = None;
    let mut star = None;
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let name = parts.next().unwrap_or("").trim();
            let q = parts
                .find_map(|p| {
                    let (k, v) = p.split_once('=')?;
                    k.trim().eq_ignore_ascii_case("q").then(|| qvalue(v.trim()))
                })
                .unwrap_or(1000);
            let slot = if name.eq_ignore_ascii_case("br") {
                &mut br
            } else if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
                &mut gzip
            } else if name == "*" {
                &mut star
            } else {
                continue;
            };
            slot.get_or_insert(q);
        }
    }
    let br = br.or(star).unwrap_or(0);
    let gzip = gzip.or(star).unwrap_or(0);
    if br == 0 && gzip == 0 {
        None
    } else if br >= gzip {
        Some(Coding::Br)
    } else {
        Some(Coding::Gzip)
    }
}

/// A q-value (`1`, `0.5`, `0.125`) in thousandths; 0 if unreadable.
fn qvalue(v: &str) -> u32 {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    let digits = frac.len() <= 3 && frac.bytes().all(|b| b.is_ascii_digit());
    match int {
        "1" if digits && frac.bytes().all(|b| b == b'0') => 1000,
        "0" if digits => {
            let mut n = 0;
            for i in 0..3 {
                n = n * 10 + frac.as_bytes().get(i).map_or(0, |b| u32::from(b - b'0'));
            }
            n
        }
        _ => 0,
    }
}

/// Whether an answer of this media type is text worth compressing.
pub fn compressible(content_type: &[u8]) -> bool {
    let ct = content_type;
    let has = |needle: &[u8]| {
        ct.windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
    };
    if has(b"event-stream") {
        return false;
    }
    ct.len() >= 5 && ct[..5].eq_ignore_ascii_case(b"text/")
        || has(b"json")
        || has(b"xml")
        || has(b"javascript")
}

/// `response` compressed in `coding` (see the module documentation for
/// when it is not), with `Vary: Accept-Encoding` when it could have been.
/// `method`: the request's (a `HEAD`'s answer is never compressed: its body
/// is gone, and a `Content-Length` of the compressed size would need the
/// compressor run for nothing).
pub fn compress(mut response: Response, coding: Option<Coding>, method: &Method) -> Response {
    let status = response.status();
    if !status.is_success() && !status.is_client_error() && !status.is_server_error() {
        if status == StatusCode::NOT_MODIFIED && text(response.headers()) {
            add_vary(response.headers_mut());
        }
        return response;
    }
    if status == StatusCode::PARTIAL_CONTENT || status == StatusCode::NO_CONTENT {
        return response;
    }
    let headers = response.headers();
    if headers.contains_key(header::CONTENT_ENCODING)
        || headers.contains_key(header::CONTENT_RANGE)
        || !text(headers)
        || no_transform(headers)
    {
        return response;
    }
    let size = response.body().size_hint();
    let Some(len) = size.exact() else {
        return response;
    };
    if len < THRESHOLD as u64 {
        return response;
    }
    add_vary(response.headers_mut());
    let Some(coding) = coding else {
        return response;
    };
    if method == Method::HEAD {
        return response;
    }
    let Some(whole) = take_whole(response.body_mut()) else {
        return response;
    };
    let encoded = coding.encode(&whole, false);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_ENCODING,
        HeaderValue::from_static(coding.name()),
    );
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(encoded.len()));
    weaken_etag(headers);
    *response.body_mut() = Body::from(encoded);
    response
}

/// Whether the answer's `Content-Type` is compressible text.
fn text(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|ct| compressible(ct.as_bytes()))
}

fn no_transform(headers: &HeaderMap) -> bool {
    headers.get(header::CACHE_CONTROL).is_some_and(|cc| {
        cc.as_bytes()
            .windows(12)
            .any(|w| w.eq_ignore_ascii_case(b"no-transform"))
    })
}

/// A strong `ETag` made weak (`"x"` to `W/"x"`).
fn weaken_etag(headers: &mut HeaderMap) {
    let Some(etag) = headers.get(header::ETAG) else {
        return;
    };
    if etag.as_bytes().starts_with(b"\"") {
        let mut weak = b"W/".to_vec();
        weak.extend_from_slice(etag.as_bytes());
        if let Ok(v) = HeaderValue::from_bytes(&weak) {
            headers.insert(header::ETAG, v);
        }
    }
}

/// `Accept-Encoding` added to the answer's `Vary` (unless it is there or
/// `Vary` is `*`).
pub fn add_vary(headers: &mut HeaderMap) {
    let joined = match headers.get(header::VARY).and_then(|v| v.to_str().ok()) {
        Some(v) if v.trim() == "*" => return,
        Some(v)
            if v.split(',')
                .any(|n| n.trim().eq_ignore_ascii_case(VARY_ENCODING)) =>
        {
            return;
        }
        Some(v) if !v.trim().is_empty() => format!("{v}, {VARY_ENCODING}"),
        _ => VARY_ENCODING.to_owned(),
    };
    if let Ok(v) = HeaderValue::from_str(&joined) {
        headers.insert(header::VARY, v);
    }
}

/// The whole of a body that is already in memory (a page, a document): its
/// frames as far as they come without waiting. `None`, with the body left
/// as it was, for one that would wait (a stream) or fails.
fn take_whole(body: &mut Body) -> Option<Bytes> {
    let mut cx = Context::from_waker(Waker::noop());
    let mut whole: Option<Vec<u8>> = None;
    let mut first: Option<Bytes> = None;
    loop {
        match Pin::new(&mut *body).poll_frame(&mut cx) {
            Poll::Ready(None) => break,
            Poll::Ready(Some(Ok(frame))) => {
                let Ok(data) = frame.into_data() else {
                    // Trailers: never on these answers; keep what was read.
                    break;
                };
                match (&mut whole, &first) {
                    (None, None) => first = Some(data),
                    (None, Some(f)) => {
                        let mut v = f.to_vec();
                        v.extend_from_slice(&data);
                        whole = Some(v);
                    }
                    (Some(v), _) => v.extend_from_slice(&data),
                }
            }
            Poll::Ready(Some(Err(_))) | Poll::Pending => {
                // Put back what was read, in front of the rest.
                let read = whole.map(Bytes::from).or(first);
                let rest = std::mem::take(body);
                *body = match read {
                    Some(read) => Body::new(Prefixed {
                        prefix: Some(read),
                        rest,
                    }),
                    None => rest,
                };
                return None;
            }
        }
    }
    Some(whole.map(Bytes::from).or(first).unwrap_or_default())
}

/// A body whose first bytes were read already.
struct Prefixed {
    prefix: Option<Bytes>,
    rest: Body,
}

impl HttpBody for Prefixed {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        if let Some(prefix) = self.prefix.take() {
            return Poll::Ready(Some(Ok(http_body::Frame::data(prefix))));
        }
        Pin::new(&mut self.rest).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.prefix.is_none() && self.rest.is_end_stream()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asks(value: &str) -> Option<Coding> {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(value).unwrap(),
        );
        chosen(&h)
    }

    #[test]
    fn the_q_values_choose_the_coding() {
        assert_eq!(chosen(&HeaderMap::new()), None);
        assert_eq!(asks(""), None);
        assert_eq!(asks("identity"), None);
        assert_eq!(asks("gzip, deflate, br, zstd"), Some(Coding::Br));
        assert_eq!(asks("gzip, deflate"), Some(Coding::Gzip));
        assert_eq!(asks("deflate, gzip;q=1.0, *;q=0.5"), Some(Coding::Gzip));
        assert_eq!(asks("br;q=0, gzip"), Some(Coding::Gzip));
        assert_eq!(asks("br;q=0.5, gzip;q=0.8"), Some(Coding::Gzip));
        assert_eq!(asks("br;q=0.8, gzip;q=0.8"), Some(Coding::Br));
        assert_eq!(asks("*"), Some(Coding::Br));
        assert_eq!(asks("*;q=0"), None);
        assert_eq!(asks("*, br;q=0"), Some(Coding::Gzip));
        assert_eq!(asks("br;q=0, gzip;q=0"), None);
        assert_eq!(asks("GZIP;Q=0.001"), Some(Coding::Gzip));
        assert_eq!(asks("gzip;q=2"), None, "not a q-value");
        assert_eq!(asks("gzip;q=0.1234"), None, "not a q-value");
        assert_eq!(asks("x-gzip"), Some(Coding::Gzip));
        assert_eq!(asks("identity;q=0"), None);
    }

    #[test]
    fn what_is_compressed() {
        for t in [
            "application/json",
            "text/html; charset=utf-8",
            "text/markdown; charset=utf-8",
            "image/svg+xml",
            "text/javascript; charset=utf-8",
            "application/openapi+json",
            "text/csv",
        ] {
            assert!(compressible(t.as_bytes()), "{t}");
        }
        for t in ["text/event-stream", "image/png", "application/octet-stream"] {
            assert!(!compressible(t.as_bytes()), "{t}");
        }
    }

    #[test]
    fn a_page_is_compressed_and_a_small_answer_is_not() {
        let page = "<p>hello</p>".repeat(200);
        let mut r = Response::new(Body::from(page.clone()));
        r.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html"));
        r.headers_mut()
            .insert(header::VARY, HeaderValue::from_static("Accept"));
        r.headers_mut()
            .insert(header::ETAG, HeaderValue::from_static("\"t\""));
        let r = compress(r, Some(Coding::Gzip), &Method::GET);
        assert_eq!(r.headers()[header::CONTENT_ENCODING], "gzip");
        assert_eq!(r.headers()[header::VARY], "Accept, Accept-Encoding");
        assert_eq!(r.headers()[header::ETAG], "W/\"t\"");
        let len: usize = r.headers()[header::CONTENT_LENGTH]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(len < page.len() / 10, "{len}");

        let mut small = Response::new(Body::from("{}"));
        small.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        let small = compress(small, Some(Coding::Br), &Method::GET);
        assert!(small.headers().get(header::CONTENT_ENCODING).is_none());
        assert!(small.headers().get(header::VARY).is_none());
    }

    #[test]
    fn both_codings_decode_to_the_answer() {
        use std::io::Read;
        let page = "AS174 Cogent ".repeat(500);
        let gz = Coding::Gzip.encode(page.as_bytes(), false);
        let mut back = String::new();
        flate2::read::GzDecoder::new(gz.as_slice())
            .read_to_string(&mut back)
            .unwrap();
        assert_eq!(back, page);
        let br = Coding::Br.encode(page.as_bytes(), true);
        let mut back = Vec::new();
        brotli::Decompressor::new(br.as_slice(), 4096)
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, page.as_bytes());
    }
}
