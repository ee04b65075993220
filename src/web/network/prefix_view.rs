//! The view of a prefix (`/8.8.8.0/24`): its size, the data's covering
//! prefix, the special-purpose block it lies in, and one page of the data's
//! rows under it (each with its range, its more specific prefixes, country
//! and AS, all linked), the pager and the other formats. Built from the
//! same [`PrefixInfo`] the JSON answers.

use super::country_view::country_link;
use crate::model::PrefixInfo;
use crate::web::address::view::{attribution, format_links, para, source};
use crate::web::render::doc::{
    Block, Cell, Doc, Inline, Kind, Link, Only, Releases, Resource, Row,
};
use crate::web::render::error_view::text_row;
use crate::web::render::i18n::{Lang, Msg};
use crate::web::render::page::{asn_links, page_link};
use crate::web::render::values::range_link;
use crate::web::render::view::View;

/// A prefix's answer and the releases it came from.
#[derive(Debug, Clone)]
pub(crate) struct PrefixAnswer {
    pub info: PrefixInfo,
    pub releases: Option<Releases>,
}

impl Resource for PrefixAnswer {
    fn json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, &self.info)
    }

    fn view(&self, view: &View) -> Doc {
        prefix_view(self, view)
    }
}

/// The page's path of a prefix (`/8.8.8.0/24`), and its JSON's.
pub(crate) fn prefix_links(prefix: &str) -> (String, String) {
    (format!("/{prefix}"), format!("/api/v1/prefix/{prefix}"))
}

fn prefix_view(a: &PrefixAnswer, view: &View) -> Doc {
    let (info, lang) = (&a.info, view.lang);
    let (path, api) = prefix_links(&info.prefix);
    let this = page_link(&path, info.page.number);
    let mut blocks = vec![
        Block::only(Only::TEXT, text_form(info, lang, &path)),
        Block::only(Only::HTML, Kind::Kicker(Msg::Prefix.text(lang).to_owned())),
        Block::only(
            Only::HTML.or(Only::MARKDOWN),
            Kind::Heading {
                id: Some("prefix"),
                words: false,
                text: vec![Inline::text(&info.prefix)],
            },
        ),
        Block::only(Only::HTML, Kind::Form(String::new())),
        Block::only(
            Only::HTML.or(Only::MARKDOWN),
            Kind::Section {
                id: Some("summary"),
                class: Some("group"),
                title: None,
                body: vec![Block::all(Kind::Rows {
                    head: None,
                    rows: summary(info, view),
                })],
            },
        ),
    ];
    let mut body = vec![Block::only(Only::HTML, pager(info, view, &path))];
    body.push(Block::all(rows_table(info, view)));
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
            id: Some("rows-section"),
            class: None,
            title: Some(Msg::DataRows.text(lang).to_owned()),
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
        title: info.prefix.clone(),
        canonical: this,
        releases: a.releases.clone(),
        script: false,
        blocks,
    }
}

/// A count written as a decimal string, in `lang`'s digits and grouping.
fn count_text(n: &str, lang: Lang) -> String {
    n.parse::<u128>()
        .map_or_else(|_| n.to_owned(), |n| lang.count(n))
}

/// The prefix's size, covering prefix and special-purpose block.
fn summary(info: &PrefixInfo, view: &View) -> Vec<Row> {
    let lang = view.lang;
    let row = |id: &str, label: Msg, value: Vec<Inline>| Row {
        label: label.text(lang).to_owned(),
        value,
        id: Some(id.to_owned()),
        ..Row::default()
    };
    let covering = match &info.covering {
        Some(c) => vec![prefix_link(c, view)],
        None => vec![Inline::text(Msg::NoCovering.text(lang))],
    };
    let mut rows = vec![
        row("version", Msg::Version, vec![Inline::text(&info.version)]),
        row(
            "addresses",
            Msg::Addresses,
            vec![Inline::Num(count_text(&info.addresses, lang))],
        ),
        row("covering", Msg::Covering, covering),
        row(
            "row-count",
            Msg::DataRows,
            vec![Inline::Num(lang.count(u128::from(info.row_count)))],
        ),
    ];
    if let Some(s) = &info.special_purpose {
        rows.push(row(
            "special-block",
            Msg::SpecialBlock,
            vec![
                Inline::text(format!("{} ", s.name)),
                prefix_link(&s.range, view),
                Inline::text(" "),
                Link::new(s.rfc.to_string(), &s.rfc_url).into(),
            ],
        ));
    }
    rows
}

/// A link to the page of `prefix`, in the page's language.
fn prefix_link(prefix: &str, view: &View) -> Inline {
    let href = range_link(prefix).unwrap_or_default();
    Link {
        code: true,
        class: Some("mono"),
        ..Link::new(prefix, view.href(&href))
    }
    .into()
}

