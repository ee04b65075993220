//! ifconfig.co's routes in the table (answered by [`super::super::ifconfig`]):
//! one word each, none an address or an AS number could be, so they hide
//! no other route (the table's check, [`super::shadowed`], holds it).

use super::{Caching, FIELD_TEXT, JSON_TEXT, Produces, Route, api};

/// One of ifconfig.co's routes (`/ip`, `/country`, ...): one line of text
/// about the caller, or about `?ip=` ([`super::ifconfig`]); errors JSON.
const fn curl_line(template: &'static str) -> Route {
    Route {
        answer: Produces::Fixed(FIELD_TEXT),
        ..api(template, Caching::PerCaller)
    }
}
/// `/ip`: the address, bare.
pub(crate) const CURL_IP: Route = curl_line("/ip");
/// `/json`: the IpInfo of the caller or of `?ip=`.
pub(crate) const CURL_JSON: Route = Route {
    answer: Produces::Fixed(JSON_TEXT),
    ..curl_line("/json")
};
/// `/country`: the country's name. Exact: the country page `/country/{cc}`
/// has one more segment.
pub(crate) const CURL_COUNTRY: Route = curl_line("/country");
/// `/country-iso`: the country code.
pub(crate) const CURL_COUNTRY_ISO: Route = curl_line("/country-iso");
/// `/city`: the city (an empty line when unknown).
pub(crate) const CURL_CITY: Route = curl_line("/city");
/// `/asn`: `AS15169`.
pub(crate) const CURL_ASN: Route = curl_line("/asn");
/// `/asn-org`: the AS's organisation.
pub(crate) const CURL_ASN_ORG: Route = curl_line("/asn-org");
/// `/coordinates`: `lat,lon`.
pub(crate) const CURL_COORDINATES: Route = curl_line("/coordinates");

#[cfg(test)]
mod tests {
    use super::super::{ADDRESS, ALL, ASN_PAGE, Route, shadowed};
    use super::*;

    /// Each word hides no route beside it: no address, AS number or
    /// country page's path could be one (`/country` is exact: the country
    /// page `/country/{cc}` has one more segment); a word that could be an
    /// address would be refused.
    #[test]
    fn the_words_hide_no_route_and_one_that_would_is_refused() {
        let country_page = Route {
            template: "/country/{cc}",
            ..ADDRESS
        };
        let words = [
            &CURL_IP,
            &CURL_JSON,
            &CURL_COUNTRY,
            &CURL_COUNTRY_ISO,
            &CURL_CITY,
            &CURL_ASN,
            &CURL_ASN_ORG,
            &CURL_COORDINATES,
        ];
        for word in words {
            assert!(ALL.contains(&word), "{}", word.template);
            let table = [&ADDRESS, &ASN_PAGE, &country_page, word];
            assert_eq!(shadowed(&table), None, "{}", word.template);
        }
        let cafe = curl_line("/cafe");
        assert_eq!(shadowed(&[&ADDRESS, &cafe]), Some(("/{ip}", "/cafe")));
    }
}
