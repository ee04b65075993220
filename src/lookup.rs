//! From a caller's text to an [`IpInfo`]: strict parsing, the current
//! database, the special-purpose registry, the city's time zone, reverse DNS
//! and the clock (for `local_time`) put together. [`parse`] reads a
//! caller's text strictly (failing only with a [`LookupError`]);
//! [`Lookup::lookup`] is the one lookup of an address, its reverse DNS
//! waited for, from the cache or skipped ([`Rdns`]); [`Lookup::lookup_at`]
//! the same without reverse DNS, for callers that cannot wait. The hot
//! route writes the same answer over a per-thread one ([`describe_into`]).
//!
//! The database sits behind an [`ArcSwap`]: a reload swaps in a whole new
//! release while readers keep the one they started with, never locking.

pub(crate) mod asn;
pub(crate) mod network;

use std::borrow::Cow;
use std::cell::RefCell;
use std::net::IpAddr;
use std::sync::Arc;

use arc_swap::ArcSwap;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::address;
use crate::geo::special::SpecialBlock;
use crate::geo::{self, Answer, GeoDb};
use crate::model::{self, ErrorCode, IpInfo, Location, Network};
use crate::rdns::ReverseDns;
use crate::zone;

/// An answer, and the tag of the data release that gave it (for `ETag`s).
#[derive(Debug, Clone)]
pub struct Answered {
    pub info: IpInfo,
    /// [`GeoDb::tag`] of the release that answered.
    pub release: Arc<str>,
    /// The IANA special-purpose block of the address ([`special`]), the one
    /// `info.special_purpose` describes: what the pages explain and link.
    pub special: Option<SpecialBlock>,
    /// The address answered, canonical (an IPv4-mapped address as IPv4).
    pub ip: IpAddr,
}

/// Where a lookup's `reverse_dns` comes from (public addresses only; it is
/// null for every other, and whenever reverse DNS is off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rdns {
    /// A PTR query, waited for within `--rdns-timeout` (or its cached name).
    Wait,
    /// The cache only: no query is sent and nothing is waited for (each
    /// entry of a batch, so a batch of a thousand neither takes the PTR
    /// slots of single lookups nor waits a deadline per entry).
    Cached,
    /// None: for answers that never show it (a single field other than
    /// `reverse_dns`, the caller's bare address, a text page).
    Skip,
}

/// Why a caller's text got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// Not an IPv4 or IPv6 address in the accepted forms.
    #[error(transparent)]
    InvalidIp(#[from] address::AddressError),
}

impl LookupError {
    /// The error code callers see.
    pub fn code(&self) -> ErrorCode {
        match self {
            LookupError::InvalidIp(_) => ErrorCode::InvalidIp,
        }
    }

    /// The error as the wire's `Error` body.
    pub fn body(&self) -> model::Error {
        model::Error::new(self.code(), self.to_string())
    }
}

/// The first step of every lookup, for a caller that needs only the address
/// (the lookup form's redirect): strict parsing ([`address::parse`]).
pub fn parse(text: &str) -> Result<IpAddr, LookupError> {
    Ok(address::parse(text)?)
}

/// The lookup service: the current database and, if enabled, reverse DNS.
#[derive(Debug)]
pub struct Lookup {
    db: ArcSwap<GeoDb>,
    rdns: Option<ReverseDns>,
}

impl Lookup {
    /// A service answering from `db`, without reverse DNS.
    pub fn new(db: GeoDb) -> Self {
        Lookup::with_rdns(db, None)
    }

    /// A service answering from `db`, with reverse DNS if given.
    pub fn with_rdns(db: GeoDb, rdns: Option<ReverseDns>) -> Self {
        let db = Arc::new(db);
        zone::prepare(&db);
        Lookup {
            db: ArcSwap::new(db),
            rdns,
        }
    }

    /// The one lookup: everything the data says about `ip` now, and its
    /// `reverse_dns` as `rdns` says (only for a public address). The
    /// address is made canonical and its special-purpose block found once,
    /// here; a caller's text is parsed first, strictly, by [`parse`].
    pub async fn lookup(&self, ip: IpAddr, rdns: Rdns) -> Answered {
        let mut answered = self.lookup_at(ip, Utc::now());
        let (Some(resolver), Some(true)) = (&self.rdns, answered.info.is_public) else {
            return answered;
        };
        answered.info.network.reverse_dns = match rdns {
            Rdns::Wait => resolver.lookup(answered.ip).await,
            Rdns::Cached => resolver.cached_name(answered.ip).await,
            Rdns::Skip => None,
        };
        answered
    }

