//! The wire contract: `IpInfo`, `Location`, `Network` and `Error` (`ApiError`
//! in the OpenAPI document). Every field is always present, and so
//! `required` in the document; unknown values are `null`.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Text that is often a constant or comes from the compiled-in country table
/// (borrowed, no copy per answer), and otherwise owned. On the wire a string.
pub type Text = Cow<'static, str>;

/// The answer of both lookup endpoints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct IpInfo {
    /// The address that was looked up, canonical (IPv6 compressed lower case,
    /// IPv4-mapped IPv6 as IPv4).
    #[schema(examples("8.8.8.8"))]
    pub ip: String,
    /// `IPv4` or `IPv6`.
    #[schema(required = true, examples("IPv4"), value_type = Option<String>)]
    pub version: Option<Text>,
    /// False inside IANA special-purpose blocks that are not globally
    /// reachable, and in IPv6 space IANA lists as "Reserved by IETF".
    #[schema(required = true, examples(true))]
    pub is_public: Option<bool>,
    /// Where the address is (a `Location` object, every member present).
    pub location: Location,
    /// Who routes the address (a `Network` object, every member present).
    pub network: Network,
    /// The IANA special-purpose block the address lies in, or null for an
    /// ordinary address. A private, loopback, documentation or other
    /// non-public address has no location and no network data: this says
    /// why. Blocks the registry marks globally reachable (AS112, PCP and
    /// TURN anycast, the NAT64 prefix 64:ff9b::/96, ...) are named too;
    /// their addresses stay public and keep what the data says of them.
    #[schema(required = true)]
    pub special_purpose: Option<SpecialPurpose>,
}

/// An entry of the IANA IPv4 and IPv6 Special-Purpose Address Registries
/// (RFC 6890), or the IPv6 space IANA lists as "Reserved by IETF".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SpecialPurpose {
    /// The registry's name for the block (`Private-Use`, `Loopback`,
    /// `Shared Address Space`, `Documentation (TEST-NET-1)`, `Unique-Local`,
    /// `Reserved by IETF`, ...). The single-field answer
    /// `/api/v1/ip/{ip}/special_purpose` and the CSV column
    /// `special_purpose` are this name.
    #[schema(value_type = String, examples("Private-Use"))]
    pub name: Text,
    /// The RFCs that define the block, as the registry's RFC column lists
    /// them, separated by `, ` (`RFC 1918`, `RFC 4193, RFC 8190`).
    #[schema(value_type = String, examples("RFC 1918"))]
    pub rfc: Text,
    /// The RFC Editor's page of the first RFC in `rfc`.
    #[schema(format = "uri", examples("https://www.rfc-editor.org/rfc/rfc1918"))]
    #[schemars(extend("format" = "uri"))]
    pub rfc_url: String,
    /// The block in CIDR notation (the most specific registry entry that
    /// holds the address).
    #[schema(examples("10.0.0.0/8"))]
    pub range: String,
}

/// Where the address is, at country precision (city with a city database).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Location {
    /// ISO 3166-1 alpha-2 code of the country, upper case.
    #[schema(required = true, value_type = Option<String>, examples("US"))]
    pub country_code: Option<Text>,
    /// The country's name in English (Unicode CLDR).
    #[schema(required = true, value_type = Option<String>, examples("United States"))]
    pub country: Option<Text>,
    /// The country's name in Bangla (Unicode CLDR).
    #[schema(required = true, value_type = Option<String>, examples("মার্কিন যুক্তরাষ্ট্র"))]
    pub country_bn: Option<Text>,
    /// The country's flag as an emoji (two regional indicator symbols).
    #[schema(required = true, value_type = Option<String>, examples("🇺🇸"))]
    pub flag: Option<Text>,
    /// The continent's name in English.
    #[schema(required = true, value_type = Option<String>, examples("North America"))]
    pub continent: Option<Text>,
    /// The city, only with a city database loaded; null otherwise.
    #[schema(required = true, examples("Mountain View"))]
    pub city: Option<String>,
    /// Latitude in decimal degrees (north positive) of the country's
    /// centroid, or of the city with a city database; not a street address.
    #[schema(required = true, examples(39.7837304))]
    pub latitude: Option<f64>,
    /// Longitude in decimal degrees (east positive) of the country's
    /// centroid, or of the city with a city database.
    #[schema(required = true, examples(-100.445882))]
    pub longitude: Option<f64>,
    /// `country` when the location comes from country data, `city` with a city
    /// database, null when no location is known.
    #[schema(required = true)]
    pub accuracy: Option<Accuracy>,
    /// IANA time zone. With a city database, the zone whose boundary contains
    /// the city's coordinates (time-zone boundary data compiled into the
    /// service); otherwise, or where the coordinates lie in no land zone, the
    /// country's primary zone.
    #[schema(required = true, value_type = Option<String>, examples("America/Chicago"))]
    pub time_zone: Option<Text>,
    /// Current time in `time_zone`, RFC 3339 with offset (changes every second).
    #[schema(required = true, format = DateTime, examples("2026-11-27T01:45:00-06:00"))]
    #[schemars(extend("format" = "date-time"))]
    pub local_time: Option<String>,
    /// ISO 4217 code of the country's main currency.
    #[schema(required = true, value_type = Option<String>, examples("USD"))]
    pub currency: Option<Text>,
    /// The country's international calling code, with `+`.
    #[schema(required = true, value_type = Option<String>, examples("+1"))]
    pub calling_code: Option<Text>,
}

