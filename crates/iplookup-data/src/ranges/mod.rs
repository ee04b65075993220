//! Compact range tables: sorted range starts with a parallel array of payload ids.
//!
//! A table covers its whole address space: gaps between source rows become
//! explicit entries whose payload is zero ("no data"), so a lookup is "the last
//! start <= address". A directory indexed by the top bits of the address
//! narrows the search to a few entries, so a lookup touches one or two cache
//! lines instead of walking a binary search over the whole table.
//!
//! The arrays are `Cow<'static, _>`: the embedded snapshot is used in place,
//! tables loaded from files own their vectors.

use std::borrow::Cow;
use std::sync::OnceLock;

mod directory;
mod key;

pub use key::{Key, Value};

use crate::prefetch::prefetch;
use crate::rows::RowError;
use directory::Directory;

/// Index slots (see [`crate::index::Slot`]).
impl Value for [u32; 2] {}

/// The entries a lookup searches (`lo..=hi`), from [`RangeTable::narrow`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Run {
    lo: usize,
    hi: usize,
}

/// The entry of a table that holds an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<K, V> {
    pub start: K,
    pub end: K,
    pub value: V,
}

/// Sorted range starts and their payload ids, with a directory over the top bits.
#[derive(Debug, Clone)]
pub struct RangeTable<K: Key, V: Value> {
    starts: Cow<'static, [K]>,
    values: Cow<'static, [V]>,
    /// Narrows a lookup to a short run of starts; built on first use (or by
    /// [`RangeTable::prepare`]), so tables kept only as a source cost nothing.
    dir: OnceLock<Directory>,
}

/// Why a pair of arrays cannot form a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableError {
    Empty,
    LengthMismatch,
    NotFromZero,
    NotStrictlySorted(usize),
    TooLarge,
}

impl<K: Key, V: Value> RangeTable<K, V> {
    /// Checks the arrays (non-empty, first start zero, strictly increasing).
    pub fn new(starts: Cow<'static, [K]>, values: Cow<'static, [V]>) -> Result<Self, TableError> {
        let table = RangeTable::new_built(starts, values)?;
        if let Some(i) = table.starts.windows(2).position(|w| w[0] >= w[1]) {
            return Err(TableError::NotStrictlySorted(i + 1));
        }
        Ok(table)
    }

    /// Like [`RangeTable::new`] but without the pass over every start: for
    /// arrays the build script wrote from checked tables (the embedded
    /// snapshot, whose full check runs as a test), so that starting the
    /// service does not page in tables it may never read. Unsorted arrays
    /// would give wrong answers, never a panic.
    pub fn new_built(
        starts: Cow<'static, [K]>,
        values: Cow<'static, [V]>,
    ) -> Result<Self, TableError> {
        if starts.is_empty() {
            return Err(TableError::Empty);
        }
        if starts.len() != values.len() {
            return Err(TableError::LengthMismatch);
        }
        if u32::try_from(starts.len()).is_err() {
            return Err(TableError::TooLarge);
        }
        if starts[0] != K::default() {
            return Err(TableError::NotFromZero);
        }
        Ok(RangeTable {
            starts,
            values,
            dir: OnceLock::new(),
        })
    }

    /// Builds the search directory now rather than at the first lookup.
    pub fn prepare(&self) {
        self.directory();
    }

    /// The search directory's slots, flat (two words each), for the
    /// snapshot writer: built now if not yet.
    pub fn directory_words(&self) -> Vec<u32> {
        self.directory().slots().iter().flatten().copied().collect()
    }

    /// Uses `slots`, the directory a [`RangeTable::directory_words`] of the
    /// same starts wrote, instead of building one: trusted as it is (see
    /// [`crate::tables::Checks`]). Nothing changes if the table has one.
    pub fn with_stored_directory(self, slots: Cow<'static, [[u32; 2]]>) -> Self {
        let _ = self.dir.set(Directory::stored(slots));
        self
    }

    /// Number of directory tables (root included), for memory accounting.
    pub fn dir_tables(&self) -> usize {
        self.directory().tables()
    }

    fn directory(&self) -> &Directory {
        self.dir.get_or_init(|| Directory::build(&self.starts))
    }

    /// Number of entries, gaps included.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Always false: a table covers its whole family.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The range starts.
    pub fn starts(&self) -> &[K] {
        &self.starts
    }

    /// The payload ids, parallel to [`RangeTable::starts`].
    pub fn values(&self) -> &[V] {
        &self.values
    }

    /// Index of the entry holding `key`.
    #[inline]
    pub fn index_of(&self, key: K) -> usize {
        let (lo, hi) = self.directory().narrow(key);
        self.search(key, Run { lo, hi })
    }

