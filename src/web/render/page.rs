//! The page model: what a handler hands to the renderers (an answer, the
//! health report, the docs, an error), the attribution every result carries,
//! and the rows and links the text, Markdown and HTML forms share.

use std::sync::Arc;

use axum::http::StatusCode;
use serde::Serialize;

use super::i18n::Lang;
use crate::fields::Field;
use crate::geo::special::SpecialBlock;
use crate::lookup::Answered;
use crate::model::{self, AsnInfo, IpInfo};
use crate::web::openapi::docs::DocsPage;
use crate::web::serve::origin::FamilyOrigins;

/// The DB-IP attribution its licence asks for, as a link.
pub(crate) const ATTRIBUTION_TEXT: &str = "IP Geolocation by DB-IP";
/// Where the attribution links to.
pub(crate) const ATTRIBUTION_URL: &str = "https://db-ip.com";

/// A page of the service, before rendering.
#[derive(Debug, Clone)]
pub(crate) enum Page {
    Lookup(Box<LookupPage>),
    /// One autonomous system ([`super::asn`]).
    Asn(Box<AsnPage>),
    Docs(Box<DocsPage>),
    Error(ErrorPage),
    /// Any other resource: its JSON and its view ([`Resource`]), so a new
    /// resource adds no variant here and no arm to any writer.
    Resource(Arc<dyn super::doc::Resource>),
}

/// The answer for one address.
#[derive(Debug, Clone)]
pub(crate) struct LookupPage {
    pub info: IpInfo,
    pub kind: LookupKind,
    /// The registry entry of a special-purpose address (in JSON as
    /// `special_purpose`): named beside the range, and explained in a
    /// sentence, on the text, Markdown and HTML pages.
    pub special: Option<SpecialUse>,
    /// The root page's origins per address family, when configured: the
    /// HTML page asks each for the visitor's address in that family.
    pub families: Option<Arc<FamilyOrigins>>,
    /// The data releases the answer came from (the pages' footer).
    pub releases: Option<Releases>,
}

pub(crate) use super::doc::Releases;

impl LookupPage {
    /// The page of an answer, asked by `kind`.
    pub(crate) fn new(answered: Answered, kind: LookupKind) -> Self {
        LookupPage {
            info: answered.info,
            kind,
            special: answered.special.map(SpecialUse::from),
            families: None,
            releases: None,
        }
    }

    /// The same page, naming the data releases in its footer.
    pub(crate) fn with_releases(mut self, releases: Releases) -> Self {
        self.releases = Some(releases);
        self
    }

    /// The same page, showing the visitor's address per family from these
    /// origins (nothing when none is configured).
    pub(crate) fn with_families(mut self, families: &Arc<FamilyOrigins>) -> Self {
        self.families = (!families.is_empty()).then(|| families.clone());
        self
    }
}

/// An entry of the IANA special-purpose address registries: its name, the
/// RFCs of its "RFC" column, and what it is for in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpecialUse {
    pub name: &'static str,
    pub rfcs: &'static [&'static str],
    /// What the block is for and why it has no location, one or two plain
    /// English sentences ([`SpecialBlock::explanation`]).
    pub explanation: &'static str,
    /// The RFC Editor's page of its first RFC.
    pub rfc_url: String,
    /// The address space of a local network or the machine itself
    /// ([`SpecialBlock::is_local_network`]).
    pub local_network: bool,
}

impl From<SpecialBlock> for SpecialUse {
    fn from(block: SpecialBlock) -> Self {
        SpecialUse {
            name: block.name,
            rfcs: block.rfcs,
            explanation: block.explanation(),
            rfc_url: block.rfc_url(),
            local_network: block.is_local_network(),
        }
    }
}

/// What the root page adds when the caller's own address is a local
/// network's: the service most likely sees a reverse proxy, not the visitor.
pub(crate) const PROXY_HINT: &str = "If a reverse proxy runs in front of this service, this is the proxy's address, not the visitor's: start the service with --trusted-proxy naming the proxy, and it reads the visitor's address from the proxy's header.";

