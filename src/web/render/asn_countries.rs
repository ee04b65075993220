//! The countries of an AS page: its table (flags, names in the page's
//! language, addresses, share bars), the same in Markdown, and the world map
//! shaded by share. Parts of the AS view ([`super::asn_view`]).

use std::fmt::Write;

use super::doc::{Block, Cell, Inline, Kind};
use super::html_frame::{esc, flag_img_lazy};
use super::i18n::{Lang, Msg};
use super::map;
use crate::geo::countries::CountryTable;
use crate::model::AsnInfo;

/// The countries as a table: flag, name (in the page's language), addresses, share bar.
pub(super) fn countries(info: &AsnInfo, lang: Lang) -> Kind {
    let head = |text: &str, number| Cell {
        text: vec![Inline::text(text)],
        number,
        class: None,
    };
    // Flags for the first rows only (issue 32: AS174's 100 flags were 100
    // requests); the rest have none.
    let rows = info
        .countries
        .iter()
        .enumerate()
        .map(|(row, c)| {
            let width = (c.share * 100.0).clamp(0.0, 100.0);
            let flag = if row < FLAGGED_ROWS {
                flag_img_lazy(Some(&c.country_code))
            } else {
                String::new()
            };
            vec![
                Cell {
                    text: vec![
                        Inline::Html(flag),
                        Inline::Text(format!(" {}", country_name(c, lang))),
                    ],
                    ..Cell::default()
                },
                Cell {
                    text: vec![Inline::Text(lang.count(u128::from(c.addresses)))],
                    number: true,
                    class: None,
                },
                Cell {
                    text: vec![Inline::Text(lang.percent(c.share))],
                    number: true,
                    class: None,
                },
                Cell {
                    text: vec![Inline::Html(format!("<div class=\"share\"><svg viewBox=\"0 0 100 1\" preserveAspectRatio=\"none\" width=\"100%\" height=\"100%\"><rect width=\"{width:.2}\" height=\"1\" fill=\"currentColor\"/></svg></div>"))],
                    number: false,
                    class: Some("bar-cell"),
                },
            ]
        })
        .collect();
    Kind::Table {
        id: Some("countries"),
        key: Msg::Country.text(lang).to_owned(),
        head: vec![
            head(Msg::Country.text(lang), false),
            head(Msg::Addresses.text(lang), true),
            head(Msg::Share.text(lang), true),
            Cell {
                text: vec![Inline::Html(format!(
                    "<span class=\"vh\">{}</span>",
                    esc(Msg::Share.text(lang))
                ))],
                class: Some("bar-cell"),
                ..Cell::default()
            },
        ],
        rows,
    }
}

/// The rows of the countries' table that show their flag (the largest
/// shares).
const FLAGGED_ROWS: usize = 8;

/// The countries in Markdown: name and code, addresses, share.
pub(super) fn md_countries(info: &AsnInfo, lang: Lang) -> Kind {
    let bn = lang != Lang::En;
    let (title, head) = if bn {
        (
            Msg::Countries.text(lang),
            [Msg::Country, Msg::Addresses, Msg::Share].map(|m| m.text(lang)),
        )
    } else {
        ("Countries (IPv4)", ["Country", "Addresses", "Share"])
    };
    let rows = info
        .countries
        .iter()
        .map(|c| {
            let (count, share) = if bn {
                (lang.count(u128::from(c.addresses)), lang.percent(c.share))
            } else {
                (c.addresses.to_string(), format!("{:.2}%", c.share * 100.0))
            };
            vec![
                Cell {
                    text: vec![
                        Inline::Text(country_name(c, lang)),
                        Inline::text(" ("),
                        Inline::text(&c.country_code),
                        Inline::text(")"),
                    ],
                    ..Cell::default()
                },
                Cell {
                    text: vec![Inline::Text(count)],
                    ..Cell::default()
                },
                Cell {
                    text: vec![Inline::Text(share)],
                    ..Cell::default()
                },
            ]
        })
        .collect();
    Kind::Section {
        id: None,
        class: None,
        title: Some(title.to_owned()),
        body: vec![Block::all(Kind::Table {
            id: None,
            key: String::new(),
            head: head
                .iter()
                .map(|h| Cell {
                    text: vec![Inline::text(*h)],
                    ..Cell::default()
                })
                .collect(),
            rows,
        })],
    }
}

/// A country's name in `lang` (CLDR's Bangla name from the country table).
pub(super) fn country_name(c: &crate::model::AsnCountry, lang: Lang) -> String {
    match lang {
        Lang::Bn => CountryTable::embedded()
            .ok()
            .and_then(|t| t.get(&c.country_code))
            .and_then(|row| row.name_bn.clone())
            .unwrap_or_else(|| c.country.clone()),
        Lang::En => c.country.clone(),
    }
}

/// The world map with each country of the AS's IPv4 space drawn over it,
/// more opaque for a larger share (relative to the largest).
pub(super) fn share_map(info: &AsnInfo, lang: Lang) -> String {
    let largest = info.countries.iter().map(|c| c.share).fold(0.0, f64::max);
    let mut svg = String::from(map::map_open_tag());
    let _ = write!(
        svg,
        "<image href=\"{}\" x=\"0\" y=\"0\" width=\"1000\" height=\"500\"/>",
        map::world_map().path
    );
    for c in &info.countries {
        let Some(d) = map::outline(&c.country_code) else {
            continue;
        };
        let opacity = if largest > 0.0 {
            0.3 + 0.7 * (c.share / largest).sqrt()
        } else {
            1.0
        };
        let _ = write!(
            svg,
            "<path class=\"hit\" id=\"{}\" fill-opacity=\"{opacity:.2}\" d=\"{}\"><title>{} {}</title></path>",
            esc(&c.country_code),
            esc(d),
            esc(&country_name(c, lang)),
            lang.percent(c.share)
        );
    }
    svg.push_str("</svg>");
    format!(
        "<figure class=\"map\" aria-label=\"{}\">{svg}</figure>",
        esc(Msg::AsMap.text(lang))
    )
}
