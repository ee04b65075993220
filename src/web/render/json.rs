//! JSON of the lookup answer, written by hand: byte for byte what
//! `serde_json::to_string_pretty` writes for an [`IpInfo`] (the tests below
//! compare the two), at a fraction of the cost. The lookup endpoint answers
//! nothing else, so this is its hot path; every other page goes through serde.

use std::fmt::Write;

use crate::model::{Accuracy, IpInfo};

/// Appends the pretty JSON of `info` (two-space indent, no final newline) to `out`.
pub fn ip_info(out: &mut String, info: &IpInfo) {
    let l = &info.location;
    let n = &info.network;
    out.push_str("{\n  \"ip\": ");
    string(out, &info.ip);
    out.push_str(",\n  \"version\": ");
    opt_string(out, info.version.as_deref());
    out.push_str(",\n  \"is_public\": ");
    out.push_str(match info.is_public {
        Some(true) => "true",
        Some(false) => "false",
        None => "null",
    });
    out.push_str(",\n  \"location\": {\n    \"country_code\": ");
    opt_string(out, l.country_code.as_deref());
    out.push_str(",\n    \"country\": ");
    opt_string(out, l.country.as_deref());
    out.push_str(",\n    \"country_bn\": ");
    opt_string(out, l.country_bn.as_deref());
    out.push_str(",\n    \"flag\": ");
    opt_string(out, l.flag.as_deref());
    out.push_str(",\n    \"continent\": ");
    opt_string(out, l.continent.as_deref());
    out.push_str(",\n    \"city\": ");
    opt_string(out, l.city.as_deref());
    out.push_str(",\n    \"latitude\": ");
    float(out, l.latitude);
    out.push_str(",\n    \"longitude\": ");
    float(out, l.longitude);
    out.push_str(",\n    \"accuracy\": ");
    out.push_str(match l.accuracy {
        Some(Accuracy::Country) => "\"country\"",
        Some(Accuracy::City) => "\"city\"",
        None => "null",
    });
    out.push_str(",\n    \"time_zone\": ");
    opt_string(out, l.time_zone.as_deref());
    out.push_str(",\n    \"local_time\": ");
    opt_string(out, l.local_time.as_deref());
    out.push_str(",\n    \"currency\": ");
    opt_string(out, l.currency.as_deref());
    out.push_str(",\n    \"calling_code\": ");
    opt_string(out, l.calling_code.as_deref());
    out.push_str("\n  },\n  \"network\": {\n    \"asn\": ");
    match n.asn {
        Some(asn) => {
            let _ = write!(out, "{}", serde_json::Number::from(asn));
        }
        None => out.push_str("null"),
    }
    out.push_str(",\n    \"organization\": ");
    opt_string(out, n.organization.as_deref());
    out.push_str(",\n    \"range\": ");
    opt_string(out, n.range.as_deref());
    out.push_str(",\n    \"reverse_dns\": ");
    opt_string(out, n.reverse_dns.as_deref());
    out.push_str("\n  }\n}");
}

fn opt_string(out: &mut String, value: Option<&str>) {
    match value {
        Some(s) => string(out, s),
        None => out.push_str("null"),
    }
}

/// A number as serde_json writes it (shortest round-trip form; `null` when
/// not finite), through serde_json's own `Number`, so the form is exactly theirs.
fn float(out: &mut String, value: Option<f64>) {
    match value.and_then(serde_json::Number::from_f64) {
        Some(x) => {
            let _ = write!(out, "{x}");
        }
        None => out.push_str("null"),
    }
}

/// A JSON string with serde_json's escapes: `\"`, `\\`, the short forms of
/// `\b \f \n \r \t` and `\u00xx` for the other control characters.
fn string(out: &mut String, s: &str) {
    out.push('"');
    // Most strings need no escape: one branch-free pass (vectorised) to tell.
    let plain = s.as_bytes().iter().fold(true, |plain, &b| {
        plain & (b >= 0x20) & (b != b'"') & (b != b'\\')
    });
    if plain {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut start = 0;
    // Every byte escaped is ASCII, so each slice below ends on a char boundary.
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x00..=0x1f => {
                out.push_str(&s[start..i]);
                let _ = write!(out, "\\u{b:04x}");
                start = i + 1;
                continue;
            }
            _ => continue,
        };
        out.push_str(&s[start..i]);
        out.push_str(escape);
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geo::GeoDb;
    use crate::model::{Location, Network};

    fn same_as_serde(info: &IpInfo) {
        let mut ours = String::new();
        ip_info(&mut ours, info);
        assert_eq!(ours, serde_json::to_string_pretty(info).unwrap());
    }

    #[test]
    fn lookups_are_written_as_serde_writes_them() {
        let db = GeoDb::embedded().unwrap();
        let now = chrono::Utc::now();
        for ip in [
            "8.8.8.8",
            "1.0.0.1",
            "2001:4860:4860::8888",
            "10.1.2.3",
            "::1",
            "0.0.0.0",
            "255.255.255.255",
            "2a00:1450::1",
            "41.0.0.1",
            "103.0.0.1",
            "2c0f:f248::1",
        ] {
            let mut info = crate::lookup::describe(&db, ip.parse().unwrap(), now);
            same_as_serde(&info);
            info.network.reverse_dns = Some("host.example.".into());
            same_as_serde(&info);
        }
    }

    #[test]
    fn strings_numbers_and_nulls_are_written_as_serde_writes_them() {
        let awkward = "q\"b\\s/\u{0}\u{1}\u{8}\u{c}\n\r\t\u{1f}\u{7f}é🇺🇸\u{2028}";
        same_as_serde(&IpInfo {
            ip: awkward.into(),
            version: None,
            is_public: None,
            location: Location::default(),
            network: Network::default(),
        });
        for (lat, lon) in [
            (0.0, -0.0),
            (1e-7, 123456789.125),
            (f64::NAN, f64::INFINITY),
            (-33.8688, 151.2093),
            (1e21, 5e-324),
        ] {
            same_as_serde(&IpInfo {
                ip: String::new(),
                version: Some(awkward.into()),
                is_public: Some(false),
                location: Location {
                    country_code: Some(awkward.into()),
                    city: Some("Zürich".into()),
                    latitude: Some(lat),
                    longitude: Some(lon),
                    accuracy: Some(Accuracy::City),
                    ..Location::default()
                },
                network: Network {
                    asn: Some(u32::MAX),
                    organization: Some(String::new()),
                    range: Some(awkward.into()),
                    reverse_dns: None,
                },
            });
        }
    }
}