    /// [`Lookup::lookup`] with [`Rdns::Skip`] and `local_time` as of `now`,
    /// without awaiting: for a caller that cannot wait (the CLI, the
    /// documentation's examples) or that keeps its own clock (the hot
    /// route's text answer). [`Lookup::lookup`] is this and the PTR step.
    pub fn lookup_at(&self, ip: IpAddr, now: DateTime<Utc>) -> Answered {
        let db = self.current();
        let mut info = blank();
        let (ip, special) = describe_into(&mut info, &db, ip, now);
        Answered {
            info,
            release: db.tag(),
            special,
            ip,
        }
    }

    /// Whether [`Lookup::lookup`] never waits (reverse DNS is off), so that
    /// [`Lookup::lookup_without_rdns`] gives the same answer at once.
    pub fn answers_at_once(&self) -> bool {
        self.rdns.is_none()
    }

    /// The database answering now.
    pub fn db(&self) -> Arc<GeoDb> {
        self.db.load_full()
    }

    /// The database answering now, borrowed without taking a reference
    /// (for an answer built at once, without waiting, as the hot route's).
    pub fn current(&self) -> arc_swap::Guard<Arc<GeoDb>> {
        self.db.load()
    }

    /// Replaces the database; lookups in flight finish on the old one.
    pub fn replace(&self, db: GeoDb) {
        let db = Arc::new(db);
        zone::prepare(&db);
        self.db.store(db);
    }
}

/// The wire form of a registry block (`IpInfo::special_purpose`).
pub fn special_purpose(block: &SpecialBlock) -> model::SpecialPurpose {
    let rfc = match block.rfcs {
        [one] => Cow::Borrowed(*one),
        many => Cow::Owned(many.join(", ")),
    };
    model::SpecialPurpose {
        name: Cow::Borrowed(block.name),
        rfc,
        rfc_url: block.rfc_url(),
        range: address::net_text(&block.net),
    }
}

/// Everything one database says about `ip` at the time `now`, without
/// reverse DNS: [`Lookup::lookup_at`] over a database that is not serving
/// (the CLI's bulk paths, tests of a table).
pub fn describe(db: &GeoDb, ip: IpAddr, now: DateTime<Utc>) -> IpInfo {
    let mut info = blank();
    describe_into(&mut info, db, ip, now);
    info
}

/// An answer with every field null or empty, for [`describe_into`] to fill.
pub fn blank() -> IpInfo {
    IpInfo {
        ip: String::new(),
        version: None,
        is_public: None,
        location: Location::default(),
        network: Network::default(),
        special_purpose: None,
    }
}

/// [`describe`] written over `info`, reusing the memory of its strings
/// (the hot route keeps one `IpInfo` per thread and allocates none per
/// answer). Every field is set: `info` ends as [`describe`] would have
/// built it (`reverse_dns` null). The address is made canonical (an
/// IPv4-mapped one answers as IPv4) and its IANA special-purpose block
/// found once, here; both are returned. A block that is not globally
/// reachable makes the address not public and gives it no location.
pub fn describe_into(
    info: &mut IpInfo,
    db: &GeoDb,
    ip: IpAddr,
    now: DateTime<Utc>,
) -> (IpAddr, Option<SpecialBlock>) {
    let ip = address::canonical(ip);
    let block = geo::special::block(ip);
    address::write_text(&mut info.ip, ip);
    info.version = Some(Cow::Borrowed(address::version(ip)));
    info.is_public = Some(true);
    info.special_purpose = block.as_ref().map(special_purpose);
    let network = &mut info.network;
    network.asn = None;
    network.reverse_dns = None;
    if let Some(block) = block.filter(|b| !b.global) {
        info.is_public = Some(false);
        info.location = Location::default();
        network.organization = None;
        let range = network.range.get_or_insert_with(String::new);
        address::write_net_text(range, &block.net);
        return (ip, Some(block));
    }
    let answer = db.lookup(ip);
    location_into(&mut info.location, &answer, now);
    network_into(network, &answer);
    (ip, block)
}

