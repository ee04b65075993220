//! The page model: what a handler hands to the renderers (an answer, the
//! health report, the docs, an error), the attribution every result carries,
//! and the rows and links the text, Markdown and HTML forms share.

use axum::http::StatusCode;
use serde::Serialize;

use super::docs::DocsPage;
use crate::fields::Field;
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

/// The fields of an answer as (label, value) rows, in the order of the spec
/// ([`Field::ALL`]); unknown values are empty.
pub fn info_rows(info: &IpInfo) -> Vec<(&'static str, String)> {
    Field::ALL
        .iter()
        .map(|f| {
            (
                f.name(),
                f.value(info).map(|v| v.into_owned()).unwrap_or_default(),
            )
        })
        .collect()
}

/// The path of the address page and the API answer for an address.
pub fn links(info: &IpInfo) -> (String, String) {
    (format!("/{}", info.ip), format!("/api/v1/ip/{}", info.ip))
}
