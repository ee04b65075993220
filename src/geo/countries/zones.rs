//! Every time zone of a country: tzdb's `zone.tab` (`data/zone.tab`, from
//! tzdata 2025b, public domain), one row per zone with the one country
//! whose civil clocks it describes, compiled in and read once.

use std::collections::HashMap;
use std::sync::OnceLock;

const ZONE_TAB: &str = include_str!("../../../data/zone.tab");

/// The zones of the country `code` (upper case), as `zone.tab` lists them.
pub(crate) fn zones_of(code: &str) -> &'static [&'static str] {
    by_code().get(code).map_or(&[], Vec::as_slice)
}

/// Every country `zone.tab` lists, with its zones.
pub(crate) fn every() -> impl Iterator<Item = (&'static str, &'static [&'static str])> {
    by_code()
        .iter()
        .map(|(code, zones)| (*code, zones.as_slice()))
}

fn by_code() -> &'static HashMap<&'static str, Vec<&'static str>> {
    static BY_CODE: OnceLock<HashMap<&'static str, Vec<&'static str>>> = OnceLock::new();
    BY_CODE.get_or_init(|| {
        let mut map: HashMap<&'static str, Vec<&'static str>> = HashMap::new();
        for line in ZONE_TAB.lines().filter(|l| !l.starts_with('#')) {
            let mut cells = line.split('\t');
            if let (Some(code), Some(_), Some(zone)) = (cells.next(), cells.next(), cells.next()) {
                map.entry(code).or_default().push(zone);
            }
        }
        map
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_listed_per_country() {
        assert_eq!(zones_of("BD"), ["Asia/Dhaka"]);
        assert!(zones_of("US").len() > 20 && zones_of("US").contains(&"America/New_York"));
        assert!(zones_of("ZZ").is_empty());
    }
}
