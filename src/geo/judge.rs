//! How a new file is judged against the release serving, the same at start,
//! reload and `update` ([`judge`]): its size against the table it would
//! replace (rows within the row window between two files of one format;
//! across formats, CSV against MMDB, the CIDR networks of their data, which
//! are the same for the same data: [`Covers::networks`]), its address space
//! against the serving and the embedded releases ([`references`]), and a
//! first city release by what it places: its CIDR networks at least
//! [`MIN_COVERAGE`] of the country table's serving (issue 33: a 3-network
//! ASN MMDB replaced a 715,948-row CSV release, and `update --city` took a
//! first city file of 4 networks).

use iplookup_data::DataError;
use iplookup_data::policy::{Bound, Coverage, MIN_COVERAGE, Policy, Violation};
use iplookup_data::tables::{AsnTables, CountryTables};

use super::db::GeoDb;
use super::error::GeoError;
use super::files::{Table, is_mmdb};
use super::mmdb::CityTables;
use super::release::SourceInfo;

/// Tables whose address space and networks can be measured.
pub trait Covers {
    /// Addresses with data, per family.
    fn coverage(&self) -> Coverage;
    /// CIDR networks of the data, both families
    /// ([`iplookup_data::ranges::RangeTable::networks`]).
    fn networks(&self) -> u64;
}

macro_rules! covers {
    ($t:ty) => {
        impl Covers for $t {
            fn coverage(&self) -> Coverage {
                Coverage {
                    v4: self.v4.covered(),
                    v6: self.v6.covered(),
                }
            }
            fn networks(&self) -> u64 {
                self.v4.networks() + self.v6.networks()
            }
        }
    };
}

covers!(CountryTables);
covers!(AsnTables);
covers!(CityTables);

/// Judges `new` (the tables of the file `info` names) as a file of `table`
/// replacing what `serving` serves: the size window, the address space, and
/// for a first city release the floor of what it places.
pub(crate) fn judge(
    table: Table,
    policy: &Policy,
    new: &dyn Covers,
    info: &SourceInfo,
    serving: &GeoDb,
    embedded: &GeoDb,
) -> Result<(), GeoError> {
    let r = serving.release();
    let current: Option<(&SourceInfo, &dyn Covers)> = match table {
        Table::Country => Some((&r.country, serving.country_tables())),
        Table::Asn => Some((&r.asn, serving.asn_tables())),
        Table::City => r
            .city
            .as_ref()
            .zip(serving.city_tables())
            .map(|(i, t)| (i, t as &dyn Covers)),
    };
    let refuse = |violation| {
        GeoError::Data(DataError::Policy {
            file: info.file.clone(),
            violation,
        })
    };
    // Rows first, then the address space, then networks across formats: each
    // refusal names the measure that tells the most.
    let same_format = |c: &SourceInfo| is_mmdb(&c.file) == is_mmdb(&info.file);
    if let Some((current, tables)) = current.filter(|(c, _)| same_format(c)) {
        check_size(policy, info, new, current, tables)?;
    }
    if policy.min_coverage.is_some() {
        for (reference, against) in references(table, policy, serving, embedded) {
            policy
                .check_coverage(new.coverage(), reference, &against)
                .map_err(refuse)?;
        }
    }
    if let Some((current, tables)) = current.filter(|(c, _)| !same_format(c)) {
        check_size(policy, info, new, current, tables)?;
    }
    if current.is_none() && table == Table::City {
        let share = policy.min_coverage.unwrap_or(MIN_COVERAGE);
        check_network_count(
            policy,
            new.networks(),
            serving.country_tables().networks(),
            (share, None),
            "a first city release places at least half as many as the country table serving",
        )
        .map_err(refuse)?;
    }
    Ok(())
}

/// The size window against the file serving: rows between two files of one
/// format, CIDR networks across formats (an MMDB counts networks, a CSV
/// rows: they are not comparable).
fn check_size(
    policy: &Policy,
    new: &SourceInfo,
    new_tables: &dyn Covers,
    current: &SourceInfo,
    current_tables: &dyn Covers,
) -> Result<(), GeoError> {
    let refuse = |violation| {
        GeoError::Data(DataError::Policy {
            file: new.file.clone(),
            violation,
        })
    };
    if is_mmdb(&new.file) == is_mmdb(&current.file) {
        if current.rows == 0 {
            return Ok(());
        }
        return policy.check_rows(new.rows, current.rows).map_err(refuse);
    }
    let Some(window) = policy.row_ratio else {
        return Ok(());
    };
    let format = if is_mmdb(&current.file) {
        "MMDB"
    } else {
        "CSV"
    };
    check_network_count(
        policy,
        new_tables.networks(),
        current_tables.networks(),
        (window.0, Some(window.1)),
        &format!("the {format} release it would replace"),
    )
    .map_err(refuse)
}

