//! Each country's address space in one release ([`CountrySpace`]): how many
//! IPv4 and IPv6 addresses its country rows hold and in how many rows, the
//! world's totals (every row with a country), and the ASes that hold its
//! space, ranked by the addresses they hold in it.
//!
//! Built once per release on the first country question (on a blocking
//! thread, `lookup::country`), in one pass over the country rows (the
//! totals) and one over the merged index (an AS's addresses in a country:
//! the index entries that name both). For the embedded release it holds
//! 4.2 MB (see `BENCHMARKS.md`), 32 bytes per (country, AS) pair.

use std::collections::HashMap;

use iplookup_data::index;
use iplookup_data::networks::Networks;
use iplookup_data::ranges::{Key, RangeTable};
use iplookup_data::tables::{CountryTables, Index};

use super::super::countries::{Country, CountryTable};

/// Addresses and rows of one family or both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Space {
    pub v4: u64,
    pub v6: u128,
    pub rows_v4: u64,
    pub rows_v6: u64,
}

/// One AS's addresses in one country.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Holder {
    pub asn: u32,
    pub v4: u64,
    pub v6: u128,
}

/// One country's space and its ASes.
#[derive(Debug, Clone)]
pub(crate) struct CountryEntry {
    pub country: &'static Country,
    pub space: Space,
    /// Its ASes, most IPv4 addresses first, then most IPv6 addresses, then
    /// by number.
    pub holders: Box<[Holder]>,
}

/// Every country's space and the world's, for one release.
#[derive(Debug, Default)]
pub(crate) struct CountrySpace {
    /// By code (the code of each entry's country), ascending.
    entries: Box<[CountryEntry]>,
    world: Space,
}

impl CountrySpace {
    /// Counts the country rows and the merged index of a release.
    pub(crate) fn build(
        rows: &CountryTables,
        idx: &Index,
        networks: &Networks,
        countries: &'static CountryTable,
    ) -> CountrySpace {
        // By packed code (a table of 2^16: no hashing per row).
        let mut by_code = vec![Space::default(); 1 << 16];
        count_rows(&rows.v4, &mut by_code, |s, n| {
            s.v4 += n as u64;
            s.rows_v4 += 1;
        });
        count_rows(&rows.v6, &mut by_code, |s, n| {
            s.v6 = s.v6.saturating_add(n);
            s.rows_v6 += 1;
        });
        // Per network id, its addresses per country (a few countries each):
        // no hashing per index entry.
        let mut per_id: Vec<Vec<(u16, u64, u128)>> = vec![Vec::new(); networks.len() + 1];
        let mut add = |code: u16, id: u32, v4: u64, v6: u128| {
            let Some(list) = per_id.get_mut(id as usize) else {
                return;
            };
            match list.iter_mut().find(|e| e.0 == code) {
                Some(e) => {
                    e.1 += v4;
                    e.2 = e.2.saturating_add(v6);
                }
                None => list.push((code, v4, v6)),
            }
        };
        for (code, id, n) in holders(&idx.v4, &idx.codes) {
            add(code, id, n as u64, 0);
        }
        for (code, id, n) in holders(&idx.v6, &idx.codes) {
            add(code, id, 0, n);
        }
        // Ids of one AS (the data may name it differently on different rows) together.
        let mut pairs: HashMap<(u16, u32), (u64, u128)> = HashMap::new();
        for (id, list) in per_id.iter().enumerate() {
            let Some((asn, _)) = networks.get(id as u32) else {
                continue;
            };
            for &(code, v4, v6) in list {
                let entry = pairs.entry((code, asn)).or_default();
                entry.0 += v4;
                entry.1 = entry.1.saturating_add(v6);
            }
        }
        let mut grouped: HashMap<u16, Vec<Holder>> = HashMap::new();
        for ((code, asn), (v4, v6)) in pairs {
            grouped
                .entry(code)
                .or_default()
                .push(Holder { asn, v4, v6 });
        }
        let mut world = Space::default();
        let mut entries: Vec<CountryEntry> = by_code
            .into_iter()
            .enumerate()
            .filter(|(_, space)| *space != Space::default())
            .filter_map(|(code, space)| {
                let code = code as u16;
                let country = countries.get_packed(code)?;
                world.v4 += space.v4;
                world.v6 = world.v6.saturating_add(space.v6);
                world.rows_v4 += space.rows_v4;
                world.rows_v6 += space.rows_v6;
                let mut holders = grouped.remove(&code).unwrap_or_default();
                holders.sort_unstable_by(|a, b| (b.v4, b.v6, a.asn).cmp(&(a.v4, a.v6, b.asn)));
                Some(CountryEntry {
                    country,
                    space,
                    holders: holders.into(),
                })
            })
            .collect();
        entries.sort_unstable_by(|a, b| a.country.code.cmp(&b.country.code));
        CountrySpace {
            entries: entries.into(),
            world,
        }
    }