/// How precise the location is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Accuracy {
    Country,
    City,
}

/// Who routes the address.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct Network {
    /// Autonomous system number of the network that announces the address.
    #[schema(required = true, value_type = Option<i64>, minimum = 0, maximum = 4294967295_i64, examples(15169))]
    pub asn: Option<u32>,
    /// The operator's name as the data file gives it (JSON escapes any
    /// control character; the text, Markdown and HTML forms drop them).
    #[schema(required = true, examples("Google LLC"))]
    pub organization: Option<String>,
    /// The CIDR block containing the address: the largest that lies inside
    /// the data row the answer comes from.
    #[schema(required = true, examples("8.8.8.0/24"))]
    pub range: Option<String>,
    /// The PTR name of the address, as the reverse zone's owner wrote it and
    /// not forward-confirmed: a host name (labels of ASCII letters, digits,
    /// `-` and `_`, IDNA `xn--` labels as they are, no trailing dot, at most
    /// 253 characters) or null. A PTR record that is anything else is null.
    #[schema(
        required = true,
        value_type = Option<String>,
        pattern = r"^[A-Za-z0-9_-]{1,63}(\.[A-Za-z0-9_-]{1,63})*$",
        max_length = 253,
        examples("dns.google")
    )]
    pub reverse_dns: Option<String>,
}

/// An autonomous system: what `GET /api/v1/asn/{asn}` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AsnInfo {
    /// The AS number.
    #[schema(value_type = i64, minimum = 0, maximum = 4294967295_i64, examples(15169))]
    pub asn: u32,
    /// The organisation name most of its rows give (JSON escapes any
    /// control character; the text, Markdown and HTML forms drop them).
    #[schema(examples("Google LLC"))]
    pub organization: String,
    /// The prefixes of this page of the answer (`?page=N`, [`PrefixPage`]):
    /// the IPv4 ones first, then the IPv6 ones.
    pub prefixes: AsnPrefixes,
    /// How many prefixes the AS has in all, per family.
    pub prefix_count: AsnPrefixCount,
    /// Which page of the prefixes `prefixes` holds.
    pub page: PrefixPage,
    /// How many addresses its prefixes hold per family (an `AsnAddresses` object).
    pub addresses: AsnAddresses,
    /// The countries its IPv4 addresses lie in, most addresses first
    /// (`AsnCountry` objects).
    pub countries: Vec<AsnCountry>,
}

/// Every block the data attributes to the AS: adjacent rows merged, then
/// each merged range cut into its minimal set of CIDR blocks, ascending.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AsnPrefixes {
    /// IPv4 prefixes in CIDR notation, ascending.
    #[schema(examples("8.8.8.0/24"))]
    pub v4: Vec<String>,
    /// IPv6 prefixes in CIDR notation, ascending.
    #[schema(examples("2001:4860::/32"))]
    pub v6: Vec<String>,
}

/// How many prefixes an AS has, per family.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema,
)]
pub struct AsnPrefixCount {
    /// How many IPv4 prefixes the AS has, on every page together.
    #[schema(examples(135))]
    pub v4: u64,
    /// How many IPv6 prefixes the AS has, on every page together.
    #[schema(examples(45))]
    pub v6: u64,
}

