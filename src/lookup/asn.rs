//! An autonomous system by number: the caller's text (`15169`, `AS15169`,
//! `as15169`) parsed strictly, and what the current release attributes to
//! it as the wire's [`AsnInfo`]. HTTP and MCP both call [`Lookup::asn`].
//!
//! An answer is read from the AS's profile (`GeoDb::as_profile`: its
//! prefixes with their country and size, its countries per family, its
//! CSV), built once per release and AS on a blocking thread, never on the
//! runtime's workers (the first AS question of the embedded release also
//! builds its AS index there; a loaded release brings its own). A page of
//! an answer, or of a search over all of its prefixes (`?q=`), is then a
//! slice of the profile's lists; the CSV is the profile's one buffer. At
//! most [`BUILDERS`] answers (AS, prefix or country: [`build`]) are built at
//! once, and a caller waits at most [`AS_DEADLINE`] for its own, then gets
//! 503 `overloaded`. A special-purpose AS number ([`special_asn`]) is
//! answered with its registry entry, whether or not a row names it.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use tokio::sync::Semaphore;

use super::Lookup;
use crate::address;
use crate::geo::GeoDb;
use crate::geo::network::profiles::{AsPrefix, AsProfile};
use crate::geo::special::asn::{SpecialAsn, special_asn};
use crate::model::{
    self, AddressCounts, AsPrefixDetails, AsnCountry, AsnCountryV6, AsnInfo, AsnPrefixCount,
    AsnPrefixes, ErrorCode, PrefixPage, PrefixSearch, SpecialAsnInfo,
};

/// Why an AS question got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum AsnError {
    /// Not an AS number: empty, not digits after an optional `AS`, or over 2^32 - 1.
    #[error(
        "not an AS number: give 1 to 10 digits, optionally after AS (15169 or AS15169), at most 4294967295"
    )]
    Invalid,
    /// A valid number that no row of the ASN data names.
    #[error(
        "The data knows no network numbered AS{0}: the number may be unassigned, or newer than this release."
    )]
    Unknown(u32),
    /// The answer was not ready within [`AS_DEADLINE`].
    #[error("the answer for this AS could not be built in time; try again shortly")]
    Busy,
    /// A page past the last of the AS's prefixes.
    #[error("AS{asn} has {pages} page{s} of prefixes: the last is `?page={pages}`.", s = plural(.pages))]
    NoPage { asn: u32, pages: u64 },
}

fn plural(n: &u64) -> &'static str {
    if *n == 1 { "" } else { "s" }
}

/// Which of its prefixes an AS answer lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prefixes {
    /// Page `number` (from 1) of `per_page` (at least 1): the IPv4 prefixes,
    /// then the IPv6 ones.
    Page { number: u32, per_page: u32 },
}

/// How long an AS question waits for its answer.
pub(crate) const AS_DEADLINE: Duration = Duration::from_secs(10);

/// How many AS answers are built at once.
pub(crate) const BUILDERS: usize = 2;

static BUILDING: LazyLock<Arc<Semaphore>> = LazyLock::new(|| Arc::new(Semaphore::new(BUILDERS)));

/// An answer not built within [`AS_DEADLINE`] (or its thread lost).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BuildError;

/// `work` on a blocking thread, one of at most [`BUILDERS`] at once,
/// waited for at most [`AS_DEADLINE`] (the AS, prefix and country answers).
pub(crate) async fn build<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, BuildError> {
    let run = async {
        let permit = BUILDING
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| BuildError)?;
        tokio::task::spawn_blocking(move || {
            let _held = permit;
            work()
        })
        .await
        .map_err(|_| BuildError)
    };
    tokio::time::timeout(AS_DEADLINE, run)
        .await
        .map_err(|_| BuildError)?
}

/// The longest `?q=` an AS answer searches for.
pub(crate) const MAX_QUERY: usize = 64;

impl AsnError {
    /// The error code callers see.
    pub(crate) fn code(&self) -> ErrorCode {
        match self {
            AsnError::Invalid => ErrorCode::InvalidAsn,
            AsnError::Unknown(_) => ErrorCode::UnknownAsn,
            AsnError::Busy => ErrorCode::Overloaded,
            AsnError::NoPage { .. } => ErrorCode::NotFound,
        }
    }