    /// The country with `code` (upper case), `None` when no row names it.
    pub(crate) fn get(&self, code: &str) -> Option<&CountryEntry> {
        let i = self
            .entries
            .binary_search_by(|e| e.country.code.as_str().cmp(code))
            .ok()?;
        self.entries.get(i)
    }

    /// Every country with rows, by code.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> &[CountryEntry] {
        &self.entries
    }

    /// The totals of every row with a country.
    pub(crate) fn world(&self) -> Space {
        self.world
    }

    /// Bytes held (the figure `BENCHMARKS.md` gives).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        let holders: usize = self.entries.iter().map(|e| e.holders.len()).sum();
        self.entries.len() * std::mem::size_of::<CountryEntry>()
            + holders * std::mem::size_of::<Holder>()
    }
}

/// Calls `add` with the space and size of every row of `table` that has a
/// country.
fn count_rows<K: Key>(
    table: &RangeTable<K, u16>,
    by_code: &mut [Space],
    mut add: impl FnMut(&mut Space, u128),
) {
    for (i, code) in table.values().iter().enumerate() {
        let Some(space) = by_code.get_mut(usize::from(*code)).filter(|_| *code != 0) else {
            continue;
        };
        let (s, e) = table.span_at(i);
        add(space, e.wide() - s.wide() + 1);
    }
}

/// (packed country code, network id, addresses) of every index entry that
/// names both.
fn holders<'a, K: Key>(
    table: &'a RangeTable<K, index::Slot>,
    codes: &'a index::CodeBook,
) -> impl Iterator<Item = (u16, u32, u128)> + 'a {
    table
        .values()
        .iter()
        .enumerate()
        .filter_map(move |(i, slot)| {
            let (code, id) = (codes.code(slot), index::network(slot));
            if code == 0 || id == 0 {
                return None;
            }
            let (s, e) = table.span_at(i);
            Some((code, id, e.wide() - s.wide() + 1))
        })
}

#[cfg(test)]
mod tests {
    use crate::GeoDb;

    /// Bangladesh's totals are the sum over its rows, its ASes hold no more
    /// than it has, and the world is the sum of the countries.
    #[test]
    fn totals_are_sums_over_the_rows() {
        let db = GeoDb::embedded().unwrap();
        let started = std::time::Instant::now();
        let space = db.country_space();
        eprintln!(
            "country space built in {:?}: {} countries, {} bytes",
            started.elapsed(),
            space.entries().len(),
            space.bytes()
        );
        let bd = space.get("BD").unwrap();
        let rows = db.country_tables();
        let packed = u16::from_be_bytes(*b"BD");
        let mut v4 = 0u64;
        for (i, c) in rows.v4.values().iter().enumerate() {
            if *c == packed {
                let (s, e) = rows.v4.span_at(i);
                v4 += u64::from(e - s) + 1;
            }
        }
        assert_eq!(bd.space.v4, v4);
        assert!(bd.space.v6 > 0 && bd.space.rows_v4 > 0);
        let held: u64 = bd.holders.iter().map(|h| h.v4).sum();
        assert!(held <= v4 && held > 0, "{held} of {v4}");
        assert!(bd.holders.windows(2).all(|w| w[0].v4 >= w[1].v4));
        let world: u64 = space.entries().iter().map(|e| e.space.v4).sum();
        assert_eq!(space.world().v4, world);
        assert_eq!(db.world(), (space.world().v4, space.world().v6));
        assert!(space.get("ZZ").is_none());
    }
}
