//! The one layer every request passes through, as a single tower service with
//! a concrete future: request metrics, CORS, the URI length limit, the rate
//! limit, the in-flight cap, the request timeout, and the fixed response
//! headers (`Link` to the API catalog, `X-Content-Type-Options`, HSTS).
//!
//! Every refusal here (414, 429, 408, 503 with a body) is built by
//! [`crate::web::serve::refusal`] in the error format of the request's route
//! ([`super::routes`]), which this layer finds by the router's matched path
//! (or, for the hot route, knows).
//!
//! These used to be eight stacked layers (three `from_fn` middlewares,
//! tower-http's CORS, timeout and two set-header layers, tower's global
//! concurrency limit). Inside an axum router each of them cloned the whole
//! stack below it on every request and boxed its future, which cost as much
//! as the lookup and its JSON together. The behaviour is the same, in the
//! same order, outermost first:
//!
//! 1. metrics: every response is counted by route and status and timed;
//! 2. HSTS (`Strict-Transport-Security`, when serving TLS), unless present;
//! 3. CORS: any `OPTIONS` request is a preflight, answered here (200, allow
//!    any origin and header, `GET, HEAD, POST`, max age one day; for `/mcp`,
//!    403 to an origin `/mcp` refuses, see [`super::mcp`]); every other
//!    response gets `Access-Control-Allow-Origin: *` and the exposed headers;
//! 4. a `Host` that is missing (HTTP/1.1), doubled or not a `host[:port]`
//!    ([`crate::web::serve::host`]): 400 `bad_host` (RFC 9112, section 3.2); a path and
//!    query longer than the limit: 414;
//! 5. a caller over its rate limit: 429 (on the routes the table marks
//!    limited, [`super::routes::Route::limited`]);
//! 6. at most `max_in_flight` requests are handled at once; others wait for
//!    a slot at most `queue_timeout`, then get 503 with `Retry-After: 1` and
//!    an Error body (`overloaded`) in the route's error format. `/healthz`
//!    and `/metrics` neither wait nor take a slot, so probes and scrapers
//!    are answered however busy the service is;
//! 7. a request body must have arrived `header_timeout` after the request
//!    entered this layer (its head was read), or the request gets 408 (Error
//!    body `body_timeout`, `Connection: close`) and its handler is dropped,
//!    which frees its slot: a body sent a byte at a time holds a slot no
//!    longer than that;
//! 8. a request still running after `request_timeout` (counted from the
//!    moment it is admitted): 503 with an empty body;
//! 9. on every response, the handler's and the ones above (preflight, 414,
//!    429, 408, 503): `X-Content-Type-Options: nosniff` unless present, and
//!    `Link: </.well-known/api-catalog>` appended; a 200 to a `GET` or `HEAD`
//!    with `If-None-Match: *` becomes 304 (RFC 9110 section 13.1.2: `*`
//!    matches any current representation). These headers, CORS's and
//!    HSTS are [`crate::web::serve::respond::layer_headers`]; the hot route's handler
//!    puts them on its own answers ([`CommonLayer::for_finishing_route`]),
//!    so that it can build a whole answer's headers once and copy them;
//! 10. last, a text answer of [`crate::web::serve::encoding::THRESHOLD`] bytes or more
//!     is compressed as `Accept-Encoding` asks (br, gzip) and says `Vary:
//!     Accept-Encoding` ([`crate::web::serve::encoding`]); the hot route compresses its
//!     own (its JSON is always below the threshold).
//!
//! The timers are only armed when they can matter: the request timeout and
//! the body deadline when the handler does not finish on its first poll (a
//! lookup without reverse DNS never waits), the body deadline only for a
//! request with a body, the queue timeout only for a request that has to
//! wait. So the common case costs no timer.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use http_body::Frame;
use tokio::sync::{AcquireError, OwnedSemaphorePermit, Semaphore};
use tower::{Layer, Service};

