//! Country flags as images, so they show on every system (an emoji flag is
//! two letters on Windows): the 4x3 SVGs of npm `flag-icons` 7.5.0 (MIT,
//! `assets/flags/LICENSE`), one per code of the country table, optimised
//! with svgo by `tools/flags/build` into `assets/flags/flags-4x3.tsv`
//! (`code<TAB>svg` per line), simplified for 24 x 18 px (a 64 x 48 viewBox,
//! each under 2 KB: `tools/flags/simplify.py`). Each is served as its own asset,
//! `/assets/flag-{code}.{hash}.svg` ([`super::assets`]).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::asset::Asset;

const FLAGS: &str = include_str!("../../../assets/flags/flags-4x3.tsv");

fn all() -> &'static HashMap<&'static str, Asset> {
    static ALL: OnceLock<HashMap<&'static str, Asset>> = OnceLock::new();
    ALL.get_or_init(|| {
        FLAGS
            .lines()
            .filter_map(|line| {
                let (code, svg) = line.split_once('\t')?;
                let asset = Asset::new(&format!("flag-{code}"), "svg", svg.as_bytes().to_vec());
                Some((code, asset))
            })
            .collect()
    })
}

/// The flag of the country `code` (either case), if the set has one.
pub(crate) fn flag(code: &str) -> Option<&'static Asset> {
    if code.len() != 2 || !code.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    all().get(code.to_ascii_lowercase().as_str())
}

/// Every flag, by code.
pub(crate) fn each() -> impl Iterator<Item = &'static Asset> {
    let mut codes: Vec<&&str> = all().keys().collect();
    codes.sort();
    codes.into_iter().filter_map(|c| all().get(*c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_country_of_the_table_has_its_flag() {
        let table = crate::geo::countries::CountryTable::embedded().unwrap();
        for c in table.iter() {
            let f = flag(&c.code).unwrap_or_else(|| panic!("no flag for {}", c.code));
            assert!(f.body.starts_with(b"<svg"), "{}", c.code);
            assert!(
                !f.body
                    .windows(7)
                    .any(|w| w.eq_ignore_ascii_case(b"<script")),
                "{}",
                c.code
            );
        }
        assert_eq!(all().len(), table.len());
        assert!(flag("XK").is_some(), "Kosovo");
        assert!(flag("zz").is_none() && flag("../x").is_none() && flag("").is_none());
        // Small flags (issue 32): a page of an AS's 100 countries stays light.
        for (code, a) in all() {
            assert!(a.body.len() <= 2000, "{code}: {} bytes", a.body.len());
        }
        let total: usize = all().values().map(|a| a.body.len()).sum();
        assert!(total < 200_000, "the flags add {total} bytes");
    }
}