    /// The error as the wire's `Error` body.
    pub(crate) fn body(&self) -> model::Error {
        model::Error::new(self.code(), self.to_string())
    }
}

/// An AS answer, and the tag of the release that gave it (for `ETag`s).
#[derive(Debug, Clone)]
pub(crate) struct AsnAnswered {
    pub info: AsnInfo,
    pub release: Arc<str>,
}

/// `15169`, `AS15169` or `as15169` (any case of `AS`): 1 to 10 ASCII digits,
/// at most `u32::MAX`. No sign, space or other prefix.
pub(crate) fn parse_asn(text: &str) -> Result<u32, AsnError> {
    let digits = match text.get(..2) {
        Some(p) if p.eq_ignore_ascii_case("as") => &text[2..],
        _ => text,
    };
    if digits.is_empty() || digits.len() > 10 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AsnError::Invalid);
    }
    digits.parse().map_err(|_| AsnError::Invalid)
}

/// `part` of `whole`, 0 to 1, rounded to nine places (0 for an empty whole).
pub(crate) fn share(part: u128, whole: u128) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    ((part as f64 / whole as f64) * 1e9).round() / 1e9
}

/// Counts of `v4` and `v6` addresses out of `whole`.
pub(crate) fn counts(v4: u64, v6: u128, whole: (u64, u128)) -> AddressCounts {
    AddressCounts {
        v4,
        v6: v6.to_string(),
        v4_share: share(u128::from(v4), u128::from(whole.0)),
        v6_share: share(v6, whole.1),
    }
}

/// What `db` attributes to the AS `number`, with the prefixes `which`
/// names (those matching `q`, when given); `Unknown` when no row names it
/// and it is no special-purpose number, `NoPage` past its last page.
pub(crate) fn describe_asn(
    db: &GeoDb,
    number: u32,
    which: Prefixes,
    q: Option<&str>,
) -> Result<AsnInfo, AsnError> {
    let special = special_asn(number);
    let profile = match (db.as_profile(number), special) {
        (Some(profile), _) => profile,
        (None, Some(entry)) => Arc::new(AsProfile::empty(number, entry.name)),
        (None, None) => return Err(AsnError::Unknown(number)),
    };
    info(&profile, which, q, db.world(), special)
}

/// Whether the prefix `p` matches the search `q` (lower case): its text
/// contains it, or, for an address, it holds it.
fn matches(p: &AsPrefix, q: &str, ip: Option<std::net::IpAddr>) -> bool {
    match ip {
        Some(ip) => p.net.contains(&ip),
        None => address::net_text(&p.net).contains(q),
    }
}

/// The prefixes of `list` that match `q` (all without one).
fn pick<'a>(
    list: &'a [AsPrefix],
    q: Option<&str>,
    ip: Option<std::net::IpAddr>,
) -> Vec<&'a AsPrefix> {
    match q {
        Some(q) => list.iter().filter(|p| matches(p, q, ip)).collect(),
        None => list.iter().collect(),
    }
}

/// The wire form of a [`SpecialAsn`].
fn special_info(entry: &SpecialAsn) -> SpecialAsnInfo {
    SpecialAsnInfo {
        name: entry.name.to_owned(),
        range: entry.range(),
        rfc: entry.rfc.to_owned(),
        rfc_url: entry.rfc_url(),
        explanation: entry.explanation.to_owned(),
    }
}

