//! Each client address's requests in flight (`--max-in-flight-per-ip`).
//!
//! `--max-in-flight` bounds the requests of all clients together, so without
//! a share per address one client could hold every slot: HTTP/2 streams that
//! announce a body and never send it each keep a slot until the body
//! deadline, and 11 connections of 100 such streams held all 1,024, so
//! everyone else got 503. Here a request from an address already at its cap
//! gets 503 `overloaded` (JSON, `Retry-After: 1`) at once, before any slot or
//! handler. The connections of one address (IPv6: one /64) share the count
//! ([`Address::requests`]); trusted proxies have none (they carry many
//! callers, and buffer what they pass on); `/healthz` and `/metrics` are
//! never counted, so probes are answered whatever a client holds.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use crate::connections::Address;
use crate::model::{self, ErrorCode};
use crate::web::routes;

/// One request counted against its address, given back on drop.
#[derive(Debug)]
pub struct Counted(Arc<Address>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.requests.give_back(1);
    }
}

/// The address is at its cap.
#[derive(Debug)]
pub struct OverCap;

/// Counts a request for `path` against `address` (`None`: a trusted proxy):
/// `Ok(None)` when it is not counted, `OverCap` when the address is at its
/// cap (answer it with [`overloaded`]).
pub fn count(address: Option<&Arc<Address>>, path: &str) -> Result<Option<Counted>, OverCap> {
    let Some(address) = address else {
        return Ok(None);
    };
    if path == routes::HEALTHZ.template || path == routes::METRICS.template {
        return Ok(None);
    }
    if !address.requests.take(1) {
        metrics::counter!("iplookup_overloaded_total").increment(1);
        metrics::counter!("iplookup_per_ip_in_flight_refused_total").increment(1);
        return Err(OverCap);
    }
    Ok(Some(Counted(address.clone())))
}

/// 503 `overloaded` in JSON (the route, and so its error format, is not
/// known yet).
pub fn overloaded() -> Response {
    let error = model::Error {
        error: ErrorCode::Overloaded,
        message: Some("too many requests from this address are in flight; retry in 1 s".into()),
    };
    let body = serde_json::to_vec(&error).unwrap_or_default();
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}