/// Refuses `networks` outside `min..=max` times `reference`'s (no `max`: a
/// floor); with no row window or coverage rule (`--release-row-ratio any`),
/// nothing.
fn check_network_count(
    policy: &Policy,
    networks: u64,
    reference: u64,
    (lo, hi): (f64, Option<f64>),
    against: &str,
) -> Result<(), Violation> {
    if policy.row_ratio.is_none() || policy.min_coverage.is_none() {
        return Ok(());
    }
    let min = (reference as f64 * lo).ceil() as u64;
    let max = hi.map(|hi| (reference as f64 * hi).floor() as u64);
    if networks < min || max.is_some_and(|max| networks > max) {
        return Err(Violation::Bound(Bound::NetworkCount {
            networks,
            min,
            max,
            against: against.to_owned(),
            reference,
        }));
    }
    Ok(())
}

/// The address spaces a new file of `table` is judged against (see
/// [`Policy::check_coverage`]). First the table serving now (at start: the
/// embedded data); a city file with no city serving: the country table
/// serving (the floor of a first city release). Then the embedded release
/// (for a city file its country table), so that releases each within the
/// bound of the one before cannot ratchet coverage down; but not when the
/// table serving is itself short of the embedded one (an operator's small
/// private release, installed with `--release-row-ratio any`): that release
/// is then the only reference.
pub(crate) fn references(
    table: Table,
    policy: &Policy,
    serving: &GeoDb,
    embedded: &GeoDb,
) -> Vec<(Coverage, String)> {
    let (covers, against) = match (table, serving.city_tables()) {
        (Table::Country, _) => (
            serving.country_tables().coverage(),
            "the country release it would replace",
        ),
        (Table::Asn, _) => (
            serving.asn_tables().coverage(),
            "the ASN release it would replace",
        ),
        (Table::City, Some(city)) => (city.coverage(), "the city release it would replace"),
        (Table::City, None) => (
            serving.country_tables().coverage(),
            "the country table serving (the floor of a first city release)",
        ),
    };
    let (base, named) = match table {
        Table::Country => (
            embedded.country_tables().coverage(),
            "the embedded country release",
        ),
        Table::Asn => (embedded.asn_tables().coverage(), "the embedded ASN release"),
        Table::City => (
            embedded.country_tables().coverage(),
            "the embedded country release (the floor of a city release)",
        ),
    };
    let mut out = vec![(covers, against.to_owned())];
    if base != covers && policy.check_coverage(covers, base, named).is_ok() {
        out.push((base, named.to_owned()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tables of `networks` networks covering the whole of both families.
    struct Measured(u64);

    impl Covers for Measured {
        fn coverage(&self) -> Coverage {
            Coverage {
                v4: 1 << 32,
                v6: u128::MAX,
            }
        }
        fn networks(&self) -> u64 {
            self.0
        }
    }

    #[test]
    fn sizes_are_compared_by_rows_within_a_format_and_by_networks_across() {
        let info = |file: &str, rows| SourceInfo {
            file: file.into(),
            rows,
            ..SourceInfo::default()
        };
        let p = Policy::default();
        let csv = info("dbip-asn-lite-2030-01.csv", 715_948);
        let tables = Measured(1_000_000);
        let check =
            |new: &SourceInfo, networks| check_size(&p, new, &Measured(networks), &csv, &tables);
        assert!(check(&info("dbip-asn-lite-2030-02.csv", 1), 1_000_000).is_err());
        assert!(check(&info("dbip-asn-lite-2030-02.csv", 700_000), 3).is_ok());
        // The finding: a 3-network MMDB covering everything.
        let err = check(&info("dbip-asn-lite-2030-02.mmdb", 3), 3).unwrap_err();
        assert!(
            err.to_string().contains(
                "splits into 3 CIDR networks, outside 800000..1500000 (the CSV release it \
                 would replace splits into 1000000;"
            ),
            "{err}"
        );
        // The same data as an MMDB passes.
        assert!(check(&info("dbip-asn-lite-2030-02.mmdb", 1_000_000), 1_000_000).is_ok());
        // `--release-row-ratio any`: no window.
        let any = Policy {
            row_ratio: None,
            min_coverage: None,
            ..Policy::default()
        };
        let new = info("dbip-asn-lite-2030-02.mmdb", 3);
        assert!(check_size(&any, &new, &Measured(3), &csv, &tables).is_ok());
    }
}
