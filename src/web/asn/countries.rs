//! The countries of an AS page: its table (flags, names in the page's
//! language, addresses, share bars), the same in Markdown, and the world map
//! shaded by share. Parts of the AS view ([`crate::web::asn::view`]).

use std::fmt::Write;

use crate::geo::countries::CountryTable;
use crate::model::AsnInfo;
use crate::web::render::doc::{Block, Cell, Inline, Kind, Link};
use crate::web::render::html_frame::{esc, flag_img_lazy};
use crate::web::render::i18n::{Lang, Msg};
use crate::web::render::map;

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
                        Inline::text(" "),
                        Link::new(
                            country_name(c, lang),
                            format!("/country/{}", c.country_code),
                        )
                        .into(),
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
                (c.addresses.to_string(), plain_percent(c.share))
            };
            vec![
                Cell {
                    text: vec![
                        Link::new(
                            country_name(c, lang),
                            format!("/country/{}", c.country_code),
                        )
                        .into(),
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

/// A share as the English text and Markdown answers write it, with two
/// decimals (`0.05%`, `<0.01%`).
pub(super) fn plain_percent(share: f64) -> String {
    Lang::En.percent_to(share, 2)
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
        let opacity = shade(c.share);
        let _ = write!(
            svg,
            "<path class=\"hit\" id=\"{}\" fill-opacity=\"{opacity:.2}\" d=\"{}\"><title>{} {}</title></path>",
            esc(&c.country_code),
            esc(d),
            esc(&country_name(c, lang)),
            esc(&lang.percent(c.share))
        );
    }
    svg.push_str("</svg>");
    format!(
        "<figure class=\"map\" aria-label=\"{}\">{svg}{}</figure>",
        esc(Msg::AsMap.text(lang)),
        legend(lang)
    )
}

/// The map's colour scale: a share's band, from under 1% to half or more
/// (the lower bound of each, and its opacity). A fixed scale, so a small
/// share looks small whatever the largest is.
const BANDS: [(f64, f64); 5] = [
    (0.0, 0.12),
    (0.01, 0.3),
    (0.05, 0.5),
    (0.2, 0.72),
    (0.5, 0.95),
];

/// The opacity of a country holding `share` of the AS's addresses.
pub(super) fn shade(share: f64) -> f64 {
    BANDS
        .iter()
        .rev()
        .find(|(from, _)| share >= *from)
        .map_or(BANDS[0].1, |(_, o)| *o)
}

/// The legend of the scale: a swatch per band and the share it starts at.
fn legend(lang: Lang) -> String {
    let mut svg = format!(
        "<svg class=\"legend\" viewBox=\"0 0 500 22\" role=\"img\" aria-label=\"{}\">",
        esc(Msg::MapScale.text(lang))
    );
    for (i, (from, opacity)) in BANDS.iter().enumerate() {
        let x = i * 100;
        let label = if i == 0 {
            format!("< {}", lang.percent(BANDS[1].0))
        } else {
            format!("≥ {}", lang.percent(*from))
        };
        let _ = write!(
            svg,
            "<path class=\"hit\" fill-opacity=\"{opacity}\" d=\"M{x} 4h24v14h-24z\"/><text x=\"{}\" y=\"16\" font-size=\"13\" fill=\"currentColor\">{}</text>",
            x + 30,
            esc(&label)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The countries of the IPv6 space as a table: name (linked), addresses, share.
pub(super) fn countries_v6(info: &AsnInfo, lang: Lang) -> Kind {
    let cell = |text: Vec<Inline>, number| Cell {
        text,
        number,
        class: None,
    };
    let rows = info
        .countries_v6
        .iter()
        .map(|c| {
            let name = match lang {
                Lang::Bn => CountryTable::embedded()
                    .ok()
                    .and_then(|t| t.get(&c.country_code))
                    .and_then(|row| row.name_bn.clone())
                    .unwrap_or_else(|| c.country.to_string()),
                Lang::En => c.country.to_string(),
            };
            let n: u128 = c.addresses.parse().unwrap_or(0);
            vec![
                cell(
                    vec![Link::new(name, format!("/country/{}", c.country_code)).into()],
                    false,
                ),
                cell(vec![Inline::Num(lang.count(n))], true),
                cell(vec![Inline::Num(lang.percent(c.share))], true),
            ]
        })
        .collect();
    Kind::Table {
        id: Some("countries-v6"),
        key: Msg::Country.text(lang).to_owned(),
        head: [
            (Msg::Country, false),
            (Msg::AddressesV6, true),
            (Msg::Share, true),
        ]
        .map(|(m, n)| cell(vec![Inline::text(m.text(lang))], n))
        .to_vec(),
        rows,
    }
}
