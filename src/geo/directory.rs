//! The search directory of a range table: a small radix tree over the top bits
//! of the address that narrows a lookup to at most a few dozen range starts.
//!
//! The root splits the address space on its top 16 bits. A slot that still
//! holds more than [`LEAF_MAX`] range starts (common in IPv6, where the data
//! crowds into a handful of /16s) gets a child table on the next 8 bits, and so
//! on, so every search ends in a short run of starts that fits a few cache lines.

use super::ranges::Key;

const ROOT_BITS: u32 = 16;
const CHILD_BITS: u32 = 8;
/// Slots holding more starts than this get a child table.
const LEAF_MAX: usize = 32;

/// Flattened tables of slot bounds and child links.
#[derive(Debug, Clone, Default)]
pub struct Directory {
    /// `bounds[base + s]` is the index of the entry holding the first address of
    /// slot `s` of the table at `base`; `bounds[base + 2^width]` is the table's last index.
    bounds: Vec<u32>,
    /// `children[base + s]` is the base of slot `s`'s child table, or 0 for a leaf
    /// (the root sits at base 0, so no child does).
    children: Vec<u32>,
}

impl Directory {
    /// Builds the directory over sorted, distinct `starts` (first start zero).
    pub fn build<K: Key>(starts: &[K]) -> Directory {
        let mut dir = Directory::default();
        dir.add_table(
            starts,
            K::default(),
            0,
            ROOT_BITS,
            starts.len().saturating_sub(1),
        );
        dir
    }

    /// The inclusive index range of entries that may hold `key`.
    #[inline]
    pub fn narrow<K: Key>(&self, key: K) -> (usize, usize) {
        let (mut base, mut consumed, mut width) = (0usize, 0u32, ROOT_BITS);
        loop {
            let slot = base + key.bits(consumed, width);
            match self.children[slot] {
                0 => return (self.bounds[slot] as usize, self.bounds[slot + 1] as usize),
                child => {
                    base = child as usize;
                    consumed += width;
                    width = CHILD_BITS;
                }
            }
        }
    }

    /// Number of tables (root included).
    pub fn tables(&self) -> usize {
        self.children.iter().filter(|c| **c != 0).count() + 1
    }

    /// Adds the table for the addresses starting with `prefix` (its top
    /// `consumed` bits), split on the next `width` bits; returns its base.
    fn add_table<K: Key>(
        &mut self,
        starts: &[K],
        prefix: K,
        consumed: u32,
        width: u32,
        last: usize,
    ) -> usize {
        let base = self.bounds.len();
        let slots = 1usize << width;
        let first = |s: usize| K::with_bits(prefix, consumed, width, s);
        for s in 0..slots {
            let holder = starts.partition_point(|x| *x <= first(s)).saturating_sub(1);
            self.bounds.push(holder as u32);
        }
        self.bounds.push(last as u32);
        self.children.resize(self.bounds.len(), 0);
        let deeper = consumed + width + CHILD_BITS <= K::BITS;
        for s in 0..slots {
            let (lo, hi) = (
                self.bounds[base + s] as usize,
                self.bounds[base + s + 1] as usize,
            );
            if deeper && hi - lo > LEAF_MAX {
                let child = self.add_table(starts, first(s), consumed + width, CHILD_BITS, hi);
                self.children[base + s] = child as u32;
            }
        }
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<K: Key>(starts: &[K], probes: impl Iterator<Item = K>) {
        let dir = Directory::build(starts);
        for key in probes {
            let (lo, hi) = dir.narrow(key);
            let expect = starts.partition_point(|s| *s <= key) - 1;
            assert!(
                lo <= expect && expect <= hi,
                "{key:?}: {lo}..={hi} misses {expect}"
            );
            assert!(
                hi - lo <= LEAF_MAX.max(1) || lo == hi,
                "{key:?}: run of {}",
                hi - lo
            );
        }
    }

    #[test]
    fn dense_ipv6_prefixes_get_child_tables() {
        // 20,000 starts inside one /16, as the IPv6 data has them.
        let base = 0x2001u128 << 112;
        let mut starts: Vec<u128> = vec![0];
        starts.extend((0..20_000u128).map(|i| {
            base + (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 16 & ((1 << 100) - 1)) * 0x1_0000
        }));
        starts.sort_unstable();
        starts.dedup();
        let probes = starts
            .iter()
            .flat_map(|s| [*s, s.saturating_sub(1), s + 1])
            .collect::<Vec<_>>();
        check(&starts, probes.into_iter());
        assert!(Directory::build(&starts).tables() > 1);
    }

    #[test]
    fn ipv4_runs_stay_short() {
        let mut starts: Vec<u32> = (0..200_000u32)
            .map(|i| i.wrapping_mul(2_654_435_761) & 0xffff_ff00)
            .collect();
        starts.push(0);
        starts.sort_unstable();
        starts.dedup();
        check(
            &starts,
            (0..300_000u32).map(|i| i.wrapping_mul(2_246_822_519)),
        );
    }

    #[test]
    fn a_single_entry_table_works() {
        let dir = Directory::build(&[0u32]);
        assert_eq!(dir.narrow(12345u32), (0, 0));
        assert_eq!(dir.narrow(u32::MAX), (0, 0));
    }
}
