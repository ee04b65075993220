//! The binary snapshot of the embedded data: the arrays of every table, laid
//! out little-endian and 16-byte aligned so that the running binary uses them
//! in place, without parsing or copying.
//!
//! The build script writes it from the committed CSV files; the library reads
//! it back at start. Layout: the magic `IPLKSNP2`, the section count (u64),
//! then each section as its byte length (u64), element size (u64) and bytes,
//! padded to 16 bytes. Sections come in the fixed order of [`Parts`].

use std::borrow::Cow;

use crate::error::DataError;
use crate::index::{self, IndexError, Slot};
use crate::ranges;

const MAGIC: &[u8; 8] = b"IPLKSNP2";
const SECTIONS: usize = 19;
const ALIGN: usize = 16;

/// The arrays of the network store: AS numbers, organisation offsets, name arena.
pub type NetworkArrays<'a> = (Cow<'a, [u32]>, Cow<'a, [u32]>, Cow<'a, [u8]>);

/// The arrays of every table plus a free-text metadata block.
#[derive(Debug, Clone, Default)]
pub struct Parts<'a> {
    pub country_v4: (Cow<'a, [u32]>, Cow<'a, [u16]>),
    pub country_v6: (Cow<'a, [u128]>, Cow<'a, [u16]>),
    pub asn_v4: (Cow<'a, [u32]>, Cow<'a, [u32]>),
    pub asn_v6: (Cow<'a, [u128]>, Cow<'a, [u32]>),
    pub networks: NetworkArrays<'a>,
    /// The merged lookup index of each family (see `index.rs`): starts and
    /// slots, the slots flattened to two words each.
    pub index_v4: (Cow<'a, [u32]>, Cow<'a, [u32]>),
    pub index_v6: (Cow<'a, [u128]>, Cow<'a, [u32]>),
    /// The index's code book.
    pub codes: Cow<'a, [u16]>,
    /// The search directory of each family's index (see
    /// `ranges/directory.rs`), its slots flattened to two words each, or
    /// empty: stored so that a start need not build them (about 6 ms).
    pub dir_v4: Cow<'a, [u32]>,
    pub dir_v6: Cow<'a, [u32]>,
    /// `key=value` lines describing the sources.
    pub meta: Cow<'a, str>,
}

impl Parts<'_> {
    /// Fills in the lookup index, merged from the source tables.
    pub fn add_index(&mut self) -> Result<(), IndexError> {
        let mut codes = vec![0];
        let (s4, v4) = index::merge(
            (&self.country_v4.0, &self.country_v4.1),
            (&self.asn_v4.0, &self.asn_v4.1),
            &mut codes,
        )?;
        let (s6, v6) = index::merge(
            (&self.country_v6.0, &self.country_v6.1),
            (&self.asn_v6.0, &self.asn_v6.1),
            &mut codes,
        )?;
        let flat = |slots: Vec<Slot>| slots.into_iter().flatten().collect::<Vec<u32>>();
        self.index_v4 = (s4.into(), flat(v4).into());
        self.index_v6 = (s6.into(), flat(v6).into());
        self.codes = codes.into();
        Ok(())
    }

    /// Fills in the search directories of the index (after
    /// [`Parts::add_index`]), for a snapshot that a start should not have to
    /// build them for: the embedded one. Each root table alone is 64 Ki
    /// slots (512 KiB), so small snapshots (tests, fuzz seeds) go without;
    /// an empty directory is built at first use.
    pub fn add_directories(&mut self) {
        self.dir_v4 = ranges::directory_words(&self.index_v4.0).into();
        self.dir_v6 = ranges::directory_words(&self.index_v6.0).into();
    }
}

/// Serialises the parts.
pub fn encode(parts: &Parts<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(SECTIONS as u64).to_le_bytes());
    section(&mut out, &parts.country_v4.0);
    section(&mut out, &parts.country_v4.1);
    section(&mut out, &parts.country_v6.0);
    section(&mut out, &parts.country_v6.1);
    section(&mut out, &parts.asn_v4.0);
    section(&mut out, &parts.asn_v4.1);
    section(&mut out, &parts.asn_v6.0);
    section(&mut out, &parts.asn_v6.1);
    section(&mut out, &parts.networks.0);
    section(&mut out, &parts.networks.1);
    section(&mut out, &parts.networks.2);
    section(&mut out, &parts.index_v4.0);
    section(&mut out, &parts.index_v4.1);
    section(&mut out, &parts.index_v6.0);
    section(&mut out, &parts.index_v6.1);
    section(&mut out, &parts.codes);
    section(&mut out, &parts.dir_v4);
    section(&mut out, &parts.dir_v6);
    section(&mut out, parts.meta.as_bytes());
    out
}