/// The location part of [`describe_into`], `local_time` written over the
/// old one's memory.
fn location_into(location: &mut Location, answer: &Answer<'_>, now: DateTime<Utc>) {
    let Some(c) = answer.country else {
        *location = Location::default();
        return;
    };
    // A city database refines the place; the country table still names the country.
    let city = answer
        .city
        .filter(|c| c.latitude.is_some() && c.longitude.is_some());
    let text = |s: &'static Option<String>| s.as_deref().map(Cow::Borrowed);
    // The zone containing the city, else the country's zone when all its
    // zones keep one time now (`zone::country`).
    let zone = match city.and_then(zone::of_city) {
        Some(tz) => Some(tz),
        None => zone::country::zone_at(&c.code, c.time_zone, now),
    };
    let local_time = zone.map(|tz| {
        let mut text = location.local_time.take().unwrap_or_default();
        local_time_into(&mut text, tz, now);
        text
    });
    *location = Location {
        country_code: Some(Cow::Borrowed(&c.code)),
        country: Some(Cow::Borrowed(&c.name)),
        country_bn: text(&c.name_bn),
        flag: Some(Cow::Borrowed(c.flag())),
        continent: text(&c.continent),
        city: answer.city.map(|c| c.name.clone()),
        latitude: city.map_or(c.latitude, |c| c.latitude),
        longitude: city.map_or(c.longitude, |c| c.longitude),
        accuracy: Some(if city.is_some() {
            crate::model::Accuracy::City
        } else {
            crate::model::Accuracy::Country
        }),
        time_zone: zone.map(|tz| Cow::Borrowed(tz.name())),
        local_time,
        currency: text(&c.currency),
        calling_code: text(&c.calling_code),
    };
}

/// `now` in `tz`, RFC 3339 to the second with the zone's offset: chrono's
/// `to_rfc3339_opts(Secs, false)`, formatted once per zone and second on
/// each thread (the text depends on nothing else) and copied from then on.
pub(crate) fn local_time(tz: Tz, now: DateTime<Utc>) -> String {
    let mut text = String::new();
    local_time_into(&mut text, tz, now);
    text
}

/// [`local_time`] written over `out`, reusing its memory.
fn local_time_into(out: &mut String, tz: Tz, now: DateTime<Utc>) {
    out.clear();
    let format = || {
        now.with_timezone(&tz)
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
    };
    // A leap second (never from the system clock) is written as `:60`.
    if now.timestamp_subsec_nanos() >= 1_000_000_000 {
        out.push_str(&format());
        return;
    }
    let second = now.timestamp();
    LOCAL_TIMES.with_borrow_mut(|slots| {
        if slots.is_empty() {
            slots.resize_with(LOCAL_TIME_SLOTS, LocalTime::default);
        }
        let slot = &mut slots[tz as usize % LOCAL_TIME_SLOTS];
        if slot.zone != Some(tz) || slot.second != second {
            *slot = LocalTime {
                zone: Some(tz),
                second,
                text: format(),
            };
        }
        out.push_str(&slot.text);
    })
}

/// Slots of the per-thread `local_time` cache, a zone's slot chosen by its
/// number: enough that the zones of one country table rarely share one.
const LOCAL_TIME_SLOTS: usize = 512;

/// The text of `local_time` for one zone at one second.
#[derive(Default)]
struct LocalTime {
    zone: Option<Tz>,
    second: i64,
    text: String,
}

thread_local! {
    /// This thread's `local_time` texts: no lock, no sharing (a tokio worker
    /// answers a request on one thread), at most [`LOCAL_TIME_SLOTS`] short
    /// strings per thread.
    static LOCAL_TIMES: RefCell<Vec<LocalTime>> = const { RefCell::new(Vec::new()) };
}

