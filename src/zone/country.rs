//! The time of a country as a whole: an answer at country accuracy names a
//! zone and a local time only when every zone of the country keeps the same
//! time at that moment (Bangladesh and India have one zone; Germany's two,
//! Europe/Berlin and Europe/Busingen, always agree). The United States,
//! Russia, Canada, Brazil, Australia, Mexico, Indonesia and the other
//! countries whose zones differ get none: one zone for all of them would
//! tell most of their people the wrong time. The zones of each country come
//! from tzdata's `zone.tab` (`data/zone.tab`, read by
//! [`crate::geo::countries::zone_tab`]).
//!
//! Every answer at country accuracy asks this, so the zones are kept in a
//! table indexed by the code's two letters (no hashing), and each thread
//! keeps, per country, the answer of the last second it was asked.

use std::cell::Cell;
use std::sync::LazyLock;

use chrono::{DateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;

use crate::geo::countries::zone_tab;

/// One slot per pair of upper-case letters.
const SLOTS: usize = 26 * 26;

/// The slot of a country code of two upper-case ASCII letters.
fn slot(code: &str) -> Option<usize> {
    match *code.as_bytes() {
        [a @ b'A'..=b'Z', b @ b'A'..=b'Z'] => {
            Some(usize::from(a - b'A') * 26 + usize::from(b - b'A'))
        }
        _ => None,
    }
}

/// Each country's zones by [`slot`], parsed once (a name `chrono-tz` does
/// not know is left out).
static BY_COUNTRY: LazyLock<Box<[Box<[Tz]>]>> = LazyLock::new(|| {
    let mut table: Vec<Box<[Tz]>> = vec![Box::default(); SLOTS];
    for (code, names) in zone_tab() {
        if let Some(i) = slot(code) {
            table[i] = names.iter().filter_map(|n| n.parse().ok()).collect();
        }
    }
    table.into_boxed_slice()
});

/// The zones of the country `code` (ISO 3166 alpha-2; empty when `zone.tab`
/// does not list it).
pub fn zones(code: &str) -> &'static [Tz] {
    slot(code).map_or(&[], |i| &BY_COUNTRY[i])
}

/// `tz`'s offset from UTC at `now`, in seconds.
fn offset(tz: Tz, now: DateTime<Utc>) -> i32 {
    tz.offset_from_utc_datetime(&now.naive_utc())
        .fix()
        .local_minus_utc()
}

/// The zone an answer at country accuracy gives for the country `code`
/// whose table zone is `primary`, at `now`: `primary` when every zone of
/// the country keeps its time at `now` (one zone, or all at one offset),
/// else `None`. A country `zone.tab` does not list keeps `primary`.
pub fn zone_at(code: &str, primary: Option<Tz>, now: DateTime<Utc>) -> Option<Tz> {
    let primary = primary?;
    let Some(slot) = slot(code) else {
        return Some(primary);
    };
    let all = &BY_COUNTRY[slot];
    if all.len() <= 1 {
        return Some(primary);
    }
    one_time(slot, all, now).then_some(primary)
}

thread_local! {
    /// Per country [`slot`]: the second of this thread's last answer
    /// (`i64::MIN`: none yet) and the answer.
    static LAST: [Cell<(i64, bool)>; SLOTS] =
        const { [const { Cell::new((i64::MIN, false)) }; SLOTS] };
}

/// Whether all of `zones` (the country in `slot`) keep one offset at `now`.
/// The answers of one second about one country compare the zones once per
/// thread, whatever other countries were asked between.
fn one_time(slot: usize, zones: &[Tz], now: DateTime<Utc>) -> bool {
    let second = now.timestamp();
    LAST.with(|last| {
        let cell = &last[slot];
        let (at, same) = cell.get();
        if at == second {
            return same;
        }
        let first = zones.first().map_or(0, |&tz| offset(tz, now));
        let same = zones.iter().all(|&tz| offset(tz, now) == first);
        cell.set((second, same));
        same
    })
}

/// The distinct offsets from UTC (seconds, lowest first) that the zones of
/// the country `code` keep at `now`: what the pages name when the country
/// has no one time ("spans N time zones").
pub fn offsets_at(code: &str, now: DateTime<Utc>) -> Vec<i32> {
    let mut offsets: Vec<i32> = zones(code).iter().map(|&tz| offset(tz, now)).collect();
    offsets.sort_unstable();
    offsets.dedup();
    offsets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().to_utc()
    }

    #[test]
    fn one_time_countries_keep_their_zone_and_the_others_get_none() {
        for now in [at("2026-01-15T12:00:00Z"), at("2026-07-15T12:00:00Z")] {
            assert_eq!(
                zone_at("BD", Some(Tz::Asia__Dhaka), now),
                Some(Tz::Asia__Dhaka)
            );
            assert_eq!(
                zone_at("IN", Some(Tz::Asia__Kolkata), now),
                Some(Tz::Asia__Kolkata)
            );
            assert_eq!(
                zone_at("DE", Some(Tz::Europe__Berlin), now),
                Some(Tz::Europe__Berlin)
            );
            for (code, tz) in [
                ("US", Tz::America__New_York),
                ("RU", Tz::Europe__Moscow),
                ("CA", Tz::America__Toronto),
                ("BR", Tz::America__Sao_Paulo),
                ("AU", Tz::Australia__Sydney),
                ("MX", Tz::America__Mexico_City),
                ("ID", Tz::Asia__Jakarta),
            ] {
                assert_eq!(zone_at(code, Some(tz), now), None, "{code}");
            }
        }
        assert_eq!(zones("DE").len(), 2);
        assert!(zones("ZZ").is_empty());
        assert_eq!(
            zone_at("ZZ", Some(Tz::UTC), at("2026-01-15T12:00:00Z")),
            Some(Tz::UTC)
        );
    }

    #[test]
    fn the_united_states_spans_six_offsets_in_winter() {
        let offsets = offsets_at("US", at("2026-01-15T12:00:00Z"));
        // Hawaii-Aleutian and Hawaii (-10), Alaska, Pacific, Mountain, Central, Eastern.
        assert_eq!(
            offsets,
            [-10, -9, -8, -7, -6, -5].map(|h| h * 3600).to_vec()
        );
        assert_eq!(offsets_at("BD", at("2026-01-15T12:00:00Z")), [6 * 3600]);
    }
}
