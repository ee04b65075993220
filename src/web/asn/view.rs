//! The view of an autonomous system: the counts (IPv6 also in /48s), the
//! countries of its IPv4 space (flag, name, addresses, share bar, the map
//! coloured by share), one page of its prefixes (`?page=N`, filterable in
//! place by the pages' script), the pager, the CSV and the other formats.

use crate::model::{AsPrefix, AsnInfo};
use crate::web::address::view::{attribution, format_links, para, source};
use crate::web::asn::countries::{countries, countries_v6, country_name, md_countries, share_map};
use crate::web::render::doc::{Block, Cut, Doc, Inline, Kind, Link, Only, Row};
use crate::web::render::error_view::text_row;
use crate::web::render::html_frame::esc;
use crate::web::render::i18n::{Lang, Msg};
use crate::web::render::page::{AsnPage, asn_csv_link, asn_links, page_link, page_span, slash48s};
use crate::web::render::values::range_link;
use crate::web::render::view::View;

/// The view of `p` in `view`'s language.
pub(crate) fn view(p: &AsnPage, view: &View) -> Doc {
    let (info, lang) = (&p.info, view.lang);
    let (path, api) = asn_links(info.asn);
    let this = page_link(&path, info.page.number);
    let bn = lang != Lang::En;
    let mut blocks = vec![
        Block::only(Only::TEXT, text_form(info, lang)),
        Block::only(
            Only::HTML,
            Kind::Kicker(Msg::AutonomousSystem.text(lang).to_owned()),
        ),
        Block::only(
            Only::HTML,
            Kind::Heading {
                id: Some("asn"),
                words: false,
                text: vec![Inline::text(format!("AS{}", info.asn))],
            },
        ),
        Block::only(
            Only::MARKDOWN,
            Kind::Heading {
                id: None,
                words: false,
                text: vec![
                    Inline::text(format!("AS{} ", info.asn)),
                    Inline::text(&info.organization),
                ],
            },
        ),
        Block::only(
            Only::HTML,
            Kind::Para {
                id: None,
                class: Some("summary"),
                text: vec![Inline::Span {
                    id: Some("organization"),
                    text: vec![Inline::text(&info.organization)],
                }],
            },
        ),
        Block::only(Only::HTML, Kind::Form(String::new())),
        Block::only(
            Only::HTML,
            Kind::Section {
                id: Some("counts"),
                class: Some("group"),
                title: None,
                body: vec![Block::all(Kind::Rows {
                    head: None,
                    rows: counts(info, lang),
                })],
            },
        ),
        Block::only(
            Only::HTML,
            Kind::Para {
                id: Some("to-prefixes"),
                class: None,
                text: vec![
                    Link {
                        id: Some("to-prefixes-link"),
                        ..Link::new(
                            Msg::ToPrefixes.fill(
                                lang,
                                &[&lang.count(u128::from(
                                    info.prefix_count.v4 + info.prefix_count.v6,
                                ))],
                            ),
                            "#prefix-section",
                        )
                    }
                    .into(),
                ],
            },
        ),
        Block::only(
            Only::MARKDOWN,
            Kind::Rows {
                head: (!bn).then_some(["Field", "Value"]),
                rows: summary(info, lang)
                    .into_iter()
                    .map(|(k, v)| text_row(k, &v))
                    .collect(),
            },
        ),
    ];
    if !info.countries.is_empty() || !info.countries_v6.is_empty() {
        blocks.push(Block::only(
            Only::HTML,
            Kind::Section {
                id: Some("countries-group"),
                class: Some("group"),
                title: Some(Msg::Countries.text(lang).to_owned()),
                body: vec![Block::all(Kind::Section {
                    id: None,
                    class: Some("split"),
                    title: None,
                    body: vec![
                        Block::all(Kind::Raw(share_map(info, lang))),
                        Block::all(Kind::Section {
                            id: None,
                            class: None,
                            title: None,
                            body: country_tables(info, lang),
                        }),
                    ],
                })],
            },
        ));
        blocks.push(Block::only(Only::MARKDOWN, md_countries(info, lang)));
    }
    blocks.push(Block::only(Only::HTML, prefixes(info, view, &path)));
    blocks.extend(md_prefixes(info, lang, &path, &api));
    let csv = Link {
        id: Some("csv-link"),
        ..Link::new("CSV", asn_csv_link(info.asn))
    };
    blocks.push(Block::only(
        Only::HTML,
        para(format_links(
            view,
            &this,
            &page_link(&api, info.page.number),
            &[csv],
        )),
    ));
    blocks.push(Block::only(Only::MARKDOWN, attribution()));
    let title = match info.organization.trim() {
        "" => format!("AS{}", info.asn),
        org => format!("AS{} {org}", info.asn),
    };
    Doc {
        title,
        canonical: this,
        releases: p.releases.clone(),
        script: true,
        blocks,
    }
}