use super::routes::{self, Route};
use crate::web::serve::metrics::{RouteMetrics, route_metrics};
use crate::web::serve::refusal::{self, Refuser};
use crate::web::serve::state::{AppState, Limits};

const ANY: HeaderValue = crate::web::serve::respond::ANY;
const PREFLIGHT_METHODS: HeaderValue = HeaderValue::from_static("GET,HEAD,POST");
const PREFLIGHT_MAX_AGE: HeaderValue = HeaderValue::from_static("86400");

/// What the layer needs, shared by every route.
#[derive(Debug)]
struct Shared {
    state: AppState,
    max_uri_bytes: usize,
    request_timeout: Duration,
    /// Longest wait for a slot.
    queue_timeout: Duration,
    /// Time for the body to arrive, from the moment the head was read.
    body_timeout: Duration,
    in_flight: Arc<Semaphore>,
}

/// The common layer (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct CommonLayer {
    shared: Arc<Shared>,
}

impl CommonLayer {
    /// The layer for `state` (its rate limiter and proxies, and whether it
    /// serves TLS) with these limits.
    pub(crate) fn new(state: AppState, limits: &Limits) -> Self {
        CommonLayer {
            shared: Arc::new(Shared {
                state,
                max_uri_bytes: limits.max_uri_bytes,
                request_timeout: limits.request_timeout,
                queue_timeout: limits.queue_timeout,
                body_timeout: limits.header_timeout,
                in_flight: Arc::new(Semaphore::new(limits.max_in_flight.max(1))),
            }),
        }
    }

    /// The layer around `inner`, a service outside the router that answers
    /// the one route `route` (its metrics are counted under its template)
    /// and puts the layer's headers on its answers itself
    /// ([`crate::web::serve::respond::layer_headers`]): only on the answers this layer
    /// gives (refusals, timeouts) does the layer put them.
    pub(crate) fn for_finishing_route<S>(&self, route: &'static Route, inner: S) -> Common<S> {
        Common {
            inner,
            shared: self.shared.clone(),
            route: Some((route, route_metrics(route.template))),
            inner_finishes: true,
        }
    }
}

impl<S> Layer<S> for CommonLayer {
    type Service = Common<S>;

    fn layer(&self, inner: S) -> Common<S> {
        Common {
            inner,
            shared: self.shared.clone(),
            route: None,
            inner_finishes: false,
        }
    }
}

/// The service of [`CommonLayer`] around `S` (an axum route).
#[derive(Debug, Clone)]
pub struct Common<S> {
    inner: S,
    shared: Arc<Shared>,
    /// The route and its metrics, if fixed; else the router's matched path
    /// decides (the route table's fallback for an unmatched one).
    route: Option<(&'static Route, &'static RouteMetrics)>,
    /// The inner service puts the layer's headers on its answers itself.
    inner_finishes: bool,
}

impl<S> Service<Request> for Common<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
    S::Future: Unpin,
{
    type Response = Response;
    type Error = Infallible;
    type Future = CommonFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let started = crate::web::serve::clock::recent();
        let (route, metrics) = self.route.unwrap_or_else(|| route_of(&request));
        let shared = &self.shared;
        let preflight = request.method() == Method::OPTIONS;
        let if_none_match = crate::web::serve::policy::if_none_match(&request);
        // The hot route compresses its own answers (`super::hot`).
        let coding = if self.inner_finishes {
            None
        } else {
            crate::web::serve::encoding::chosen(request.headers())
        };
        let head = request.method() == Method::HEAD;
        let early = if preflight {
            // `/mcp` refuses a preflight from an origin it would refuse.
            super::mcp::preflight_refusal(&shared.state, &request)
                .or_else(|| Some(preflight_answer()))
        } else if let Some(why) = host_problem(&request) {
            Some(Refuser::of(&request, route).bad_host(why))
        } else if uri_bytes(&request) > shared.max_uri_bytes {
            Some(Refuser::of(&request, route).uri_too_long(shared.max_uri_bytes))
        } else {
            refusal::rate_limit(&shared.state, &request, route)
        };
        let stage = match early {
            Some(response) => Stage::Done(Some(response)),
            None => self.admit(request, started, route),
        };
        CommonFuture {
            stage,
            shared: self.shared.clone(),
            metrics,
            started,
            preflight,
            inner_finishes: self.inner_finishes,
            route,
            if_none_match,
            coding,
            head,
        }
    }
}

