//! The hot route, `GET /api/v1/ip/{ip}`, answered without the router.
//!
//! It carries most of the API's traffic, and axum's routing, path extractor
//! and response mapping cost about as many instructions as the lookup and its
//! JSON together. So a plain `GET` of a plain address goes straight to the
//! handler's code ([`address::api_ip_answer`]), through the same
//! [`common`](super::common) layer (limits, metrics) as every routed request;
//! the layer's headers it puts on its answers itself, the whole set of a
//! successful answer built once per thread and copied
//! ([`respond::respond_finished`]). When reverse DNS is off the answer is
//! built in the call, with no future to box. Anything else (another method, a percent-encoded or missing
//! address, a deeper path) goes to the router, which answers as it always has.

use std::cell::RefCell;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{ConnectInfo, Request};
use axum::http::{Method, Uri};
use axum::response::Response;
use axum::routing::future::RouteFuture;
use tower::Service;

use super::common::{Common, CommonFuture};
use super::render;
use super::routes;
use crate::lookup;
use crate::model::IpInfo;
use crate::web::address;
use crate::web::serve::clock;
use crate::web::serve::encoding;
use crate::web::serve::negotiate::Format;
use crate::web::serve::respond::{self, Wants};
use crate::web::serve::state::AppState;

/// The prefix of the hot route's template ([`routes::API_IP`]); the rest of
/// the path is the address.
fn prefix() -> &'static str {
    let template = routes::API_IP.template;
    template.strip_suffix("{ip}").unwrap_or(template)
}

/// Every route: the hot one directly, the others through the router.
#[derive(Clone)]
pub struct Routes {
    hot: Common<ApiIp>,
    router: Router,
    /// Whether the hot route reads the peer's address (only the rate limit does).
    peer_on_hot: bool,
}

impl Routes {
    /// `hot` answers the requests [`address`] picks; `router` all others;
    /// `rate_limited`: whether the rate limit (which needs the peer's
    /// address) is on.
    pub fn new(hot: Common<ApiIp>, router: Router, rate_limited: bool) -> Self {
        Routes {
            hot,
            router,
            peer_on_hot: rate_limited,
        }
    }

    /// Answers `request` from `peer`, given to the handlers as
    /// `ConnectInfo<SocketAddr>`, except on the hot route when nothing there
    /// reads it (an extension costs two allocations per request).
    pub fn call_from<B>(
        &mut self,
        request: axum::http::Request<B>,
        peer: SocketAddr,
    ) -> RoutesFuture
    where
        B: HttpBody<Data = Bytes> + Send + 'static,
        B::Error: Into<axum::BoxError>,
    {
        if address_of(request.method(), request.uri()).is_none() {
            let mut request = request.map(Body::new);
            request.extensions_mut().insert(ConnectInfo(peer));
            return RoutesFuture::Routed(self.router.call(request));
        }
        // The hot route never reads the body: an ended one is not boxed.
        let mut request = if request.body().is_end_stream() {
            request.map(|_| Body::empty())
        } else {
            request.map(Body::new)
        };
        if self.peer_on_hot {
            request.extensions_mut().insert(ConnectInfo(peer));
        }
        RoutesFuture::Hot(self.hot.call(request))
    }
}

/// The address of a request the hot route answers exactly as the router
/// would: a `GET` of one path segment with no percent-encoding.
fn address(request: &Request) -> Option<&str> {
    address_of(request.method(), request.uri())
}

/// The address of a request [`Routes`] handed to [`ApiIp`], having
/// checked it with [`address`] (the only way a request reaches it): what
/// follows the prefix, without checking the rest again.
fn picked_address(request: &Request) -> &str {
    request
        .uri()
        .path()
        .strip_prefix(prefix())
        .unwrap_or_default()
}

fn address_of<'a>(method: &Method, uri: &'a Uri) -> Option<&'a str> {
    if method != Method::GET {
        return None;
    }
    let rest = uri.path().strip_prefix(prefix())?;
    let bytes = rest.as_bytes();
    (!bytes.is_empty() && one_plain_segment(bytes)).then_some(rest)
}

/// Whether `bytes` holds neither `/` nor `%`, read eight bytes at a time
/// (cheaper than two `memchr` scans of an address's length): a word has a
/// byte equal to `c` exactly when `w ^ (c * LOW)` has a zero byte, that is
/// when `(x - LOW) & !x & HIGH` is not zero.
fn one_plain_segment(bytes: &[u8]) -> bool {
    const LOW: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let zero_byte = |x: u64| x.wrapping_sub(LOW) & !x & HIGH;
    let odd =
        |w: u64| zero_byte(w ^ (LOW * u64::from(b'/'))) | zero_byte(w ^ (LOW * u64::from(b'%')));
    let chunks = bytes.chunks_exact(8);
    let tail = chunks.remainder();
    let found = chunks.fold(0, |found, chunk| {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        found | odd(u64::from_ne_bytes(w))
    });
    found == 0 && !tail.iter().any(|&b| b == b'/' || b == b'%')
}

