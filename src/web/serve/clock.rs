//! The clock of a request: one read of the monotonic clock where a request
//! starts and one where it ends, shared by what needs the time there (the
//! connection's activity, the metrics, the next header deadline,
//! `local_time`), instead of a read each.
//!
//! A [`Scope`] is a stretch of code on one thread (the connection's service
//! call, one poll of a request's answer, one poll of a connection) that
//! remembers the last instant read in it: [`now`] reads the clock and
//! remembers it, [`recent`] gives the remembered instant (reading the clock
//! if the scope has none). So `recent` is for code that runs right after a
//! read with nothing slow in between; a time that must follow work (the end
//! of a request) is read with `now`. A scope opened inside another starts
//! with nothing, and on closing hands its last instant, if any, to the scope
//! around it. Outside any scope both read the clock.
//!
//! [`utc`] gives the wall-clock time of an instant from a per-thread anchor
//! (both clocks read together, once a second per thread): the time of day
//! moves with the monotonic clock between two anchors, so a step of the
//! system clock shows at most a second late.

use std::cell::Cell;
use std::time::{Duration, Instant, SystemTime};

use chrono::{DateTime, TimeDelta, Utc};

#[derive(Debug, Clone, Copy)]
enum ScopeState {
    /// No scope is open.
    Out,
    /// A scope is open and has not read the clock.
    Unread,
    /// A scope is open and last read the clock then.
    Read(Instant),
}

thread_local! {
    static SLOT: Cell<ScopeState> = const { Cell::new(ScopeState::Out) };
    /// An instant and the system clock at about that instant.
    static ANCHOR: Cell<Option<(Instant, DateTime<Utc>)>> = const { Cell::new(None) };
}

/// An open scope (see the module documentation); closed on drop.
#[must_use]
pub(crate) struct Scope {
    outer: ScopeState,
}

/// Opens a scope on this thread.
pub(crate) fn scope() -> Scope {
    Scope {
        outer: SLOT.replace(ScopeState::Unread),
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let restored = match (SLOT.get(), self.outer) {
            (_, ScopeState::Out) => ScopeState::Out,
            (ScopeState::Read(t), _) => ScopeState::Read(t),
            (_, outer) => outer,
        };
        SLOT.set(restored);
    }
}

/// Reads the clock (and the scope remembers it).
pub(crate) fn now() -> Instant {
    let t = Instant::now();
    if !matches!(SLOT.get(), ScopeState::Out) {
        SLOT.set(ScopeState::Read(t));
    }
    t
}

/// The last instant read in this scope, or [`now`] if none.
pub(crate) fn recent() -> Instant {
    match SLOT.get() {
        ScopeState::Read(t) => t,
        ScopeState::Unread | ScopeState::Out => now(),
    }
}

/// How long the per-thread anchor of [`utc`] is used.
const ANCHOR_LIFE: Duration = Duration::from_secs(1);

/// The wall-clock time at `at` (an instant read lately): the anchor's
/// time plus (or minus) the monotonic time between them, added to a
/// `DateTime` already made (no conversion from `SystemTime` per call).
pub(crate) fn utc(at: Instant) -> DateTime<Utc> {
    ANCHOR.with(|anchor| {
        let (base, wall) = match anchor.get() {
            Some((base, wall))
                if at
                    .checked_duration_since(base)
                    .is_some_and(|since| since < ANCHOR_LIFE) =>
            {
                (base, wall)
            }
            _ => {
                let pair = (Instant::now(), DateTime::<Utc>::from(SystemTime::now()));
                anchor.set(Some(pair));
                pair
            }
        };
        let moved = match at.checked_duration_since(base) {
            Some(since) => TimeDelta::from_std(since)
                .ok()
                .and_then(|d| wall.checked_add_signed(d)),
            // A new anchor, read after `at`.
            None => TimeDelta::from_std(base - at)
                .ok()
                .and_then(|d| wall.checked_sub_signed(d)),
        };
        moved.unwrap_or(wall)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_remembers_its_last_read_and_hands_it_out() {
        let outside = (recent(), recent());
        assert!(outside.1 >= outside.0);
        let outer = scope();
        let first = recent();
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(recent(), first, "remembered");
        let inner_read = {
            let _inner = scope();
            let start = recent();
            assert!(start > first, "an inner scope starts with nothing");
            std::thread::sleep(Duration::from_millis(2));
            let end = now();
            assert!(end > start, "now reads the clock");
            assert_eq!(recent(), end);
            end
        };
        assert_eq!(recent(), inner_read, "the inner scope's read is handed out");
        {
            let _unread = scope();
        }
        assert_eq!(
            recent(),
            inner_read,
            "a scope that read nothing changes nothing"
        );
        drop(outer);
        std::thread::sleep(Duration::from_millis(2));
        assert!(recent() > inner_read, "outside a scope the clock is read");
    }

    #[test]
    fn utc_adds_the_monotonic_time_as_the_system_clock_does() {
        // The same instant through the anchor's `DateTime` and through
        // `SystemTime` arithmetic: equal to the nanosecond.
        let base = Instant::now();
        let system = SystemTime::now();
        let wall = DateTime::<Utc>::from(system);
        ANCHOR.with(|a| a.set(Some((base, wall))));
        for nanos in [0, 1, 999_999_999, 123_456_789, 500_000_000, 999_999, 1_000] {
            let since = Duration::from_nanos(nanos);
            assert_eq!(utc(base + since), DateTime::<Utc>::from(system + since));
        }
    }

    #[test]
    fn utc_follows_the_system_clock() {
        let before = Utc::now();
        let derived = utc(Instant::now());
        let after = Utc::now();
        let slack = chrono::Duration::milliseconds(5);
        assert!(derived <= after + slack, "{derived} {after}");
        assert!(derived >= before - slack, "{derived} {before}");
        std::thread::sleep(Duration::from_millis(20));
        let later = utc(Instant::now());
        let now = Utc::now();
        assert!((now - later).num_milliseconds().abs() <= 5, "{later} {now}");
    }
}