impl LookupPage {
    /// Whether the page is the caller's own (`/`, `/api/v1/me`) and the
    /// caller's address is a local network's: then it says [`PROXY_HINT`].
    pub(crate) fn proxy_hint(&self) -> bool {
        matches!(self.kind, LookupKind::Root | LookupKind::ApiMe)
            && self.special.as_ref().is_some_and(|s| s.local_network)
    }

    /// The words about the address's block: its explanation, then for a
    /// caller on a local network [`PROXY_HINT`]; `None` for an ordinary
    /// address.
    pub(crate) fn special_words(&self) -> Option<String> {
        self.special_words_in(Lang::En)
    }

    /// [`LookupPage::special_words`] in `lang` ([`super::special_bn`]).
    pub(crate) fn special_words_in(&self, lang: Lang) -> Option<String> {
        let special = self.special.as_ref()?;
        let (explanation, hint) = match lang {
            Lang::En => (special.explanation, PROXY_HINT),
            Lang::Bn => (
                super::special_bn::sentence(special.name),
                super::special_bn::PROXY_HINT,
            ),
        };
        let mut words = explanation.to_owned();
        if self.proxy_hint() {
            words.push(' ');
            words.push_str(hint);
        }
        Some(words)
    }
}

impl SpecialUse {
    /// The entry as the pages name it: `Private-Use (RFC 1918)`, and a
    /// qualifier the registry's name already carries joins the RFCs:
    /// `Documentation (TEST-NET-1, RFC 5737)`.
    pub(crate) fn label(&self) -> String {
        labelled(self.name, self.rfcs)
    }

    /// [`SpecialUse::label`] in `lang`: in Bangla the block's Bangla name
    /// (`ব্যক্তিগত ব্যবহার (RFC 1918)`), the registry's where it has none.
    pub(crate) fn label_in(&self, lang: Lang) -> String {
        match lang {
            Lang::En => self.label(),
            Lang::Bn => labelled(
                super::special_bn::name(self.name).unwrap_or(self.name),
                self.rfcs,
            ),
        }
    }
}

fn labelled(name: &str, rfcs: &[&str]) -> String {
    let rfcs = rfcs.join(", ");
    match name.strip_suffix(')') {
        Some(open) if open.contains('(') => format!("{open}, {rfcs})"),
        _ if rfcs.is_empty() => name.to_owned(),
        _ => format!("{name} ({rfcs})"),
    }
}

/// The name of the row that carries [`SpecialUse::label`], right after `range`.
pub(crate) const SPECIAL_ROW: &str = "special_purpose";

/// Which route asked, which decides the text form and the links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LookupKind {
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
pub(crate) struct ErrorPage {
    pub status: StatusCode,
    pub body: model::Error,
    /// What the lookup form held, given back in the box of the HTML page.
    pub input: Option<String>,
}

/// What `/healthz` reports: the loaded releases, and the files of the data
/// directory that were refused (named by file name, never by path).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Health {
    pub status: &'static str,
    /// The release serving, by its date and content: the country release's
    /// date and a digest of every table's bytes (the `ETag`s' release part).
    pub release: String,
    pub data: HealthData,
    pub refused: Vec<HealthRefusal>,
}

/// One file of the data directory that is not served, and why.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HealthRefusal {
    pub table: &'static str,
    pub file: String,
    pub reason: String,
    /// The file looked unfinished (still being written); it is tried again.
    pub incomplete: bool,
}

/// The two tables of the loaded release.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HealthData {
    pub country: HealthSource,
    pub asn: HealthSource,
    /// Present when a city database is loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<HealthSource>,
}

/// One table of the loaded release.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HealthSource {
    pub source: String,
    pub file: String,
    pub release_date: String,
    /// A digest of the file's bytes as read (16 hex digits).
    pub digest: String,
    pub rows: u64,
    pub trimmed_rows: u64,
    pub skipped_rows: u64,
    /// Defects repaired, by kind (`overlap_trimmed`, `inside_dropped`,
    /// `unsorted_dropped`, `unreadable_dropped`, `special_dropped`).
    pub defects: std::collections::BTreeMap<&'static str, u64>,
}

