//! The JSON form of an answer, written field by field: the hot path of the
//! API. The bytes are exactly those of `serde_json::to_writer_pretty` for an
//! [`IpInfo`] (a test below holds it to that), for about a fifth of the
//! instructions of serde's generic path. Other pages use serde_json.

use crate::model::{Accuracy, IpInfo};

/// Appends the pretty JSON of `info` to `out`.
pub(crate) fn ip_info(out: &mut Vec<u8>, info: &IpInfo) {
    let (l, n) = (&info.location, &info.network);
    put(out, "{\n  \"ip\": ");
    string(out, Some(&info.ip));
    put(out, ",\n  \"version\": ");
    string(out, info.version.as_deref());
    put(out, ",\n  \"is_public\": ");
    put(
        out,
        info.is_public
            .map_or("null", |b| if b { "true" } else { "false" }),
    );
    put(out, ",\n  \"location\": {\n    \"country_code\": ");
    string(out, l.country_code.as_deref());
    put(out, ",\n    \"country\": ");
    string(out, l.country.as_deref());
    put(out, ",\n    \"country_bn\": ");
    string(out, l.country_bn.as_deref());
    put(out, ",\n    \"flag\": ");
    string(out, l.flag.as_deref());
    put(out, ",\n    \"continent\": ");
    string(out, l.continent.as_deref());
    put(out, ",\n    \"city\": ");
    string(out, l.city.as_deref());
    put(out, ",\n    \"latitude\": ");
    float(out, l.latitude);
    put(out, ",\n    \"longitude\": ");
    float(out, l.longitude);
    put(out, ",\n    \"accuracy\": ");
    // The names of the enum need no escape.
    match l.accuracy {
        Some(a) => {
            put(out, "\"");
            put(out, accuracy(a));
            put(out, "\"");
        }
        None => put(out, "null"),
    }
    put(out, ",\n    \"time_zone\": ");
    string(out, l.time_zone.as_deref());
    put(out, ",\n    \"local_time\": ");
    string(out, l.local_time.as_deref());
    put(out, ",\n    \"currency\": ");
    string(out, l.currency.as_deref());
    put(out, ",\n    \"calling_code\": ");
    string(out, l.calling_code.as_deref());
    put(out, "\n  },\n  \"network\": {\n    \"asn\": ");
    match n.asn {
        Some(asn) => put(out, itoa::Buffer::new().format(asn)),
        None => put(out, "null"),
    }
    put(out, ",\n    \"organization\": ");
    string(out, n.organization.as_deref());
    put(out, ",\n    \"range\": ");
    string(out, n.range.as_deref());
    put(out, ",\n    \"reverse_dns\": ");
    string(out, n.reverse_dns.as_deref());
    put(out, "\n  },\n  \"special_purpose\": ");
    match &info.special_purpose {
        None => put(out, "null"),
        Some(s) => {
            put(out, "{\n    \"name\": ");
            escaped(out, &s.name);
            put(out, ",\n    \"rfc\": ");
            escaped(out, &s.rfc);
            put(out, ",\n    \"rfc_url\": ");
            escaped(out, &s.rfc_url);
            put(out, ",\n    \"range\": ");
            escaped(out, &s.range);
            put(out, "\n  }");
        }
    }
    put(out, "\n}");
}

fn put(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(text.as_bytes());
}

fn accuracy(a: Accuracy) -> &'static str {
    match a {
        Accuracy::Country => "country",
        Accuracy::City => "city",
    }
}

/// Non-finite numbers are `null`; finite ones are written by zmij, as
/// serde_json writes them.
fn float(out: &mut Vec<u8>, value: Option<f64>) {
    match value.filter(|v| v.is_finite()) {
        Some(v) => put(out, zmij::Buffer::new().format_finite(v)),
        None => put(out, "null"),
    }
}

/// A string or `null`.
fn string(out: &mut Vec<u8>, value: Option<&str>) {
    match value {
        Some(s) => escaped(out, s),
        None => put(out, "null"),
    }
}