    /// A lookup of many keys split in steps (each step over every key before
    /// the next), so that their waits for memory overlap: first this, which
    /// asks memory for the directory slot `key` starts at;
    /// then [`RangeTable::narrow`], then [`RangeTable::search`].
    #[inline]
    pub fn prefetch(&self, key: K) {
        self.directory().prefetch(key);
    }

    /// The run of entries that holds `key` (the directory's answer), its
    /// starts and payloads asked of memory ahead of [`RangeTable::search`].
    #[inline]
    pub fn narrow(&self, key: K) -> Run {
        let (lo, hi) = self.directory().narrow(key);
        // The middle start (the search's first read) and the payloads at
        // both ends of the run (it spans a few cache lines at most).
        if let Some(start) = self.starts.get(lo + (hi - lo) / 2) {
            prefetch(start);
        }
        for at in [lo, hi] {
            if let Some(value) = self.values.get(at) {
                prefetch(value);
            }
        }
        Run { lo, hi }
    }

    /// Index of the entry holding `key`, in the run [`RangeTable::narrow`]
    /// gave for it (a run for another key gives a wrong index, never a panic).
    #[inline]
    pub fn search(&self, key: K, run: Run) -> usize {
        let (lo, hi) = (run.lo, run.hi);
        // The answer lies in lo..=hi; count the starts after lo that are <= key.
        let after = self.starts.get(lo + 1..=hi).unwrap_or_default();
        lo + after.partition_point(|s| *s <= key)
    }

    /// The entry holding `key`, with its inclusive end.
    #[inline]
    pub fn entry(&self, key: K) -> Entry<K, V> {
        let i = self.index_of(key);
        self.entry_at(i)
    }

    /// The first and last address of the entry at index `i` (an index from
    /// this table's own positions: out of range reads as the last entry).
    #[inline]
    pub fn span_at(&self, i: usize) -> (K, K) {
        let i = i.min(self.starts.len() - 1);
        let end = match self.starts.get(i + 1) {
            Some(next) => next.pred(),
            None => K::MAX,
        };
        (self.starts[i], end)
    }

    /// How many addresses the entries with data hold (saturating at
    /// `u128::MAX`: the whole IPv6 family is one more).
    pub fn covered(&self) -> u128 {
        (0..self.len())
            .filter(|&i| self.values[i] != V::default())
            .fold(0u128, |n, i| {
                let (s, e) = self.span_at(i);
                n.saturating_add(e.wide() - s.wide()).saturating_add(1)
            })
    }

    /// How many CIDR networks the table's data splits into, counted over
    /// its runs of one value (neighbouring entries of the same value are one
    /// run): the same number for the same data whatever its format (a CSV's
    /// ranges, an MMDB's networks), so that releases of two formats can be
    /// compared (issue 33: a 3-network MMDB replaced a 715,948-row CSV).
    pub fn networks(&self) -> u64 {
        let mut count = 0u64;
        let mut i = 0;
        while i < self.len() {
            let value = self.values[i];
            let mut j = i;
            while j + 1 < self.len() && self.values[j + 1] == value {
                j += 1;
            }
            if value != V::default() {
                let (start, _) = self.span_at(i);
                let (_, end) = self.span_at(j);
                count += cidr_blocks(start.wide(), end.wide(), K::BITS);
            }
            i = j + 1;
        }
        count
    }

    /// The entry at index `i`.
    pub fn entry_at(&self, i: usize) -> Entry<K, V> {
        let end = match self.starts.get(i + 1) {
            Some(next) => next.pred(),
            None => K::MAX,
        };
        Entry {
            start: self.starts[i],
            end,
            value: self.values[i],
        }
    }

    /// Payload id of the entry holding `key` (zero: no data).
    #[inline]
    pub fn value(&self, key: K) -> V {
        self.values[self.index_of(key)]
    }
}

/// The search directory a [`RangeTable`] of `starts` builds, its slots flat
/// (two words each): for the snapshot writer.
/// How many CIDR blocks the range `start..=end` (`start <= end`) of a
/// `bits`-bit family splits into (at most `2 × bits`).
pub fn cidr_blocks(mut start: u128, end: u128, bits: u32) -> u64 {
    let mut count = 0;
    loop {
        // The largest block aligned at `start` that ends by `end`: 2^size addresses.
        let span = end - start;
        let fits = |size: u32| {
            if size >= 128 {
                span == u128::MAX
            } else {
                (1u128 << size) - 1 <= span
            }
        };
        let mut size = start.trailing_zeros().min(bits);
        while !fits(size) {
            size -= 1;
        }
        count += 1;
        if size >= 128 {
            return count;
        }
        let last = start + ((1u128 << size) - 1);
        if last >= end {
            return count;
        }
        start = last + 1;
    }
}