/// One page of an AS's prefixes: the IPv4 prefixes then the IPv6 ones, in
/// pages of `per_page`; page `number` of `pages` (numbered from 1). The
/// other pages are `?page=N`, linked from the `Link` header (`rel="next"`,
/// `rel="prev"`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema,
)]
pub struct PrefixPage {
    /// This page's number, from 1 (`?page=N`).
    #[schema(minimum = 1, examples(1))]
    pub number: u32,
    /// How many pages the prefixes fill.
    #[schema(minimum = 1, examples(1))]
    pub pages: u32,
    /// Prefixes per page (the last may hold fewer).
    #[schema(minimum = 1, examples(500))]
    pub per_page: u32,
}

/// How many addresses the prefixes hold, per family.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AsnAddresses {
    /// IPv4 addresses (at most 2^32: a JSON number).
    #[schema(minimum = 0, maximum = 4294967296_i64, examples(8_871_424))]
    pub v4: u64,
    /// IPv6 addresses as a decimal string: the count can pass 2^64, past
    /// what JSON numbers carry exactly.
    #[schema(pattern = "^[0-9]{1,39}$", examples("79228162514264337593543950336"))]
    pub v6: String,
}

/// One country of an AS's IPv4 space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AsnCountry {
    /// ISO 3166-1 alpha-2 code of the country, upper case.
    #[schema(examples("US"))]
    pub country_code: String,
    /// The country's name in English.
    #[schema(examples("United States"))]
    pub country: String,
    /// IPv4 addresses of the AS in this country.
    #[schema(examples(7_000_000))]
    pub addresses: u64,
    /// `addresses` over all the AS's IPv4 addresses, 0 to 1, rounded to six
    /// places (addresses in no country row count in no country's share).
    #[schema(minimum = 0, maximum = 1, examples(0.789))]
    pub share: f64,
}

/// The body of every error response. Named `ApiError` in the OpenAPI
/// document and the MCP schemas, so that no generated client's type
/// collides with its language's own `Error`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
#[schema(as = ApiError)]
#[schemars(rename = "ApiError")]
pub struct Error {
    /// A stable, machine-readable code such as `invalid_ip` or `not_found`
    /// (an `ErrorCode`; see the table of error codes).
    pub error: ErrorCode,
    /// What went wrong, for people; absent when there is nothing to add.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, examples("not an IP address: 'not-an-ip'"))]
    pub message: Option<String>,
}

impl Error {
    /// An error with a code and a message.
    pub fn new(error: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            error,
            message: Some(message.into()),
        }
    }
}

/// Every error code the service answers with, one name each on the wire
/// (`snake_case`: `invalid_ip`, `not_found`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The text is not an IPv4 or IPv6 address (400).
    InvalidIp,
    /// No such page or asset (404).
    NotFound,
    /// No such field of `IpInfo` in a single-field path (404).
    UnknownField,
    /// The AS number is not one: not digits (after an optional `AS`), or over 4294967295 (400).
    InvalidAsn,
    /// No row of the ASN data names this AS number (404).
    UnknownAsn,
    /// The path does not take this method (405).
    MethodNotAllowed,
    /// The query string could not be read (400).
    BadQuery,
    /// An unknown `format` value (400).
    BadFormat,
    /// No offered format matches `Accept` (406).
    NotAcceptable,
    /// The path and query are over the limit (414).
    UriTooLong,
    /// The caller is over its rate limit (429).
    RateLimited,
    /// No request slot was free in time (503).
    Overloaded,
    /// The request body did not arrive in time (408).
    BodyTimeout,
    /// `/mcp`: the `Origin` is not accepted (403).
    ForbiddenOrigin,
    /// `/mcp`: the body is over the limit (413).
    BodyTooLarge,
    /// `/mcp`: the body could not be read (400).
    BadBody,
    /// The `Host` header is missing (HTTP/1.1), given twice, or not a
    /// `host[:port]` (400).
    BadHost,
    /// A request body sent with a `Content-Type` the route does not read (415).
    UnsupportedMediaType,
}

impl ErrorCode {
    /// Every code, in the order above.
    pub const ALL: [ErrorCode; 18] = [
        ErrorCode::InvalidIp,
        ErrorCode::NotFound,
        ErrorCode::UnknownField,
        ErrorCode::InvalidAsn,
        ErrorCode::UnknownAsn,
        ErrorCode::MethodNotAllowed,
        ErrorCode::BadQuery,
        ErrorCode::BadFormat,
        ErrorCode::NotAcceptable,
        ErrorCode::UriTooLong,
        ErrorCode::RateLimited,
        ErrorCode::Overloaded,
        ErrorCode::BodyTimeout,
        ErrorCode::ForbiddenOrigin,
        ErrorCode::BodyTooLarge,
        ErrorCode::BadBody,
        ErrorCode::BadHost,
        ErrorCode::UnsupportedMediaType,
    ];