/// The countries on the first screen: the largest [`TOP_COUNTRIES`] of
/// the IPv4 space, then the others and those of the IPv6 space behind
/// "show all" (`<details>`: no script needed).
fn country_tables(info: &AsnInfo, lang: Lang) -> Vec<Block> {
    let cut = Cut {
        top: TOP_COUNTRIES,
        id: "all-countries",
        rest_id: "countries-rest",
    };
    let mut out = Vec::new();
    if !info.countries.is_empty() {
        let summary = |n: usize| Msg::ShowAllCountries.fill(lang, &[&lang.count(n as u128)]);
        let (top, rest) = countries(info, lang).split_table(&cut, summary);
        out.push(Block::all(top));
        out.extend(rest.map(Block::all));
    }
    if !info.countries_v6.is_empty() {
        out.push(Block::all(Kind::Details {
            id: Some("v6-countries"),
            summary: Msg::CountriesV6.fill(lang, &[&lang.count(info.countries_v6.len() as u128)]),
            body: vec![Block::all(countries_v6(info, lang))],
        }));
    }
    out
}

/// How many countries the first screen of an AS page shows.
const TOP_COUNTRIES: usize = 10;

/// The search over every prefix of the AS (`?q=`, answered by the server,
/// so it works without a script), holding the current search.
fn search_form(info: &AsnInfo, view: &View, path: &str) -> String {
    let lang = view.lang;
    let hidden = if view.lang_in_query {
        format!(
            "<input type=\"hidden\" name=\"lang\" value=\"{}\">",
            lang.code()
        )
    } else {
        String::new()
    };
    let q = info.search.as_ref().map_or("", |s| s.q.as_str());
    let mut form = format!(
        "<form id=\"prefix-search\" action=\"{}\" method=\"get\" role=\"search\"><input name=\"q\" value=\"{}\" placeholder=\"2001:550, 154.\" aria-label=\"{}\" autocomplete=\"off\" spellcheck=\"false\" maxlength=\"64\">{hidden}<button type=\"submit\">{}</button></form>",
        esc(path),
        esc(q),
        esc(Msg::SearchPrefixes.text(lang)),
        esc(Msg::SearchButton.text(lang)),
    );
    if let Some(s) = &info.search {
        let found = Msg::SearchFound.fill(
            lang,
            &[
                &lang.count(u128::from(s.matches.v4 + s.matches.v6)),
                &format!("“{}”", s.q),
            ],
        );
        form.push_str(&format!("<p id=\"search-found\">{}</p>", esc(&found)));
    }
    form
}

/// The summary as (key, value) rows: the JSON's names in English, the
/// labels in another language; counts grouped in the reader's language.
fn summary(info: &AsnInfo, lang: Lang) -> Vec<(&'static str, String)> {
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
    vec![
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
    ]
}

/// Plain text: the summary, one `country:` line per country, one
/// `prefix_v4:` / `prefix_v6:` line per prefix of this page, and where the
/// page is (`page: 1/9`, `next: /AS174?page=2`).
fn text_form(info: &AsnInfo, lang: Lang) -> Kind {
    let (path, _) = asn_links(info.asn);
    let bn = lang != Lang::En;
    let key = |en: &'static str, msg: Msg| if bn { msg.text(lang) } else { en };
    let count = |n: u128| if bn { lang.count(n) } else { n.to_string() };
    let mut rows = summary(info, lang);
    for c in &info.countries {
        let name = country_name(c, lang);
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
                "{} {name} {} ({} addresses)",
                c.country_code,
                super::countries::plain_percent(c.share),
                c.addresses
            )
        };
        rows.push((key("country", Msg::Country), line));
    }
    for (k, msg, list) in [
        ("prefix_v4", Msg::PrefixesV4, &info.prefixes.v4),
        ("prefix_v6", Msg::PrefixesV6, &info.prefixes.v6),
    ] {
        rows.extend(list.iter().map(|n| (key(k, msg), n.clone())));
    }
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
    rows.push((key("source", Msg::Source), source()));
    Kind::Rows {
        head: None,
        rows: rows.into_iter().map(|(k, v)| text_row(k, &v)).collect(),
    }
}

