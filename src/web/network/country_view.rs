//! The view of a country (`/country/BD`): its names in English and Bangla,
//! flag, continent, currency, calling code and every time zone; its IPv4
//! and IPv6 address space (counts, share of the world's, rows); the map
//! with the country shaded; and one page of its ASes ranked by the
//! addresses they hold there (linked), the pager and the other formats.
//! Also the link every page gives a country's name ([`country_link`]).

use std::fmt::Write;

use crate::geo::countries::CountryTable;
use crate::model::{AddressCounts, CountryInfo};
use crate::web::address::view::{attribution, format_links, para, source};
use crate::web::render::doc::{
    Block, Cell, Cut, Doc, Inline, Kind, Link, Only, Releases, Resource, Row,
};
use crate::web::render::error_view::text_row;
use crate::web::render::html_frame::flag_img;
use crate::web::render::i18n::{Lang, Msg};
use crate::web::render::map;
use crate::web::render::page::{asn_links, page_link};
use crate::web::render::values::continent;
use crate::web::render::view::View;

/// A country's answer and the releases it came from.
#[derive(Debug, Clone)]
pub(crate) struct CountryAnswer {
    pub info: CountryInfo,
    pub releases: Option<Releases>,
}

impl Resource for CountryAnswer {
    fn json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, &self.info)
    }

    fn view(&self, view: &View) -> Doc {
        country_view(self, view)
    }
}

/// The page's path of a country (`/country/BD`), and its JSON's.
pub(crate) fn country_links(code: &str) -> (String, String) {
    (
        format!("/country/{code}"),
        format!("/api/v1/country/{code}"),
    )
}

/// The name of the country `code` in `lang` (CLDR's, from the country
/// table), or the code when the table has none.
pub(crate) fn country_name_of(code: &str, lang: Lang) -> String {
    let row = CountryTable::embedded().ok().and_then(|t| t.get(code));
    match (row, lang) {
        (Some(c), Lang::Bn) => c.name_bn.clone().unwrap_or_else(|| c.name.clone()),
        (Some(c), Lang::En) => c.name.clone(),
        (None, _) => code.to_owned(),
    }
}

/// The name of the country `code` in the page's language, linked to its
/// country page.
pub(crate) fn country_link(code: &str, view: &View) -> Inline {
    let href = view.href(&country_links(code).0);
    Link::new(country_name_of(code, view.lang), href).into()
}

fn country_view(a: &CountryAnswer, view: &View) -> Doc {
    let (info, lang) = (&a.info, view.lang);
    let c = &info.country;
    let (path, api) = country_links(&c.country_code);
    let this = page_link(&path, info.page.number);
    let name = country_name_of(&c.country_code, lang);
    let mut blocks = vec![
        Block::only(Only::TEXT, text_form(info, lang, &path)),
        Block::only(Only::HTML, Kind::Kicker(Msg::Country.text(lang).to_owned())),
        Block::only(
            Only::HTML,
            Kind::Heading {
                id: Some("country"),
                words: true,
                text: vec![
                    Inline::Html(flag_img(Some(&c.country_code))),
                    Inline::text(format!(" {name}")),
                ],
            },
        ),
        Block::only(
            Only::MARKDOWN,
            Kind::Heading {
                id: None,
                words: true,
                text: vec![Inline::text(format!("{} {name}", c.flag))],
            },
        ),
        Block::only(Only::HTML, Kind::Form(String::new())),
        Block::only(
            Only::HTML.or(Only::MARKDOWN),
            Kind::Section {
                id: Some("facts"),
                class: Some("group"),
                title: None,
                body: vec![Block::all(Kind::Rows {
                    head: None,
                    rows: facts(info, lang),
                })],
            },
        ),
        Block::only(
            Only::HTML,
            Kind::Raw(shaded_map(&c.country_code, &name, lang)),
        ),
    ];
    let mut body = vec![Block::only(Only::HTML, pager(info, view, &path))];
    // In HTML the first ASes of the page, the others behind "show": a phone
    // lays out 100 rows, not 500 (Markdown keeps the whole table).
    let table = ases_table(info, view);
    body.push(Block::only(Only::MARKDOWN, table.clone()));
    let summary = |n: usize| Msg::ShowMoreAses.fill(lang, &[&lang.count(n as u128)]);
    let (top, rest) = table.split_table(&TOP_ASES, summary);
    body.push(Block::only(Only::HTML, top));
    body.extend(rest.map(|r| Block::only(Only::HTML, r)));
    if info.page.pages > 1 {
        body.push(Block::only(Only::HTML, pager(info, view, &path)));
        body.push(Block::only(
            Only::MARKDOWN,
            para(md_pager(info, lang, &path)),
        ));
    }
    blocks.push(Block::only(
        Only::HTML.or(Only::MARKDOWN),
        Kind::Section {
            id: Some("ases-section"),
            class: None,
            title: Some(Msg::CountryAses.text(lang).to_owned()),
            body,
        },
    ));
    blocks.push(Block::only(
        Only::HTML.or(Only::MARKDOWN),
        para(format_links(
            view,
            &this,
            &page_link(&api, info.page.number),
            &[],
        )),
    ));
    blocks.push(Block::only(Only::MARKDOWN, attribution()));
    Doc {
        title: name,
        canonical: this,
        releases: a.releases.clone(),
        script: false,
        blocks,
    }
}