/// The wire form of an [`AsProfile`], with the prefixes `which` names among
/// those matching `q`; shares of the `world`'s addresses.
fn info(
    profile: &AsProfile,
    which: Prefixes,
    q: Option<&str>,
    world: (u64, u128),
    special: Option<&SpecialAsn>,
) -> Result<AsnInfo, AsnError> {
    let prefix_count = AsnPrefixCount {
        v4: profile.v4.len() as u64,
        v6: profile.v6.len() as u64,
    };
    let q = q
        .map(|q| q.trim().to_ascii_lowercase())
        .filter(|q| !q.is_empty());
    let ip = q.as_deref().and_then(|q| address::parse(q).ok());
    let (v4, v6) = (
        pick(&profile.v4, q.as_deref(), ip),
        pick(&profile.v6, q.as_deref(), ip),
    );
    let total = (v4.len() + v6.len()) as u64;
    let Prefixes::Page { number, per_page } = which;
    let per_page = per_page.max(1);
    let per = u64::from(per_page);
    let pages = total.div_ceil(per).max(1);
    if u64::from(number) > pages || number == 0 {
        return Err(AsnError::NoPage {
            asn: profile.asn,
            pages,
        });
    }
    let start = ((u64::from(number) - 1) * per) as usize;
    let end = (start + per as usize).min(total as usize);
    let n4 = v4.len();
    let page4 = &v4[start.min(n4)..end.min(n4)];
    let page6 = &v6[start.saturating_sub(n4).min(v6.len())..end.saturating_sub(n4).min(v6.len())];
    let detail = |p: &&AsPrefix| model::AsPrefix {
        prefix: address::net_text(&p.net),
        country_code: p
            .country
            .map(|c| std::borrow::Cow::Borrowed(c.code.as_str())),
        addresses: p.addresses().to_string(),
    };
    let (a4, a6) = (profile.addresses_v4, profile.addresses_v6);
    let share4 = |n: u128| match a4 {
        0 => 0.0,
        total => (n as f64 / total as f64 * 1e6).round() / 1e6,
    };
    let share6 = |n: u128| match a6 {
        0 => 0.0,
        total => (n as f64 / total as f64 * 1e6).round() / 1e6,
    };
    Ok(AsnInfo {
        asn: profile.asn,
        organization: profile.name.clone(),
        prefixes: AsnPrefixes {
            v4: page4.iter().map(|p| address::net_text(&p.net)).collect(),
            v6: page6.iter().map(|p| address::net_text(&p.net)).collect(),
        },
        prefix_details: AsPrefixDetails {
            v4: page4.iter().map(detail).collect(),
            v6: page6.iter().map(detail).collect(),
        },
        prefix_count,
        page: PrefixPage {
            number,
            pages: pages.min(u64::from(u32::MAX)) as u32,
            per_page,
        },
        addresses: counts(u64::try_from(a4).unwrap_or(u64::MAX), a6, world),
        countries: profile
            .countries_v4
            .iter()
            .map(|(c, n)| AsnCountry {
                country_code: c.code.clone(),
                country: c.name.clone(),
                addresses: u64::try_from(*n).unwrap_or(u64::MAX),
                share: share4(*n),
            })
            .collect(),
        countries_v6: profile
            .countries_v6
            .iter()
            .map(|(c, n)| AsnCountryV6 {
                country_code: std::borrow::Cow::Borrowed(c.code.as_str()),
                country: std::borrow::Cow::Borrowed(c.name.as_str()),
                addresses: n.to_string(),
                share: share6(*n),
            })
            .collect(),
        search: q.map(|q| PrefixSearch {
            q,
            matches: AsnPrefixCount {
                v4: v4.len() as u64,
                v6: v6.len() as u64,
            },
        }),
        special_purpose: special.map(special_info),
    })
}

impl Lookup {
    /// The AS named by `text` in the current release, built on the calling
    /// thread: for callers off the request path (the documentation's
    /// examples, built once), never for a request.
    pub(crate) fn asn_now(&self, text: &str, which: Prefixes) -> Result<AsnAnswered, AsnError> {
        let number = parse_asn(text)?;
        let db = self.db();
        Ok(AsnAnswered {
            info: describe_asn(&db, number, which, None)?,
            release: db.tag(),
        })
    }

    /// The prefixes CSV of the AS `text`, built on the calling thread (the
    /// documentation's examples).
    pub(crate) fn asn_csv_now(&self, text: &str) -> Option<String> {
        let profile = self.db().as_profile(parse_asn(text).ok()?)?;
        String::from_utf8(profile.csv.to_vec()).ok()
    }

    /// The AS named by the caller's `text` in the current release, its
    /// prefixes those matching `q` when given, built on a blocking thread
    /// (see the module's doc).
    pub(crate) async fn asn(
        &self,
        text: &str,
        which: Prefixes,
        q: Option<String>,
    ) -> Result<AsnAnswered, AsnError> {
        let number = parse_asn(text)?;
        let db = self.db();
        let release = db.tag();
        let info = build(move || describe_asn(&db, number, which, q.as_deref()))
            .await
            .map_err(|_| AsnError::Busy)??;
        Ok(AsnAnswered { info, release })
    }