pub fn directory_words<K: Key>(starts: &[K]) -> Vec<u32> {
    Directory::build(starts)
        .slots()
        .iter()
        .flatten()
        .copied()
        .collect()
}

/// What [`TableBuilder::push`] did with a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    /// The row was added as it is.
    Added,
    /// The row overlapped the one before; its start was moved past the previous end.
    Trimmed,
    /// The row lay wholly inside rows already added and was dropped.
    Dropped,
}

/// Builds the arrays of a table from sorted, inclusive source ranges.
#[derive(Debug)]
pub struct TableBuilder<K: Key, V: Value> {
    starts: Vec<K>,
    values: Vec<V>,
    /// The first address not yet covered; `None` once the family is full.
    next: Option<K>,
    last_start: Option<K>,
}

impl<K: Key, V: Value> Default for TableBuilder<K, V> {
    fn default() -> Self {
        TableBuilder {
            starts: Vec::new(),
            values: Vec::new(),
            next: Some(K::default()),
            last_start: None,
        }
    }
}

impl<K: Key, V: Value> TableBuilder<K, V> {
    /// Adds the inclusive range `start..=end` (callers check `start <= end`).
    ///
    /// Rows must come sorted by start. A row that starts before the previous row
    /// ended is an error in strict mode; in lenient mode the earlier row wins and
    /// the later one is trimmed (or dropped if nothing of it is left).
    pub fn push(&mut self, start: K, end: K, value: V, lenient: bool) -> Result<Pushed, RowError> {
        if self.last_start.is_some_and(|last| start < last) {
            return Err(RowError::Unsorted);
        }
        let Some(next) = self.next else {
            return self.overlap(lenient, Pushed::Dropped);
        };
        // Sorting is judged on the source starts, before any trimming.
        self.last_start = Some(start);
        let mut outcome = Pushed::Added;
        let mut start = start;
        if start < next {
            if end < next {
                return self.overlap(lenient, Pushed::Dropped);
            }
            self.overlap(lenient, Pushed::Trimmed)?;
            start = next;
            outcome = Pushed::Trimmed;
        }
        if start > next {
            self.starts.push(next);
            self.values.push(V::default());
        }
        self.starts.push(start);
        self.values.push(value);
        self.next = end.succ();
        Ok(outcome)
    }

    /// Like a strict [`TableBuilder::push`], but a range that starts right
    /// after the previous one with the same value extends it rather than
    /// adding an entry (for tables whose ranges carry no meaning of their own).
    pub fn push_joined(&mut self, start: K, end: K, value: V) -> Result<Pushed, RowError> {
        let continues = self.next == Some(start) && self.values.last() == Some(&value);
        if continues && value != V::default() {
            self.last_start = Some(start);
            self.next = end.succ();
            return Ok(Pushed::Added);
        }
        self.push(start, end, value, false)
    }

    fn overlap(&self, lenient: bool, outcome: Pushed) -> Result<Pushed, RowError> {
        if lenient {
            Ok(outcome)
        } else {
            Err(RowError::Overlap)
        }
    }

    /// Number of source rows added so far (gaps excluded).
    pub fn rows(&self) -> usize {
        self.values.iter().filter(|v| **v != V::default()).count()
    }

