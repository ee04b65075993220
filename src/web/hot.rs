//! The hot route, `GET /api/v1/ip/{ip}`, answered without the router.
//!
//! It carries most of the API's traffic, and axum's routing, path extractor
//! and response mapping cost about as many instructions as the lookup and its
//! JSON together. So a plain `GET` of a plain address goes straight to the
//! handler's code ([`pages::api_ip_answer`]), through the same
//! [`common`](super::common) layer (limits, metrics, headers) as every routed
//! request. Anything else (another method, a percent-encoded or missing
//! address, a deeper path) goes to the router, which answers as it always has.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{ConnectInfo, Request};
use axum::http::Method;
use axum::response::Response;
use axum::routing::future::RouteFuture;
use tower::Service;

use super::common::{Common, CommonFuture};
use super::pages;
use super::respond::Wants;
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
        let mut request = request.map(Body::new);
        let hot = address(&request).is_some();
        if !hot || self.peer_on_hot {
            request.extensions_mut().insert(ConnectInfo(peer));
        }
        if hot {
            RoutesFuture::Hot(self.hot.call(request))
        } else {
            RoutesFuture::Routed(self.router.call(request))
        }
    }
}

/// The address of a request the hot route answers exactly as the router
/// would: a `GET` of one path segment with no percent-encoding.
fn address(request: &Request) -> Option<&str> {
    if request.method() != Method::GET {
        return None;
    }
    let rest = request.uri().path().strip_prefix(prefix())?;
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

/// The answer of the hot route (boxed: with reverse DNS it may wait).
pub type AnswerFuture = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

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
        Box::pin(async move {
            let wants = Wants::read(request.uri(), request.headers());
            let text = address(&request).unwrap_or_default();
            Ok(pages::api_ip_answer(&state, text, &wants).await)
        })
    }
}
