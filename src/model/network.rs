//! The wire types of the network view: a country whole ([`CountryFacts`],
//! the one type for a country's facts wherever a country is answered whole),
//! address counts ([`AddressCounts`], one neutral type for an AS, a country,
//! a prefix), and the answers of `GET /api/v1/country/{cc}`
//! ([`CountryInfo`]) and `GET /api/v1/prefix/{network}/{length}` ([`PrefixInfo`]);
//! and the pieces they share with the AS and address answers (the
//! special-purpose block, prefix counts, pages). Nothing here imports
//! [`super`]: it re-exports these.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Text that is often a constant or comes from the compiled-in country table
/// (borrowed, no copy per answer), and otherwise owned. On the wire a string.
pub type Text = Cow<'static, str>;

/// What the service knows of a country (Unicode CLDR names, Natural Earth
/// centroid, tzdb zones, ISO 4217 currency, ITU calling code).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CountryFacts {
    /// ISO 3166-1 alpha-2 code, upper case.
    #[schema(value_type = String, examples("BT"))]
    pub country_code: Text,
    /// The name in English.
    #[schema(value_type = String, examples("Bhutan"))]
    pub country: Text,
    /// The name in Bangla.
    #[schema(required = true, value_type = Option<String>, examples("ভুটান"))]
    pub country_bn: Option<Text>,
    /// The flag as an emoji (two regional indicator symbols).
    #[schema(value_type = String, examples("🇧🇹"))]
    pub flag: Text,
    /// The continent's name in English.
    #[schema(required = true, value_type = Option<String>, examples("Asia"))]
    pub continent: Option<Text>,
    /// ISO 4217 code of the main currency.
    #[schema(required = true, value_type = Option<String>, examples("BTN"))]
    pub currency: Option<Text>,
    /// The international calling code, with `+`.
    #[schema(required = true, value_type = Option<String>, examples("+975"))]
    pub calling_code: Option<Text>,
    /// Every IANA time zone of the country: the primary one first, then
    /// the others tzdb's `zone.tab` lists for it.
    #[schema(examples("Asia/Thimphu"))]
    pub time_zones: Vec<String>,
    /// Latitude of the country's centroid, decimal degrees.
    #[schema(required = true, examples(27.4))]
    pub latitude: Option<f64>,
    /// Longitude of the country's centroid, decimal degrees.
    #[schema(required = true, examples(90.4))]
    pub longitude: Option<f64>,
}

/// How many addresses, per family, and what share they are of a whole
/// (the world's addresses in the data for a country, an AS or a prefix;
/// the country's for an AS in a country).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AddressCounts {
    /// IPv4 addresses (at most 2^32: a JSON number).
    #[schema(minimum = 0, maximum = 4294967296_i64, examples(8_871_424))]
    pub v4: u64,
    /// IPv6 addresses as a decimal string: the count can pass 2^64, past
    /// what JSON numbers carry exactly.
    #[schema(pattern = "^[0-9]{1,39}$", examples("79228162514264337593543950336"))]
    pub v6: String,
    /// `v4` over the whole's IPv4 addresses, 0 to 1, rounded to nine places.
    #[schema(minimum = 0, maximum = 1, examples(0.002151))]
    pub v4_share: f64,
    /// `v6` over the whole's IPv6 addresses, 0 to 1, rounded to nine places.
    #[schema(minimum = 0, maximum = 1, examples(0.000204))]
    pub v6_share: f64,
}

/// How many rows of the data, per family.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema,
)]
pub struct RowCount {
    /// IPv4 rows.
    #[schema(examples(1450))]
    pub v4: u64,
    /// IPv6 rows.
    #[schema(examples(320))]
    pub v6: u64,
}

/// A country: what `GET /api/v1/country/{cc}` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CountryInfo {
    /// The country's facts (a `CountryFacts` object).
    pub country: CountryFacts,
    /// Its address space in the country rows of the data, and its share of
    /// the world's (every row with a country).
    pub addresses: AddressCounts,
    /// How many country rows give it, per family.
    pub rows: RowCount,
    /// How many ASes hold addresses in it (on every page together).
    #[schema(examples(512))]
    pub as_count: u64,
    /// This page of its ASes (`CountryAs` objects), most IPv4 addresses
    /// first, then most IPv6 addresses.
    pub ases: Vec<CountryAs>,
    /// Which page of the ASes `ases` holds (`?page=N`).
    pub page: PrefixPage,
}

/// One AS of a country: the addresses it holds there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct CountryAs {
    /// The AS number.
    #[schema(value_type = i64, minimum = 0, maximum = 4294967295_i64, examples(18024))]
    pub asn: u32,
    /// The organisation name most of its rows give.
    #[schema(examples("Bhutan Telecom Ltd."))]
    pub organization: String,
    /// Its addresses in the country, and their share of the country's.
    pub addresses: AddressCounts,
}

