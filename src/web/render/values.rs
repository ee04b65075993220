//! An address's answer as people read it, in a language: the rows of the
//! Network and Location groups, each with its label, its value in words
//! (Yes/No, a clock time with its UTC offset, coordinates with hemispheres,
//! accuracy in a sentence, names in the page's language), the fields of the
//! single-field route that print it (for the `curl` command beside it) and
//! the page it links to. The HTML page shows them all; the Bangla text and
//! Markdown pages show their labels and values.

use chrono::{DateTime, FixedOffset, Timelike};

use super::i18n::{Lang, Msg};
use super::page::{LookupPage, asn_links};
use crate::model::Accuracy;

/// One row of a group.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// The element id of the value (`asn`, `country`, ...).
    pub id: &'static str,
    pub label: Msg,
    pub value: String,
    /// The fields `curl HOST/api/v1/ip/{ip}/{field}` prints for it.
    pub fields: &'static [&'static str],
    /// The page the value links to.
    pub link: Option<String>,
    /// The value is in another language than the page's (its tag).
    pub lang: Option<&'static str>,
}

fn row(id: &'static str, label: Msg, value: String, fields: &'static [&'static str]) -> Row {
    Row {
        id,
        label,
        value,
        fields,
        link: None,
        lang: None,
    }
}

/// The Network group: AS number, operator, range (and its special-purpose
/// block), reverse DNS, public or not, version. Unknown values are left out.
pub(crate) fn network(p: &LookupPage, lang: Lang) -> Vec<Row> {
    let (info, n) = (&p.info, &p.info.network);
    let mut rows = Vec::new();
    if let Some(asn) = n.asn {
        rows.push(Row {
            link: Some(asn_links(asn).0),
            ..row("asn", Msg::AsNumber, format!("AS{asn}"), &["asn"])
        });
    }
    if let Some(org) = &n.organization {
        rows.push(row(
            "organization",
            Msg::Operator,
            org.clone(),
            &["organization"],
        ));
    }
    if let Some(range) = &n.range {
        rows.push(Row {
            link: range_link(range),
            ..row("range", Msg::Range, range.clone(), &["range"])
        });
    }
    if let Some(special) = &p.special {
        rows.push(row(
            "special-block",
            Msg::SpecialBlock,
            special.label_in(lang),
            &[],
        ));
    }
    if let Some(name) = &n.reverse_dns {
        rows.push(row(
            "reverse_dns",
            Msg::ReverseDns,
            name.clone(),
            &["reverse_dns"],
        ));
    }
    if let Some(public) = info.is_public {
        let word = if public { Msg::Yes } else { Msg::No };
        rows.push(row(
            "is_public",
            Msg::Public,
            word.text(lang).to_owned(),
            &["is_public"],
        ));
    }
    if let Some(v) = &info.version {
        rows.push(row("version", Msg::Version, v.to_string(), &["version"]));
    }
    rows
}

/// The Location group: country (and its name in the other language),
/// code, continent, city, coordinates, accuracy, time zone, local time,
/// currency, calling code. Unknown values are left out.
pub(crate) fn location(p: &LookupPage, lang: Lang) -> Vec<Row> {
    let l = &p.info.location;
    let mut rows = Vec::new();
    let (own, other, other_field, other_tag, other_label) = match lang {
        Lang::En => (
            &l.country,
            &l.country_bn,
            "country_bn",
            "bn",
            Msg::CountryBn,
        ),
        Lang::Bn => (&l.country_bn, &l.country, "country", "en", Msg::CountryEn),
    };
    let own_field: &'static [&'static str] = match lang {
        Lang::En => &["country"],
        Lang::Bn => &["country_bn"],
    };
    if let Some(name) = own.as_ref().or(l.country.as_ref()) {
        rows.push(Row {
            link: l.country_code.as_ref().map(|c| format!("/country/{c}")),
            ..row("country-name", Msg::Country, name.to_string(), own_field)
        });
    }
    if let Some(name) = other {
        let fields: &'static [&'static str] = if other_field == "country" {
            &["country"]
        } else {
            &["country_bn"]
        };
        rows.push(Row {
            lang: Some(other_tag),
            ..row("country-other", other_label, name.to_string(), fields)
        });
    }
    if let Some(code) = &l.country_code {
        rows.push(row(
            "country_code",
            Msg::CountryCode,
            code.to_string(),
            &["country_code"],
        ));
    }
    if let Some(c) = &l.continent {
        rows.push(row(
            "continent",
            Msg::Continent,
            continent(c, lang),
            &["continent"],
        ));
    }
    if let Some(city) = &l.city {
        rows.push(row("city", Msg::City, city.clone(), &["city"]));
    }
    if let (Some(lat), Some(lon)) = (l.latitude, l.longitude) {
        let mut value = coordinates(lat, lon, lang);
        if l.accuracy == Some(Accuracy::Country) {
            value = format!("{value} ({})", Msg::CountryCentroid.text(lang));
        }
        rows.push(row(
            "coordinates",
            Msg::Coordinates,
            value,
            &["latitude", "longitude"],
        ));
    }
    if let Some(a) = l.accuracy {
        let words = match a {
            Accuracy::Country => Msg::AccuracyCountry,
            Accuracy::City => Msg::AccuracyCity,
        };
        rows.push(row(
            "accuracy",
            Msg::Accuracy,
            words.text(lang).to_owned(),
            &["accuracy"],
        ));
    }
    if let Some(tz) = &l.time_zone {
        rows.push(row(
            "time_zone",
            Msg::TimeZone,
            tz.to_string(),
            &["time_zone"],
        ));
    } else if let Some(value) = zones_note(l, lang) {
        rows.push(row("time_zone", Msg::TimeZone, value, &["time_zone"]));
    }
    if let Some(t) = &l.local_time {
        rows.push(row(
            "local_time",
            Msg::LocalTime,
            local_time(t, lang),
            &["local_time"],
        ));
    }
    if let Some(c) = &l.currency {
        rows.push(row("currency", Msg::Currency, c.to_string(), &["currency"]));
    }
    if let Some(c) = &l.calling_code {
        rows.push(row(
            "calling_code",
            Msg::CallingCode,
            lang.digits(c),
            &["calling_code"],
        ));
    }
    rows
}

