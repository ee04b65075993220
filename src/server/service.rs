//! The hyper service of one connection: hands each request to the routes
//! ([`Routes::call_from`], with the peer's address for the handlers), counts
//! it in the connection's [`Activity`] while it runs, and, for an HTTP/2
//! request, stamps the moment its response is ready for the stream's send
//! deadline ([`deadline`](super::deadline)) and charges it to the client's
//! share of unsent answers ([`unsent`]). A request from a client at its cap
//! of requests in flight is answered 503 at once ([`connections`]), in the
//! error format of the route it asked for ([`Refuser`]).
//!
//! [`unsent`]: crate::web::serve::admission::unsent
//! [`connections`]: crate::web::serve::admission::connections

use std::cell::RefCell;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::http::{HeaderValue, Request, Version, header};
use axum::response::Response;
use hyper::body::Incoming;

use super::activity::Activity;
use super::deadline::{Handoff, Stamp};
use crate::web::hot::{Routes, RoutesFuture};
use crate::web::routes;
use crate::web::serve::admission::Refusal;
use crate::web::serve::admission::connections::InFlight;
use crate::web::serve::admission::unsent::Shares;
use crate::web::serve::clock;
use crate::web::serve::refusal::Refuser;

/// The service of one connection.
pub(crate) struct ConnService {
    /// Called from the connection's task only (HTTP/2 streams are spawned
    /// after the call), so a `RefCell` instead of a clone per request.
    routes: RefCell<Routes>,
    peer: SocketAddr,
    activity: Arc<Activity>,
    handoff: Arc<Handoff>,
    shares: Shares,
}

impl ConnService {
    pub(crate) fn new(
        routes: Routes,
        peer: SocketAddr,
        activity: Arc<Activity>,
        handoff: Arc<Handoff>,
        shares: Shares,
    ) -> Self {
        ConnService {
            routes: RefCell::new(routes),
            peer,
            activity,
            handoff,
            shares,
        }
    }
}

impl hyper::service::Service<Request<Incoming>> for ConnService {
    type Response = Response;
    type Error = Refusal;
    type Future = Tracked;

    fn call(&self, request: Request<Incoming>) -> Tracked {
        // One read of the clock for the start (see `clock`).
        let _clock = clock::scope();
        let http2 = (request.version() == Version::HTTP_2)
            .then(|| (self.handoff.give(), self.shares.clone()));
        self.activity.start();
        let (inner, counted) = match self.shares.count_request(request.uri().path()) {
            Ok(counted) => {
                let answer = self.routes.borrow_mut().call_from(request, self.peer);
                (Inner::Answer(answer), counted)
            }
            Err(refusal) => (Inner::Refused(Some(refused(&request, refusal))), None),
        };
        Tracked {
            inner,
            activity: Some(self.activity.clone()),
            http2,
            _counted: counted,
        }
    }
}

/// A request's answer, counted in flight until it is ready or dropped;
/// for HTTP/2, stamped for the send deadline and charged to the shares.
pub(crate) struct Tracked {
    inner: Inner,
    /// Until the request has ended.
    activity: Option<Arc<Activity>>,
    http2: Option<(Stamp, Shares)>,
    _counted: Option<InFlight>,
}

/// The answer of a request admission refused, in its route's error format.
/// Outside the common layer, so with the one header of that layer's that
/// an error needs (`X-Content-Type-Options`).
fn refused<B>(request: &Request<B>, refusal: Refusal) -> Response {
    let route = routes::for_path(request.uri().path());
    let mut response = Refuser::of(request, route).refused(refusal);
    response
        .headers_mut()
        .entry(header::X_CONTENT_TYPE_OPTIONS)
        .or_insert(HeaderValue::from_static("nosniff"));
    response
}

/// The answer of the routes, or the 503 of an address at its cap.
// Not boxed: the answer is the case of every request, and a box would be
// one allocation per request on the hot route (issue 24).
#[allow(clippy::large_enum_variant)]
enum Inner {
    Answer(RoutesFuture),
    Refused(Option<Response>),
}

impl Future for Tracked {
    type Output = Result<Response, Refusal>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // One read of the clock for the end (see `clock`).
        let _clock = clock::scope();
        let response = match &mut this.inner {
            Inner::Answer(answer) => {
                let Ok(response) = ready!(Pin::new(answer).poll(cx));
                response
            }
            Inner::Refused(refused) => refused.take().unwrap_or_default(),
        };
        if let Some(activity) = this.activity.take() {
            activity.end();
        }
        Poll::Ready(match &this.http2 {
            Some((stamp, shares)) => {
                stamp.ready();
                shares.charge(response)
            }
            None => Ok(response),
        })
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        // Dropped before its answer was ready.
        if let Some(activity) = self.activity.take() {
            activity.end();
        }
    }
}
