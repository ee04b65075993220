//! The network view of one release: what the data says of prefixes,
//! autonomous systems and countries as a whole, and the per-release caches
//! it is built from ([`Caches`], one per [`GeoDb`]).
//!
//! - [`countries`]: each country's address space (from the country rows)
//!   and the ASes that hold it (from the merged index), built once per
//!   release on the first country question ([`CountrySpace`]);
//! - [`profiles`]: one AS's prefixes with their country and size, its
//!   countries per family and its prefixes CSV, built once per release and
//!   AS and kept in a cache bounded by bytes ([`profiles::Profiles`]);
//! - [`prefix`]: the rows a prefix lies in or covers, in pages.
//!
//! Everything here is built on a blocking thread by its caller (`lookup`),
//! never on the runtime's workers, and shared as `Arc`s by the answers.

pub(crate) mod countries;
pub(crate) mod prefix;
pub(crate) mod profiles;

use std::sync::{Arc, OnceLock};

use super::asn::{self, AsSystem, AsnIndex};
use super::db::GeoDb;
use countries::CountrySpace;
use profiles::{AsProfile, Profiles};

/// What is built once per release for the network view.
#[derive(Debug, Default)]
pub(crate) struct Caches {
    /// AS number -> its runs of rows (see [`asn`]).
    asn_index: OnceLock<Arc<AsnIndex>>,
    /// Each country's address space and its ASes.
    countries: OnceLock<Arc<CountrySpace>>,
    /// The addresses of every row with a country, per family.
    world: OnceLock<(u64, u128)>,
    /// AS profiles (prefixes with country and size, CSV), bounded by bytes.
    profiles: Profiles,
}

impl Caches {
    /// The caches of a release with the same tables: what is built is kept
    /// (the AS index and the country tables; the profiles are rebuilt).
    pub(crate) fn same_tables(&self) -> Caches {
        Caches {
            asn_index: self.asn_index.clone(),
            countries: self.countries.clone(),
            world: self.world.clone(),
            profiles: Profiles::default(),
        }
    }
}

impl GeoDb {
    /// Everything the ASN table attributes to the AS `number` (its ranges
    /// and name); `None` when no row names it.
    /// The first call on a release builds the [`AsnIndex`] (callers on the
    /// runtime call it on a blocking thread: `lookup::asn`).
    pub(crate) fn autonomous_system(&self, number: u32) -> Option<AsSystem<'_>> {
        let index = self.asn_index();
        asn::system(index, self.asn_tables(), number)
    }

    /// The profile of the AS `number` (its prefixes with their country and
    /// size, its countries per family, its CSV), built once per release and
    /// kept while the cache's bound allows; `None` when no row names it.
    pub(crate) fn as_profile(&self, number: u32) -> Option<Arc<AsProfile>> {
        if let Some(profile) = self.network.profiles.get(number) {
            return Some(profile);
        }
        let system = self.autonomous_system(number)?;
        let profile = Arc::new(AsProfile::build(&system, self));
        self.network.profiles.keep(number, profile.clone());
        Some(profile)
    }

    /// The bytes the AS profiles of this release hold now, and their bound.
    pub fn as_profile_bytes(&self) -> (usize, usize) {
        self.network.profiles.bytes()
    }

    /// Each country's address space and its ASes, built on first use.
    pub(crate) fn country_space(&self) -> Arc<CountrySpace> {
        self.network
            .countries
            .get_or_init(|| Arc::new(CountrySpace::build(self)))
            .clone()
    }

    /// How many IPv4 and IPv6 addresses the rows with a country hold (the
    /// world's, for shares), counted once per release (one pass over the
    /// country rows, without the rest of the country space).
    pub(crate) fn world(&self) -> (u64, u128) {
        *self.network.world.get_or_init(|| {
            let rows = self.country_tables();
            let v4 = rows.v4.covered();
            (u64::try_from(v4).unwrap_or(u64::MAX), rows.v6.covered())
        })
    }

    /// The AS number index of this release, built on first use. Its bound on
    /// the prefixes of one AS was applied when the ASN file was loaded
    /// (`load::load_asn`); the embedded data is within it.
    pub(crate) fn asn_index(&self) -> &AsnIndex {
        self.network.asn_index.get_or_init(|| {
            let unbounded = iplookup_data::policy::Policy {
                max_as_prefixes: u64::from(u32::MAX),
                ..Default::default()
            };
            Arc::new(AsnIndex::build(self.asn_tables(), &unbounded).unwrap_or_default())
        })
    }

    /// Whether the [`AsnIndex`] of this release is built.
    pub fn asn_index_built(&self) -> bool {
        self.network.asn_index.get().is_some()
    }

    /// The [`AsnIndex`] of this release, if it is built.
    pub(crate) fn built_asn_index(&self) -> Option<Arc<AsnIndex>> {
        self.network.asn_index.get().cloned()
    }

    /// This release with `index` as its AS index (built from its ASN tables
    /// when they were loaded); `None` leaves it to the first AS question.
    pub(crate) fn with_asn_index(self, index: Option<Arc<AsnIndex>>) -> GeoDb {
        if let Some(index) = index {
            let _ = self.network.asn_index.set(index);
        }
        self
    }
}