impl Health {
    /// The loaded tables, by name: country, asn and, when loaded, city.
    pub(crate) fn tables(&self) -> Vec<(&'static str, &HealthSource)> {
        let mut t = vec![("country", &self.data.country), ("asn", &self.data.asn)];
        if let Some(city) = &self.data.city {
            t.push(("city", city));
        }
        t
    }
}

/// The fields of an answer as (label, value) rows, in the order of the spec
/// ([`Field::ALL`]); unknown values are empty.
pub(crate) fn info_rows(info: &IpInfo) -> Vec<(&'static str, String)> {
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

/// The rows of a lookup page: [`info_rows`], and for a special-purpose
/// address its registry entry ([`SPECIAL_ROW`], labelled with its RFCs)
/// right after the range it names rather than last.
pub(crate) fn lookup_rows(page: &LookupPage) -> Vec<(&'static str, String)> {
    let mut rows = info_rows(&page.info);
    rows.retain(|(key, _)| *key != SPECIAL_ROW);
    if let Some(special) = &page.special {
        let at = rows
            .iter()
            .position(|(key, _)| *key == "range")
            .map_or(rows.len(), |i| i + 1);
        rows.insert(at, (SPECIAL_ROW, special.label()));
    }
    rows
}

/// The path of the address page and the API answer for an address.
pub(crate) fn links(info: &IpInfo) -> (String, String) {
    (format!("/{}", info.ip), format!("/api/v1/ip/{}", info.ip))
}

/// The page of one AS, before rendering: its answer holds one page of its
/// prefixes (`info.page`, [`crate::model::PrefixPage`]).
#[derive(Debug, Clone)]
pub(crate) struct AsnPage {
    pub info: AsnInfo,
    /// The data releases the answer came from (the pages' footer).
    pub releases: Option<Releases>,
}

/// The path of the AS page and of its API answer.
pub(crate) fn asn_links(asn: u32) -> (String, String) {
    (format!("/AS{asn}"), format!("/api/v1/asn/{asn}"))
}

/// The CSV of every prefix of an AS.
pub(crate) fn asn_csv_link(asn: u32) -> String {
    format!("/api/v1/asn/{asn}/prefixes.csv")
}

/// `path` for page `n` of the prefixes (page 1 is the path itself).
pub(crate) fn page_link(path: &str, n: u32) -> String {
    let sep = if path.contains('?') { '&' } else { '?' };
    if n <= 1 {
        path.to_owned()
    } else {
        format!("{path}{sep}page={n}")
    }
}

/// The number of the first prefix of the page (from 1), and of its last.
pub(crate) fn page_span(info: &AsnInfo) -> (u64, u64) {
    let listed = (info.prefixes.v4.len() + info.prefixes.v6.len()) as u64;
    let first = u64::from(info.page.number.saturating_sub(1)) * u64::from(info.page.per_page) + 1;
    (first, first + listed.saturating_sub(1))
}

/// The number of /48 networks in an IPv6 count of addresses (a decimal string).
pub(crate) fn slash48s(v6: &str) -> u128 {
    v6.parse::<u128>().map_or(0, |n| n >> 80)
}

#[cfg(test)]
mod tests {
    use super::SpecialUse;

    #[test]
    fn labels_join_the_registry_name_and_its_rfcs() {
        let label = |name, rfcs| {
            SpecialUse {
                name,
                rfcs,
                explanation: "",
                rfc_url: String::new(),
                local_network: false,
            }
            .label()
        };
        assert_eq!(
            label("Private-Use", &["RFC 1918"]),
            "Private-Use (RFC 1918)"
        );
        assert_eq!(
            label("Documentation (TEST-NET-1)", &["RFC 5737"]),
            "Documentation (TEST-NET-1, RFC 5737)"
        );
        assert_eq!(
            label("Unique-Local", &["RFC 4193", "RFC 8190"]),
            "Unique-Local (RFC 4193, RFC 8190)"
        );
        assert_eq!(
            label("Segment Routing (SRv6) SIDs", &["RFC 9602"]),
            "Segment Routing (SRv6) SIDs (RFC 9602)"
        );
    }
}
