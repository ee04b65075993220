//! Range checks of the numeric flags. clap runs them as it parses each value
//! (flag or environment variable), so an out-of-range value stops the start
//! with a message naming the flag, e.g. `invalid value '0' for
//! '--request-timeout <SECONDS>': 0 is not a whole number in 1..=3600`.
//! A new numeric flag takes one of these as its `value_parser`, with
//! `default_value = "..."` (a string, parsed by the same check):
//!
//! ```text
//! #[arg(long, env = "IPLOOKUP_IDLE_TIMEOUT", default_value = "60",
//!       value_parser = bounds::seconds(1..=3600), value_name = "SECONDS")]
//! idle_timeout: Duration,
//! ```

use std::ops::RangeInclusive;
use std::time::Duration;

/// A check that turns a flag's text into a `T` or says why it cannot
/// (clap takes any such function as a `value_parser`).
pub trait Check<T>: Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {}
impl<T, F: Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static> Check<T> for F {}

/// A whole number within `range`, as `T` (`u32`, `u64`, `usize`, ...).
pub fn count<T: TryFrom<u64>>(range: RangeInclusive<u64>) -> impl Check<T> {
    move |text: &str| {
        text.parse::<u64>()
            .ok()
            .filter(|n| range.contains(n))
            .and_then(|n| T::try_from(n).ok())
            .ok_or_else(|| {
                format!(
                    "{text} is not a whole number in {}..={}",
                    range.start(),
                    range.end()
                )
            })
    }
}

/// Whole seconds within `range`, as a `Duration`.
pub fn seconds(range: RangeInclusive<u64>) -> impl Check<Duration> {
    let whole = count::<u64>(range);
    move |text: &str| whole(text).map(Duration::from_secs)
}

/// Whole milliseconds within `range`, as a `Duration`.
pub fn millis(range: RangeInclusive<u64>) -> impl Check<Duration> {
    let whole = count::<u64>(range);
    move |text: &str| whole(text).map(Duration::from_millis)
}

/// A rate: a finite number above 0 and at most `max`.
pub fn per_second(max: f64) -> impl Check<f64> {
    move |text: &str| {
        text.parse::<f64>()
            .ok()
            .filter(|r| r.is_finite() && *r > 0.0 && *r <= max)
            .ok_or_else(|| {
                format!("{text} is not a number above 0 and at most {max} (leave the flag out for no limit)")
            })
    }
}
