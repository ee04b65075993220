//! The network view on [`GeoDb`]: its per-release caches (the AS index,
//! the country space, the world's totals, the AS profiles; held in
//! [`super::network::Caches`]), each built on first use, once per release,
//! by the caller's blocking thread; and the rows under a prefix.

use std::sync::Arc;

use ipnet::IpNet;

use super::asn::{self, AsSystem, AsnIndex};
use super::block::largest_block;
use super::db::GeoDb;
use super::network::countries::CountrySpace;
use super::network::prefix::{self, PrefixView};
use super::network::profiles::AsProfile;

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
        let profile = Arc::new(AsProfile::build(
            &system,
            self.country_tables(),
            self.countries(),
        ));
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
            .get_or_init(|| {
                Arc::new(CountrySpace::build(
                    self.country_tables(),
                    self.index(),
                    &self.asn_tables().networks,
                    self.countries(),
                ))
            })
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

    /// `net` in the data: its covering block, the number of rows it lies
    /// in or covers, and at most `count` of them from the `offset`-th
    /// (0-based; [`prefix`]). `net` is taken as it is (callers pass it
    /// canonical).
    pub(crate) fn prefix(&self, net: IpNet, offset: u64, count: usize) -> PrefixView<'_> {
        let (rows, row_count) = prefix::rows(
            self.index(),
            &self.asn_tables().networks,
            self.countries(),
            net,
            offset,
            count,
        );
        let covering = self
            .row(net.network())
            .filter(|&(s, e)| net.network() >= s && net.broadcast() <= e)
            .and_then(|(s, e)| largest_block(net.network(), s, e));
        PrefixView {
            net,
            covering,
            rows,
            row_count,
        }
    }
}
