//! The network view of one release: what the data says of prefixes,
//! autonomous systems and countries as a whole, and the per-release caches
//! it is built from ([`Caches`], one per `GeoDb`; the accessors are
//! `geo::caches`). Nothing here knows `GeoDb`: each builder takes the
//! tables it reads.
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

use super::asn::AsnIndex;
use countries::CountrySpace;
use profiles::Profiles;

/// What is built once per release for the network view (its accessors on
/// [`super::GeoDb`] are in [`super::caches`]).
#[derive(Debug, Default)]
pub(crate) struct Caches {
    /// AS number -> its runs of rows (see [`super::asn`]).
    pub(crate) asn_index: OnceLock<Arc<AsnIndex>>,
    /// Each country's address space and its ASes.
    pub(crate) countries: OnceLock<Arc<CountrySpace>>,
    /// The addresses of every row with a country, per family.
    pub(crate) world: OnceLock<(u64, u128)>,
    /// AS profiles (prefixes with country and size, CSV), bounded by bytes.
    pub(crate) profiles: Profiles,
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
