//! The one layer every request passes through, as a single tower service with
//! a concrete future: request metrics, CORS, the URI length limit, the rate
//! limit, the in-flight cap, the request timeout, and the fixed response
//! headers (`Link` to the API catalog, `X-Content-Type-Options`, HSTS).
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
//! 4. a path and query longer than the limit: 414;
//! 5. a caller over its rate limit: 429;
//! 6. at most `max_in_flight` requests are handled at once, others wait;
//! 7. a request still running after `request_timeout` (counted from the
//!    moment it is admitted): 503 with an empty body;
//! 8. on every response, the handler's and the ones above (preflight, 414,
//!    429, 503): `X-Content-Type-Options: nosniff` unless present, and
//!    `Link: </.well-known/api-catalog>` appended.
//!
//! The timeout timer is only armed when the handler does not finish on its
//! first poll (a lookup without reverse DNS never waits), so the common case
//! costs no timer.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use tokio::sync::{AcquireError, OwnedSemaphorePermit, Semaphore};
use tower::{Layer, Service};

use super::metrics::{RouteMetrics, route_metrics};
use super::{AppState, Limits, pages, ratelimit};

const LINK: HeaderValue =
    HeaderValue::from_static("</.well-known/api-catalog>; rel=\"api-catalog\"");
const NOSNIFF: HeaderValue = HeaderValue::from_static("nosniff");
const HSTS: HeaderValue = HeaderValue::from_static("max-age=31536000");
const ANY: HeaderValue = HeaderValue::from_static("*");
const EXPOSED: HeaderValue = HeaderValue::from_static("etag,link,retry-after");
const PREFLIGHT_METHODS: HeaderValue = HeaderValue::from_static("GET,HEAD,POST");
const PREFLIGHT_MAX_AGE: HeaderValue = HeaderValue::from_static("86400");

/// What the layer needs, shared by every route.
#[derive(Debug)]
struct Shared {
    state: AppState,
    max_uri_bytes: usize,
    request_timeout: Duration,
    in_flight: Arc<Semaphore>,
}

/// The common layer (see the module documentation).
#[derive(Debug, Clone)]
pub struct CommonLayer {
    shared: Arc<Shared>,
}

impl CommonLayer {
    /// The layer for `state` (its rate limiter and proxies, and whether it
    /// serves TLS) with these limits.
    pub fn new(state: AppState, limits: &Limits) -> Self {
        CommonLayer {
            shared: Arc::new(Shared {
                state,
                max_uri_bytes: limits.max_uri_bytes,
                request_timeout: limits.request_timeout,
                in_flight: Arc::new(Semaphore::new(limits.max_in_flight.max(1))),
            }),
        }
    }

    /// The layer around `inner`, a service outside the router that answers
    /// the one route `route` (its metrics are counted under that name).
    pub fn for_route<S>(&self, route: &str, inner: S) -> Common<S> {
        Common {
            inner,
            shared: self.shared.clone(),
            route: Some(route_metrics(route)),
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
        }
    }
}

/// The service of [`CommonLayer`] around `S` (an axum route).
#[derive(Debug, Clone)]
pub struct Common<S> {
    inner: S,
    shared: Arc<Shared>,
    /// The route's metrics, if fixed; else the router's matched path decides.
    route: Option<&'static RouteMetrics>,
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
        let started = Instant::now();
        let metrics = self.route.unwrap_or_else(|| {
            route_metrics(
                request
                    .extensions()
                    .get::<MatchedPath>()
                    .map_or("unmatched", MatchedPath::as_str),
            )
        });
        let shared = &self.shared;
        let preflight = request.method() == Method::OPTIONS;
        let early = if preflight {
            // `/mcp` refuses a preflight from an origin it would refuse.
            super::mcp::preflight_refusal(&shared.state, &request)
                .or_else(|| Some(preflight_answer()))
        } else if uri_bytes(&request) > shared.max_uri_bytes {
            Some(pages::uri_too_long(shared.max_uri_bytes))
        } else {
            ratelimit::refusal(&shared.state, &request)
        };
        let stage = match early {
            Some(response) => Stage::Done(Some(response)),
            None => {
                let future = self.inner.call(request);
                match shared.in_flight.clone().try_acquire_owned() {
                    Ok(permit) => Stage::Running {
                        future,
                        _permit: permit,
                        admitted: started,
                        timer: None,
                    },
                    Err(_) => Stage::Waiting {
                        future: Some(future),
                        acquire: Box::pin(shared.in_flight.clone().acquire_owned()),
                    },
                }
            }
        };
        CommonFuture {
            stage,
            shared: self.shared.clone(),
            metrics,
            started,
            preflight,
        }
    }
}

