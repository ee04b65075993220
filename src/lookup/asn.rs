//! An autonomous system by number: the caller's text (`15169`, `AS15169`,
//! `as15169`) parsed strictly, and what the current release attributes to
//! it as the wire's [`AsnInfo`]. HTTP and MCP both call [`Lookup::asn`].
//!
//! An answer is built on a blocking thread, never on the runtime's workers:
//! the first AS question of the embedded release builds its AS index there
//! (a loaded release brings its own), and every answer expands its prefixes
//! there. A page of an answer ([`Prefixes::Page`]) expands only the prefixes
//! it lists, found from the index's running counts (`AsSystem::prefixes_v4_page`),
//! so a request for page 1 of an AS at the policy's bound (100,000 prefixes)
//! costs the AS's runs and 500 prefixes, not its whole list; only
//! [`Prefixes::All`] (the CSV, the MCP tool) expands every prefix, at most
//! the bound. At most [`BUILDERS`] answers are built at once, and a caller
//! waits at most [`AS_DEADLINE`] for its own, then gets 503 `overloaded`.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use tokio::sync::Semaphore;

use super::Lookup;
use crate::geo::{AsSystem, GeoDb};
use crate::model::{
    self, AsnAddresses, AsnCountry, AsnInfo, AsnPrefixCount, AsnPrefixes, ErrorCode, PrefixPage,
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
    #[error("the ASN data has no rows for AS{0}")]
    Unknown(u32),
    /// The answer was not ready within [`AS_DEADLINE`].
    #[error("the answer for this AS could not be built in time; try again shortly")]
    Busy,
    /// A page past the last of the AS's prefixes.
    #[error("AS{asn} has {pages} page{s} of prefixes", s = plural(.pages))]
    NoPage { asn: u32, pages: u64 },
}

fn plural(n: &u64) -> &'static str {
    if *n == 1 { "" } else { "s" }
}

/// Which of its prefixes an AS answer lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prefixes {
    /// Every one, on one page (the CSV of them, the MCP tool).
    All,
    /// Page `number` (from 1) of `per_page` (at least 1): the IPv4 prefixes,
    /// then the IPv6 ones.
    Page { number: u32, per_page: u32 },
}

/// How long an AS question waits for its answer.
pub(crate) const AS_DEADLINE: Duration = Duration::from_secs(10);

/// How many AS answers are built at once.
pub(crate) const BUILDERS: usize = 2;

static BUILDING: LazyLock<Arc<Semaphore>> = LazyLock::new(|| Arc::new(Semaphore::new(BUILDERS)));

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

/// What `db` attributes to the AS `number`, with the prefixes `which`
/// names; `Unknown` when no row names it, `NoPage` past its last page.
pub(crate) fn describe_asn(db: &GeoDb, number: u32, which: Prefixes) -> Result<AsnInfo, AsnError> {
    let system = db
        .autonomous_system(number)
        .ok_or(AsnError::Unknown(number))?;
    info(&system, which)
}

/// The wire form of an [`AsSystem`], with the prefixes `which` names.
fn info(system: &AsSystem<'_>, which: Prefixes) -> Result<AsnInfo, AsnError> {
    let v4 = system.addresses_v4();
    let share = |n: u64| match v4 {
        0 => 0.0,
        total => (n as f64 / total as f64 * 1e6).round() / 1e6,
    };
    let prefix_count = AsnPrefixCount {
        v4: system.prefix_count_v4(),
        v6: system.prefix_count_v6(),
    };
    let total = prefix_count.v4 + prefix_count.v6;
    let text = |n: &dyn std::fmt::Display| n.to_string();
    let (prefixes, page) = match which {
        Prefixes::All => (
            AsnPrefixes {
                v4: system.prefixes_v4().map(|n| text(&n)).collect(),
                v6: system.prefixes_v6().map(|n| text(&n)).collect(),
            },
            PrefixPage {
                number: 1,
                pages: 1,
                per_page: total.clamp(1, u32::MAX as u64) as u32,
            },
        ),
        Prefixes::Page { number, per_page } => {
            let per = u64::from(per_page.max(1));
            let pages = total.div_ceil(per).max(1);
            if u64::from(number) > pages || number == 0 {
                return Err(AsnError::NoPage {
                    asn: system.asn,
                    pages,
                });
            }
            let start = (u64::from(number) - 1) * per;
            let end = (start + per).min(total);
            let n4 = prefix_count.v4;
            let (s6, e6) = (start.saturating_sub(n4), end.saturating_sub(n4));
            let count = |from: u64, to: u64| to.saturating_sub(from) as usize;
            let (v4_page, _) = system.prefixes_v4_page(start, count(start.min(n4), end.min(n4)));
            let (v6_page, _) = system.prefixes_v6_page(s6, count(s6, e6));
            (
                AsnPrefixes {
                    v4: v4_page.iter().map(|n| text(n)).collect(),
                    v6: v6_page.iter().map(|n| text(n)).collect(),
                },
                PrefixPage {
                    number,
                    pages: pages.min(u64::from(u32::MAX)) as u32,
                    per_page,
                },
            )
        }
    };
    Ok(AsnInfo {
        asn: system.asn,
        organization: system.name.to_owned(),
        prefixes,
        prefix_count,
        page,
        addresses: AsnAddresses {
            v4,
            v6: system.addresses_v6().to_string(),
        },
        countries: system
            .countries
            .iter()
            .map(|(c, n)| AsnCountry {
                country_code: c.code.clone(),
                country: c.name.clone(),
                addresses: *n,
                share: share(*n),
            })
            .collect(),
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
            info: describe_asn(&db, number, which)?,
            release: db.tag(),
        })
    }

    /// The AS named by the caller's `text` in the current release, built on
    /// a blocking thread (see the module's doc).
    pub(crate) async fn asn(&self, text: &str, which: Prefixes) -> Result<AsnAnswered, AsnError> {
        let number = parse_asn(text)?;
        let db = self.db();
        let build = async {
            let Ok(permit) = BUILDING.clone().acquire_owned().await else {
                return Err(AsnError::Busy);
            };
            tokio::task::spawn_blocking(move || {
                let _held = permit;
                (describe_asn(&db, number, which), db.tag())
            })
            .await
            .map_err(|_| AsnError::Busy)
        };
        let (info, release) = tokio::time::timeout(AS_DEADLINE, build)
            .await
            .map_err(|_| AsnError::Busy)??;
        Ok(AsnAnswered {
            info: info?,
            release,
        })
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
            let all = describe_asn(&db, asn, Prefixes::All).unwrap();
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
                    let mut page = describe_asn(&db, asn, which).unwrap();
                    assert_eq!((page.page.number, page.page.pages), (number, pages));
                    let listed = page.prefixes.v4.len() + page.prefixes.v6.len();
                    assert!(listed <= per_page as usize && listed > 0, "AS{asn}");
                    seen.extend(page.prefixes.v4.drain(..).chain(page.prefixes.v6.drain(..)));
                    page.prefixes = all.prefixes.clone();
                    page.page = all.page;
                    assert_eq!(page, all, "AS{asn} page {number} of {per_page}");
                }
                assert_eq!(seen, whole, "AS{asn} in pages of {per_page}");
                let past = Prefixes::Page {
                    number: pages + 1,
                    per_page,
                };
                assert_eq!(
                    describe_asn(&db, asn, past),
                    Err(AsnError::NoPage {
                        asn,
                        pages: u64::from(pages)
                    })
                );
            }
        }
    }
}