impl<S> Common<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    /// Hands `request` to the handler: at once if it is exempt from the
    /// in-flight cap or a slot is free, else after waiting for one.
    fn admit(
        &mut self,
        request: Request,
        started: Instant,
        route: &'static Route,
    ) -> Stage<S::Future> {
        let shared = &self.shared;
        let (request, body) = watch_body(request, started + shared.body_timeout, route);
        if !route.limited {
            // Probes and scrapers: no slot, no wait.
            return Stage::Running(Running::new(self.inner.call(request), None, started, body));
        }
        match shared.in_flight.clone().try_acquire_owned() {
            Ok(permit) => Stage::Running(Running::new(
                self.inner.call(request),
                Some(permit),
                started,
                body,
            )),
            Err(_) => {
                let refusal = Refuser::of(&request, route);
                Stage::Waiting(Box::new(Waiting {
                    future: Some(self.inner.call(request)),
                    acquire: Box::pin(shared.in_flight.clone().acquire_owned()),
                    deadline: Box::pin(tokio::time::sleep(shared.queue_timeout)),
                    refusal,
                    body,
                }))
            }
        }
    }
}

/// Waiting for a permit of the in-flight cap.
type Acquire = Pin<Box<dyn Future<Output = Result<OwnedSemaphorePermit, AcquireError>> + Send>>;

enum Stage<F> {
    /// Answered without the handler (preflight, 414, 429), or already taken.
    Done(Option<Response>),
    /// Over the in-flight cap: waiting for a permit (boxed: the rare case).
    Waiting(Box<Waiting<F>>),
    /// The handler runs (not boxed: the common case costs no allocation).
    Running(Running<F>),
}

/// A request waiting for a slot.
struct Waiting<F> {
    future: Option<F>,
    acquire: Acquire,
    /// The end of the wait (`queue_timeout`).
    deadline: Pin<Box<tokio::time::Sleep>>,
    refusal: Refuser,
    body: Option<Box<BodyWatch>>,
}

/// A request whose handler runs.
struct Running<F> {
    future: F,
    /// The slot, unless the route is exempt from the cap.
    _permit: Option<OwnedSemaphorePermit>,
    admitted: Instant,
    /// Armed the first time the handler is not ready.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    /// The body still to arrive, if any (boxed: the rare case).
    body: Option<Box<BodyWatch>>,
}

impl<F> Running<F> {
    fn new(
        future: F,
        permit: Option<OwnedSemaphorePermit>,
        admitted: Instant,
        body: Option<Box<BodyWatch>>,
    ) -> Self {
        Running {
            future,
            _permit: permit,
            admitted,
            timer: None,
            body,
        }
    }
}

/// The future of [`Common`].
pub struct CommonFuture<F> {
    stage: Stage<F>,
    shared: Arc<Shared>,
    metrics: &'static RouteMetrics,
    started: Instant,
    preflight: bool,
    /// The handler's answers carry the layer's headers already.
    inner_finishes: bool,
    /// The request's route, whose policy the answer gets ([`crate::web::serve::policy`]).
    route: &'static Route,
    /// The `If-None-Match` of a `GET` or `HEAD`.
    if_none_match: Option<HeaderValue>,
    /// The content coding the request accepts ([`crate::web::serve::encoding`]).
    coding: Option<crate::web::serve::encoding::Coding>,
    /// A `HEAD` request.
    head: bool,
}

