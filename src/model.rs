//! The wire contract: `IpInfo`, `Location`, `Network` and `Error` (`ApiError`
//! in the OpenAPI document). Every field is always present, and so
//! `required` in the document; unknown values are `null`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

mod network;
pub use network::{
    AddressCounts, AsPrefix, AsPrefixDetails, AsnCountryV6, AsnPrefixCount, CountryAs,
    CountryFacts, CountryInfo, PrefixInfo, PrefixPage, PrefixRow, PrefixSearch, RowCount,
    SpecialAsnInfo, SpecialPurpose, Text,
};

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
    /// service). Otherwise (country accuracy, or coordinates in no land zone)
    /// the country's zone only when every zone of the country keeps the same
    /// time at that moment (Bangladesh, India, Germany's two zones); null for
    /// a country whose zones differ then (the United States, Canada, Russia,
    /// Brazil, Australia, Mexico, Indonesia, ...: the pages name how many
    /// zones it spans). The zones of each country are tzdata's `zone.tab`.
    #[schema(required = true, value_type = Option<String>, examples("America/Chicago"))]
    pub time_zone: Option<Text>,
    /// Current time in `time_zone`, RFC 3339 with offset (changes every
    /// second); null when `time_zone` is.
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
    /// The prefixes of this page of the answer (`?page=N`, `page`):
    /// the IPv4 ones first, then the IPv6 ones.
    pub prefixes: AsnPrefixes,
    /// How many prefixes the AS has in all, per family.
    pub prefix_count: AsnPrefixCount,
    /// Which page of the prefixes `prefixes` holds.
    pub page: PrefixPage,
    /// How many addresses its prefixes hold per family, and their share
    /// of the world's addresses in the data (an `AddressCounts` object).
    pub addresses: AddressCounts,
    /// The countries its IPv4 addresses lie in, most addresses first
    /// (`AsnCountry` objects).
    pub countries: Vec<AsnCountry>,
    /// The countries its IPv6 addresses lie in, most addresses first
    /// (`AsnCountryV6` objects).
    pub countries_v6: Vec<AsnCountryV6>,
    /// The prefixes of this page again, each with its country and size.
    pub prefix_details: AsPrefixDetails,
    /// With `?q=`: what was searched for and how many prefixes match;
    /// `prefixes` and `page` then list the matches only.
    #[schema(required = true)]
    pub search: Option<PrefixSearch>,
    /// The IANA special-purpose entry of the number (AS0, AS23456, the
    /// documentation and private-use ranges, AS65535, AS4294967295), or
    /// null for an ordinary AS. Such a number names no public network: the
    /// answer says why, and lists whatever rows of the data name it.
    #[schema(required = true)]
    pub special_purpose: Option<SpecialAsnInfo>,
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

/// Every error code the service answers with, declared once: its name on
/// the wire (`snake_case`), its HTTP status, when it is answered (the
/// OpenAPI document's and the docs' table of errors), and the words of its
/// pages: the English headline, the Bangla headline and the Bangla sentence
/// (the English sentence is the error's own message). A new code is one
/// entry here.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $name:ident = $wire:literal, $status:literal,
        when: $when:literal, en: $en:literal, bn: $bn:literal, bn_says: $says:literal;)*) => {
        /// Every error code the service answers with, one name each on the wire
        /// (`snake_case`: `invalid_ip`, `not_found`, ...).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema, JsonSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $($(#[$doc])* $name,)*
        }

        impl ErrorCode {
            /// Every code, in the order of their declaration.
            pub const ALL: [ErrorCode; <[&str]>::len(&[$(stringify!($name)),*])] =
                [$(ErrorCode::$name),*];

            /// The code as it is written on the wire.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$name => $wire,)* }
            }

            /// The HTTP status the code comes with.
            pub fn status(self) -> u16 {
                match self { $(ErrorCode::$name => $status,)* }
            }

            /// When the service answers with the code, for the docs' error
            /// table (Markdown).
            pub fn when(self) -> &'static str {
                match self { $(ErrorCode::$name => $when,)* }
            }

            /// The words of the code's error pages: the headline in English,
            /// the headline in Bangla, and the Bangla sentence saying what
            /// went wrong (for errors whose input the page does not hold).
            pub fn words(self) -> ErrorWords {
                match self {
                    $(ErrorCode::$name => ErrorWords { en: $en, bn: $bn, bn_says: $says },)*
                }
            }
        }
    };
}