/// Why a location has no `time_zone`, in `lang`: at country accuracy, a
/// country whose zones keep different times now has no one zone
/// (`crate::zone::country`), and the pages say how many it spans ("United
/// States spans 6 time zones: no one local time at country accuracy").
pub(crate) fn zones_note(l: &crate::model::Location, lang: Lang) -> Option<String> {
    let (Some(Accuracy::Country), Some(code), None) = (l.accuracy, &l.country_code, &l.time_zone)
    else {
        return None;
    };
    let spans = crate::zone::country::offsets_at(code, chrono::Utc::now()).len();
    if spans < 2 {
        return None;
    }
    let name = match lang {
        Lang::Bn => l.country_bn.as_deref().or(l.country.as_deref()),
        Lang::En => l.country.as_deref(),
    };
    Some(Msg::SpansZones.fill(
        lang,
        &[name.unwrap_or(code), &lang.digits(&spans.to_string())],
    ))
}

/// The English text and Markdown rows, the fields by name ([`super::page::lookup_rows`]),
/// with `time_zone_note` after an empty `time_zone` that the country's zones
/// explain ([`zones_note`]): the Bangla forms and the HTML page say it
/// in the `time_zone` row.
pub(crate) fn en_rows(p: &LookupPage) -> Vec<(&'static str, String)> {
    let mut rows = super::page::lookup_rows(p);
    if let Some(note) = zones_note(&p.info.location, Lang::En) {
        let at = rows
            .iter()
            .position(|(key, _)| *key == "time_zone")
            .map_or(rows.len(), |i| i + 1);
        rows.insert(at, ("time_zone_note", note));
    }
    rows
}

/// The page of a range, its prefix page (`8.8.8.0/24` -> `/8.8.8.0/24`).
pub(crate) fn range_link(range: &str) -> Option<String> {
    let net: ipnet::IpNet = range.parse().ok()?;
    Some(format!("/{}", net.trunc()))
}

/// `37.75° N, 97.82° W` (two decimals; `উত্তর`, ... in Bangla).
pub(crate) fn coordinates(lat: f64, lon: f64, lang: Lang) -> String {
    let ns = if lat < 0.0 { Msg::South } else { Msg::North };
    let ew = if lon < 0.0 { Msg::West } else { Msg::East };
    format!(
        "{}° {}, {}° {}",
        lang.decimal(lat.abs(), 2),
        ns.text(lang),
        lang.decimal(lon.abs(), 2),
        ew.text(lang)
    )
}

/// An RFC 3339 time as a clock time and its offset: `6:49 PM (UTC−05:00)`.
pub(crate) fn local_time(rfc3339: &str, lang: Lang) -> String {
    let Ok(t) = DateTime::<FixedOffset>::parse_from_rfc3339(rfc3339) else {
        return lang.digits(rfc3339);
    };
    let secs = t.offset().local_minus_utc();
    let sign = if secs < 0 { '−' } else { '+' };
    let (h, m) = (secs.abs() / 3600, secs.abs() % 3600 / 60);
    let offset = lang.digits(&format!("UTC{sign}{h:02}:{m:02}"));
    format!("{} ({offset})", lang.clock(t.hour(), t.minute()))
}

/// A continent's name (the data's English one) in `lang` (CLDR 48).
pub(crate) fn continent(name: &str, lang: Lang) -> String {
    let bn = match name {
        "Africa" => "আফ্রিকা",
        "Antarctica" => "অ্যান্টার্কটিকা",
        "Asia" => "এশিয়া",
        "Europe" => "ইউরোপ",
        "North America" => "উত্তর আমেরিকা",
        "South America" => "দক্ষিণ আমেরিকা",
        "Oceania" => "ওশিয়ানিয়া",
        other => other,
    };
    match lang {
        Lang::En => name.to_owned(),
        Lang::Bn => bn.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_words() {
        assert_eq!(coordinates(37.751, -97.822, Lang::En), "37.75° N, 97.82° W");
        assert_eq!(
            coordinates(-33.5, 151.0, Lang::Bn),
            "৩৩.৫০° দক্ষিণ, ১৫১.০০° পূর্ব"
        );
        assert_eq!(
            local_time("2026-11-26T18:49:05-05:00", Lang::En),
            "6:49 PM (UTC−05:00)"
        );
        assert_eq!(
            local_time("2026-11-27T05:19:05+05:30", Lang::Bn),
            "ভোর ৫:১৯ (UTC+০৫:৩০)"
        );
        assert_eq!(range_link("8.8.8.0/24").as_deref(), Some("/8.8.8.0/24"));
        assert_eq!(
            range_link("2001:4860::/32").as_deref(),
            Some("/2001:4860::/32")
        );
        assert_eq!(continent("North America", Lang::Bn), "উত্তর আমেরিকা");
    }
}
