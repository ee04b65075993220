//! The lookup index: the country and ASN tables of one family merged into a
//! single range table, so that an address is resolved with one directory walk
//! and one short search instead of two.
//!
//! Every boundary of either source table is a boundary of the index. Each
//! index entry holds a [`Slot`]: what both tables say for its range, packed in
//! one word, and where the source row that `network.range` is cut from (the
//! ASN row, or the country row where the ASN table has no data) begins and
//! ends, counted in index entries from this one. Those rows rarely span more
//! than a few entries, so the range is read from the same cache lines the
//! search just touched:
//!
//! ```text
//! slot[0]  bits 20-29: country, as an index into the code book (0: none)
//!          bits 0-19:  network id (0: none)
//! slot[1]  bits 16-31: entries back to the row's first entry
//!          bits 0-15:  entries on to its last entry
//!          (0xffff either way: too far, ask the source table)
//! ```

use std::borrow::Cow;
use std::collections::HashMap;

use crate::ranges::{Key, RangeTable};

/// One index entry's payload (see the module documentation).
pub type Slot = [u32; 2];

const CODE_SHIFT: u32 = 20;
const CODE_MASK: u32 = 0x3ff;
const NETWORK_MASK: u32 = (1 << CODE_SHIFT) - 1;
/// A distance in [`Slot`] that did not fit.
pub const FAR: u32 = 0xffff;

/// Why two tables cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    #[error("more than {} distinct country codes", CODE_MASK)]
    TooManyCodes,
    #[error("more than {} distinct networks", NETWORK_MASK)]
    TooManyNetworks,
    #[error("a source table does not start at the first address")]
    NotFromZero,
    #[error("a source table has more starts than values or the reverse")]
    LengthMismatch,
    #[error("an index entry's row reaches outside the index")]
    BadRow,
    #[error("the code book does not start with the empty code")]
    BadCodeBook,
    #[error("an index entry names a country code the code book lacks")]
    UnknownCode,
    #[error("the stored index does not match the source tables")]
    Mismatch,
}

/// The packed country code (see [`crate::rows::pack_country`]) of each code
/// index; index 0 is "no country".
#[derive(Debug, Clone)]
pub struct CodeBook {
    codes: Cow<'static, [u16]>,
}

impl CodeBook {
    /// Checks stored codes: index 0 must be the empty code.
    pub fn new(codes: Cow<'static, [u16]>) -> Result<Self, IndexError> {
        if codes.first() != Some(&0) || codes.len() > CODE_MASK as usize + 1 {
            return Err(IndexError::BadCodeBook);
        }
        Ok(CodeBook { codes })
    }

    /// The packed code of an index entry (0: no country).
    #[inline]
    pub fn code(&self, slot: &Slot) -> u16 {
        self.codes.get(code_index(slot)).copied().unwrap_or(0)
    }

    /// The stored codes, for the snapshot writer.
    pub fn codes(&self) -> &[u16] {
        &self.codes
    }
}

/// The code book index of an index entry's country (0: no country).
#[inline]
pub fn code_index(slot: &Slot) -> usize {
    (slot[0] >> CODE_SHIFT & CODE_MASK) as usize
}

/// The network id of an index entry (0: no network).
#[inline]
pub fn network(slot: &Slot) -> u32 {
    slot[0] & NETWORK_MASK
}

/// How many entries back the entry's `network.range` row begins and how many
/// on it ends; [`FAR`] when a distance did not fit.
#[inline]
pub fn row_reach(slot: &Slot) -> (u32, u32) {
    (slot[1] >> 16, slot[1] & FAR)
}

/// Merges the country and ASN arrays of one family into index arrays,
/// adding the codes it meets to `codes` (which must start with `[0]`).
pub fn merge<K: Key>(
    country: (&[K], &[u16]),
    asn: (&[K], &[u32]),
    codes: &mut Vec<u16>,
) -> Result<(Vec<K>, Vec<Slot>), IndexError> {
    if country.0.len() != country.1.len() || asn.0.len() != asn.1.len() {
        return Err(IndexError::LengthMismatch);
    }
    if country.0.first() != Some(&K::default()) || asn.0.first() != Some(&K::default()) {
        return Err(IndexError::NotFromZero);
    }
    let mut ids: HashMap<u16, u32> = codes
        .iter()
        .enumerate()
        .map(|(i, c)| (*c, i as u32))
        .collect();
    let capacity = country.0.len() + asn.0.len();
    let mut starts = Vec::with_capacity(capacity);
    let mut slots: Vec<Slot> = Vec::with_capacity(capacity);
    // Source entry of each index entry, and first index entry of each source entry.
    let (mut rows_c, mut rows_a) = (Vec::with_capacity(capacity), Vec::with_capacity(capacity));
    let (mut first_c, mut first_a) = (
        Vec::with_capacity(country.0.len()),
        Vec::with_capacity(asn.0.len()),
    );
    let (mut i, mut j) = (0usize, 0usize);
    let mut code = 0u32;
    loop {
        let next_c = country.0.get(i).copied();
        let next_a = asn.0.get(j).copied();
        let key = match (next_c, next_a) {
            (Some(c), Some(a)) => c.min(a),
            (Some(c), None) => c,
            (None, Some(a)) => a,
            (None, None) => break,
        };
        if next_c == Some(key) {
            code = code_id(&mut ids, codes, country.1[i])?;
            first_c.push(starts.len());
            i += 1;
        }
        if next_a == Some(key) {
            first_a.push(starts.len());
            j += 1;
        }
        let net = asn.1[j - 1];
        if net > NETWORK_MASK {
            return Err(IndexError::TooManyNetworks);
        }
        starts.push(key);
        slots.push([code << CODE_SHIFT | net, 0]);
        rows_c.push(i - 1);
        rows_a.push(j - 1);
    }
    for (at, slot) in slots.iter_mut().enumerate() {
        let (first, row) = match (network(slot), code_index(slot)) {
            (0, 0) => continue,
            (0, _) => (&first_c, rows_c[at]),
            _ => (&first_a, rows_a[at]),
        };
        let last = first.get(row + 1).map_or(starts.len(), |f| *f) - 1;
        let back = u32::try_from(at - first[row]).unwrap_or(FAR).min(FAR);
        let on = u32::try_from(last - at).unwrap_or(FAR).min(FAR);
        slot[1] = back << 16 | on;
    }
    Ok((starts, slots))
}