/// How many ASes of a page the HTML shows before "show the others".
const TOP_ASES: Cut = Cut {
    top: 100,
    id: "more-ases",
    rest_id: "ases-rest",
};

/// A count and its share of a whole: `1,234 (0.5% of the world's)`.
fn with_share(n: u128, share: f64, lang: Lang) -> String {
    let share = Msg::WorldShare.fill(lang, &[&lang.percent(share)]);
    format!("{} ({share})", lang.count(n))
}

fn v6(counts: &AddressCounts) -> u128 {
    counts.v6.parse().unwrap_or(0)
}

/// The country's facts and its address space.
fn facts(info: &CountryInfo, lang: Lang) -> Vec<Row> {
    let c = &info.country;
    let row = |id: &str, label: Msg, value: String| Row {
        label: label.text(lang).to_owned(),
        value: vec![Inline::text(value)],
        id: Some(id.to_owned()),
        ..Row::default()
    };
    let or_dash = |v: Option<&str>| v.unwrap_or("-").to_owned();
    let rows = vec![
        row("name-en", Msg::CountryEn, c.country.to_string()),
        row("name-bn", Msg::CountryBn, or_dash(c.country_bn.as_deref())),
        row("country-code", Msg::CountryCode, c.country_code.to_string()),
        row(
            "continent",
            Msg::Continent,
            c.continent
                .as_deref()
                .map_or_else(|| "-".to_owned(), |n| continent(n, lang)),
        ),
        row("currency", Msg::Currency, or_dash(c.currency.as_deref())),
        row(
            "calling-code",
            Msg::CallingCode,
            c.calling_code
                .as_deref()
                .map_or_else(|| "-".to_owned(), |s| lang.digits(s)),
        ),
        row("time-zones", Msg::TimeZones, c.time_zones.join(", ")),
        row(
            "addresses-v4",
            Msg::AddressesV4,
            with_share(u128::from(info.addresses.v4), info.addresses.v4_share, lang),
        ),
        row(
            "addresses-v6",
            Msg::AddressesV6,
            with_share(v6(&info.addresses), info.addresses.v6_share, lang),
        ),
        row(
            "rows",
            Msg::DataRows,
            format!(
                "IPv4 {} · IPv6 {}",
                lang.count(u128::from(info.rows.v4)),
                lang.count(u128::from(info.rows.v6))
            ),
        ),
        row(
            "as-count",
            Msg::AsCount,
            lang.count(u128::from(info.as_count)),
        ),
    ];
    rows
}

/// The world map with the country shaded.
fn shaded_map(code: &str, name: &str, lang: Lang) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let mut svg = String::from(map::map_open_tag());
    let _ = write!(
        svg,
        "<image href=\"{}\" x=\"0\" y=\"0\" width=\"1000\" height=\"500\"/>",
        map::world_map().path
    );
    if let Some(d) = map::outline(code) {
        let _ = write!(
            svg,
            "<path class=\"hit\" id=\"{}\" fill-opacity=\"1\" d=\"{}\"><title>{}</title></path>",
            esc(code),
            esc(d),
            esc(name)
        );
    }
    svg.push_str("</svg>");
    format!(
        "<figure class=\"map\" aria-label=\"{}\">{svg}</figure>",
        esc(&Msg::WorldMap.fill(lang, &[name]))
    )
}

/// This page of the country's ASes: rank, AS, operator, addresses per
/// family and their share of the country's.
fn ases_table(info: &CountryInfo, view: &View) -> Kind {
    let lang = view.lang;
    let head = [
        (Msg::Rank, true),
        (Msg::AsNumber, false),
        (Msg::Operator, false),
        (Msg::AddressesV4, true),
        (Msg::Share, true),
        (Msg::AddressesV6, true),
    ]
    .map(|(m, number)| Cell {
        text: vec![Inline::text(m.text(lang))],
        number,
        class: None,
    })
    .to_vec();
    let num = |s: String| Cell {
        text: vec![Inline::Num(s)],
        number: true,
        class: None,
    };
    let start = u64::from(info.page.number - 1) * u64::from(info.page.per_page);
    let rows = info
        .ases
        .iter()
        .enumerate()
        .map(|(i, a)| {
            vec![
                num(lang.count(u128::from(start + i as u64 + 1))),
                Cell {
                    text: vec![
                        Link::new(format!("AS{}", a.asn), view.href(&asn_links(a.asn).0)).into(),
                    ],
                    ..Cell::default()
                },
                Cell {
                    text: vec![Inline::text(&a.organization)],
                    ..Cell::default()
                },
                num(lang.count(u128::from(a.addresses.v4))),
                num(lang.percent(a.addresses.v4_share)),
                num(lang.count(v6(&a.addresses))),
            ]
        })
        .collect();
    Kind::Table {
        id: Some("ases"),
        key: match lang {
            Lang::En => "as".to_owned(),
            _ => Msg::AsNumber.text(lang).to_owned(),
        },
        head,
        rows,
    }
}

