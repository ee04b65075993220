//! Plain text: aligned `key: value` lines that read well in a terminal and in `grep`.
//! A page that shows a result (an address's, an AS's; not the root's bare
//! address) ends with a `source:` line crediting DB-IP, as its licence asks.
//! In English the keys are the fields' names and the values their raw form;
//! in Bangla the labels and values are the HTML page's ([`super::values`]).

use std::fmt::Write;

use super::i18n::{Lang, Msg};
use super::page::{
    ATTRIBUTION_TEXT, ATTRIBUTION_URL, AsnPage, LookupKind, LookupPage, Page, SPECIAL_ROW,
    asn_links, lookup_rows, page_link, slash48s,
};
use super::values;
use super::view::View;
use crate::fields::sanitize::one_line;

pub(crate) fn page(page: &Page, view: &View) -> String {
    let lang = view.lang;
    match page {
        Page::Lookup(p) if p.kind == LookupKind::Root => format!("{}\n", p.info.ip),
        Page::Lookup(p) if lang != Lang::En => {
            let mut rows: Vec<(&str, String)> =
                vec![(Msg::IpAddress.text(lang), p.info.ip.clone())];
            for r in values::network(p, lang)
                .into_iter()
                .chain(values::location(p, lang))
            {
                let special = r.id == "special-block";
                rows.push((r.label.text(lang), r.value));
                // What the block is for, and where its RFC is.
                if let (true, Some(words), Some(s)) =
                    (special, p.special_words_in(lang), &p.special)
                {
                    rows.push((Msg::About.text(lang), words));
                    rows.push((Msg::RfcLink.text(lang), s.rfc_url.clone()));
                }
            }
            rows.push((Msg::Source.text(lang), attribution()));
            aligned(&rows)
        }
        Page::Lookup(p) => aligned(&credited(with_words(lookup_rows(p), p))),
        Page::Asn(p) => asn_text(p, lang),
        Page::Health(h) if lang != Lang::En => {
            let rows: Vec<(String, String)> = super::html::health_rows(h, lang);
            let rows: Vec<(&str, String)> =
                rows.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            aligned(&rows)
        }
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
        Page::Error(e) if lang != Lang::En => aligned(&[
            (
                Msg::ErrorHeading.text(lang),
                super::i18n::error_headline(lang, e.body.error, e.status.as_u16()).to_owned(),
            ),
            (
                Msg::Status.text(lang),
                lang.digits(&e.status.as_u16().to_string()),
            ),
            (Msg::ErrorCodeLabel.text(lang), e.body.error.to_string()),
            (
                Msg::Message.text(lang),
                super::error_words::message(e, lang),
            ),
        ]),
        Page::Error(e) => aligned(&[
            ("error", e.body.error.to_string()),
            ("message", e.body.message.clone().unwrap_or_default()),
        ]),
    }
}

/// `key: value` lines with the values in one column; a value stays on its
/// line (line breaks in it become spaces, controls are dropped).
pub(crate) fn aligned(rows: &[(&str, String)]) -> String {
    // Aligned by characters (a Bangla label is three bytes a letter).
    let width = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0)
        + 1;
    let mut out = String::new();
    for (key, value) in rows {
        let label = format!("{key}:");
        let pad = width.saturating_sub(label.chars().count());
        let value = one_line(value);
        let _ = writeln!(out, "{label}{:pad$} {value}", "");
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
/// `prefix_v4:` / `prefix_v6:` line per prefix of this page, and where the
/// page is (`page: 1/9`, `next: /AS174?page=2`).
fn asn_text(p: &AsnPage, lang: Lang) -> String {
    let info = &p.info;
    let (path, _) = asn_links(info.asn);
    let bn = lang != Lang::En;
    let key = |en: &'static str, msg: Msg| if bn { msg.text(lang) } else { en };
    let count = |n: u128| if bn { lang.count(n) } else { n.to_string() };
    let mut v6 = if bn {
        lang.count(info.addresses.v6.parse().unwrap_or(0))
    } else {
        info.addresses.v6.clone()
    };
    if bn && slash48s(&info.addresses.v6) > 0 {
        let n48 = lang.count(slash48s(&info.addresses.v6));
        v6 = format!("{v6} ({})", Msg::Slash48s.fill(lang, &[&n48]));
    }
    let mut rows = vec![
        (
            key("asn", Msg::AsNumber),
            // An identifier in Bangla, as the HTML page writes it.
            if bn {
                format!("AS{}", info.asn)
            } else {
                info.asn.to_string()
            },
        ),
        (
            key("organization", Msg::Operator),
            info.organization.clone(),
        ),
        (
            key("addresses_v4", Msg::AddressesV4),
            count(u128::from(info.addresses.v4)),
        ),
        (key("addresses_v6", Msg::AddressesV6), v6),
        (
            key("prefixes_v4", Msg::PrefixesV4),
            count(u128::from(info.prefix_count.v4)),
        ),
        (
            key("prefixes_v6", Msg::PrefixesV6),
            count(u128::from(info.prefix_count.v6)),
        ),
    ];
    let table = crate::geo::countries::CountryTable::embedded().ok();
    for c in &info.countries {
        let name = match lang {
            Lang::En => c.country.clone(),
            _ => table
                .and_then(|t| t.get(&c.country_code))
                .and_then(|row| row.name_bn.clone())
                .unwrap_or_else(|| c.country.clone()),
        };
        let line = if bn {
            format!(
                "{} {name} {} ({} {})",
                c.country_code,
                lang.percent(c.share),
                lang.count(u128::from(c.addresses)),
                Msg::Addresses.text(lang)
            )
        } else {
            format!(
                "{} {name} {:.2}% ({} addresses)",
                c.country_code,
                c.share * 100.0,
                c.addresses
            )
        };
        rows.push((key("country", Msg::Country), line));
    }
    rows.extend(
        info.prefixes
            .v4
            .iter()
            .map(|n| (key("prefix_v4", Msg::PrefixesV4), n.clone())),
    );
    rows.extend(
        info.prefixes
            .v6
            .iter()
            .map(|n| (key("prefix_v6", Msg::PrefixesV6), n.clone())),
    );
    let (n, pages) = (info.page.number, info.page.pages);
    rows.push((
        key("page", Msg::PageKey),
        format!("{}/{}", count(u128::from(n)), count(u128::from(pages))),
    ));
    if n > 1 {
        rows.push((key("prev", Msg::PrevKey), page_link(&path, n - 1)));
    }
    if n < pages {
        rows.push((key("next", Msg::NextKey), page_link(&path, n + 1)));
    }
    rows.push((key("source", Msg::Source), attribution()));
    aligned(&rows)
}

/// The licence's attribution as text.
fn attribution() -> String {
    format!("{ATTRIBUTION_TEXT} ({ATTRIBUTION_URL}), CC BY 4.0")
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
    rows.push(("source", attribution()));
    rows
}