impl<B> Service<axum::http::Request<B>> for Routes
where
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = RoutesFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Neither side ever waits (the router's routes and [`ApiIp`] are always ready).
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: axum::http::Request<B>) -> RoutesFuture {
        let request = request.map(Body::new);
        if address(&request).is_some() {
            RoutesFuture::Hot(self.hot.call(request))
        } else {
            RoutesFuture::Routed(self.router.call(request))
        }
    }
}

/// The future of [`Routes`].
pub enum RoutesFuture {
    Hot(CommonFuture<AnswerFuture>),
    Routed(RouteFuture<Infallible>),
}

impl Future for RoutesFuture {
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            RoutesFuture::Hot(f) => Pin::new(f).poll(cx),
            RoutesFuture::Routed(f) => Pin::new(f).poll(cx),
        }
    }
}

/// The answer of the hot route, with the common layer's headers (it leaves
/// them to this route, [`CommonLayer::for_finishing_route`](super::common::CommonLayer::for_finishing_route)):
/// built when first polled (once the request holds a slot) without waiting,
/// or boxed when it may wait (reverse DNS on).
// The request is held unboxed on purpose: boxing it would be one
// allocation per request, what this future exists to save (issue 24).
#[allow(clippy::large_enum_variant)]
pub enum AnswerFuture {
    /// The request, and the instant it started (its `local_time`).
    Now(Option<(Arc<AppState>, Request, Instant)>),
    Waiting(Pin<Box<dyn Future<Output = Response> + Send>>),
}

impl Future for AnswerFuture {
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            AnswerFuture::Now(request) => {
                let response = match request.take() {
                    Some((state, request, started)) => {
                        let wants =
                            Wants::read(request.uri(), request.headers()).with_public_url(&state);
                        let text = picked_address(&request);
                        json_now(&state, text, &wants, started).unwrap_or_else(|| {
                            let answer = address::api_ip_answer_now(&state, text, &wants, started);
                            compressed(answer, &request)
                        })
                    }
                    // Polled again after `Ready`: an empty 500.
                    None => {
                        let mut r = Response::default();
                        *r.status_mut() = axum::http::StatusCode::INTERNAL_SERVER_ERROR;
                        r
                    }
                };
                Poll::Ready(Ok(response))
            }
            AnswerFuture::Waiting(f) => f.as_mut().poll(cx).map(Ok),
        }
    }
}

/// The answer of [`address::api_ip_answer_now`] when it is a 200 in JSON
/// and the request names no `If-None-Match` (almost every request), built
/// without a [`Page`](super::render::Page): the answer is written over this
/// thread's [`IpInfo`] ([`lookup::describe_into`], no string allocated),
/// rendered into this thread's buffer and copied once into the body, under
/// the prebuilt headers ([`respond::prebuilt_json`]). `None` for every
/// other case (a refused format, another format, a bad address, a tag to
/// compare), which the general function answers.
fn json_now(state: &AppState, text: &str, wants: &Wants, started: Instant) -> Option<Response> {
    if wants.if_none_match.is_some() {
        return None;
    }
    let default = routes::API_IP.answer_default(wants.kind());
    if respond::negotiated(wants, default).ok()? != Format::Json {
        return None;
    }
    let ip = lookup::parse(text).ok()?;
    let db = state.lookup.current();
    let tag = db.tag();
    let reply = respond::Reply {
        default,
        caching: routes::API_IP.caching,
        etag: Some(tag.clone()),
    };
    let headers = respond::prebuilt_json(wants.lang, &reply, &tag, state.tls)?;
    let now = clock::utc(started);
    let body = ANSWER.with(|answer| {
        let mut answer = answer.try_borrow_mut().ok()?;
        let (info, out) = &mut *answer;
        lookup::describe_into(info, &db, ip, now);
        out.clear();
        render::lookup_json(out, info);
        Some(Bytes::copy_from_slice(out))
    })?;
    Some(respond::prebuilt_response(body, headers))
}

/// `answer` compressed as `request` asks ([`encoding`]): the answers
/// other than [`json_now`]'s (another format, an error). `json_now`'s are
/// never compressed (a lookup's JSON is below [`encoding::THRESHOLD`]), so
/// it reads no `Accept-Encoding` and costs the same with it as without.
fn compressed(answer: Response, request: &Request) -> Response {
    let coding = encoding::chosen(request.headers());
    encoding::compress(answer, coding, request.method())
}

