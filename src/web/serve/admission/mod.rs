//! Admission: what one client, and all clients together, may hold at once,
//! in one place. Four limits, each with its flag, default and metric:
//!
//! - [`connections`]: open connections, in all (`--max-connections`) and
//!   per client (`--max-connections-per-ip`), refused on arrival; and each
//!   client's requests in flight (`--max-in-flight-per-ip`), answered 503
//!   at once;
//! - [`batch`]: batch answers (`POST /api/v1/ip`, MCP `lookup_ips`) built or
//!   unsent at once (`--batch-max-in-flight`) and the bytes they hold
//!   (`--batch-answer-mib`, [`batch::Meter`]);
//! - [`unsent`]: HTTP/2 answers waiting to be sent, charged by their size.
//!
//! (The global `--max-in-flight` slots and the rate limit are the common
//! layer's, [`crate::web::common`], since every route's policy is applied there;
//! the rate limiter, [`super::ratelimit`], counts callers by the same key.)
//!
//! They share one client key ([`client_key`]: IPv4 whole, IPv6 by its /64,
//! IPv4-mapped IPv6 as IPv4), one per-client count ([`count::PerClient`],
//! which forgets a client holding nothing) and byte budget
//! ([`count::Share`]), one response body that holds a guard until it is sent
//! or dropped ([`body::Guarded`]), and one [`Refusal`], answered in the
//! route's error format by [`super::refusal`] (an unsent answer that does not
//! fit and a connection over a cap get no answer: the stream is reset, the
//! connection closed).

pub mod batch;
pub mod body;
pub mod connections;
pub mod count;
pub mod unsent;

use std::net::IpAddr;

use axum::http::StatusCode;

use crate::model::ErrorCode;

/// The key a client is counted under: IPv4 addresses whole (as their
/// IPv4-mapped form), IPv6 addresses by their /64; an IPv4-mapped IPv6
/// address is its IPv4 address.
pub fn client_key(ip: IpAddr) -> u128 {
    match ip.to_canonical() {
        IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
        IpAddr::V6(v6) => u128::from(v6) & !u128::from(u64::MAX),
    }
}

/// Why admission says no.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// `--max-connections` connections are open.
    #[error("every connection is taken")]
    Connections,
    /// `--max-connections-per-ip` connections are open from this client.
    #[error("this address has the most connections one address may")]
    ConnectionsPerClient,
    /// `--max-in-flight-per-ip` requests of this client are in flight.
    #[error("too many requests from this address are in flight; retry in 1 s")]
    InFlightPerClient,
    /// The client holds its share of batch slots (this many).
    #[error("this client has {0} batches in flight already, the most one client may; retry in 1 s")]
    BatchSlotsPerClient(usize),
    /// The client's answers hold its share of answer bytes (this many)
    /// already: no slot.
    #[error(
        "this client's answers in flight hold {} already, the most one client may; retry in 1 s",
        mib(*.0)
    )]
    BatchBytesPerClient(usize),
    /// No batch slot freed up within the wait.
    #[error("every batch slot is busy; retry in 1 s")]
    BatchSlots,
    /// The answer alone would pass one client's share of bytes (this many):
    /// it can never be built; fewer addresses might.
    #[error(
        "the answer passed {}, the most one answer may hold (the data holds long values); send fewer addresses",
        mib(*.0)
    )]
    AnswerTooLarge(usize),
    /// With the client's other answers, the answer would pass the client's
    /// share of bytes (this many).
    #[error(
        "this client's answers in flight would hold more than {}, the most one client may; retry in 1 s",
        mib(*.0)
    )]
    AnswerBytesPerClient(usize),
    /// With every client's answers, the answer would pass the budget.
    #[error("the answers in flight hold the whole answer budget; retry in 1 s")]
    AnswerBytes,
    /// An HTTP/2 answer did not fit its client's share of unsent answers:
    /// its stream is reset.
    #[error("the client's share of unsent answers is spent: stream reset")]
    Unsent,
}

impl Refusal {
    /// The status of its answer: 413 for an answer that can never fit,
    /// else 503 (retry later).
    pub fn status(self) -> StatusCode {
        match self {
            Refusal::AnswerTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            _ => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The Error code of its answer.
    pub fn code(self) -> ErrorCode {
        match self {
            Refusal::AnswerTooLarge(_) => ErrorCode::BodyTooLarge,
            _ => ErrorCode::Overloaded,
        }
    }

    /// Whether the client may retry soon (`Retry-After: 1`).
    pub fn retry_soon(self) -> bool {
        self.status() == StatusCode::SERVICE_UNAVAILABLE
    }

    /// Its words, for an answer refused after `answered` of `asked`
    /// addresses (said only when the answer alone is too large).
    pub fn text_after(self, answered: usize, asked: usize) -> String {
        match self {
            Refusal::AnswerTooLarge(most) => format!(
                "the answer passed {}, the most one answer may hold, after {answered} of {asked} addresses (the data holds long values); send fewer addresses",
                mib(most)
            ),
            other => other.to_string(),
        }
    }

    /// The `reason` label of `iplookup_connections_refused_total`.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::Connections => "max_connections",
            Refusal::ConnectionsPerClient => "max_connections_per_ip",
            _ => "other",
        }
    }
}

/// Bytes in MiB, for people.
fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_key_per_ipv4_address_and_per_ipv6_64() {
        let key = |s: &str| client_key(s.parse().unwrap());
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("198.51.100.7"), key("::ffff:198.51.100.7"));
        assert_ne!(key("198.51.100.7"), key("198.51.100.8"));
    }
}
