//! The hyper service of one connection: hands each request to the routes
//! ([`Routes::call_from`], with the peer's address for the handlers), counts
//! it in the connection's [`Activity`] while it runs, and, for an HTTP/2
//! request, stamps the moment its response is ready for the stream's send
//! deadline ([`deadline`](super::deadline)) and charges it to the client's
//! share of unsent answers ([`unsent`](super::unsent)). A request from an
//! address at its cap of requests in flight is answered 503 at once
//! ([`per_address`](super::per_address)).

use std::cell::RefCell;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use axum::http::{Request, Version};
use axum::response::Response;
use hyper::body::Incoming;

use super::activity::Activity;
use super::deadline::{Handoff, Stamp};
use super::per_address::{self, Counted};
use super::unsent::{Shares, Shed};
use crate::web::clock;
use crate::web::hot::{Routes, RoutesFuture};

/// The service of one connection.
pub struct ConnService {
    /// Called from the connection's task only (HTTP/2 streams are spawned
    /// after the call), so a `RefCell` instead of a clone per request.
    routes: RefCell<Routes>,
    peer: SocketAddr,
    activity: Arc<Activity>,
    handoff: Arc<Handoff>,
    shares: Shares,
}

impl ConnService {
    pub fn new(
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
    type Error = Shed;
    type Future = Tracked;

    fn call(&self, request: Request<Incoming>) -> Tracked {
        // One read of the clock for the start (see `clock`).
        let _clock = clock::scope();
        let http2 = (request.version() == Version::HTTP_2)
            .then(|| (self.handoff.give(), self.shares.clone()));
        self.activity.start();
        let (inner, counted) =
            match per_address::count(self.shares.address.as_ref(), request.uri().path()) {
                Ok(counted) => {
                    let answer = self.routes.borrow_mut().call_from(request, self.peer);
                    (Inner::Answer(answer), counted)
                }
                Err(per_address::OverCap) => {
                    (Inner::Refused(Some(per_address::overloaded())), None)
                }
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
pub struct Tracked {
    inner: Inner,
    /// Until the request has ended.
    activity: Option<Arc<Activity>>,
    http2: Option<(Stamp, Shares)>,
    _counted: Option<Counted>,
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
    type Output = Result<Response, Shed>;

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
