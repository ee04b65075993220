//! Autonomous systems and their operators, interned: each distinct
//! (AS number, organisation) pair is stored once, organisation names live in
//! one byte arena. ASN range tables point here by id (id 0 means "no data").

use std::borrow::Cow;
use std::collections::HashMap;

use crate::error::DataError;

/// The interned (ASN, organisation) pairs.
#[derive(Debug, Clone)]
pub struct Networks {
    /// AS number of pair `id - 1`.
    asns: Cow<'static, [u32]>,
    /// Organisation of pair `id - 1` is `arena[offsets[2i]..offsets[2i + 1]]`.
    offsets: Cow<'static, [u32]>,
    /// Checked as UTF-8 once, at load; lookups only slice it.
    arena: Cow<'static, str>,
    /// `(asn, name)` per pair, side by side: a lookup reads one record and
    /// never touches the name's bytes (slicing the arena would, to check
    /// character boundaries), so it costs one cache line.
    records: Box<[(u32, Box<str>)]>,
}

impl Networks {
    /// Checks the arrays: one offset pair per ASN, the arena valid UTF-8, every
    /// name a slice of it on character boundaries.
    pub fn new(
        asns: Cow<'static, [u32]>,
        offsets: Cow<'static, [u32]>,
        arena: Cow<'static, [u8]>,
    ) -> Result<Self, DataError> {
        if offsets.len() != asns.len() * 2 {
            return Err(DataError::Networks("offset count does not match AS count"));
        }
        let not_utf8 = |_| DataError::Networks("organisation names are not UTF-8");
        let arena: Cow<'static, str> = match arena {
            Cow::Borrowed(b) => Cow::Borrowed(std::str::from_utf8(b).map_err(not_utf8)?),
            Cow::Owned(v) => Cow::Owned(
                String::from_utf8(v)
                    .map_err(|_| DataError::Networks("organisation names are not UTF-8"))?,
            ),
        };
        for pair in offsets.chunks_exact(2) {
            arena
                .get(pair[0] as usize..pair[1] as usize)
                .ok_or(DataError::Networks(
                    "organisation outside the arena or not on a character boundary",
                ))?;
        }
        let records = interleave(&asns, &offsets, &arena);
        Ok(Networks {
            asns,
            offsets,
            arena,
            records,
        })
    }

    /// The (ASN, organisation) pair with this id; `None` for id 0 or an unknown id.
    #[inline]
    pub fn get(&self, id: u32) -> Option<(u32, &str)> {
        let (asn, name) = self.records.get((id as usize).checked_sub(1)?)?;
        Some((*asn, name))
    }

    /// Asks memory for the record of `id` ahead of [`Networks::get`].
    #[inline]
    pub fn prefetch(&self, id: u32) {
        if let Some(record) = self.records.get((id as usize).wrapping_sub(1)) {
            crate::prefetch::prefetch(record);
        }
    }

    /// Number of distinct pairs.
    pub fn len(&self) -> usize {
        self.asns.len()
    }

    /// True when no pair is stored.
    pub fn is_empty(&self) -> bool {
        self.asns.is_empty()
    }

    /// The raw arrays, for the snapshot writer.
    pub fn parts(&self) -> (&[u32], &[u32], &[u8]) {
        (&self.asns, &self.offsets, self.arena.as_bytes())
    }
}

/// `(asn, name)` side by side (offsets already checked against the arena).
fn interleave(asns: &[u32], offsets: &[u32], arena: &str) -> Box<[(u32, Box<str>)]> {
    asns.iter()
        .zip(offsets.chunks_exact(2))
        .map(|(asn, span)| {
            (
                *asn,
                arena
                    .get(span[0] as usize..span[1] as usize)
                    .unwrap_or_default()
                    .into(),
            )
        })
        .collect()
}

/// Interns pairs while a file is read.
#[derive(Debug, Default)]
pub struct NetworksBuilder {
    asns: Vec<u32>,
    offsets: Vec<u32>,
    arena: String,
    ids: HashMap<(u32, String), u32>,
    names: HashMap<String, (u32, u32)>,
}

impl NetworksBuilder {
    /// The id of the pair, adding it if new. Ids start at 1.
    pub fn intern(&mut self, asn: u32, organization: &str) -> u32 {
        if let Some(id) = self.ids.get(&(asn, organization.to_owned())) {
            return *id;
        }
        let (a, b) = match self.names.get(organization) {
            Some(span) => *span,
            None => {
                let a = self.arena.len() as u32;
                self.arena.push_str(organization);
                let span = (a, self.arena.len() as u32);
                self.names.insert(organization.to_owned(), span);
                span
            }
        };
        self.asns.push(asn);
        self.offsets.extend([a, b]);
        let id = self.asns.len() as u32;
        self.ids.insert((asn, organization.to_owned()), id);
        id
    }

    /// The finished store.
    pub fn finish(self) -> Networks {
        let records = interleave(&self.asns, &self.offsets, &self.arena);
        Networks {
            asns: self.asns.into(),
            offsets: self.offsets.into(),
            arena: self.arena.into(),
            records,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_pairs_and_names() {
        let mut b = NetworksBuilder::default();
        assert_eq!(b.intern(15169, "Google LLC"), 1);
        assert_eq!(b.intern(13335, "Cloudflare, Inc."), 2);
        assert_eq!(b.intern(15169, "Google LLC"), 1);
        assert_eq!(b.intern(36040, "Google LLC"), 3);
        let n = b.finish();
        assert_eq!(n.len(), 3);
        assert_eq!(n.get(1), Some((15169, "Google LLC")));
        assert_eq!(n.get(3), Some((36040, "Google LLC")));
        assert_eq!(n.get(0), None);
        assert_eq!(n.get(4), None);
        assert_eq!(n.parts().2, b"Google LLCCloudflare, Inc.");
    }

    #[test]
    fn refuses_inconsistent_arrays() {
        let bad = Networks::new(vec![1].into(), vec![0, 9].into(), b"abc".to_vec().into());
        assert!(bad.is_err());
        let bad = Networks::new(vec![1].into(), vec![0].into(), b"abc".to_vec().into());
        assert!(bad.is_err());
    }
}