/// Where this page is: `Page 1 of 2: ASes 1 to 500 of 512`.
fn position(info: &CountryInfo, lang: Lang) -> String {
    let (n, per) = (u64::from(info.page.number), u64::from(info.page.per_page));
    let first = ((n - 1) * per + 1).min(info.as_count);
    let last = (n * per).min(info.as_count);
    let c = |x: u64| lang.count(u128::from(x));
    Msg::AsesPageOf.fill(
        lang,
        &[
            &c(n),
            &c(u64::from(info.page.pages)),
            &c(first),
            &c(last),
            &c(info.as_count),
        ],
    )
}

/// The HTML pager of the ASes.
fn pager(info: &CountryInfo, view: &View, path: &str) -> Kind {
    let lang = view.lang;
    let (n, pages) = (info.page.number, info.page.pages);
    let link = |k: u32, rel: &'static str, text: String| {
        Box::new(Link {
            rel: Some(rel),
            ..Link::new(text, view.href(&page_link(path, k)))
        })
    };
    Kind::Pager {
        prev: (n > 1).then(|| link(n - 1, "prev", format!("← {}", Msg::Previous.text(lang)))),
        position: position(info, lang),
        next: (n < pages).then(|| link(n + 1, "next", format!("{} →", Msg::Next.text(lang)))),
        also: Vec::new(),
        label: None,
    }
}

/// The Markdown pager: the position and the neighbours' Markdown pages.
fn md_pager(info: &CountryInfo, lang: Lang, path: &str) -> Vec<Inline> {
    let (n, pages) = (info.page.number, info.page.pages);
    let md = |k: u32| format!("{}?page={k}&format=md", path);
    let mut line = vec![Inline::Text(position(info, lang))];
    if n > 1 {
        line.push(Inline::text(" · "));
        line.push(Link::new(Msg::Previous.text(lang), md(n - 1)).into());
    }
    if n < pages {
        line.push(Inline::text(" · "));
        line.push(Link::new(Msg::Next.text(lang), md(n + 1)).into());
    }
    line
}

/// Plain text: the JSON's names in English (the labels in Bangla), one
/// `time_zone:` line per zone, one `as:` line per AS of this page, and
/// where the page is.
fn text_form(info: &CountryInfo, lang: Lang, path: &str) -> Kind {
    let bn = lang != Lang::En;
    let c = &info.country;
    let key = |en: &'static str, msg: Msg| if bn { msg.text(lang) } else { en };
    let opt = |v: Option<&str>| v.unwrap_or("").to_owned();
    let mut rows = vec![
        text_row(key("country_code", Msg::CountryCode), &c.country_code),
        text_row(key("country", Msg::CountryEn), &c.country),
        text_row(
            key("country_bn", Msg::CountryBn),
            &opt(c.country_bn.as_deref()),
        ),
        text_row(key("flag", Msg::Flag), &c.flag),
        text_row(
            key("continent", Msg::Continent),
            &opt(c.continent.as_deref()),
        ),
        text_row(key("currency", Msg::Currency), &opt(c.currency.as_deref())),
        text_row(
            key("calling_code", Msg::CallingCode),
            &opt(c.calling_code.as_deref()),
        ),
    ];
    for z in &c.time_zones {
        rows.push(text_row(key("time_zone", Msg::TimeZone), z));
    }
    let a = &info.addresses;
    rows.push(text_row(
        key("addresses_v4", Msg::AddressesV4),
        &with_share(u128::from(a.v4), a.v4_share, lang),
    ));
    rows.push(text_row(
        key("addresses_v6", Msg::AddressesV6),
        &with_share(v6(a), a.v6_share, lang),
    ));
    rows.push(text_row(
        key("as_count", Msg::AsCount),
        &lang.count(u128::from(info.as_count)),
    ));
    for x in &info.ases {
        let line = format!(
            "AS{} {} {} {} {}",
            x.asn,
            lang.count(u128::from(x.addresses.v4)),
            lang.percent(x.addresses.v4_share),
            lang.count(v6(&x.addresses)),
            x.organization
        );
        rows.push(text_row(key("as", Msg::AsNumber), &line));
    }
    let (n, pages) = (info.page.number, info.page.pages);
    let cnt = |x: u32| lang.count(u128::from(x));
    rows.push(text_row(
        key("page", Msg::PageKey),
        &format!("{}/{}", cnt(n), cnt(pages)),
    ));
    if n > 1 {
        rows.push(text_row(key("prev", Msg::PrevKey), &page_link(path, n - 1)));
    }
    if n < pages {
        rows.push(text_row(key("next", Msg::NextKey), &page_link(path, n + 1)));
    }
    rows.push(text_row(key("source", Msg::Source), &source()));
    Kind::Rows { head: None, rows }
}
