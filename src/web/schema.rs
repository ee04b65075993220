//! Types that exist only to be described in the OpenAPI document
//! ([`super::openapi`]): the `format` and `ip` parameters (the batch's `format` too), and the JSON forms
//! of `/healthz` and `/docs`, whose real types are rendered by hand. Nothing
//! here is built at run time.

#![allow(dead_code)]

use utoipa::openapi::schema::{AnyOfBuilder, KnownFormat, ObjectBuilder, SchemaFormat, Type};
use utoipa::openapi::{RefOr, schema::Schema};

/// The `format` query parameter.
#[derive(Debug, Clone, Copy, utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
pub(crate) enum FormatName {
    Json,
    Text,
    Md,
    Html,
}

/// The batch route's `format` query parameter: the three forms of its answer.
#[derive(Debug, Clone, Copy, utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
pub(crate) enum BatchFormatName {
    Json,
    Ndjson,
    Csv,
}

/// An IPv4 or IPv6 address parameter (`anyOf` the two string formats).
pub(crate) struct IpParam;

impl utoipa::PartialSchema for IpParam {
    fn schema() -> RefOr<Schema> {
        ip_formats()
    }
}

impl utoipa::ToSchema for IpParam {}

/// A field of `IpInfo` (a path parameter): one of its leaves' names.
pub(crate) struct FieldParam;

impl utoipa::PartialSchema for FieldParam {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(crate::fields::Field::ALL.map(|f| f.name())))
            .into()
    }
}

impl utoipa::ToSchema for FieldParam {}

/// 0 to 4294967295 in 1 to 10 decimal digits, as a regular expression.
const U32_DIGITS: &str = "([0-9]{1,9}|[0-3][0-9]{9}|4[01][0-9]{8}|42[0-8][0-9]{7}|429[0-3][0-9]{6}|4294[0-8][0-9]{5}|42949[0-5][0-9]{4}|429496[0-6][0-9]{3}|4294967[01][0-9]{2}|42949672[0-8][0-9]|429496729[0-5])";

/// An AS number parameter of the API: digits, optionally after `AS` (any case).
pub(crate) struct AsnParam;

impl utoipa::PartialSchema for AsnParam {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(format!("^([Aa][Ss])?{U32_DIGITS}$")))
            .into()
    }
}

impl utoipa::ToSchema for AsnParam {}

/// The digits of an AS page's path (`/AS{asn}`).
pub(crate) struct AsnPathParam;

impl utoipa::PartialSchema for AsnPathParam {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(format!("^{U32_DIGITS}$")))
            .into()
    }
}

impl utoipa::ToSchema for AsnPathParam {}

/// A prefix length (the part after `/`): 0 to 32 for IPv4, 0 to 128 for IPv6.
pub(crate) struct PrefixLengthParam;

impl utoipa::PartialSchema for PrefixLengthParam {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8])$"))
            .into()
    }
}

impl utoipa::ToSchema for PrefixLengthParam {}

/// The second segment of `/{network}/{length_or_field}`: a prefix length
/// (the prefix page) or a field of `IpInfo` (the field's value as text).
pub(crate) struct LengthOrFieldParam;

impl utoipa::PartialSchema for LengthOrFieldParam {
    fn schema() -> RefOr<Schema> {
        AnyOfBuilder::new()
            .item(PrefixLengthParam::schema())
            .item(FieldParam::schema())
            .into()
    }
}

impl utoipa::ToSchema for LengthOrFieldParam {}

/// A country code parameter: ISO 3166-1 alpha-2, any case.
pub(crate) struct CountryParam;

impl utoipa::PartialSchema for CountryParam {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^[A-Za-z]{2}$"))
            .into()
    }
}

impl utoipa::ToSchema for CountryParam {}

/// The lookup form's `ip` query value: what people paste (an address, an
/// AS number, a URL, ...), or empty (no lookup).
pub(crate) struct IpFormParam;

