//! The search directory of a range table: a small radix tree over the top bits
//! of the address that narrows a lookup to at most a few dozen range starts.
//!
//! The root splits the address space on its top 16 bits. A slot that still
//! holds more than [`LEAF_MAX`] range starts (common in IPv6, where the data
//! crowds into a handful of /16s) gets a child table on the next bits, and so
//! on, so every search ends in a short run of starts that fits a few cache
//! lines. An IPv4 child is only as wide as its starts need (about
//! [`PER_SLOT`] per slot), so the thousands of IPv4 slots just over the limit
//! cost little memory; IPv6 children are always [`CHILD_BITS_MAX`] bits wide:
//! IPv6 starts bunch up unevenly inside a slot, and narrower children there
//! only add levels (measured: country lookups of IPv6 addresses in data
//! about 1.5x slower with adaptive IPv6 children).

use std::borrow::Cow;

use super::key::Key;
use crate::prefetch::prefetch;

const ROOT_BITS: u32 = 16;
/// The widest child table, in bits.
const CHILD_BITS_MAX: u32 = 8;
/// Slots holding more starts than this get a child table.
const LEAF_MAX: usize = 32;
/// Starts per slot a child table aims at.
const PER_SLOT: usize = 8;
/// A child link holds the child's base in its low bits and its width above.
const WIDTH_SHIFT: u32 = 28;
const BASE_MASK: u32 = (1 << WIDTH_SHIFT) - 1;

/// Flattened tables of slots, each its bound and child link side by side
/// (one cache line answers both).
#[derive(Debug, Clone, Default)]
pub struct Directory {
    /// `slots[base + s][0]` is the index of the entry holding the first address
    /// of slot `s` of the table at `base`; `slots[base + 2^width][0]` is the
    /// table's last index. `slots[base + s][1]` is the base of slot `s`'s child
    /// table, or 0 for a leaf (the root sits at base 0, so no child does).
    /// Built at start, or stored in the embedded snapshot and used in place.
    slots: Cow<'static, [[u32; 2]]>,
}

/// The slots of a directory being built.
struct Tables(Vec<[u32; 2]>);

/// Width of a child table for a slot holding `count` starts of `K`.
fn child_bits<K: Key>(count: usize) -> u32 {
    if K::BITS > 32 {
        return CHILD_BITS_MAX;
    }
    (count / PER_SLOT)
        .next_power_of_two()
        .trailing_zeros()
        .clamp(1, CHILD_BITS_MAX)
}

impl Directory {
    /// Builds the directory over sorted, distinct `starts` (first start zero).
    pub fn build<K: Key>(starts: &[K]) -> Directory {
        // Room for the tables of the real data (about 2 slots a start in
        // IPv6, fewer in IPv4) at once, so the slots are not copied as they
        // grow; what is never written is never touched, and is given back.
        let mut tables = Tables(Vec::with_capacity((1 << ROOT_BITS) + 1 + 3 * starts.len()));
        tables.add_table(
            starts,
            K::default(),
            0,
            ROOT_BITS,
            (0, starts.len().saturating_sub(1)),
        );
        tables.0.shrink_to_fit();
        Directory {
            slots: Cow::Owned(tables.0),
        }
    }

    /// The slots of a [`Directory::build`] of the same starts, stored (the
    /// embedded snapshot's, written by the build script), used as they are.
    /// [`Directory::narrow`] trusts them: a snapshot from anywhere else has
    /// its directory checked against a fresh build first (`Checks::Full`).
    pub fn stored(slots: Cow<'static, [[u32; 2]]>) -> Directory {
        Directory { slots }
    }

    /// The slots, for the snapshot writer.
    pub fn slots(&self) -> &[[u32; 2]] {
        &self.slots
    }

    /// The inclusive index range of entries that may hold `key`.
    #[inline]
    pub fn narrow<K: Key>(&self, key: K) -> (usize, usize) {
        let (mut base, mut consumed, mut width) = (0usize, 0u32, ROOT_BITS);
        loop {
            let slot = base + key.bits(consumed, width);
            let [bound, child] = self.slots[slot];
            if child == 0 {
                return (bound as usize, self.slots[slot + 1][0] as usize);
            }
            base = (child & BASE_MASK) as usize;
            consumed += width;
            width = child >> WIDTH_SHIFT;
        }
    }

    /// Asks memory for the root slot `key` starts at.
    #[inline]
    pub fn prefetch<K: Key>(&self, key: K) {
        if let Some(slot) = self.slots.get(key.bits(0, ROOT_BITS)) {
            prefetch(slot);
        }
    }

    /// Number of tables (root included).
    pub fn tables(&self) -> usize {
        self.slots.iter().filter(|s| s[1] != 0).count() + 1
    }
}

impl Tables {
    /// Adds the table for the addresses starting with `prefix` (its top
    /// `consumed` bits), split on the next `width` bits, whose entries are
    /// `span.0..=span.1`; returns its base. One pass over the span: slot
    /// bounds only grow.
    fn add_table<K: Key>(
        &mut self,
        starts: &[K],
        prefix: K,
        consumed: u32,
        width: u32,
        span: (usize, usize),
    ) -> usize {
        let (mut holder, last) = span;
        let base = self.0.len();
        let slots = 1usize << width;
        let first = |s: usize| K::with_bits(prefix, consumed, width, s);
        for s in 0..slots {
            while holder < last && starts[holder + 1] <= first(s) {
                holder += 1;
            }
            self.0.push([holder as u32, 0]);
        }
        self.0.push([last as u32, 0]);
        let room = K::BITS - consumed - width;
        for s in 0..slots {
            let (lo, hi) = (
                self.0[base + s][0] as usize,
                self.0[base + s + 1][0] as usize,
            );
            let bits = child_bits::<K>(hi - lo).min(room);
            if hi - lo > LEAF_MAX && bits > 0 {
                let child = self.add_table(starts, first(s), consumed + width, bits, (lo, hi));
                // A base past the link's range (a table of hundreds of millions
                // of entries) leaves the slot a leaf: a longer search, still right.
                if child <= BASE_MASK as usize {
                    self.0[base + s][1] = child as u32 | bits << WIDTH_SHIFT;
                }
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
