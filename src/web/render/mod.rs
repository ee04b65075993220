//! Every page is one value rendered four ways: JSON, plain text, Markdown and
//! HTML. Handlers build a [`Page`]; only this module turns it into bytes.

mod docs;
mod html;
mod json;
pub mod map;
mod markdown;
mod sanitize;
mod text;

use axum::http::StatusCode;
use serde::Serialize;

pub use self::docs::{DocsPage, Operation, Parameter, ResponseDoc};
use super::negotiate::Format;
use crate::model::{self, IpInfo};

/// The DB-IP attribution its licence asks for, as a link.
pub const ATTRIBUTION_TEXT: &str = "IP Geolocation by DB-IP";
/// Where the attribution links to.
pub const ATTRIBUTION_URL: &str = "https://db-ip.com";

/// A page of the service, before rendering.
#[derive(Debug, Clone)]
pub enum Page {
    Lookup(Box<LookupPage>),
    Health(Box<Health>),
    Docs(Box<DocsPage>),
    Error(ErrorPage),
}

/// The answer for one address.
#[derive(Debug, Clone)]
pub struct LookupPage {
    pub info: IpInfo,
    pub kind: LookupKind,
}

/// Which route asked, which decides the text form and the links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupKind {
    /// `/`: the caller; its text form is the bare address.
    Root,
    /// `/{ip}`: an address page.
    Address,
    /// `/api/v1/me`: the caller, through the API.
    ApiMe,
    /// `/api/v1/ip/{ip}`.
    ApiIp,
}

/// An error, with its status.
#[derive(Debug, Clone)]
pub struct ErrorPage {
    pub status: StatusCode,
    pub body: model::Error,
}

/// What `/healthz` reports: the loaded releases, and the files of the data
/// directory that were refused (named by file name, never by path).
#[derive(Debug, Clone, Serialize)]
pub struct Health {
    pub status: &'static str,
    pub data: HealthData,
    pub refused: Vec<HealthRefusal>,
}

/// One file of the data directory that is not served, and why.
#[derive(Debug, Clone, Serialize)]
pub struct HealthRefusal {
    pub table: &'static str,
    pub file: String,
    pub reason: String,
    /// The file looked unfinished (still being written); it is tried again.
    pub incomplete: bool,
}

/// The two tables of the loaded release.
#[derive(Debug, Clone, Serialize)]
pub struct HealthData {
    pub country: HealthSource,
    pub asn: HealthSource,
    /// Present when a city database is loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<HealthSource>,
}

/// One table of the loaded release.
#[derive(Debug, Clone, Serialize)]
pub struct HealthSource {
    pub source: String,
    pub file: String,
    pub release_date: String,
    pub rows: u64,
    pub trimmed_rows: u64,
    pub skipped_rows: u64,
    /// Defects repaired, by kind (`overlap_trimmed`, `inside_dropped`,
    /// `unsorted_dropped`, `unreadable_dropped`).
    pub defects: std::collections::BTreeMap<&'static str, u64>,
}

impl Health {
    /// The loaded tables, by name: country, asn and, when loaded, city.
    pub fn tables(&self) -> Vec<(&'static str, &HealthSource)> {
        let mut t = vec![("country", &self.data.country), ("asn", &self.data.asn)];
        if let Some(city) = &self.data.city {
            t.push(("city", city));
        }
        t
    }
}

impl Page {
    /// The body of the page in `format` (UTF-8).
    pub fn render(&self, format: Format) -> Vec<u8> {
        match format {
            Format::Json => self.json(),
            // What a terminal or a Markdown viewer shows: no control or
            // bidi character from any value, error message or docs text.
            Format::Text => sanitize::page(text::page(self)).into_bytes(),
            Format::Markdown => sanitize::page(markdown::page(self)).into_bytes(),
            Format::Html => html::page(self).into_bytes(),
        }
    }

    fn json(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(1024);
        let written = match self {
            Page::Lookup(p) => {
                json::ip_info(&mut body, &p.info);
                Ok(())
            }
            Page::Health(h) => serde_json::to_writer_pretty(&mut body, h),
            Page::Docs(d) => serde_json::to_writer_pretty(&mut body, d),
            Page::Error(e) => serde_json::to_writer_pretty(&mut body, &e.body),
        };
        // These types hold only strings, numbers and options: serialising
        // into memory cannot fail, and serde_json writes UTF-8 (so the body
        // is not checked again).
        if written.is_err() {
            body.clear();
        }
        body.push(b'\n');
        body
    }
}

/// The fields of an answer as (label, value) rows, in the order of the spec;
/// unknown values are empty.
pub fn info_rows(info: &IpInfo) -> Vec<(&'static str, String)> {
    let s = |v: Option<&str>| v.unwrap_or_default().to_owned();
    let n = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    let l = &info.location;
    let net = &info.network;
    vec![
        ("ip", info.ip.clone()),
        ("version", s(info.version.as_deref())),
        (
            "is_public",
            info.is_public.map(|b| b.to_string()).unwrap_or_default(),
        ),
        ("country_code", s(l.country_code.as_deref())),
        ("country", s(l.country.as_deref())),
        ("country_bn", s(l.country_bn.as_deref())),
        ("flag", s(l.flag.as_deref())),
        ("continent", s(l.continent.as_deref())),
        ("city", s(l.city.as_deref())),
        ("latitude", n(l.latitude)),
        ("longitude", n(l.longitude)),
        (
            "accuracy",
            match l.accuracy {
                Some(model::Accuracy::Country) => "country".to_owned(),
                Some(model::Accuracy::City) => "city".to_owned(),
                None => String::new(),
            },
        ),
        ("time_zone", s(l.time_zone.as_deref())),
        ("local_time", s(l.local_time.as_deref())),
        ("currency", s(l.currency.as_deref())),
        ("calling_code", s(l.calling_code.as_deref())),
        ("asn", net.asn.map(|a| a.to_string()).unwrap_or_default()),
        ("organization", s(net.organization.as_deref())),
        ("range", s(net.range.as_deref())),
        ("reverse_dns", s(net.reverse_dns.as_deref())),
    ]
}

/// The `Content-Security-Policy` of HTML pages and of the assets they load:
/// nothing external, the pages' inline style and the map's own style
/// ([`map::MAP_STYLE`]) allowed by their hashes, images (the map)
/// from this origin, forms only to this origin.
pub fn csp() -> &'static str {
    use base64::Engine;
    use sha2::Digest;
    static CSP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CSP.get_or_init(|| {
        let hash = |style: &str| {
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(style.as_bytes()))
        };
        format!(
            "default-src 'none'; style-src 'sha256-{}' 'sha256-{}'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            hash(html::STYLE),
            hash(map::MAP_STYLE)
        )
    })
}

/// The path of the address page and the API answer for an address.
pub fn links(info: &IpInfo) -> (String, String) {
    (format!("/{}", info.ip), format!("/api/v1/ip/{}", info.ip))
}