/// This page of the rows: range, more specific prefixes, country, AS,
/// operator and addresses.
fn rows_table(info: &PrefixInfo, view: &View) -> Kind {
    let lang = view.lang;
    let cell = |text: Vec<Inline>| Cell {
        text,
        ..Cell::default()
    };
    let head = [
        Msg::Range,
        Msg::MoreSpecific,
        Msg::Country,
        Msg::AsNumber,
        Msg::Operator,
        Msg::Addresses,
    ]
    .map(|m| Cell {
        text: vec![Inline::text(m.text(lang))],
        number: m == Msg::Addresses,
        class: None,
    })
    .to_vec();
    let rows = info
        .rows
        .iter()
        .map(|r| {
            let mut prefixes = Vec::new();
            for (i, p) in r.prefixes.iter().enumerate() {
                if i > 0 {
                    prefixes.push(Inline::text(" "));
                }
                prefixes.push(prefix_link(p, view));
            }
            if prefixes.is_empty() {
                prefixes.push(Inline::text(Msg::NoData.text(lang)));
            }
            let country = match &r.country_code {
                Some(cc) => vec![country_link(cc, view)],
                None => vec![Inline::text("-")],
            };
            let asn = match r.asn {
                Some(n) => vec![Link::new(format!("AS{n}"), view.href(&asn_links(n).0)).into()],
                None => vec![Inline::text("-")],
            };
            vec![
                cell(vec![Inline::Code(format!("{}-{}", r.first, r.last))]),
                cell(prefixes),
                cell(country),
                cell(asn),
                cell(vec![Inline::text(r.organization.as_deref().unwrap_or("-"))]),
                Cell {
                    text: vec![Inline::Num(count_text(&r.addresses, lang))],
                    number: true,
                    class: None,
                },
            ]
        })
        .collect();
    Kind::Table {
        id: Some("rows"),
        key: match lang {
            Lang::En => "row".to_owned(),
            _ => Msg::DataRows.text(lang).to_owned(),
        },
        head,
        rows,
    }
}

/// Where this page is: `Page 1 of 3: rows 1 to 500 of 1,234`.
fn position(info: &PrefixInfo, lang: Lang) -> String {
    let (n, per) = (u64::from(info.page.number), u64::from(info.page.per_page));
    let first = ((n - 1) * per + 1).min(info.row_count);
    let last = (n * per).min(info.row_count);
    let c = |x: u64| lang.count(u128::from(x));
    Msg::RowsPageOf.fill(
        lang,
        &[
            &c(n),
            &c(u64::from(info.page.pages)),
            &c(first),
            &c(last),
            &c(info.row_count),
        ],
    )
}

/// The HTML pager of the rows.
fn pager(info: &PrefixInfo, view: &View, path: &str) -> Kind {
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
fn md_pager(info: &PrefixInfo, lang: Lang, path: &str) -> Vec<Inline> {
    let (n, pages) = (info.page.number, info.page.pages);
    let md = |k: u32| {
        let l = page_link(path, k);
        let sep = if l.contains('?') { '&' } else { '?' };
        format!("{l}{sep}format=md")
    };
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
/// `row:` line per row, and where the page is.
fn text_form(info: &PrefixInfo, lang: Lang, path: &str) -> Kind {
    let bn = lang != Lang::En;
    let key = |en: &'static str, msg: Msg| if bn { msg.text(lang) } else { en };
    let mut rows = vec![
        text_row(key("prefix", Msg::Prefix), &info.prefix),
        text_row(key("version", Msg::Version), &info.version),
        text_row(
            key("addresses", Msg::Addresses),
            &count_text(&info.addresses, lang),
        ),
        text_row(
            key("covering", Msg::Covering),
            info.covering.as_deref().unwrap_or(""),
        ),
    ];
    if let Some(s) = &info.special_purpose {
        let value = format!("{} {} ({})", s.name, s.range, s.rfc);
        rows.push(text_row(key("special_purpose", Msg::SpecialBlock), &value));
        rows.push(text_row(key("rfc_url", Msg::RfcLink), &s.rfc_url));
    }
    rows.push(text_row(
        key("row_count", Msg::DataRows),
        &lang.count(u128::from(info.row_count)),
    ));
    for r in &info.rows {
        let mut line = format!("{}-{}", r.first, r.last);
        for part in [
            r.country_code.as_deref().map(str::to_owned),
            r.asn.map(|n| format!("AS{n}")),
            r.organization.clone(),
        ] {
            line.push(' ');
            line.push_str(part.as_deref().unwrap_or("-"));
        }
        line.push_str(&format!(" {}", count_text(&r.addresses, lang)));
        for p in &r.prefixes {
            line.push(' ');
            line.push_str(p);
        }
        rows.push(text_row(key("row", Msg::DataRows), &line));
    }
    let (n, pages) = (info.page.number, info.page.pages);
    let c = |x: u32| lang.count(u128::from(x));
    rows.push(text_row(
        key("page", Msg::PageKey),
        &format!("{}/{}", c(n), c(pages)),
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