thread_local! {
    /// This thread's last hot answer and its JSON: their memory is reused
    /// by the next (bounded by the longest answer the data holds).
    static ANSWER: RefCell<(IpInfo, Vec<u8>)> = RefCell::new((lookup::blank(), Vec::with_capacity(1024)));
}

/// `GET /api/v1/ip/{ip}` for the requests [`address`] picks: [`Routes`]
/// hands it those only.
#[derive(Clone)]
pub struct ApiIp {
    state: Arc<AppState>,
}

impl ApiIp {
    pub fn new(state: AppState) -> Self {
        ApiIp {
            state: Arc::new(state),
        }
    }
}

impl Service<Request> for ApiIp {
    type Response = Response;
    type Error = Infallible;
    type Future = AnswerFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> AnswerFuture {
        let state = self.state.clone();
        if state.lookup.answers_at_once() {
            // The request's start, read where it began (see `clock`).
            return AnswerFuture::Now(Some((state, request, clock::recent())));
        }
        AnswerFuture::Waiting(Box::pin(async move {
            let wants = Wants::read(request.uri(), request.headers()).with_public_url(&state);
            let text = picked_address(&request);
            let mut response = address::api_ip_answer(&state, text, &wants).await;
            // The common layer leaves its headers to this route.
            respond::layer_headers(response.headers_mut(), false, state.tls);
            compressed(response, &request)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::routes::{self, tests::router_choice};

    /// The hot route's matcher takes only paths the router gives the same
    /// route ([`routes::API_IP`]), and every plain address among them.
    #[tokio::test]
    async fn the_hot_matcher_agrees_with_the_router() {
        let paths = [
            "/api/v1/ip/8.8.8.8",
            "/api/v1/ip/2001:db8::1",
            "/api/v1/ip/not-an-ip",
            "/api/v1/ip/8.8.8.8%2F1",
            "/api/v1/ip/",
            "/api/v1/ip",
            "/api/v1/ip//asn",
            "/api/v1/ip/8.8.8.8/asn",
            "/api/v1/ip/8.8.8.8/",
            "/api/v1/ipx/8.8.8.8",
            "/api/v1/me",
            "/8.8.8.8",
        ];
        for path in paths {
            let uri: Uri = path.parse().unwrap();
            let hot = address_of(&Method::GET, &uri).is_some();
            let routed = router_choice(path).await == routes::API_IP.template;
            assert!(!hot || routed, "{path}: hot, routed elsewhere");
            let plain = !path.contains('%');
            assert_eq!(hot, routed && plain, "{path}");
            assert!(address_of(&Method::POST, &uri).is_none(), "{path}");
        }
    }

    #[test]
    fn the_word_scan_finds_every_slash_and_percent() {
        let by_byte = |b: &[u8]| !b.iter().any(|&c| c == b'/' || c == b'%');
        for len in 0..=40 {
            for background in [
                b'1',
                b'.',
                b':',
                0xff,
                0x00,
                b'.' - 1,
                b'/' + 1,
                b'%' - 1,
                0x80,
            ] {
                let mut s = vec![background; len];
                assert_eq!(one_plain_segment(&s), by_byte(&s), "{s:?}");
                for at in 0..len {
                    for b in 0..=255u8 {
                        s[at] = b;
                        assert_eq!(one_plain_segment(&s), by_byte(&s), "{s:?}");
                    }
                    s[at] = background;
                }
            }
        }
    }

    #[test]
    fn the_hot_route_takes_plain_gets_of_one_segment() {
        let picks = |method: Method, uri: &str| {
            address_of(&method, &uri.parse().unwrap()).map(str::to_owned)
        };
        assert_eq!(
            picks(Method::GET, "/api/v1/ip/8.8.8.8"),
            Some("8.8.8.8".into())
        );
        assert_eq!(
            picks(Method::GET, "/api/v1/ip/2001:db8::1?format=text"),
            Some("2001:db8::1".into())
        );
        assert_eq!(picks(Method::GET, "/api/v1/ip/"), None);
        assert_eq!(picks(Method::GET, "/api/v1/ip/8.8.8.8/country"), None);
        assert_eq!(picks(Method::GET, "/api/v1/ip/8.8.8.8%2F"), None);
        assert_eq!(picks(Method::GET, "/api/v1/ip/fe80::1%25eth0"), None);
        assert_eq!(picks(Method::HEAD, "/api/v1/ip/8.8.8.8"), None);
        assert_eq!(picks(Method::GET, "/api/v1/me"), None);
    }
}
