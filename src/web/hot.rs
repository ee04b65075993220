//! The hot route, `GET /api/v1/ip/{ip}`, answered without the router.
//!
//! It carries most of the API's traffic, and axum's routing, path extractor
//! and response mapping cost about as many instructions as the lookup and its
//! JSON together. So a plain `GET` of a plain address goes straight to the
//! handler's code ([`pages::api_ip_answer`]), through the same
//! [`common`](super::common) layer (limits, metrics) as every routed request;
//! the layer's headers it puts on its answers itself, the whole set of a
//! successful answer built once per thread and copied
//! ([`respond::respond_finished`]). When reverse DNS is off the answer is
//! built in the call, with no future to box. Anything else (another method, a percent-encoded or missing
//! address, a deeper path) goes to the router, which answers as it always has.

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

use super::clock;
use super::common::{Common, CommonFuture};
use super::pages;
use super::respond::{self, Wants};
use super::routes;
use super::state::AppState;

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

fn address_of<'a>(method: &Method, uri: &'a Uri) -> Option<&'a str> {
    if method != Method::GET {
        return None;
    }
    let rest = uri.path().strip_prefix(prefix())?;
    // Two `memchr` scans (a word at a time) cost less than one loop over bytes.
    let bytes = rest.as_bytes();
    let plain = !bytes.is_empty() && !bytes.contains(&b'/') && !bytes.contains(&b'%');
    plain.then_some(rest)
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
                        let wants = Wants::read(request.uri(), request.headers());
                        let text = address(&request).unwrap_or_default();
                        pages::api_ip_answer_now(&state, text, &wants, started)
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

/// `GET /api/v1/ip/{ip}` for the requests [`address`] picks.
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
            let wants = Wants::read(request.uri(), request.headers());
            let text = address(&request).unwrap_or_default();
            let mut response = pages::api_ip_answer(&state, text, &wants).await;
            // The common layer leaves its headers to this route.
            respond::layer_headers(response.headers_mut(), false, state.tls);
            response
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
}