/// A prefix in the data: what `GET /api/v1/prefix/{prefix}` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PrefixInfo {
    /// The prefix, canonical (IPv6 compressed, lower case).
    #[schema(examples("8.8.8.0/24"))]
    pub prefix: String,
    /// `IPv4` or `IPv6`.
    #[schema(examples("IPv4"))]
    pub version: String,
    /// How many addresses the prefix holds, as a decimal string (an IPv6
    /// prefix can hold up to 2^128).
    #[schema(pattern = "^[0-9]{1,39}$", examples("256"))]
    pub addresses: String,
    /// The largest CIDR block of the data's row that holds the whole
    /// prefix (the row `network.range` is cut from), or null when no row
    /// with data holds all of it (the prefix spans several rows).
    #[schema(required = true, examples("8.8.8.0/24"))]
    pub covering: Option<String>,
    /// The IANA special-purpose block the prefix lies in or overlaps, or null.
    #[schema(required = true)]
    pub special_purpose: Option<SpecialPurpose>,
    /// How many rows of the data the prefix lies in or covers (on every
    /// page together, gaps in the data included).
    #[schema(examples(1))]
    pub row_count: u64,
    /// This page of the rows (`PrefixRow` objects), ascending.
    pub rows: Vec<PrefixRow>,
    /// Which page of the rows `rows` holds (`?page=N`).
    pub page: PrefixPage,
}

/// One row of the data under a prefix (an entry of the merged country and
/// ASN tables: one country and one AS), clipped to the prefix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PrefixRow {
    /// The row's first address inside the prefix.
    #[schema(examples("8.8.8.0"))]
    pub first: String,
    /// The row's last address inside the prefix.
    #[schema(examples("8.8.8.255"))]
    pub last: String,
    /// Whether the row reaches past the prefix (it holds the prefix, or
    /// overlaps one of its ends).
    #[schema(examples(false))]
    pub clipped: bool,
    /// ISO 3166-1 alpha-2 code of the row's country, or null.
    #[schema(required = true, value_type = Option<String>, examples("US"))]
    pub country_code: Option<Text>,
    /// The AS number of the row, or null.
    #[schema(required = true, value_type = Option<i64>, minimum = 0, maximum = 4294967295_i64, examples(15169))]
    pub asn: Option<u32>,
    /// The organisation the row names, or null.
    #[schema(required = true, examples("Google LLC"))]
    pub organization: Option<String>,
    /// Addresses of the row inside the prefix, as a decimal string.
    #[schema(pattern = "^[0-9]{1,39}$", examples("256"))]
    pub addresses: String,
    /// `first..=last` as CIDR blocks (the more specific prefixes of the
    /// data inside the prefix); empty for a gap in the data.
    #[schema(examples("8.8.8.0/24"))]
    pub prefixes: Vec<String>,
}

/// One prefix of an AS with its country and size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AsPrefix {
    /// The prefix in CIDR notation.
    #[schema(examples("8.8.8.0/24"))]
    pub prefix: String,
    /// The country of most of its addresses (country rows), or null.
    #[schema(required = true, value_type = Option<String>, examples("US"))]
    pub country_code: Option<Text>,
    /// How many addresses it holds, as a decimal string.
    #[schema(pattern = "^[0-9]{1,39}$", examples("256"))]
    pub addresses: String,
}

/// The prefixes of this page of an AS's answer, with country and size.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AsPrefixDetails {
    /// IPv4 prefixes (`AsPrefix` objects), ascending.
    pub v4: Vec<AsPrefix>,
    /// IPv6 prefixes (`AsPrefix` objects), ascending.
    pub v6: Vec<AsPrefix>,
}

/// One country of an AS's IPv6 space (counts pass 2^64: a string).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct AsnCountryV6 {
    /// ISO 3166-1 alpha-2 code of the country, upper case.
    #[schema(value_type = String, examples("US"))]
    pub country_code: Text,
    /// The country's name in English.
    #[schema(value_type = String, examples("United States"))]
    pub country: Text,
    /// IPv6 addresses of the AS in this country, as a decimal string.
    #[schema(pattern = "^[0-9]{1,39}$", examples("79228162514264337593543950336"))]
    pub addresses: String,
    /// `addresses` over all the AS's IPv6 addresses, 0 to 1, rounded to six places.
    #[schema(minimum = 0, maximum = 1, examples(0.5))]
    pub share: f64,
}

/// A search over every prefix of an AS (`?q=`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct PrefixSearch {
    /// The text searched for: prefixes whose text contains it (any case),
    /// or, for an address, the prefixes that hold it.
    #[schema(examples("2001:550"))]
    pub q: String,
    /// How many prefixes match, per family (on every page together).
    pub matches: AsnPrefixCount,
}

/// A special-purpose AS number (IANA Special-Purpose AS Numbers registry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema, JsonSchema)]
pub struct SpecialAsnInfo {
    /// The registry's name for it.
    #[schema(examples("Reserved for Private Use"))]
    pub name: String,
    /// The numbers the entry covers (`AS0`, `AS64512-AS65534`).
    #[schema(examples("AS64512-AS65534"))]
    pub range: String,
    /// The RFC that sets it aside.
    #[schema(examples("RFC 6996"))]
    pub rfc: String,
    /// The RFC Editor's page of `rfc`.
    #[schema(format = "uri", examples("https://www.rfc-editor.org/rfc/rfc6996"))]
    #[schemars(extend("format" = "uri"))]
    pub rfc_url: String,
    /// What the numbers are for, in a sentence or two.
    #[schema(examples("Private AS numbers (2-byte), for networks inside one organisation."))]
    pub explanation: String,
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