impl utoipa::PartialSchema for IpFormParam {
    fn schema() -> RefOr<Schema> {
        // The forms every reader of the box takes (`web::search` takes more
        // of what people paste: brackets, ports, URLs, `ASN 15169`, ...,
        // described in words; a schema of all of it would be unreadable).
        let pattern = |p: String| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(p))
        };
        let RefOr::T(Schema::AnyOf(addresses)) = ip_formats() else {
            return ip_formats();
        };
        let mut any = AnyOfBuilder::new();
        for item in addresses.items {
            any = any.item(item);
        }
        any.item(pattern(format!("^([Aa][Ss][Nn]?)?{U32_DIGITS}$")))
            .item(pattern(r"^\s*$".to_owned()))
            .into()
    }
}

impl utoipa::ToSchema for IpFormParam {}

fn ip_formats() -> RefOr<Schema> {
    let string = |f| {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(f)))
    };
    AnyOfBuilder::new()
        .item(string(KnownFormat::Ipv4))
        .item(string(KnownFormat::Ipv6))
        .into()
}

/// The JSON form of `/healthz`.
#[derive(utoipa::ToSchema)]
pub(crate) struct HealthJson {
    /// `ok` once data is loaded (the only answer: without data the service
    /// does not start).
    #[schema(examples("ok"))]
    status: String,
    /// The release serving, by its date and content: the country release's
    /// date and a digest of every table's bytes, as in the `ETag`s. It
    /// changes whenever any table's content does.
    #[schema(examples("2026-06-01-8f3c2a9d1e4b5f60"))]
    release: String,
    /// Per table (`country`, `asn`, `city`): source, file name, release date,
    /// digest of the file's bytes, rows, trimmed and skipped rows, defects by kind.
    #[schema(value_type = Object, examples(json!({"country": {"source": "embedded", "release_date": "2026-06-01", "rows": 1}})))]
    data: serde_json::Value,
    /// Files of the data directory not served: `table`, `file` (a name,
    /// never a path), `reason`, `incomplete` (still being written).
    #[schema(value_type = Vec<Object>, examples(json!({"table": "asn", "file": "dbip-asn-lite-2026-12.csv", "reason": "not CSV", "incomplete": false})))]
    refused: Vec<serde_json::Value>,
}

/// The JSON form of `/docs`: the OpenAPI document flattened, as the page shows it.
#[derive(utoipa::ToSchema)]
pub(crate) struct DocsJson {
    /// The API's name.
    #[schema(examples("iplookup"))]
    title: String,
    /// The API's version.
    #[schema(examples("1.0.0"))]
    version: String,
    /// What the service is, in Markdown.
    #[schema(examples("Look up any IPv4 or IPv6 address"))]
    description: String,
    /// The base URL of every path and example.
    #[schema(examples("{base}"))]
    base_url: String,
    /// The operations by tag, lookups first: `tag`, `title`, `description`,
    /// `operations` (each with `id`, `method`, `path`, `summary`,
    /// `description`, `parameters`, `responses`, `limits`, `examples`, `try_it`).
    #[schema(value_type = Vec<Object>, examples(json!({"tag": "lookup", "title": "Lookups", "description": "...", "operations": []})))]
    groups: Vec<serde_json::Value>,
    /// One table per object schema: `name`, `description`, `fields` (each
    /// with `name`, `kind`, `required`, `description`, `example`).
    #[schema(value_type = Vec<Object>, examples(json!({"name": "IpInfo", "description": "...", "fields": []})))]
    schemas: Vec<serde_json::Value>,
    /// Every error code: `code`, `status`, `when`.
    #[schema(value_type = Vec<Object>, examples(json!({"code": "invalid_ip", "status": 400, "when": "..."})))]
    errors: Vec<serde_json::Value>,
    /// The limits' answers (408, 414, 429, 503): `status`, `description`, `media_types`.
    #[schema(value_type = Vec<Object>, examples(json!({"status": "414", "description": "...", "media_types": ["application/json"]})))]
    limits: Vec<serde_json::Value>,
    /// The data's attribution.
    #[schema(examples("IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0"))]
    attribution: String,
}