    /// The code as it is written on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidIp => "invalid_ip",
            ErrorCode::NotFound => "not_found",
            ErrorCode::UnknownField => "unknown_field",
            ErrorCode::InvalidAsn => "invalid_asn",
            ErrorCode::UnknownAsn => "unknown_asn",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::BadQuery => "bad_query",
            ErrorCode::BadFormat => "bad_format",
            ErrorCode::NotAcceptable => "not_acceptable",
            ErrorCode::UriTooLong => "uri_too_long",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Overloaded => "overloaded",
            ErrorCode::BodyTimeout => "body_timeout",
            ErrorCode::ForbiddenOrigin => "forbidden_origin",
            ErrorCode::BodyTooLarge => "body_too_large",
            ErrorCode::BadBody => "bad_body",
            ErrorCode::BadHost => "bad_host",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
        }
    }
}

impl ErrorCode {
    /// The HTTP status the code comes with.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::InvalidIp
            | ErrorCode::InvalidAsn
            | ErrorCode::BadQuery
            | ErrorCode::BadFormat
            | ErrorCode::BadBody
            | ErrorCode::BadHost => 400,
            ErrorCode::ForbiddenOrigin => 403,
            ErrorCode::NotFound | ErrorCode::UnknownField | ErrorCode::UnknownAsn => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::NotAcceptable => 406,
            ErrorCode::BodyTimeout => 408,
            ErrorCode::BodyTooLarge => 413,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::UriTooLong => 414,
            ErrorCode::RateLimited => 429,
            ErrorCode::Overloaded => 503,
        }
    }

    /// When the service answers with the code, for the docs' error table
    /// (Markdown).
    pub fn when(self) -> &'static str {
        match self {
            ErrorCode::InvalidIp => {
                "The text is not an IPv4 or IPv6 address (or is missing), on a lookup, a page or in a batch entry."
            }
            ErrorCode::NotFound => "No such page or asset, or nothing after `/AS` is digits.",
            ErrorCode::UnknownField => "A single-field path names no field of `IpInfo`.",
            ErrorCode::InvalidAsn => {
                "The AS number is not digits (after an optional `AS`), or is over 4294967295."
            }
            ErrorCode::UnknownAsn => "No row of the ASN data names this AS number.",
            ErrorCode::MethodNotAllowed => {
                "The path does not take this method (`Allow` lists those it takes)."
            }
            ErrorCode::BadQuery => "The query string could not be read.",
            ErrorCode::BadFormat => {
                "An unknown `format` value (`json`, `text`, `md` and `html` are known)."
            }
            ErrorCode::NotAcceptable => "No format the route offers matches `Accept`.",
            ErrorCode::UriTooLong => "The path and query are longer than the limit.",
            ErrorCode::RateLimited => {
                "The caller is over its rate limit (`--rate-limit`); `Retry-After` says when to ask again."
            }
            ErrorCode::UnsupportedMediaType => {
                "A request body's `Content-Type` is not one the route reads (`POST /api/v1/ip`: JSON or text; `/mcp`: JSON)."
            }
            ErrorCode::Overloaded => {
                "No request slot was free within the queue timeout; `Retry-After` says when to ask again."
            }
            ErrorCode::BodyTimeout => "The request body did not arrive within the header timeout.",
            ErrorCode::ForbiddenOrigin => {
                "`/mcp`: the `Origin` header names an origin that is not accepted."
            }
            ErrorCode::BodyTooLarge => {
                "The request body is over its byte limit (`/mcp`, the batch route), or a batch holds more addresses than the rate limit's burst."
            }
            ErrorCode::BadBody => {
                "The request body could not be read, or a batch body is not a JSON array of strings or lines of text, or holds too many entries."
            }
            ErrorCode::BadHost => {
                "The `Host` header is missing (HTTP/1.1), given twice, or not a `host[:port]`."
            }
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_are_written_as_their_snake_case_names() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, code.as_str(), "{code:?}");
            let back: ErrorCode = serde_json::from_value(json).unwrap();
            assert_eq!(back, code);
        }
        let body = serde_json::to_string(&Error::new(ErrorCode::InvalidIp, "x")).unwrap();
        assert_eq!(body, r#"{"error":"invalid_ip","message":"x"}"#);
    }
}