/// The network part: ASN and organisation, and the block geo cut from the
/// ASN row (or from the country row when the ASN table has no data for the
/// address), written over `network`'s strings (`reverse_dns` is left as is).
fn network_into(network: &mut Network, answer: &Answer<'_>) {
    network.asn = answer.network.map(|(asn, _)| asn);
    let organization = answer.network.map(|(_, org)| org).filter(|o| !o.is_empty());
    match organization {
        Some(org) => {
            let text = network.organization.get_or_insert_with(String::new);
            text.clear();
            text.push_str(org);
        }
        None => network.organization = None,
    }
    match answer.range {
        Some(net) => address::write_net_text(network.range.get_or_insert_with(String::new), &net),
        None => network.range = None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(s: &str) -> IpInfo {
        let db = GeoDb::embedded().unwrap();
        describe(&db, s.parse().unwrap(), Utc::now())
    }

    #[test]
    fn private_addresses_get_their_registry_block() {
        let i = info("10.1.2.3");
        assert_eq!(i.is_public, Some(false));
        assert_eq!(i.network.range.as_deref(), Some("10.0.0.0/8"));
        assert_eq!(i.location, Location::default());
    }

    #[test]
    fn special_is_the_registry_block_of_the_canonical_address() {
        let db = GeoDb::embedded().unwrap();
        let block = |s: &str| describe_into(&mut blank(), &db, s.parse().unwrap(), Utc::now()).1;
        assert_eq!(block("10.1.2.3").map(|b| b.name), Some("Private-Use"));
        assert_eq!(
            block("::ffff:10.1.2.3").map(|b| b.name),
            Some("Private-Use")
        );
        assert_eq!(
            block("fd00::1").map(|b| b.rfcs),
            Some(&["RFC 4193", "RFC 8190"][..])
        );
        assert_eq!(block("8.8.8.8"), None);
        // A block the registry marks globally reachable is named too.
        assert_eq!(
            block("192.0.0.9").map(|b| (b.name, b.global)),
            Some(("Port Control Protocol Anycast", true))
        );
    }

    /// `special_purpose` names the block; the other fields keep their
    /// meaning (a non-public block is the range, and nothing else is known;
    /// a globally reachable one changes nothing else).
    #[test]
    fn special_purpose_is_an_addition() {
        let i = info("10.1.2.3");
        assert_eq!(
            i.special_purpose,
            Some(model::SpecialPurpose {
                name: "Private-Use".into(),
                rfc: "RFC 1918".into(),
                rfc_url: "https://www.rfc-editor.org/rfc/rfc1918".into(),
                range: "10.0.0.0/8".into(),
            })
        );
        assert_eq!(i.network.range.as_deref(), Some("10.0.0.0/8"));
        let fd = info("fd12::1").special_purpose.unwrap();
        assert_eq!(
            (fd.rfc.as_ref(), fd.range.as_str()),
            ("RFC 4193, RFC 8190", "fc00::/7")
        );
        assert_eq!(info("8.8.8.8").special_purpose, None);
        let nat64 = info("64:ff9b::808:808");
        assert_eq!(nat64.is_public, Some(true));
        assert_eq!(
            nat64.special_purpose.map(|s| (s.name, s.range)),
            Some(("IPv4-IPv6 Translation".into(), "64:ff9b::/96".into()))
        );
        // A globally reachable block: public, and answered from the data.
        let pcp = info("192.0.0.9");
        let db = GeoDb::embedded().unwrap();
        let country = db.lookup("192.0.0.9".parse().unwrap()).country;
        assert_eq!(pcp.is_public, Some(true));
        assert_eq!(
            pcp.location.country_code.as_deref(),
            country.map(|c| c.code.as_str())
        );
    }

    #[test]
    fn mapped_addresses_are_reported_as_ipv4() {
        let i = info("::ffff:1.0.0.1");
        assert_eq!(i.ip, "1.0.0.1");
        assert_eq!(i.version.as_deref(), Some("IPv4"));
        assert_eq!(i.network.asn, Some(13335));
    }

    #[test]
    fn cached_local_time_is_what_chrono_writes() {
        let chrono = |tz: Tz, now: DateTime<Utc>| {
            now.with_timezone(&tz)
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
        };
        let start = DateTime::parse_from_rfc3339("2026-03-29T00:59:58.250Z")
            .unwrap()
            .to_utc();
        // Every zone, including the pairs that share a slot, asked in turn
        // over seconds that cross the EU summer-time change (01:00 UTC) and
        // fractions of a second that must not matter.
        for step in 0..8 {
            let now = start + chrono::Duration::milliseconds(step * 400);
            for &tz in chrono_tz::TZ_VARIANTS.iter() {
                assert_eq!(local_time(tz, now), chrono(tz, now), "{tz:?} at {now:?}");
            }
        }
        // Far from now, and back again.
        for text in [
            "1970-01-01T00:00:00Z",
            "2038-01-19T03:14:08Z",
            "1901-12-13T20:45:51Z",
        ] {
            let now = DateTime::parse_from_rfc3339(text).unwrap().to_utc();
            for tz in [Tz::Europe__London, Tz::Asia__Kolkata, Tz::America__St_Johns] {
                assert_eq!(local_time(tz, now), chrono(tz, now), "{tz:?} at {now:?}");
            }
        }
        // A leap second is written by chrono, never cached.
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .unwrap()
            .and_hms_nano_opt(23, 59, 59, 1_500_000_000)
            .unwrap()
            .and_utc();
        assert_eq!(local_time(Tz::UTC, leap), chrono(Tz::UTC, leap));
        assert!(local_time(Tz::UTC, leap).ends_with(":60+00:00"));
    }

    #[test]
    fn local_time_carries_the_zone_offset() {
        let db = GeoDb::embedded().unwrap();
        let now = DateTime::parse_from_rfc3339("2026-01-15T12:00:00Z")
            .unwrap()
            .to_utc();
        let i = describe(&db, "103.4.145.1".parse().unwrap(), now);
        assert_eq!(i.location.time_zone.as_deref(), Some("Asia/Dhaka"));
        assert_eq!(
            i.location.local_time.as_deref(),
            Some("2026-01-15T18:00:00+06:00")
        );
        // Australia keeps several times at once: no one zone at country accuracy.
        let i = describe(&db, "1.0.0.1".parse().unwrap(), now);
        assert_eq!(i.location.country_code.as_deref(), Some("AU"));
        assert_eq!(i.location.time_zone, None);
        assert_eq!(i.location.local_time, None);
    }
}
