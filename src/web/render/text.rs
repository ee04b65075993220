//! Plain text: aligned `key: value` lines that read well in a terminal and in `grep`.

use std::fmt::Write;

use super::{LookupKind, Page, info_rows};

pub fn page(page: &Page) -> String {
    match page {
        Page::Lookup(p) if p.kind == LookupKind::Root => format!("{}\n", p.info.ip),
        Page::Lookup(p) => aligned(&info_rows(&p.info)),
        Page::Health(h) => {
            let mut rows = vec![("status", h.status.to_owned())];
            for (name, s) in [("country", &h.data.country), ("asn", &h.data.asn)] {
                rows.push((
                    if name == "country" {
                        "country_release"
                    } else {
                        "asn_release"
                    },
                    s.release_date.clone(),
                ));
                rows.push((
                    if name == "country" {
                        "country_rows"
                    } else {
                        "asn_rows"
                    },
                    s.rows.to_string(),
                ));
                rows.push((
                    if name == "country" {
                        "country_source"
                    } else {
                        "asn_source"
                    },
                    s.source.clone(),
                ));
            }
            aligned(&rows)
        }
        Page::Error(e) => aligned(&[
            ("error", e.body.error.clone()),
            ("message", e.body.message.clone().unwrap_or_default()),
        ]),
    }
}

/// `key: value` lines with the values in one column.
pub fn aligned(rows: &[(&str, String)]) -> String {
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0) + 1;
    let mut out = String::new();
    for (key, value) in rows {
        let label = format!("{key}:");
        let _ = writeln!(out, "{label:<width$} {value}", width = width);
    }
    out.lines()
        .map(str::trim_end)
        .fold(String::new(), |mut acc, l| {
            acc.push_str(l);
            acc.push('\n');
            acc
        })
}
