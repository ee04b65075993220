//! The answers of the limits in front of every route, built in one place:
//! 414 (path and query too long), 429 (caller over the rate limit), 408
//! (request body late) and 503 (no request slot in time). The common layer
//! ([`super::common`]) decides when; this module says what.
//!
//! Each is an Error body in the route's error format
//! ([`super::routes::Route::errors`], the same as a 404 or 400 of that route
//! would be), or in the format `?format=` or `Accept` names if it is one of
//! the four offered. A refusal never turns into a 400 or 406 because the
//! request also asked for something else: the status stays the limit's.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use super::client::client_addr;
use super::negotiate::{self, Format};
use super::render::ErrorPage;
use super::respond::{Wants, error};
use super::routes::Route;
use super::slots::{Busy, Spent};
use super::state::AppState;
use crate::model::{self, ErrorCode};

/// `Retry-After` of a request that found no slot: the queue is short-lived.
const RETRY_SOON: HeaderValue = HeaderValue::from_static("1");
const CLOSE: HeaderValue = HeaderValue::from_static("close");

/// What a refusal of one request needs: what the request asks for and its route.
#[derive(Debug)]
pub struct Refusal {
    wants: Wants,
    route: &'static Route,
}

impl Refusal {
    /// The refusal of `request`, answered by `route`.
    pub fn of(request: &Request, route: &'static Route) -> Self {
        Refusal {
            wants: Wants::read(request.uri(), request.headers()),
            route,
        }
    }

    /// The refusal of a request whose head is `parts` (its body taken).
    pub fn of_parts(parts: &Parts, route: &'static Route) -> Self {
        Refusal {
            wants: Wants::read(&parts.uri, &parts.headers),
            route,
        }
    }

    /// 414: the path and query are longer than `max` bytes.
    pub fn uri_too_long(&self, max: usize) -> Response {
        self.answer(
            StatusCode::URI_TOO_LONG,
            ErrorCode::UriTooLong,
            format!("the path and query may hold at most {max} bytes"),
        )
    }

    /// 429 for `caller`, who may ask again in `wait`.
    pub fn rate_limited(&self, caller: std::net::IpAddr, wait: Duration) -> Response {
        let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
        let mut response = self.answer(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!(
                "too many requests from {caller} (limited per address, IPv6 per /64 and per /48); \
                 retry in {secs} s"
            ),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        response
    }

    /// 503: no request slot freed up within the queue timeout.
    pub fn overloaded(&self) -> Response {
        let mut response = self.answer(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Overloaded,
            "every request slot is busy; retry in 1 s".into(),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, RETRY_SOON);
        response
    }

    /// 503 for a batch that got no batch slot ([`Busy`]), with `Retry-After`.
    pub fn batch_busy(&self, busy: Busy) -> Response {
        let mut response = self.answer(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Overloaded,
            busy_text(busy),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, RETRY_SOON);
        response
    }

    /// The answer to a batch whose answer outgrew its bytes ([`Spent`]):
    /// 413 when it alone is over one client's share, else 503 with
    /// `Retry-After` (other answers hold the bytes for now).
    pub fn answer_spent(&self, spent: Spent, answered: usize, asked: usize) -> Response {
        metrics::counter!("iplookup_batch_answer_refused_total").increment(1);
        let text = spent_text(spent, answered, asked);
        if let Spent::Answer(_) = spent {
            return self.answer(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::BodyTooLarge, text);
        }
        let mut response =
            self.answer(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Overloaded, text);
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, RETRY_SOON);
        response
    }

    /// 400: the request's `Host` is missing, doubled or not a host (`why`).
    pub fn bad_host(&self, why: &str) -> Response {
        self.answer(StatusCode::BAD_REQUEST, ErrorCode::BadHost, why.into())
    }

    /// 408: the body did not arrive in time; the connection is closed after
    /// it (the rest of the body is not read).
    pub fn body_timeout(&self) -> Response {
        let mut response = self.answer(
            StatusCode::REQUEST_TIMEOUT,
            ErrorCode::BodyTimeout,
            "the request body did not arrive in time".into(),
        );
        response.headers_mut().insert(header::CONNECTION, CLOSE);
        response
    }

    /// `status` with an Error body, in the format the request names if it
    /// is offered, else the route's.
    fn answer(&self, status: StatusCode, code: ErrorCode, message: String) -> Response {
        let default = self.route.error_default(self.wants.kind());
        // A bad `?format=` is ignored (as for any error), then `Accept` decides.
        let asked = self.wants.format.as_deref();
        let asked = asked.filter(|f| Format::from_query(f).is_some());
        let format =
            negotiate::choose(asked, self.wants.accept.as_deref(), default).unwrap_or(default);
        let page = ErrorPage {
            input: None,
            status,
            body: model::Error::new(code, message),
        };
        let wants = Wants {
            format: Some(format.query_name().to_owned()),
            ..Wants::default()
        };
        error(page, &wants, format)
    }
}

/// Why a batch got no slot, in words.
pub fn busy_text(busy: Busy) -> String {
    match busy {
        Busy::Client(most) => format!(
            "this client has {most} batches in flight already, the most one client may; retry in 1 s"
        ),
        Busy::ClientBytes(most) => format!(
            "this client's answers in flight hold {} already, the most one client may; retry in 1 s",
            mib(most)
        ),
        Busy::All => "every batch slot is busy; retry in 1 s".into(),
    }
}

/// Why an answer could not be built, as an Error's message.
pub fn spent_text(spent: Spent, answered: usize, asked: usize) -> String {
    match spent {
        Spent::Answer(most) => format!(
            "the answer passed {}, the most one answer may hold, after {answered} of {asked} addresses (the data holds long values); send fewer addresses",
            mib(most)
        ),
        Spent::Client(most) => format!(
            "this client's answers in flight would hold more than {}, the most one client may; retry in 1 s",
            mib(most)
        ),
        Spent::All => "the answers in flight hold the whole answer budget; retry in 1 s".into(),
    }
}

/// Bytes in MiB, for people.
fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// The 429 answer when the caller of `request` (on `route`) is over its
/// limit; `None` to let the request through (no limit, a route the limit
/// spares, or a token left).
pub fn rate_limit(state: &AppState, request: &Request, route: &'static Route) -> Option<Response> {
    let limiter = state.limiter.as_ref()?;
    if !route.limited {
        return None;
    }
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>()?.0;
    let caller = client_addr(peer, request.headers(), &state.proxies);
    let wait = limiter.check(caller).err()?;
    metrics::counter!("iplookup_rate_limited_total").increment(1);
    Some(Refusal::of(request, route).rate_limited(caller, wait))
}

/// The 429 answer when the caller of the request `parts` (on `route`) has
/// not `n` more tokens (a batch of addresses: the request's own token was
/// taken by the common layer, see [`rate_limit`]); `None` when they were
/// taken, or there is no limit.
pub fn rate_limit_n(
    state: &AppState,
    parts: &Parts,
    route: &'static Route,
    n: u32,
) -> Option<Response> {
    let limiter = state.limiter.as_ref()?;
    if !route.limited || n == 0 {
        return None;
    }
    let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>()?.0;
    let caller = client_addr(peer, &parts.headers, &state.proxies);
    let wait = limiter.check_n(caller, n).err()?;
    metrics::counter!("iplookup_rate_limited_total").increment(1);
    Some(Refusal::of_parts(parts, route).rate_limited(caller, wait))
}