/// Whether no byte of `bytes` needs an escape (none is below 0x20, `"` or
/// `\\`). Values of eight bytes or more are checked a word at a time: a word
/// has a byte below `n` (for `n` up to 0x80) exactly when
/// `(w - n * LOW) & !w & HIGH` is not zero, and a byte equal to `c` exactly
/// when `w ^ (c * LOW)` has a byte below 1.
fn is_plain(bytes: &[u8]) -> bool {
    const LOW: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let below = |w: u64, n: u8| w.wrapping_sub(LOW * u64::from(n)) & !w & HIGH;
    let odd = |w: u64| below(w, 0x20) | below(w ^ (LOW * 0x22), 1) | below(w ^ (LOW * 0x5c), 1);
    let word = |chunk: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        u64::from_ne_bytes(w)
    };
    let Some(last) = bytes.len().checked_sub(8) else {
        return bytes.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\');
    };
    // The whole words, then the last eight bytes (which may overlap them).
    let found = bytes
        .chunks_exact(8)
        .fold(odd(word(&bytes[last..])), |found, chunk| {
            found | odd(word(chunk))
        });
    found == 0
}

/// A JSON string as serde_json writes it: `"` and `\` escaped, control
/// characters as short escapes or `\u00xx`, everything else as is.
fn escaped(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    // Almost every value needs no escape: check eight bytes at a time.
    if is_plain(bytes) {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        } else {
            out.extend_from_slice(short);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::net::IpAddr;

    use super::*;
    use crate::geo::GeoDb;
    use crate::lookup::describe;

    fn same_as_serde(info: &IpInfo) {
        let mut ours = Vec::new();
        ip_info(&mut ours, info);
        let serde = serde_json::to_vec_pretty(info).expect("serialisable");
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&serde),
            "{info:?}"
        );
    }

    #[test]
    fn answers_from_the_data_are_written_as_serde_json_writes_them() {
        let db = GeoDb::embedded().expect("embedded data");
        let now = chrono::Utc::now();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let fixed = [
            "8.8.8.8",
            "2001:4860:4860::8888",
            "10.0.0.1",
            "::1",
            "0.0.0.0",
            "fd00::1",
            "192.0.0.9",
            "64:ff9b::808:808",
            "255.255.255.255",
        ];
        for text in fixed {
            let ip: IpAddr = text.parse().expect("address");
            same_as_serde(&describe(&db, ip, now));
        }
        for _ in 0..20_000 {
            let v4 = IpAddr::from((next() as u32).to_be_bytes());
            let v6 = IpAddr::from((u128::from(next()) << 64 | u128::from(next())).to_be_bytes());
            same_as_serde(&describe(&db, v4, now));
            same_as_serde(&describe(&db, v6, now));
        }
    }

    #[test]
    fn the_word_scan_finds_every_byte_that_needs_an_escape() {
        let by_byte = |b: &[u8]| !b.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\');
        // Every byte value at every position of strings of 0 to 24 bytes,
        // over backgrounds just above and below the escaped values.
        for len in 0..=24 {
            for background in [b'a', b' ', 0xff, b'!', b'#', b'[', b']', 0x7f, 0x80] {
                let mut s = vec![background; len];
                assert_eq!(is_plain(&s), by_byte(&s), "{s:?}");
                for at in 0..len {
                    for b in 0..=255u8 {
                        s[at] = b;
                        assert_eq!(is_plain(&s), by_byte(&s), "{s:?}");
                    }
                    s[at] = background;
                }
            }
        }
    }

    #[test]
    fn escapes_odd_values_and_writes_nulls_as_serde_json_does() {
        let mut info = describe(
            &GeoDb::embedded().expect("embedded data"),
            "1.1.1.1".parse().expect("address"),
            chrono::Utc::now(),
        );
        let every_control: String = (0u8..0x20).map(char::from).collect();
        info.network.organization = Some(format!("a \"b\" \\c\u{7f} é 😀 {every_control}"));
        info.network.reverse_dns = Some(String::new());
        info.location.city = Some("Zürich\n".into());
        info.location.latitude = Some(f64::NAN);
        info.location.longitude = Some(-0.0);
        info.location.country = Some(Cow::Borrowed("</script>"));
        info.location.accuracy = Some(Accuracy::City);
        same_as_serde(&info);
        info.location.latitude = Some(f64::INFINITY);
        info.location.longitude = Some(1e300);
        info.network.asn = Some(u32::MAX);
        info.is_public = Some(false);
        same_as_serde(&info);
        same_as_serde(&IpInfo {
            ip: "::".into(),
            version: None,
            is_public: None,
            location: Default::default(),
            network: Default::default(),
            special_purpose: None,
        });
        same_as_serde(&IpInfo {
            ip: "::".into(),
            version: None,
            is_public: None,
            location: Default::default(),
            network: Default::default(),
            special_purpose: Some(crate::model::SpecialPurpose {
                name: "a \"b\"\n".into(),
                rfc: "RFC 1, RFC 2".into(),
                rfc_url: "\\".into(),
                range: "::/128".into(),
            }),
        });
    }
}