/// The counts per family, each one unbroken number (IPv6 also in /48s).
fn counts(info: &AsnInfo, lang: Lang) -> Vec<Row> {
    let num = |n: u128| vec![Inline::Num(lang.count(n))];
    let v6: u128 = info.addresses.v6.parse().unwrap_or(0);
    let mut v6_text = num(v6);
    if v6 > 0 {
        let n48 = lang.count(slash48s(&info.addresses.v6));
        v6_text.push(Inline::text(" "));
        v6_text.push(Inline::Num(format!(
            "({})",
            Msg::Slash48s.fill(lang, &[&n48])
        )));
    }
    [
        (
            "addresses-v4",
            Msg::AddressesV4,
            num(u128::from(info.addresses.v4)),
        ),
        ("addresses-v6", Msg::AddressesV6, v6_text),
        (
            "prefixes-v4",
            Msg::PrefixesV4,
            num(u128::from(info.prefix_count.v4)),
        ),
        (
            "prefixes-v6",
            Msg::PrefixesV6,
            num(u128::from(info.prefix_count.v6)),
        ),
    ]
    .into_iter()
    .map(|(id, label, value)| Row {
        label: label.text(lang).to_owned(),
        value,
        id: Some(id.to_owned()),
        ..Row::default()
    })
    .collect()
}

/// This page of the prefixes in Markdown, per family, where it is in the
/// whole and the links to the other pages, then the other formats.
fn md_prefixes(info: &AsnInfo, lang: Lang, page: &str, api: &str) -> Vec<Block> {
    let bn = lang != Lang::En;
    let count = |n: u128| if bn { lang.count(n) } else { n.to_string() };
    let mut blocks = Vec::new();
    for (family, list) in [("IPv4", &info.prefixes.v4), ("IPv6", &info.prefixes.v6)] {
        if list.is_empty() {
            continue;
        }
        let heading = match (bn, family) {
            (false, _) => format!("{family} prefixes"),
            (true, "IPv4") => Msg::PrefixesV4.text(lang).to_owned(),
            (true, _) => Msg::PrefixesV6.text(lang).to_owned(),
        };
        let items = list
            .iter()
            .map(|prefix| {
                vec![
                    Link {
                        code: true,
                        ..Link::new(prefix, range_link(prefix).unwrap_or_default())
                    }
                    .into(),
                ]
            })
            .collect();
        blocks.push(Block::only(
            Only::MARKDOWN,
            Kind::Section {
                id: None,
                class: None,
                title: Some(heading),
                body: vec![Block::all(Kind::List {
                    id: None,
                    class: None,
                    items,
                })],
            },
        ));
    }
    let (n, pages) = (info.page.number, info.page.pages);
    let (first, last) = page_span(info);
    let total = info.prefix_count.v4 + info.prefix_count.v6;
    let position = Msg::PageOf.fill(
        lang,
        &[
            &count(u128::from(n)),
            &count(u128::from(pages)),
            &count(u128::from(first)),
            &count(u128::from(last)),
            &count(u128::from(total)),
        ],
    );
    let md = |k: u32| {
        let l = page_link(page, k);
        let sep = if l.contains('?') { '&' } else { '?' };
        format!("{l}{sep}format=md")
    };
    let mut line = vec![Inline::Text(position)];
    if n > 1 {
        line.push(Inline::text(" · "));
        line.push(Link::new(Msg::Previous.text(lang), md(n - 1)).into());
    }
    if n < pages {
        line.push(Inline::text(" · "));
        line.push(Link::new(Msg::Next.text(lang), md(n + 1)).into());
    }
    line.push(Inline::text(" · "));
    line.push(Link::new(Msg::DownloadCsv.text(lang), asn_csv_link(info.asn)).into());
    blocks.push(Block::only(Only::MARKDOWN, para(line)));
    let q = if bn { "&lang=bn" } else { "" };
    blocks.push(Block::only(
        Only::MARKDOWN,
        para(vec![
            Inline::text(format!("{} ", Msg::OtherForms.text(lang))),
            Link::new("JSON", api).into(),
            Inline::text(" · "),
            Link::new(Msg::AsText.text(lang), format!("{page}?format=text{q}")).into(),
            Inline::text(" · "),
            Link::new("HTML", format!("{page}?format=html{q}")).into(),
            Inline::text(" · "),
            Link::new("Markdown", format!("{page}?format=md{q}")).into(),
        ]),
    ));
    blocks
}

