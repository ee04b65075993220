//! The answers of the limits in front of every route, built in one place:
//! 414 (path and query too long), 429 (caller over the rate limit), 408
//! (request body late), 503 (no request slot in time) and admission's no's
//! ([`super::admission::Refusal`]: 503, or 413 for an answer too large). The
//! common layer ([`crate::web::common`]), admission's callers and the server
//! decide when; this module says what.
//!
//! Each is an Error body in the route's error format
//! ([`crate::web::routes::Route::errors`], the same as a 404 or 400 of that route
//! would be), or in the format `?format=` or `Accept` names if it is one of
//! the four offered. A refusal never turns into a 400 or 406 because the
//! request also asked for something else: the status stays the limit's.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Uri};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use super::admission::Refusal;
use super::client::client_addr;
use super::negotiate::{self, Format};
use super::respond::{Wants, error};
use super::state::AppState;
use crate::model::{self, ErrorCode};
use crate::web::render::ErrorPage;
use crate::web::routes::Route;

/// `Retry-After` of a request that found no slot: the queue is short-lived.
const RETRY_SOON: HeaderValue = HeaderValue::from_static("1");
const CLOSE: HeaderValue = HeaderValue::from_static("close");

/// What the refusal of one request needs: what the request asks for and its route.
#[derive(Debug)]
pub(crate) struct Refuser {
    wants: Wants,
    route: &'static Route,
}

impl Refuser {
    /// The refusal of `request` (of any body), answered by `route`.
    pub(crate) fn of<B>(request: &axum::http::Request<B>, route: &'static Route) -> Self {
        Self::of_head(request.uri(), request.headers(), route)
    }

    /// The refusal of a request whose head is `parts` (its body taken).
    pub(crate) fn of_parts(parts: &Parts, route: &'static Route) -> Self {
        Self::of_head(&parts.uri, &parts.headers, route)
    }

    fn of_head(uri: &Uri, headers: &HeaderMap, route: &'static Route) -> Self {
        Refuser {
            wants: Wants::read(uri, headers),
            route,
        }
    }

    /// 414: the path and query are longer than `max` bytes.
    pub(crate) fn uri_too_long(&self, max: usize) -> Response {
        self.answer(
            StatusCode::URI_TOO_LONG,
            ErrorCode::UriTooLong,
            format!("the path and query may hold at most {max} bytes"),
        )
    }

    /// 429 for `caller`, who may ask again in `wait`.
    pub(crate) fn rate_limited(&self, caller: std::net::IpAddr, wait: Duration) -> Response {
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
    pub(crate) fn overloaded(&self) -> Response {
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

    /// Admission's no ([`Refusal`]): 503 with `Retry-After`, or 413 for
    /// an answer that alone is over one client's share.
    pub(crate) fn refused(&self, refusal: Refusal) -> Response {
        self.refused_after(refusal, 0, 0)
    }

    /// Admission's no to an answer refused after `answered` of `asked`
    /// addresses (said when the answer alone is too large).
    pub(crate) fn refused_after(
        &self,
        refusal: Refusal,
        answered: usize,
        asked: usize,
    ) -> Response {
        let text = refusal.text_after(answered, asked);
        let mut response = self.answer(refusal.status(), refusal.code(), text);
        if refusal.retry_soon() {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, RETRY_SOON);
        }
        response
    }

    /// 400: the request's `Host` is missing, doubled or not a host (`why`).
    pub(crate) fn bad_host(&self, why: &str) -> Response {
        self.answer(StatusCode::BAD_REQUEST, ErrorCode::BadHost, why.into())
    }

    /// 408: the body did not arrive in time; the connection is closed after
    /// it (the rest of the body is not read).
    pub(crate) fn body_timeout(&self) -> Response {
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

/// The 429 answer when the caller of `request` (on `route`) is over its
/// limit; `None` to let the request through (no limit, a route the limit
/// spares, or a token left).
pub(crate) fn rate_limit(
    state: &AppState,
    request: &Request,
    route: &'static Route,
) -> Option<Response> {
    let limiter = state.limiter.as_ref()?;
    if !route.limited {
        return None;
    }
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>()?.0;
    let caller = client_addr(peer, request.headers(), &state.proxies);
    let wait = limiter.check(caller).err()?;
    metrics::counter!("iplookup_rate_limited_total").increment(1);
    Some(Refuser::of(request, route).rate_limited(caller, wait))
}

/// The 429 answer when the caller of the request `parts` (on `route`) has
/// not `n` more tokens (a batch of addresses: the request's own token was
/// taken by the common layer, see [`rate_limit`]); `None` when they were
/// taken, or there is no limit.
pub(crate) fn rate_limit_n(
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
    Some(Refuser::of_parts(parts, route).rate_limited(caller, wait))
}

/// `response`, a large answer, charged to its client's share of answer
/// bytes until it is sent or dropped
/// ([`super::admission::batch::BatchSlots::charge_answer`]), or admission's
/// refusal (503, `Retry-After: 1`) in `route`'s error format.
pub(crate) fn charged(
    state: &AppState,
    parts: &Parts,
    route: &'static Route,
    response: Response,
) -> Response {
    let client = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| {
            client_addr(c.0, &parts.headers, &state.proxies)
        });
    match state.batch_slots.charge_answer(client, response) {
        Ok(response) => response,
        Err(refusal) => {
            metrics::counter!("iplookup_batch_answer_refused_total").increment(1);
            Refuser::of_parts(parts, route).refused(refusal)
        }
    }
}