fn section<T: bytemuck::Pod>(out: &mut Vec<u8>, items: &[T]) {
    let size = std::mem::size_of::<T>();
    out.extend_from_slice(&(std::mem::size_of_val(items) as u64).to_le_bytes());
    out.extend_from_slice(&(size as u64).to_le_bytes());
    for item in items {
        let mut bytes = bytemuck::bytes_of(item).to_vec();
        if cfg!(target_endian = "big") {
            bytes.reverse();
        }
        out.extend_from_slice(&bytes);
    }
    pad(out);
}

fn pad(out: &mut Vec<u8>) {
    while out.len() % ALIGN != 0 {
        out.push(0);
    }
}

/// Reads the parts back, borrowing from `bytes` where alignment and
/// endianness allow (always, for the embedded snapshot on little-endian machines).
pub fn decode(bytes: &'static [u8]) -> Result<Parts<'static>, DataError> {
    let mut r = Reader { bytes, pos: 0 };
    if r.take(8)? != MAGIC {
        return Err(DataError::Snapshot("bad magic"));
    }
    if r.u64()? != SECTIONS as u64 {
        return Err(DataError::Snapshot("unexpected section count"));
    }
    Ok(Parts {
        country_v4: (r.array()?, r.array()?),
        country_v6: (r.array()?, r.array()?),
        asn_v4: (r.array()?, r.array()?),
        asn_v6: (r.array()?, r.array()?),
        networks: (r.array()?, r.array()?, r.array()?),
        index_v4: (r.array()?, r.array()?),
        index_v6: (r.array()?, r.array()?),
        codes: r.array()?,
        dir_v4: r.array()?,
        dir_v6: r.array()?,
        meta: match r.array::<u8>()? {
            Cow::Borrowed(b) => Cow::Borrowed(
                std::str::from_utf8(b).map_err(|_| DataError::Snapshot("metadata is not UTF-8"))?,
            ),
            Cow::Owned(b) => Cow::Owned(
                String::from_utf8(b).map_err(|_| DataError::Snapshot("metadata is not UTF-8"))?,
            ),
        },
    })
}

struct Reader {
    bytes: &'static [u8],
    pos: usize,
}

impl Reader {
    fn take(&mut self, n: usize) -> Result<&'static [u8], DataError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or(DataError::Snapshot("length overflow"))?;
        let slice = self
            .bytes
            .get(self.pos..end)
            .ok_or(DataError::Snapshot("truncated"))?;
        self.pos = end;
        Ok(slice)
    }

    fn u64(&mut self) -> Result<u64, DataError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    fn array<T: bytemuck::Pod>(&mut self) -> Result<Cow<'static, [T]>, DataError> {
        let len =
            usize::try_from(self.u64()?).map_err(|_| DataError::Snapshot("length overflow"))?;
        let size = self.u64()?;
        if size != std::mem::size_of::<T>() as u64 || len % std::mem::size_of::<T>() != 0 {
            return Err(DataError::Snapshot("element size mismatch"));
        }
        let raw = self.take(len)?;
        self.pos = self.pos.next_multiple_of(ALIGN);
        if cfg!(target_endian = "little") {
            if let Ok(items) = bytemuck::try_cast_slice::<u8, T>(raw) {
                return Ok(Cow::Borrowed(items));
            }
        }
        Ok(Cow::Owned(
            raw.chunks_exact(std::mem::size_of::<T>())
                .map(|chunk| {
                    let mut c = chunk.to_vec();
                    if cfg!(target_endian = "big") {
                        c.reverse();
                    }
                    bytemuck::pod_read_unaligned(&c)
                })
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Parts<'static> {
        Parts {
            country_v4: (vec![0, 16].into(), vec![0, 1].into()),
            country_v6: (vec![0, 1 << 100].into(), vec![0, 2].into()),
            asn_v4: (vec![0].into(), vec![0].into()),
            asn_v6: (vec![0].into(), vec![0].into()),
            networks: (
                vec![15169].into(),
                vec![0, 3].into(),
                b"abc".to_vec().into(),
            ),
            meta: "country.version=x\n".into(),
            ..Parts::default()
        }
    }

    #[test]
    fn round_trips() {
        let mut parts = sample();
        parts.add_index().unwrap();
        assert_eq!(parts.index_v4.0.as_ref(), [0, 16]);
        let bytes: &'static [u8] = encode(&parts).leak();
        let back = decode(bytes).unwrap();
        assert_eq!(back.country_v6.0.as_ref(), [0, 1u128 << 100]);
        assert_eq!(back.networks.2.as_ref(), b"abc");
        assert_eq!(back.meta, "country.version=x\n");
    }

    #[test]
    fn refuses_truncated_or_foreign_bytes() {
        let bytes = encode(&sample());
        let cut: &'static [u8] = bytes[..bytes.len() - 40].to_vec().leak();
        assert!(matches!(decode(cut), Err(DataError::Snapshot("truncated"))));
        assert!(matches!(
            decode(b"NOTASNAPSHOT0000"),
            Err(DataError::Snapshot("bad magic"))
        ));
    }
}
