//! The wire contract: `IpInfo`, `Location`, `Network` and `Error`, exactly as
//! SPEC.md section 2 names them. Every field is always present; unknown
//! values are `null`.

use serde::{Deserialize, Serialize};

/// The answer of both lookup endpoints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IpInfo {
    /// The address that was looked up, canonical (IPv6 compressed lower case,
    /// IPv4-mapped IPv6 as IPv4).
    pub ip: String,
    /// `IPv4` or `IPv6`.
    pub version: Option<String>,
    /// False inside IANA special-purpose blocks that are not globally reachable.
    pub is_public: Option<bool>,
    pub location: Location,
    pub network: Network,
}

/// Where the address is, at country precision (city with a city database).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Location {
    pub country_code: Option<String>,
    pub country: Option<String>,
    pub country_bn: Option<String>,
    pub flag: Option<String>,
    pub continent: Option<String>,
    pub city: Option<String>,
    /// Country centroid.
    pub latitude: Option<f64>,
    /// Country centroid.
    pub longitude: Option<f64>,
    /// `country`, `city` or null.
    pub accuracy: Option<String>,
    pub time_zone: Option<String>,
    /// Current time in `time_zone`, RFC 3339 with offset.
    pub local_time: Option<String>,
    pub currency: Option<String>,
    pub calling_code: Option<String>,
}

/// Who routes the address.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Network {
    pub asn: Option<u32>,
    pub organization: Option<String>,
    /// CIDR block containing the address.
    pub range: Option<String>,
    pub reverse_dns: Option<String>,
}

/// The body of every error response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Error {
    /// A stable, machine-readable code such as `invalid_ip` or `not_found`.
    pub error: String,
    /// What went wrong, for people.
    pub message: Option<String>,
}

impl Error {
    /// An error with a code and a message.
    pub fn new(error: &str, message: impl Into<String>) -> Self {
        Error {
            error: error.to_owned(),
            message: Some(message.into()),
        }
    }
}