/// Waiting for a permit of the in-flight cap.
type Acquire = Pin<Box<dyn Future<Output = Result<OwnedSemaphorePermit, AcquireError>> + Send>>;

enum Stage<F> {
    /// Answered without the handler (preflight, 414, 429), or already taken.
    Done(Option<Response>),
    /// Over the in-flight cap: waiting for a permit.
    Waiting { future: Option<F>, acquire: Acquire },
    /// The handler runs.
    Running {
        future: F,
        _permit: OwnedSemaphorePermit,
        admitted: Instant,
        /// Armed the first time the handler is not ready.
        timer: Option<Pin<Box<tokio::time::Sleep>>>,
    },
}

/// The future of [`Common`].
pub struct CommonFuture<F> {
    stage: Stage<F>,
    shared: Arc<Shared>,
    metrics: &'static RouteMetrics,
    started: Instant,
    preflight: bool,
}

impl<F> Future for CommonFuture<F>
where
    F: Future<Output = Result<Response, Infallible>> + Unpin,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let response = loop {
            match &mut this.stage {
                Stage::Done(response) => {
                    break response
                        .take()
                        .unwrap_or_else(|| status_only(StatusCode::INTERNAL_SERVER_ERROR));
                }
                Stage::Waiting { future, acquire } => {
                    let permit = match ready!(acquire.as_mut().poll(cx)) {
                        Ok(permit) => permit,
                        // The semaphore is never closed.
                        Err(_) => {
                            this.stage =
                                Stage::Done(Some(status_only(StatusCode::SERVICE_UNAVAILABLE)));
                            continue;
                        }
                    };
                    let Some(future) = future.take() else {
                        this.stage =
                            Stage::Done(Some(status_only(StatusCode::INTERNAL_SERVER_ERROR)));
                        continue;
                    };
                    this.stage = Stage::Running {
                        future,
                        _permit: permit,
                        admitted: Instant::now(),
                        timer: None,
                    };
                }
                Stage::Running {
                    future,
                    admitted,
                    timer,
                    ..
                } => {
                    if let Poll::Ready(Ok(response)) = Pin::new(future).poll(cx) {
                        break response;
                    }
                    let timer = timer.get_or_insert_with(|| {
                        Box::pin(tokio::time::sleep_until(
                            (*admitted + this.shared.request_timeout).into(),
                        ))
                    });
                    ready!(timer.as_mut().poll(cx));
                    // Dropping the stage drops the handler and frees the permit.
                    this.stage = Stage::Done(None);
                    break status_only(StatusCode::SERVICE_UNAVAILABLE);
                }
            }
        };
        this.stage = Stage::Done(None);
        Poll::Ready(Ok(this.finish(response)))
    }
}

impl<F> CommonFuture<F> {
    /// The headers of every response, then the metrics.
    fn finish(&self, mut response: Response) -> Response {
        fixed_headers(&mut response);
        let headers = response.headers_mut();
        if !self.preflight {
            // The CORS headers of a simple request.
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, ANY);
            headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED);
        }
        if self.shared.state.tls && !headers.contains_key(header::STRICT_TRANSPORT_SECURITY) {
            headers.insert(header::STRICT_TRANSPORT_SECURITY, HSTS);
        }
        self.metrics
            .record(response.status(), self.started.elapsed());
        response
    }
}

/// The headers added to every response.
fn fixed_headers(response: &mut Response) {
    let headers = response.headers_mut();
    headers.append(header::LINK, LINK);
    if !headers.contains_key(header::X_CONTENT_TYPE_OPTIONS) {
        headers.insert(header::X_CONTENT_TYPE_OPTIONS, NOSNIFF);
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

fn uri_bytes(request: &Request) -> usize {
    request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len())
}