/// This page of the prefixes: where it is in the whole, the filter box (shown
/// by the script), the list, and the links to the other pages.
fn prefixes(info: &AsnInfo, view: &View, path: &str) -> Kind {
    let lang = view.lang;
    let (first, last) = page_span(info);
    let total = info.prefix_count.v4 + info.prefix_count.v6;
    let (n, pages) = (info.page.number, info.page.pages);
    let position = Msg::PageOf.fill(
        lang,
        &[
            &lang.count(u128::from(n)),
            &lang.count(u128::from(pages)),
            &lang.count(u128::from(first)),
            &lang.count(u128::from(last)),
            &lang.count(u128::from(total)),
        ],
    );
    // The other pages of a search keep it (`q` holds only characters a
    // query keeps as they are: `search_text` in the handler).
    let paged = match &info.search {
        Some(s) => format!("{path}?q={}", s.q),
        None => path.to_owned(),
    };
    let pager = |label| Kind::Pager {
        prev: (n > 1)
            .then(|| Link {
                rel: Some("prev"),
                ..Link::new(
                    format!("← {}", Msg::Previous.text(lang)),
                    view.href(&page_link(&paged, n - 1)),
                )
            })
            .map(Box::new),
        position: position.clone(),
        next: (n < pages)
            .then(|| Link {
                rel: Some("next"),
                ..Link::new(
                    format!("{} →", Msg::Next.text(lang)),
                    view.href(&page_link(&paged, n + 1)),
                )
            })
            .map(Box::new),
        also: page_numbers(n, pages)
            .map(|k| Link {
                class: (k == n).then_some("current"),
                ..Link::new(lang.count(u128::from(k)), view.href(&page_link(&paged, k)))
            })
            .chain([Link {
                download: true,
                ..Link::new(Msg::DownloadCsv.text(lang), asn_csv_link(info.asn))
            }])
            .collect(),
        label,
    };
    let listed = info.prefixes.v4.len() + info.prefixes.v6.len();
    let lists = [
        (Msg::PrefixesV4, &info.prefixes.v4, &info.prefix_details.v4),
        (Msg::PrefixesV6, &info.prefixes.v6, &info.prefix_details.v6),
    ]
    .into_iter()
    .filter(|(_, list, _)| !list.is_empty())
    .map(|(title, list, details)| {
        let items = if details.len() == list.len() {
            details
                .iter()
                .map(|p| prefix_item(&p.prefix, Some(p), view))
                .collect()
        } else {
            list.iter().map(|p| prefix_item(p, None, view)).collect()
        };
        let list = Kind::List {
            id: None,
            class: Some("prefixes mono"),
            items,
        };
        Block::all(Kind::Section {
            id: None,
            class: None,
            title: Some(title.text(lang).to_owned()),
            body: vec![Block::all(list)],
        })
    })
    .collect();
    let mut body = vec![
        Block::all(Kind::Raw(search_form(info, view, path))),
        Block::all(pager(None)),
        Block::all(Kind::Filter {
            label: Msg::FilterPrefixes.text(lang).to_owned(),
            count: lang.count(listed as u128),
        }),
        Block::all(Kind::Section {
            id: Some("prefixes"),
            class: None,
            title: None,
            body: lists,
        }),
    ];
    if pages > 1 {
        body.push(Block::all(pager(Some("pages"))));
    }
    // A long list is written in chunks, each laid out only when scrolled
    // near (the HTML writer's `LIST_CHUNK`).
    Kind::Section {
        id: Some("prefix-section"),
        class: None,
        title: Some(Msg::Prefixes.text(lang).to_owned()),
        body,
    }
}

/// One prefix of the list, linked to its page, with its country and size
/// when the page has them.
fn prefix_item(prefix: &str, detail: Option<&AsPrefix>, view: &View) -> Vec<Inline> {
    let link = range_link(prefix).unwrap_or_default();
    let mut item = vec![Link::new(prefix, view.href(&link)).into()];
    if let Some(p) = detail {
        let size: u128 = p.addresses.parse().unwrap_or(0);
        let cc = p.country_code.as_deref().unwrap_or("-");
        item.push(Inline::text(format!(" {cc} · {}", view.lang.count(size))));
    }
    item
}

/// The pages a pager numbers: the first two, the two either side of `n`,
/// the last two (all of them up to 9 pages); none for one page.
fn page_numbers(n: u32, pages: u32) -> impl Iterator<Item = u32> {
    (1..=pages).filter(move |&k| {
        pages > 1 && (pages <= 9 || k <= 2 || k + 1 >= pages || k.abs_diff(n) <= 2)
    })
}