impl<F> Future for CommonFuture<F>
where
    F: Future<Output = Result<Response, Infallible>> + Unpin,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // Whether the answer is the handler's (not a refusal or timeout of this layer).
        let mut from_inner = false;
        let response = loop {
            match &mut this.stage {
                Stage::Done(response) => {
                    break response
                        .take()
                        .unwrap_or_else(|| status_only(StatusCode::INTERNAL_SERVER_ERROR));
                }
                Stage::Waiting(waiting) => match poll_waiting(waiting, cx) {
                    Poll::Ready(Ok(permit)) => {
                        let Some(future) = waiting.future.take() else {
                            this.stage =
                                Stage::Done(Some(status_only(StatusCode::INTERNAL_SERVER_ERROR)));
                            continue;
                        };
                        this.stage = Stage::Running(Running::new(
                            future,
                            Some(permit),
                            Instant::now(),
                            waiting.body.take(),
                        ));
                    }
                    Poll::Ready(Err(response)) => break response,
                    Poll::Pending => return Poll::Pending,
                },
                Stage::Running(running) => {
                    let timeout = this.shared.request_timeout;
                    let (response, handler) = ready!(poll_running(running, timeout, cx));
                    from_inner = handler;
                    break response;
                }
            }
        };
        this.stage = Stage::Done(None);
        let finished = from_inner && this.inner_finishes;
        Poll::Ready(Ok(this.finish(response, finished)))
    }
}

impl<F> CommonFuture<F> {
    /// The route's policy and the headers of every response (unless
    /// `finished` has them), then the metrics.
    fn finish(&self, mut response: Response, finished: bool) -> Response {
        let fill = !finished && !self.preflight;
        crate::web::serve::policy::apply(
            self.route,
            &mut response,
            self.if_none_match.as_ref(),
            fill,
        );
        if !finished {
            let tls = self.shared.state.tls;
            crate::web::serve::respond::layer_headers(response.headers_mut(), self.preflight, tls);
            let method = if self.head { Method::HEAD } else { Method::GET };
            response = crate::web::serve::encoding::compress(response, self.coding, &method);
        }
        self.metrics.record(
            response.status(),
            crate::web::serve::clock::now().saturating_duration_since(self.started),
        );
        response
    }
}

/// A permit, or the 503 answer once the wait is over.
fn poll_waiting<F>(
    waiting: &mut Waiting<F>,
    cx: &mut Context<'_>,
) -> Poll<Result<OwnedSemaphorePermit, Response>> {
    match waiting.acquire.as_mut().poll(cx) {
        Poll::Ready(Ok(permit)) => return Poll::Ready(Ok(permit)),
        // The semaphore is never closed.
        Poll::Ready(Err(_)) => {}
        Poll::Pending => ready!(waiting.deadline.as_mut().poll(cx)),
    }
    metrics::counter!("iplookup_overloaded_total").increment(1);
    Poll::Ready(Err(waiting.refusal.overloaded()))
}

/// The handler's answer (and `true`), or 408 when the body is late, or 503
/// at the request timeout. Either way the handler is dropped when this returns
/// `Ready`, which frees the slot.
fn poll_running<F>(
    running: &mut Running<F>,
    timeout: Duration,
    cx: &mut Context<'_>,
) -> Poll<(Response, bool)>
where
    F: Future<Output = Result<Response, Infallible>> + Unpin,
{
    if let Poll::Ready(Ok(response)) = Pin::new(&mut running.future).poll(cx) {
        return Poll::Ready((response, true));
    }
    if let Some(watch) = &mut running.body {
        match watch.poll_late(cx) {
            Poll::Ready(true) => return Poll::Ready((watch.too_late(), false)),
            Poll::Ready(false) => running.body = None,
            Poll::Pending => {}
        }
    }
    let admitted = running.admitted;
    let timer = running
        .timer
        .get_or_insert_with(|| Box::pin(tokio::time::sleep_until((admitted + timeout).into())));
    ready!(timer.as_mut().poll(cx));
    Poll::Ready((status_only(StatusCode::SERVICE_UNAVAILABLE), false))
}

/// Watches the body of a request for its deadline.
struct BodyWatch {
    /// Set by [`WatchedBody`] once the body has ended.
    done: Arc<AtomicBool>,
    deadline: Instant,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    refusal: Refuser,
}