    /// The prefixes CSV of the AS named by `text` (built once per release
    /// and AS, shared by every answer: `GeoDb::as_profile`), its number and
    /// the release's tag.
    pub(crate) async fn asn_csv(
        &self,
        text: &str,
    ) -> Result<(u32, bytes::Bytes, Arc<str>), AsnError> {
        let number = parse_asn(text)?;
        let db = self.db();
        let release = db.tag();
        let csv = build(move || match db.as_profile(number) {
            Some(profile) => Ok(profile.csv.clone()),
            None if special_asn(number).is_some() => Ok(bytes::Bytes::from_static(
                crate::geo::network::profiles::CSV_HEADER.as_bytes(),
            )),
            None => Err(AsnError::Unknown(number)),
        })
        .await
        .map_err(|_| AsnError::Busy)??;
        Ok((number, csv, release))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_numbers_parse_strictly() {
        for (text, n) in [
            ("15169", 15169),
            ("AS15169", 15169),
            ("as15169", 15169),
            ("As0", 0),
            ("4294967295", u32::MAX),
        ] {
            assert_eq!(parse_asn(text), Ok(n), "{text}");
        }
        for text in [
            "",
            "AS",
            "as",
            "4294967296",
            "AS-1",
            "+1",
            "1 ",
            " 1",
            "AS 1",
            "ASN1",
            "1.5",
            "99999999999",
            "١٢",
            "x1",
        ] {
            assert_eq!(parse_asn(text), Err(AsnError::Invalid), "{text:?}");
        }
    }

    /// Each page, built from the page functions, is the slice of the whole
    /// list the old answer cut out (IPv4 prefixes, then IPv6 ones), with
    /// the same counts and the rest of the answer alike; past the last page
    /// is `NoPage`.
    #[test]
    fn pages_are_slices_of_the_whole_answer() {
        let db = GeoDb::embedded().unwrap();
        for asn in [13335, 4134, 15169, 174] {
            let whole_list = Prefixes::Page {
                number: 1,
                per_page: u32::MAX,
            };
            let all = describe_asn(&db, asn, whole_list, None).unwrap();
            let whole: Vec<String> = all
                .prefixes
                .v4
                .iter()
                .chain(&all.prefixes.v6)
                .cloned()
                .collect();
            assert_eq!(
                (all.prefix_count.v4 as usize, all.prefix_count.v6 as usize),
                (all.prefixes.v4.len(), all.prefixes.v6.len())
            );
            // Pages of 7 only for the smaller ones (a page costs the AS's runs).
            let sizes: &[u32] = if whole.len() > 3_000 {
                &[500, 100_000]
            } else {
                &[7, 500, 100_000]
            };
            for &per_page in sizes {
                let pages = whole.len().div_ceil(per_page as usize).max(1) as u32;
                let mut seen = Vec::new();
                for number in 1..=pages {
                    let which = Prefixes::Page { number, per_page };
                    let mut page = describe_asn(&db, asn, which, None).unwrap();
                    assert_eq!((page.page.number, page.page.pages), (number, pages));
                    let listed = page.prefixes.v4.len() + page.prefixes.v6.len();
                    assert!(listed <= per_page as usize && listed > 0, "AS{asn}");
                    seen.extend(page.prefixes.v4.drain(..).chain(page.prefixes.v6.drain(..)));
                    page.prefixes = all.prefixes.clone();
                    page.prefix_details = all.prefix_details.clone();
                    page.page = all.page;
                    assert_eq!(page, all, "AS{asn} page {number} of {per_page}");
                }
                assert_eq!(seen, whole, "AS{asn} in pages of {per_page}");
                let past = Prefixes::Page {
                    number: pages + 1,
                    per_page,
                };
                assert_eq!(
                    describe_asn(&db, asn, past, None),
                    Err(AsnError::NoPage {
                        asn,
                        pages: u64::from(pages)
                    })
                );
            }
        }
    }
}