    /// Closes the trailing gap and returns the arrays.
    pub fn finish(mut self) -> (Vec<K>, Vec<V>) {
        if let Some(next) = self.next {
            self.starts.push(next);
            self.values.push(V::default());
        }
        // Growth left up to half of each array unused.
        self.starts.shrink_to_fit();
        self.values.shrink_to_fit();
        (self.starts, self.values)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cidr_blocks_count_the_split_of_a_range() {
        use super::cidr_blocks;
        assert_eq!(cidr_blocks(0, u128::from(u32::MAX), 32), 1);
        assert_eq!(cidr_blocks(0, u128::MAX, 128), 1);
        // 1.0.0.1 - 1.0.0.6: /32, /31, /31, /32.
        assert_eq!(cidr_blocks(0x0100_0001, 0x0100_0006, 32), 4);
        assert_eq!(cidr_blocks(5, 5, 32), 1);
        // 0.0.0.1 - 255.255.255.255: one block of each size /32 ../1.
        assert_eq!(cidr_blocks(1, u128::from(u32::MAX), 32), 32);
    }

    use super::*;

    fn table(rows: &[(u32, u32, u16)]) -> RangeTable<u32, u16> {
        let mut b = TableBuilder::default();
        for &(s, e, v) in rows {
            b.push(s, e, v, false).unwrap();
        }
        let (s, v) = b.finish();
        RangeTable::new(s.into(), v.into()).unwrap()
    }

    #[test]
    fn gaps_become_empty_entries() {
        let t = table(&[(10, 19, 1), (20, 29, 2), (40, 49, 3)]);
        assert_eq!(t.starts(), [0, 10, 20, 30, 40, 50]);
        assert_eq!(t.values(), [0, 1, 2, 0, 3, 0]);
        assert_eq!(
            t.entry(0),
            Entry {
                start: 0,
                end: 9,
                value: 0
            }
        );
        assert_eq!(
            t.entry(15),
            Entry {
                start: 10,
                end: 19,
                value: 1
            }
        );
        assert_eq!(t.entry(35).value, 0);
        assert_eq!(
            t.entry(49),
            Entry {
                start: 40,
                end: 49,
                value: 3
            }
        );
        assert_eq!(
            t.entry(u32::MAX),
            Entry {
                start: 50,
                end: u32::MAX,
                value: 0
            }
        );
    }

    #[test]
    fn covers_the_whole_space() {
        let t = table(&[(0, u32::MAX, 7)]);
        assert_eq!(t.len(), 1);
        assert_eq!(t.value(0), 7);
        assert_eq!(t.value(u32::MAX), 7);
        let empty = table(&[]);
        assert_eq!(
            empty.entry(12345),
            Entry {
                start: 0,
                end: u32::MAX,
                value: 0
            }
        );
    }

    #[test]
    fn directory_agrees_with_binary_search() {
        let mut starts: Vec<u32> = (0..5000u32)
            .map(|i| i.wrapping_mul(2_654_435_761) & 0xffff_ff00)
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let rows: Vec<_> = starts
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, s + 0x7f, (i % 200 + 1) as u16))
            .collect();
        let t = table(&rows);
        for probe in (0..200_000u32).map(|i| i.wrapping_mul(2_246_822_519)) {
            let expect = t.starts().partition_point(|s| *s <= probe) - 1;
            assert_eq!(t.index_of(probe), expect, "probe {probe}");
        }
    }

    #[test]
    fn strict_mode_refuses_overlap_and_disorder() {
        let mut b = TableBuilder::<u32, u16>::default();
        b.push(10, 20, 1, false).unwrap();
        assert_eq!(b.push(15, 30, 2, false), Err(RowError::Overlap));
        assert_eq!(b.push(5, 8, 2, false), Err(RowError::Unsorted));
    }

    #[test]
    fn lenient_mode_keeps_the_earlier_row() {
        let mut b = TableBuilder::<u32, u16>::default();
        b.push(10, 20, 1, true).unwrap();
        assert_eq!(b.push(15, 30, 2, true), Ok(Pushed::Trimmed));
        assert_eq!(b.push(16, 25, 3, true), Ok(Pushed::Dropped));
        let (s, v) = b.finish();
        assert_eq!(s, [0, 10, 21, 31]);
        assert_eq!(v, [0, 1, 2, 0]);
    }

    #[test]
    fn refuses_malformed_arrays() {
        let t = RangeTable::<u32, u16>::new(vec![0, 5, 5].into(), vec![0, 1, 2].into());
        assert_eq!(t.unwrap_err(), TableError::NotStrictlySorted(2));
        let t = RangeTable::<u32, u16>::new(vec![1].into(), vec![0].into());
        assert_eq!(t.unwrap_err(), TableError::NotFromZero);
    }

    #[test]
    fn joined_pushes_merge_neighbours_of_one_value() {
        let mut b = TableBuilder::<u32, u32>::default();
        for (s, e, v) in [
            (0, 9, 7),
            (10, 19, 7),
            (20, 29, 8),
            (40, 49, 8),
            (50, 59, 8),
        ] {
            assert_eq!(b.push_joined(s, e, v), Ok(Pushed::Added));
        }
        // 20..=29 and 40..=49 have a gap between them: not joined.
        assert_eq!(b.push_joined(55, 70, 8), Err(RowError::Overlap));
        let (starts, values) = b.finish();
        assert_eq!(starts, [0, 20, 30, 40, 60]);
        assert_eq!(values, [7, 8, 0, 8, 0]);
    }

    #[test]
    fn works_for_ipv6_keys() {
        let mut b = TableBuilder::<u128, u16>::default();
        let s = 0x2001_0db8u128 << 96;
        b.push(s, s + (1 << 96) - 1, 9, false).unwrap();
        let (st, v) = b.finish();
        let t = RangeTable::new(st.into(), v.into()).unwrap();
        assert_eq!(t.value(s + 12345), 9);
        assert_eq!(t.value(s - 1), 0);
        assert_eq!(t.entry(u128::MAX).end, u128::MAX);
    }
}
