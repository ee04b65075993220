//! The tables of one release, assembled and checked: the country and ASN
//! tables of both families (the source tables) and the [`Index`] merged from
//! them, which lookups search. They come from a snapshot ([`from_snapshot`],
//! used in place) or from the arrays a reader built ([`Index::build`]).

use std::borrow::Cow;

use crate::error::DataError;
use crate::index::{self, CodeBook, IndexError, Slot};
use crate::networks::Networks;
use crate::ranges::{Key, RangeTable, Value};
use crate::snapshot::Parts;

/// The country tables of both families.
#[derive(Debug, Clone)]
pub struct CountryTables {
    pub v4: RangeTable<u32, u16>,
    pub v6: RangeTable<u128, u16>,
}

/// The ASN tables of both families and the networks they point to.
#[derive(Debug, Clone)]
pub struct AsnTables {
    pub v4: RangeTable<u32, u32>,
    pub v6: RangeTable<u128, u32>,
    pub networks: Networks,
}

impl AsnTables {
    /// Checks that every network id of both tables names a network.
    pub fn check_ids(&self) -> Result<(), DataError> {
        let max = self.networks.len() as u32;
        let values = self.v4.values().iter().chain(self.v6.values());
        match values.into_iter().any(|id| *id > max) {
            true => Err(DataError::Networks("network id out of range")),
            false => Ok(()),
        }
    }
}

/// The country and ASN tables of both families merged for lookups (see [`index`]).
#[derive(Debug, Clone)]
pub struct Index {
    pub v4: RangeTable<u32, Slot>,
    pub v6: RangeTable<u128, Slot>,
    pub codes: CodeBook,
}

impl Index {
    /// Merges the source tables of both families and builds the search directories.
    pub fn build(country: &CountryTables, asn: &AsnTables) -> Result<Index, DataError> {
        let mut codes = vec![0];
        let (s4, v4) = index::merge(
            (country.v4.starts(), country.v4.values()),
            (asn.v4.starts(), asn.v4.values()),
            &mut codes,
        )?;
        let (s6, v6) = index::merge(
            (country.v6.starts(), country.v6.values()),
            (asn.v6.starts(), asn.v6.values()),
            &mut codes,
        )?;
        let table = |name| move |e| DataError::Table(name, e);
        let index = Index {
            v4: RangeTable::new(s4.into(), v4.into()).map_err(table("index IPv4"))?,
            v6: RangeTable::new(s6.into(), v6.into()).map_err(table("index IPv6"))?,
            codes: CodeBook::new(codes.into())?,
        };
        index.v4.prepare();
        index.v6.prepare();
        Ok(index)
    }

    /// Takes a stored index (from a snapshot) and builds the search
    /// directories; with [`Checks::Full`], checks it against the network count.
    pub fn from_parts(
        v4: (Cow<'static, [u32]>, Cow<'static, [u32]>),
        v6: (Cow<'static, [u128]>, Cow<'static, [u32]>),
        codes: Cow<'static, [u16]>,
        dirs: (Cow<'static, [u32]>, Cow<'static, [u32]>),
        networks: u32,
        checks: Checks,
    ) -> Result<Index, DataError> {
        let mut index = Index {
            v4: checks.table(v4.0, slots(v4.1)?, "index IPv4")?,
            v6: checks.table(v6.0, slots(v6.1)?, "index IPv6")?,
            codes: CodeBook::new(codes)?,
        };
        match checks {
            Checks::Full => {
                index::check(&index.v4, &index.codes, networks)?;
                index::check(&index.v6, &index.codes, networks)?;
                // Built afresh; a stored directory must be that one.
                let built = (index.v4.directory_words(), index.v6.directory_words());
                let stored_differs =
                    |stored: &[u32], built: &[u32]| !stored.is_empty() && stored != built;
                if stored_differs(&dirs.0, &built.0) || stored_differs(&dirs.1, &built.1) {
                    return Err(IndexError::Mismatch.into());
                }
            }
            Checks::Built => {
                // The build script's own directories, used in place (an
                // empty one, from an older writer, is built at first use).
                if !dirs.0.is_empty() {
                    index.v4 = index.v4.with_stored_directory(slots(dirs.0)?);
                }
                if !dirs.1.is_empty() {
                    index.v6 = index.v6.with_stored_directory(slots(dirs.1)?);
                }
            }
        }
        index.v4.prepare();
        index.v6.prepare();
        Ok(index)
    }

    /// Whether two indexes hold the same arrays.
    pub fn same_as(&self, other: &Index) -> bool {
        self.v4.starts() == other.v4.starts()
            && self.v4.values() == other.v4.values()
            && self.v6.starts() == other.v6.starts()
            && self.v6.values() == other.v6.values()
            && self.codes.codes() == other.codes.codes()
    }
}

/// How much of a snapshot to check when it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checks {
    /// Every array, entry by entry, and the stored index against one merged
    /// again from the source tables: for snapshots from anywhere.
    Full,
    /// Only what costs no pass over the arrays: for the snapshot the build
    /// script wrote into the binary, whose full check runs as a unit test
    /// of the service (`embedded_snapshot_passes_every_check`).
    Built,
}

impl Checks {
    /// A table from stored arrays, checked as `self` says.
    pub fn table<K: Key, V: Value>(
        self,
        starts: Cow<'static, [K]>,
        values: Cow<'static, [V]>,
        name: &'static str,
    ) -> Result<RangeTable<K, V>, DataError> {
        match self {
            Checks::Full => RangeTable::new(starts, values),
            Checks::Built => RangeTable::new_built(starts, values),
        }
        .map_err(|e| DataError::Table(name, e))
    }
}

/// The tables of a snapshot, checked as `checks` says; with [`Checks::Full`]
/// the stored index must equal the one merged again from the source tables.
/// Returns the metadata block too.
pub fn from_snapshot(
    parts: Parts<'static>,
    checks: Checks,
) -> Result<(CountryTables, AsnTables, Index, Cow<'static, str>), DataError> {
    let country = CountryTables {
        v4: checks.table(parts.country_v4.0, parts.country_v4.1, "country IPv4")?,
        v6: checks.table(parts.country_v6.0, parts.country_v6.1, "country IPv6")?,
    };
    let (asns, offsets, arena) = parts.networks;
    let asn = AsnTables {
        v4: checks.table(parts.asn_v4.0, parts.asn_v4.1, "ASN IPv4")?,
        v6: checks.table(parts.asn_v6.0, parts.asn_v6.1, "ASN IPv6")?,
        networks: Networks::new(asns, offsets, arena)?,
    };
    let networks = asn.networks.len() as u32;
    let index = Index::from_parts(
        parts.index_v4,
        parts.index_v6,
        parts.codes,
        (parts.dir_v4, parts.dir_v6),
        networks,
        checks,
    )?;
    if checks == Checks::Full && !index.same_as(&Index::build(&country, &asn)?) {
        return Err(IndexError::Mismatch.into());
    }
    Ok((country, asn, index, parts.meta))
}

/// Slots stored flat, two words each, viewed as slots (in place when borrowed).
fn slots(flat: Cow<'static, [u32]>) -> Result<Cow<'static, [Slot]>, DataError> {
    let odd = || DataError::Snapshot("odd slot array");
    match flat {
        Cow::Borrowed(words) => bytemuck::try_cast_slice(words)
            .map(Cow::Borrowed)
            .map_err(|_| odd()),
        Cow::Owned(words) if words.len() % 2 == 0 => Ok(Cow::Owned(
            words.chunks_exact(2).map(|w| [w[0], w[1]]).collect(),
        )),
        Cow::Owned(_) => Err(odd()),
    }
}
