//! Plain text: aligned `key: value` lines that read well in a terminal and in `grep`.
//! A page that shows a result (an address's, an AS's; not the root's bare
//! address) ends with a `source:` line crediting DB-IP, as its licence asks.

use std::fmt::Write;

use super::page::{
    ATTRIBUTION_TEXT, ATTRIBUTION_URL, AsnPage, LookupKind, LookupPage, Page, SPECIAL_ROW,
    asn_links, asn_summary, listed, lookup_rows, percent,
};
use crate::fields::sanitize::one_line;

pub fn page(page: &Page) -> String {
    match page {
        Page::Lookup(p) if p.kind == LookupKind::Root => format!("{}\n", p.info.ip),
        Page::Lookup(p) => aligned(&credited(with_words(lookup_rows(p), p))),
        Page::Asn(p) => asn_text(p),
        Page::Health(h) => {
            let mut rows = vec![("status".to_owned(), h.status.to_owned())];
            for (name, t) in h.tables() {
                rows.push((format!("{name}_release"), t.release_date.clone()));
                rows.push((format!("{name}_rows"), t.rows.to_string()));
                rows.push((format!("{name}_source"), t.source.clone()));
            }
            for r in &h.refused {
                rows.push((
                    format!("refused_{}", r.table),
                    format!("{}: {}", r.file, r.reason),
                ));
            }
            let rows: Vec<(&str, String)> =
                rows.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            aligned(&rows)
        }
        // Rendered by `super::docs::text` (see `Page::render`).
        Page::Docs(_) => String::new(),
        Page::Error(e) => aligned(&[
            ("error", e.body.error.to_string()),
            ("message", e.body.message.clone().unwrap_or_default()),
        ]),
    }
}

/// `key: value` lines with the values in one column; a value stays on its
/// line (line breaks in it become spaces, controls are dropped).
pub fn aligned(rows: &[(&str, String)]) -> String {
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0) + 1;
    let mut out = String::new();
    for (key, value) in rows {
        let label = format!("{key}:");
        let value = one_line(value);
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

/// Plain text: the summary, one `country:` line per country, one
/// `prefix_v4:` / `prefix_v6:` line per prefix.
fn asn_text(p: &AsnPage) -> String {
    let info = &p.info;
    let mut rows = asn_summary(info);
    for c in &info.countries {
        let line = format!(
            "{} {} {} ({} addresses)",
            c.country_code,
            c.country,
            percent(c.share),
            c.addresses
        );
        rows.push(("country", line));
    }
    let (_, api) = asn_links(info.asn);
    for (key, list, more) in listed(&info.prefixes) {
        rows.extend(list.iter().map(|n| (key, n.clone())));
        if more > 0 {
            rows.push((key, format!("... {more} more: see {api}")));
        }
    }
    aligned(&credited(rows))
}

/// The rows of a lookup page and, after its special-purpose row, what the
/// block is for (`about:`, [`LookupPage::special_words`]) and where its
/// RFC is (`rfc_url:`).
fn with_words<'a>(mut rows: Vec<(&'a str, String)>, p: &LookupPage) -> Vec<(&'a str, String)> {
    if let (Some(words), Some(special)) = (p.special_words(), &p.special) {
        let at = rows
            .iter()
            .position(|(key, _)| *key == SPECIAL_ROW)
            .map_or(rows.len(), |i| i + 1);
        rows.insert(at, ("rfc_url", special.rfc_url.clone()));
        rows.insert(at, ("about", words));
    }
    rows
}

/// The rows of a result, then the `source:` row crediting the data.
fn credited(mut rows: Vec<(&str, String)>) -> Vec<(&str, String)> {
    rows.push((
        "source",
        format!("{ATTRIBUTION_TEXT} ({ATTRIBUTION_URL}), CC BY 4.0"),
    ));
    rows
}