fn code_id(
    ids: &mut HashMap<u16, u32>,
    codes: &mut Vec<u16>,
    code: u16,
) -> Result<u32, IndexError> {
    if let Some(id) = ids.get(&code) {
        return Ok(*id);
    }
    let id = codes.len() as u32;
    if id > CODE_MASK {
        return Err(IndexError::TooManyCodes);
    }
    codes.push(code);
    ids.insert(code, id);
    Ok(id)
}

/// Checks that every entry of an index names a code of the book, a network
/// id no larger than `networks`, and a row inside the index.
pub fn check<K: Key>(
    table: &RangeTable<K, Slot>,
    book: &CodeBook,
    networks: u32,
) -> Result<(), IndexError> {
    let len = table.len();
    for (at, slot) in table.values().iter().enumerate() {
        if code_index(slot) >= book.codes.len() {
            return Err(IndexError::UnknownCode);
        }
        if network(slot) > networks {
            return Err(IndexError::TooManyNetworks);
        }
        let (back, on) = row_reach(slot);
        if (back != FAR && back as usize > at) || (on != FAR && at + on as usize >= len) {
            return Err(IndexError::BadRow);
        }
    }
    Ok(())
}

/// The first and last address of the `network.range` row around index entry
/// `at`, or `None` if a distance was too far to store.
#[inline]
pub fn row_span<K: Key>(table: &RangeTable<K, Slot>, at: usize) -> Option<(K, K)> {
    let (back, on) = row_reach(table.values().get(at)?);
    if back == FAR || on == FAR {
        return None;
    }
    let (first, _) = table.span_at(at.checked_sub(back as usize)?);
    let (_, last) = table.span_at(at + on as usize);
    Some((first, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_boundaries_of_both_tables() {
        // Country: [0,10) none, [10,30) AU, [30,..) none.
        // ASN:     [0,20) none, [20,25) net 7, [25,..) none.
        let au = u16::from_be_bytes(*b"AU");
        let mut codes = vec![0];
        let (s, v) = merge(
            (&[0u32, 10, 30][..], &[0u16, au, 0][..]),
            (&[0u32, 20, 25][..], &[0u32, 7, 0][..]),
            &mut codes,
        )
        .unwrap();
        assert_eq!(s, [0, 10, 20, 25, 30]);
        assert_eq!(codes, [0, au]);
        let book = CodeBook::new(codes.into()).unwrap();
        let t = RangeTable::new(s.into(), v.into()).unwrap();
        let slot = |k: u32| t.values()[t.index_of(k)];
        assert_eq!(book.code(&slot(22)), au);
        assert_eq!(network(&slot(22)), 7);
        assert_eq!(network(&slot(27)), 0);
        assert_eq!(book.code(&slot(5)), 0);
        // Each entry knows where its network.range row begins and ends:
        // the ASN row where there is one, else the country row.
        let span = |k: u32| row_span(&t, t.index_of(k));
        assert_eq!(span(22), Some((20, 24)));
        assert_eq!(span(12), Some((10, 29)));
        assert_eq!(span(27), Some((10, 29)));
        assert_eq!(row_reach(&slot(40)), (0, 0));
        assert_eq!(check(&t, &book, 7), Ok(()));
        assert_eq!(check(&t, &book, 6), Err(IndexError::TooManyNetworks));
    }

    #[test]
    fn refuses_what_does_not_fit() {
        let mut codes = vec![0];
        let big = merge(
            (&[0u32][..], &[0u16][..]),
            (&[0u32][..], &[NETWORK_MASK + 1][..]),
            &mut codes,
        );
        assert_eq!(big.unwrap_err(), IndexError::TooManyNetworks);
        let from_one = merge(
            (&[1u32][..], &[0u16][..]),
            (&[0u32][..], &[0][..]),
            &mut codes,
        );
        assert_eq!(from_one.unwrap_err(), IndexError::NotFromZero);
        let uneven = merge(
            (&[0u32, 5][..], &[0u16][..]),
            (&[0u32][..], &[0][..]),
            &mut codes,
        );
        assert_eq!(uneven.unwrap_err(), IndexError::LengthMismatch);
        assert_eq!(
            CodeBook::new(vec![5].into()).unwrap_err(),
            IndexError::BadCodeBook
        );
    }
}