impl BodyWatch {
    /// `Ready(true)` when the deadline passed before the body ended,
    /// `Ready(false)` once the body has ended.
    fn poll_late(&mut self, cx: &mut Context<'_>) -> Poll<bool> {
        if self.done.load(Ordering::Acquire) {
            return Poll::Ready(false);
        }
        let deadline = self.deadline;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline.into())));
        ready!(timer.as_mut().poll(cx));
        Poll::Ready(!self.done.load(Ordering::Acquire))
    }

    /// The 408 answer; the connection is closed after it (the rest of the
    /// body is not read).
    fn too_late(&self) -> Response {
        metrics::counter!("iplookup_body_timeouts_total").increment(1);
        self.refusal.body_timeout()
    }
}

/// `request` with its body watched, if it has one.
fn watch_body(
    request: Request,
    deadline: Instant,
    route: &'static Route,
) -> (Request, Option<Box<BodyWatch>>) {
    if request.body().is_end_stream() {
        return (request, None);
    }
    let refusal = Refuser::of(&request, route);
    let done = Arc::new(AtomicBool::new(false));
    let request = request.map(|inner| {
        Body::new(WatchedBody {
            inner,
            done: done.clone(),
        })
    });
    let watch = BodyWatch {
        done,
        deadline,
        timer: None,
        refusal,
    };
    (request, Some(Box::new(watch)))
}

/// A request body that says when it has ended (or failed).
struct WatchedBody {
    inner: Body,
    done: Arc<AtomicBool>,
}

impl HttpBody for WatchedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let frame = ready!(Pin::new(&mut self.inner).poll_frame(cx));
        if !matches!(frame, Some(Ok(_))) || self.inner.is_end_stream() {
            self.done.store(true, Ordering::Release);
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// The answer to a CORS preflight (any `OPTIONS` request).
fn preflight_answer() -> Response {
    let mut response = Response::new(Body::empty());
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, PREFLIGHT_METHODS);
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, ANY);
    headers.insert(header::ACCESS_CONTROL_MAX_AGE, PREFLIGHT_MAX_AGE);
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY);
    response
}

/// An empty response with only a status.
fn status_only(status: StatusCode) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

/// What is wrong with the request's `Host` (RFC 9112, section 3.2: an
/// HTTP/1.1 request must carry exactly one, and a server must answer 400
/// to a missing one, to two, or to one that is not a `host[:port]`); the
/// links of the description documents are built from it. An empty `Host`
/// is allowed, as is none in HTTP/1.0 and HTTP/2 (whose `:authority` the
/// request line holds).
fn host_problem(request: &Request) -> Option<&'static str> {
    let mut hosts = request.headers().get_all(header::HOST).iter();
    let Some(host) = hosts.next() else {
        return (request.version() == axum::http::Version::HTTP_11)
            .then_some("an HTTP/1.1 request must name its Host");
    };
    if hosts.next().is_some() {
        return Some("the Host header is given more than once");
    }
    if host.is_empty() || crate::web::serve::host::is_host_and_port(host.as_bytes()) {
        return None;
    }
    Some("the Host header is not a host name or address with an optional port")
}

fn uri_bytes(request: &Request) -> usize {
    request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len())
}

/// The route of a request the router matched (`MatchedPath`, whose template
/// names it in the table), else the fallback (404) of its path, and the
/// metrics it is counted under. The router's matcher is the only one (the
/// hot route's is held equal to it by a test, [`super::hot`]).
fn route_of(request: &Request) -> (&'static Route, &'static RouteMetrics) {
    let path = request.uri().path();
    match request.extensions().get::<MatchedPath>() {
        Some(matched) => {
            let route =
                routes::by_template(matched.as_str()).unwrap_or_else(|| routes::fallback(path));
            (route, route_metrics(matched.as_str()))
        }
        None => (routes::fallback(path), route_metrics("unmatched")),
    }
}
