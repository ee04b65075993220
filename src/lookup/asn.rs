//! An autonomous system by number: the caller's text (`15169`, `AS15169`,
//! `as15169`) parsed strictly, and what the current release attributes to
//! it as the wire's [`AsnInfo`]. HTTP and MCP both call [`Lookup::asn`].
//!
//! An answer is built on a blocking thread, never on the runtime's workers:
//! the first AS question of the embedded release builds its AS index there
//! (a loaded release brings its own), and every answer expands its prefixes
//! there (at most the policy's bound on one AS). At most [`BUILDERS`] answers
//! are built at once, and a caller waits at most [`AS_DEADLINE`] for its own,
//! then gets 503 `overloaded`.

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

/// What `db` attributes to the AS `number`, `None` when no row names it.
pub(crate) fn describe_asn(db: &GeoDb, number: u32) -> Option<AsnInfo> {
    db.autonomous_system(number).map(|s| info(&s))
}

/// The wire form of an [`AsSystem`].
fn info(system: &AsSystem<'_>) -> AsnInfo {
    let v4 = system.addresses_v4();
    let share = |n: u64| match v4 {
        0 => 0.0,
        total => (n as f64 / total as f64 * 1e6).round() / 1e6,
    };
    let prefixes = AsnPrefixes {
        v4: system.prefixes_v4().map(|n| n.to_string()).collect(),
        v6: system.prefixes_v6().map(|n| n.to_string()).collect(),
    };
    let prefix_count = AsnPrefixCount {
        v4: prefixes.v4.len() as u64,
        v6: prefixes.v6.len() as u64,
    };
    AsnInfo {
        asn: system.asn,
        organization: system.name.to_owned(),
        prefixes,
        prefix_count,
        // Every prefix, on one page (the web pages cut it into pages).
        page: PrefixPage {
            number: 1,
            pages: 1,
            per_page: (prefix_count.v4 + prefix_count.v6).clamp(1, u32::MAX as u64) as u32,
        },
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
    }
}

impl Lookup {
    /// The AS named by `text` in the current release, built on the calling
    /// thread: for callers off the request path (the documentation's
    /// examples, built once), never for a request.
    pub(crate) fn asn_now(&self, text: &str) -> Result<AsnAnswered, AsnError> {
        let number = parse_asn(text)?;
        let db = self.db();
        Ok(AsnAnswered {
            info: describe_asn(&db, number).ok_or(AsnError::Unknown(number))?,
            release: db.tag(),
        })
    }

    /// The AS named by the caller's `text` in the current release, built on
    /// a blocking thread (see the module's doc).
    pub(crate) async fn asn(&self, text: &str) -> Result<AsnAnswered, AsnError> {
        let number = parse_asn(text)?;
        let db = self.db();
        let build = async {
            let Ok(permit) = BUILDING.clone().acquire_owned().await else {
                return Err(AsnError::Busy);
            };
            tokio::task::spawn_blocking(move || {
                let _held = permit;
                (describe_asn(&db, number), db.tag())
            })
            .await
            .map_err(|_| AsnError::Busy)
        };
        let (info, release) = tokio::time::timeout(AS_DEADLINE, build)
            .await
            .map_err(|_| AsnError::Busy)??;
        Ok(AsnAnswered {
            info: info.ok_or(AsnError::Unknown(number))?,
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
}