/// What an error page says of its code ([`ErrorCode::words`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorWords {
    /// The headline people read first, in English words rather than `400 Bad Request`.
    pub en: &'static str,
    /// The headline in Bangla.
    pub bn: &'static str,
    /// A Bangla sentence: what went wrong and what to do.
    pub bn_says: &'static str,
}

error_codes! {
    /// The text is not an IPv4 or IPv6 address (400).
    InvalidIp = "invalid_ip", 400,
        when: "The text is not an IPv4 or IPv6 address (or is missing), on a lookup, a page or in a batch entry.",
        en: "That is not an address we can look up",
        bn: "এটি কোনো আইপি ঠিকানা নয়",
        bn_says: "এটি কোনো বৈধ IPv4 বা IPv6 ঠিকানা নয়। ঠিকানা দেখতে 8.8.8.8 বা 2001:4860:4860::8888-এর মতো।";
    /// No such page or asset (404).
    NotFound = "not_found", 404,
        when: "No such page or asset, or nothing after `/AS` is digits.",
        en: "There is no page here",
        bn: "এমন কোনো পৃষ্ঠা নেই",
        bn_says: "এই ঠিকানায় কোনো পৃষ্ঠা নেই। API-এর পথগুলো /docs-এ দেখুন।";
    /// No such field of `IpInfo` in a single-field path (404).
    UnknownField = "unknown_field", 404,
        when: "A single-field path names no field of `IpInfo`.",
        en: "There is no field of that name",
        bn: "এমন কোনো ঘর নেই",
        bn_says: "এই নামে কোনো ঘর নেই। ঘরগুলোর তালিকা /docs-এ আছে।";
    /// The AS number is not one: not digits (after an optional `AS`), or over 4294967295 (400).
    InvalidAsn = "invalid_asn", 400,
        when: "The AS number is not digits (after an optional `AS`), or is over 4294967295.",
        en: "That is not an AS number",
        bn: "এটি কোনো AS নম্বর নয়",
        bn_says: "এটি কোনো AS নম্বর নয়: অঙ্কগুলো লিখুন, চাইলে আগে AS দিয়ে, যেমন AS15169; সবচেয়ে বড় AS নম্বর ৪,২৯,৪৯,৬৭,২৯৫।";
    /// No row of the ASN data names this AS number (404).
    UnknownAsn = "unknown_asn", 404,
        when: "No row of the ASN data names this AS number.",
        en: "The data knows no such AS",
        bn: "ডেটায় এমন কোনো AS নেই",
        bn_says: "ASN ডেটার কোনো সারিতে এই AS নম্বর নেই।";
    /// The path does not take this method (405).
    MethodNotAllowed = "method_not_allowed", 405,
        when: "The path does not take this method (`Allow` lists those it takes).",
        en: "This address does not take that method",
        bn: "এটি কাজ করেনি",
        bn_says: "এই ঠিকানা এই মেথড নেয় না; Allow হেডারে যে মেথডগুলো নেয় তার তালিকা আছে।";
    /// The query string could not be read (400).
    BadQuery = "bad_query", 400,
        when: "The query string could not be read.",
        en: "The query string could not be read",
        bn: "অনুরোধটি পড়া গেল না",
        bn_says: "কোয়েরি স্ট্রিংটি পড়া গেল না।";
    /// An unknown `format` value (400).
    BadFormat = "bad_format", 400,
        when: "An unknown `format` value (`json`, `text`, `md` and `html` are known).",
        en: "There is no such format",
        bn: "অনুরোধটি পড়া গেল না",
        bn_says: "এমন কোনো ফরম্যাট নেই: format হতে পারে json, text, md বা html।";
    /// No offered format matches `Accept` (406).
    NotAcceptable = "not_acceptable", 406,
        when: "No format the route offers matches `Accept`.",
        en: "None of the formats asked for is offered",
        bn: "অনুরোধটি পড়া গেল না",
        bn_says: "Accept হেডারে চাওয়া কোনো ফরম্যাট এখানে দেওয়া হয় না: দেওয়া হয় JSON, টেক্সট, Markdown ও HTML।";
    /// The path and query are over the limit (414).
    UriTooLong = "uri_too_long", 414,
        when: "The path and query are longer than the limit.",
        en: "That address is too long",
        bn: "অনুরোধটি পড়া গেল না",
        bn_says: "ঠিকানাটি (পথ ও কোয়েরি) সীমার চেয়ে লম্বা।";
    /// The caller is over its rate limit (429).
    RateLimited = "rate_limited", 429,
        when: "The caller is over its rate limit (`--rate-limit`); `Retry-After` says when to ask again.",
        en: "Too many requests: wait a moment",
        bn: "অনেক বেশি অনুরোধ: একটু পরে আবার চেষ্টা করুন",
        bn_says: "অনেক বেশি অনুরোধ: Retry-After হেডারে বলা সময় পরে আবার চেষ্টা করুন।";
    /// No request slot was free in time (503).
    Overloaded = "overloaded", 503,
        when: "No request slot was free within the queue timeout; `Retry-After` says when to ask again.",
        en: "The service is busy: try again in a moment",
        bn: "সেবাটি এখন ব্যস্ত: একটু পরে আবার চেষ্টা করুন",
        bn_says: "সেবাটি এখন ব্যস্ত: একটু পরে আবার চেষ্টা করুন।";
    /// The request body did not arrive in time (408).
    BodyTimeout = "body_timeout", 408,
        when: "The request body did not arrive within the header timeout.",
        en: "The request body did not arrive in time",
        bn: "এটি কাজ করেনি",
        bn_says: "অনুরোধের বডি সময়মতো এসে পৌঁছায়নি।";
    /// `/mcp`: the `Origin` is not accepted (403).
    ForbiddenOrigin = "forbidden_origin", 403,
        when: "`/mcp`: the `Origin` header names an origin that is not accepted.",
        en: "Requests from that origin are not accepted",
        bn: "এটি কাজ করেনি",
        bn_says: "ওই অরিজিন থেকে অনুরোধ নেওয়া হয় না।";
    /// `/mcp`: the body is over the limit (413).
    BodyTooLarge = "body_too_large", 413,
        when: "The request body is over its byte limit (`/mcp`, the batch route), or a batch holds more addresses than the rate limit's burst.",
        en: "The request is too large",
        bn: "এটি কাজ করেনি",
        bn_says: "অনুরোধটি সীমার চেয়ে বড়।";
    /// `/mcp`: the body could not be read (400).
    BadBody = "bad_body", 400,
        when: "The request body could not be read, or a batch body is not a JSON array of strings or lines of text, or holds too many entries.",
        en: "The request body could not be read",
        bn: "এটি কাজ করেনি",
        bn_says: "অনুরোধের বডি পড়া গেল না।";
    /// The `Host` header is missing (HTTP/1.1), given twice, or not a
    /// `host[:port]` (400).
    BadHost = "bad_host", 400,
        when: "The `Host` header is missing (HTTP/1.1), given twice, or not a `host[:port]`.",
        en: "The Host header is missing or not a host",
        bn: "এটি কাজ করেনি",
        bn_says: "Host হেডার নেই, দুবার আছে, অথবা তাতে কোনো হোস্ট নেই।";
    /// A request body sent with a `Content-Type` the route does not read (415).
    UnsupportedMediaType = "unsupported_media_type", 415,
        when: "A request body's `Content-Type` is not one the route reads (`POST /api/v1/ip`: JSON or text; `/mcp`: JSON).",
        en: "The request body is not in a type this address reads",
        bn: "এটি কাজ করেনি",
        bn_says: "অনুরোধের বডি এমন ধরনের, যা এই ঠিকানা পড়ে না।";
    /// The text is not a prefix: no `/`, a length out of range, or host
    /// bits set (400).
    InvalidPrefix = "invalid_prefix", 400,
        when: "The text is not a prefix (`8.8.8.0/24`, `2001:4860::/32`): no `/`, not an address before it, a length out of range, or host bits set (the message names the canonical prefix).",
        en: "That is not a prefix",
        bn: "এটি কোনো প্রিফিক্স নয়",
        bn_says: "এটি কোনো প্রিফিক্স নয়: লিখুন 8.8.8.0/24 বা 2001:4860::/32-এর মতো, দৈর্ঘ্যের পরের বিটগুলো শূন্য রেখে।";
    /// No country has this code (404).
    UnknownCountry = "unknown_country", 404,
        when: "No country has this two-letter code (the message suggests the nearest name or code).",
        en: "There is no country with that code",
        bn: "এই কোডে কোনো দেশ নেই",
        bn_says: "এই দুই অক্ষরের কোডে কোনো দেশ নেই; যেমন বাংলাদেশের কোড BD।";
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
