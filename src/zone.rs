//! The time zone of a city: the IANA zone whose boundary contains the city's
//! coordinates, from time-zone polygons compiled into the binary (the lite
//! boundary data of the `tzf-rs` crate, from timezone-boundary-builder).
//!
//! A city database gives coordinates; the country table gives one primary
//! zone per country, which is wrong for most of the United States, Russia,
//! Brazil, Australia, Canada, Mexico, Indonesia, ... The zone is looked up
//! once per city of a release ([`prepare`], when the release is taken into
//! service, or on the first answer that needs it) and kept beside the city,
//! so an answer costs no boundary lookup. A city without coordinates, or
//! whose coordinates fall in no land zone (open sea: `Etc/GMT±N`) or in a
//! zone `chrono-tz` does not know, has no zone of its own: the answer falls
//! back to its country's rule ([`country`]: the country's zone only when
//! all its zones keep one time).

use std::sync::{Arc, LazyLock};

pub mod country;

use chrono_tz::Tz;
use tzf_rs::EmbeddedFinder;

use crate::geo::GeoDb;
use crate::geo::mmdb::City;

/// The boundary finder. `EmbeddedFinder` searches the compressed polygons in
/// place (4 MB of the binary's read-only data, paged in as read): built in
/// about 3 ms, 4 MiB resident, 3.4 us a point. `DefaultFinder` expands them
/// first: 0.45 s and 28 MiB more, for 1.9 us a point and the same answers.
/// Over the 92,814 city locations of a real city file that is 0.31 s against
/// 0.63 s, off the request path either way (BENCHMARKS.md, "City database").
static FINDER: LazyLock<EmbeddedFinder> = LazyLock::new(EmbeddedFinder::new);

/// The zone containing the point, if it is a land zone `chrono-tz` knows.
pub fn at(latitude: f64, longitude: f64) -> Option<Tz> {
    if !latitude.is_finite() || !longitude.is_finite() {
        return None;
    }
    if !(-90.0..=90.0).contains(&latitude) || !(-180.0..=180.0).contains(&longitude) {
        return None;
    }
    let name = FINDER.get_tz_name(longitude, latitude);
    if name.is_empty() || name.starts_with("Etc/") {
        return None;
    }
    name.parse().ok()
}

/// The zone of a city's coordinates (`None`: no coordinates or no land
/// zone), looked up on the first call for that city and kept with it.
pub fn of_city(city: &City) -> Option<Tz> {
    *city
        .zone
        .get_or_init(|| match (city.latitude, city.longitude) {
            (Some(latitude), Some(longitude)) => at(latitude, longitude),
            _ => None,
        })
}

/// Looks up the zone of every city of `db` on a thread of its own, so that
/// answers find it ready without the start (or a reload) waiting for it; an
/// answer that comes first looks its city up itself. Does nothing without a
/// city database.
pub fn prepare(db: &Arc<GeoDb>) {
    if db.city_tables().is_none() {
        return;
    }
    let db = Arc::clone(db);
    let spawned = std::thread::Builder::new()
        .name("city-zones".into())
        .spawn(move || prepare_now(&db));
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start the city zone thread; zones are looked up on first use");
    }
}

/// Looks up the zone of every city of `db` now.
pub fn prepare_now(db: &GeoDb) {
    if let Some(tables) = db.city_tables() {
        for city in &tables.cities {
            of_city(city);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cities_of_multi_zone_countries_get_their_own_zone() {
        for (lat, lon, zone) in [
            (37.386, -122.0838, Tz::America__Los_Angeles),
            (43.1056, 131.874, Tz::Asia__Vladivostok),
            (-9.97472, -67.81, Tz::America__Rio_Branco),
            (-31.9522, 115.8614, Tz::Australia__Perth),
            (40.7128, -74.006, Tz::America__New_York),
            (55.7558, 37.6173, Tz::Europe__Moscow),
        ] {
            assert_eq!(at(lat, lon), Some(zone), "{lat}, {lon}");
        }
    }

    #[test]
    fn open_sea_and_impossible_points_have_no_zone() {
        // The middle of the South Pacific: Etc/GMT+10 in the boundary data.
        assert_eq!(at(-40.0, -140.0), None);
        assert_eq!(at(91.0, 0.0), None);
        assert_eq!(at(0.0, 180.5), None);
        assert_eq!(at(f64::NAN, 0.0), None);
        assert_eq!(at(0.0, f64::INFINITY), None);
    }

    #[test]
    fn a_city_without_coordinates_has_no_zone_of_its_own() {
        let city = City {
            name: "Linköping".into(),
            latitude: None,
            longitude: Some(15.6),
            zone: Default::default(),
        };
        assert_eq!(of_city(&city), None);
        let perth = City {
            name: "Perth".into(),
            latitude: Some(-31.9522),
            longitude: Some(115.8614),
            zone: Default::default(),
        };
        assert_eq!(of_city(&perth), Some(Tz::Australia__Perth));
        // Kept: the second answer comes from the city, not the finder.
        assert_eq!(perth.zone.get(), Some(&Some(Tz::Australia__Perth)));
    }
}
