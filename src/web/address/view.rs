//! The view of an address (and of the caller, on `/`): the heading, a
//! summary line (flag, country, AS number and operator, range), what a
//! special-purpose block is for, the Network and Location groups
//! ([`crate::web::render::values`]), each value with the `curl` command that prints it,
//! the world map with the country highlighted and the centroid marked, and
//! the links to the other formats. The English text and Markdown forms
//! list the answer's fields by their names ([`crate::web::render::page::lookup_rows`]).

use std::fmt::Write;

use crate::model::IpInfo;
use crate::web::render::doc::{Block, Doc, Inline, Kind, Link, Only, Row};
use crate::web::render::error_view::text_row;
use crate::web::render::html_frame::{esc, flag_img};
use crate::web::render::i18n::{Lang, Msg};
use crate::web::render::map;
use crate::web::render::page::{LookupKind, LookupPage, SPECIAL_ROW, asn_links, links};
use crate::web::render::values;
use crate::web::render::values::en_rows;
use crate::web::render::view::View;
use crate::web::serve::origin::FamilyOrigins;

/// The view of `p` in `view`'s language.
pub(crate) fn view(p: &LookupPage, view: &View) -> Doc {
    let (info, kind, lang) = (&p.info, p.kind, view.lang);
    let (page_path, api_path) = links(info);
    let self_path = if kind == LookupKind::Root {
        "/".to_owned()
    } else {
        page_path.clone()
    };
    let heading = if matches!(kind, LookupKind::Root | LookupKind::ApiMe) {
        Msg::YourIpAddress
    } else {
        Msg::IpAddress
    };
    let network = values::network(p, lang);
    let location = values::location(p, lang);
    let mut blocks = vec![text_form(p, lang, &network, &location)];
    // The heading.
    let md_heading = match (lang, kind) {
        (Lang::En, LookupKind::Root | LookupKind::ApiMe) => format!("Your IP address: {}", info.ip),
        (Lang::En, _) => format!("IP address {}", info.ip),
        _ => format!("{}: {}", heading.text(lang), info.ip),
    };
    blocks.extend([
        Block::only(Only::HTML, Kind::Kicker(heading.text(lang).to_owned())),
        Block::only(
            Only::HTML,
            Kind::Heading {
                id: Some("ip"),
                words: false,
                text: vec![Inline::text(&info.ip)],
            },
        ),
        Block::only(
            Only::MARKDOWN,
            Kind::Heading {
                id: None,
                words: false,
                text: vec![Inline::Text(md_heading)],
            },
        ),
        Block::only(
            Only::HTML,
            Kind::Para {
                id: Some("summary"),
                class: Some("summary"),
                text: summary(p, view),
            },
        ),
    ]);
    // What a special-purpose block is for, in the page's language, with its
    // RFC linked.
    if let (Some(words), Some(special)) = (p.special_words_in(lang), &p.special) {
        let rfc = special.rfcs.first().copied().unwrap_or_default();
        let md = match lang {
            Lang::En => vec![
                Inline::Strong(format!("{}.", special.label())),
                Inline::text(" "),
                Inline::Text(words.clone()),
                Inline::text(" Defined in "),
                Link::new(rfc, &special.rfc_url).into(),
                Inline::text("."),
            ],
            _ => vec![
                Inline::Strong(format!("{}।", special.label_in(lang))),
                Inline::text(" "),
                Inline::Text(words.clone()),
                Inline::text(" "),
                Link::new(rfc, &special.rfc_url).into(),
            ],
        };
        blocks.push(Block::only(
            Only::MARKDOWN,
            Kind::Para {
                id: None,
                class: None,
                text: md,
            },
        ));
        blocks.push(Block::only(
            Only::HTML,
            Kind::Para {
                id: Some("special-about"),
                class: None,
                text: vec![
                    Inline::Text(words),
                    Inline::text(" "),
                    Link {
                        id: Some("special-rfc"),
                        ..Link::new(rfc, &special.rfc_url)
                    }
                    .into(),
                ],
            },
        ));
    }
    if let Some(families) = p.families.as_deref().filter(|_| kind == LookupKind::Root) {
        blocks.push(Block::only(
            Only::HTML,
            Kind::Raw(family_addresses(families, lang)),
        ));
    }
    let typed = if kind == LookupKind::Address {
        info.ip.clone()
    } else {
        String::new()
    };
    blocks.push(Block::only(Only::HTML, Kind::Form(typed)));
    // The commands: the caller's own fields on `/`, the address's elsewhere.
    let base = match kind {
        LookupKind::Root | LookupKind::ApiMe => "/api/v1/me".to_owned(),
        _ => api_path.clone(),
    };
    let why = if info.is_public == Some(false) {
        Msg::PrivateNoLocation
    } else {
        Msg::NoLocation
    };
    let note = |only| {
        Block::only(
            only,
            Kind::Para {
                id: None,
                class: Some("muted"),
                text: vec![Inline::text(why.text(lang))],
            },
        )
    };
    let html_rows = |rows: &[values::Row]| Kind::Rows {
        head: None,
        rows: rows.iter().map(|r| html_row(r, view, &base)).collect(),
    };
    // The map is a card of its own, under Network on a wide screen (the
    // Location rows beside both: no card ends far above the other).
    let figure = map_figure(info, lang);
    let map = (!figure.is_empty()).then(|| {
        Block::all(Kind::Section {
            id: None,
            class: Some("group map"),
            title: None,
            body: vec![Block::all(Kind::Raw(figure))],
        })
    });
    let mut location_html = Vec::new();
    if location.is_empty() {
        location_html.push(note(Only::HTML));
    }
    location_html.push(Block::only(Only::HTML, html_rows(&location)));
    blocks.push(Block::only(
        Only::HTML,
        Kind::Section {
            id: None,
            class: Some("groups"),
            title: None,
            body: vec![
                Block::all(Kind::Section {
                    id: Some("network"),
                    class: Some("group"),
                    title: Some(Msg::Network.text(lang).to_owned()),
                    body: vec![Block::all(html_rows(&network))],
                }),
                Block::all(Kind::Section {
                    id: Some("location"),
                    class: Some("group"),
                    title: Some(Msg::Location.text(lang).to_owned()),
                    body: location_html,
                }),
            ]
            .into_iter()
            .chain(map)
            .collect(),
        },
    ));
    // The Markdown tables: the fields by name in English, the groups in
    // another language.
    if lang == Lang::En {
        let rows = en_rows(p)
            .into_iter()
            .map(|(key, value)| Row {
                label: key.to_owned(),
                value: vec![match info.network.asn.filter(|_| key == "asn") {
                    Some(asn) => Link::new(asn.to_string(), asn_links(asn).0).into(),
                    None => Inline::Text(value),
                }],
                ..Row::default()
            })
            .collect();
        blocks.push(Block::only(
            Only::MARKDOWN,
            Kind::Rows {
                head: Some(["Field", "Value"]),
                rows,
            },
        ));
    } else {
        for (title, rows) in [(Msg::Network, &network), (Msg::Location, &location)] {
            let mut body = vec![Block::all(Kind::Rows {
                head: None,
                rows: rows
                    .iter()
                    .map(|r| Row {
                        label: r.label.text(lang).to_owned(),
                        value: vec![Inline::text(&r.value)],
                        ..Row::default()
                    })
                    .collect(),
            })];
            if rows.is_empty() {
                body.insert(0, note(Only::ALL));
            }
            blocks.push(Block::only(
                Only::MARKDOWN,
                Kind::Section {
                    id: None,
                    class: None,
                    title: Some(title.text(lang).to_owned()),
                    body,
                },
            ));
        }
    }
    // The caller's page: the commands for a terminal.
    if kind == LookupKind::Root {
        blocks.push(crate::web::render::terminal_view::terminal(view));
    }
    // The other formats.
    let md_links = match lang {
        Lang::En => vec![
            Inline::text("Other forms: "),
            Link::new("JSON", &api_path).into(),
            Inline::text(" · "),
            Link::new("text", format!("{page_path}?format=text")).into(),
            Inline::text(" · "),
            Link::new("HTML", format!("{page_path}?format=html")).into(),
            Inline::text(" · "),
            Link::new("Markdown", format!("{page_path}?format=md")).into(),
        ],
        _ => vec![
            Inline::text(format!("{} ", Msg::ThisPageAs.text(lang))),
            Link::new("JSON", &api_path).into(),
            Inline::text(" · "),
            Link::new(
                Msg::AsText.text(lang),
                format!("{page_path}?format=text&lang=bn"),
            )
            .into(),
            Inline::text(" · "),
            Link::new("HTML", format!("{page_path}?lang=bn")).into(),
            Inline::text(" · "),
            Link::new(Msg::ApiDocs.text(lang), "/docs").into(),
        ],
    };
    blocks.push(Block::only(Only::MARKDOWN, para(md_links)));
    if lang == Lang::En {
        blocks.push(Block::only(
            Only::MARKDOWN,
            para(vec![
                Inline::text("API: "),
                Inline::Code("GET /api/v1/ip/{ip}".to_owned()),
                Inline::text(", "),
                Inline::Code("GET /api/v1/me".to_owned()),
                Inline::text(" · "),
                Link::new("API docs", "/docs").into(),
                Inline::text(" · "),
                Link::new("OpenAPI", "/api/v1/openapi.json").into(),
            ]),
        ));
    }
    blocks.push(Block::only(
        Only::HTML,
        para(format_links(view, &self_path, &api_path, &[])),
    ));
    blocks.push(Block::only(Only::MARKDOWN, attribution()));
    Doc {
        title: info.ip.clone(),
        canonical: self_path,
        releases: p.releases.clone(),
        script: true,
        blocks,
    }
}

/// A paragraph of these inlines.
pub(crate) fn para(text: Vec<Inline>) -> Kind {
    Kind::Para {
        id: None,
        class: None,
        text,
    }
}

/// The licence's attribution as a paragraph (the HTML frame's footer says
/// it on every page).
pub(crate) fn attribution() -> Kind {
    para(vec![
        Link::new(
            crate::web::render::page::ATTRIBUTION_TEXT,
            crate::web::render::page::ATTRIBUTION_URL,
        )
        .into(),
    ])
}

/// The HTML page's links to its other formats: "This page as JSON ·
/// Markdown · text", then `also`. `page` is the page's
/// path (and query); the language of the request stays in its links.
pub(crate) fn format_links(view: &View, page: &str, json: &str, also: &[Link]) -> Vec<Inline> {
    let lang = view.lang;
    let page = view.href(page);
    let sep = if page.contains('?') { '&' } else { '?' };
    let mut out = vec![
        Inline::text(format!("{} ", Msg::ThisPageAs.text(lang))),
        Link {
            id: Some("json-link"),
            ..Link::new("JSON", json)
        }
        .into(),
        Inline::text(" · "),
        Link::new("Markdown", format!("{page}{sep}format=md")).into(),
        Inline::text(" · "),
        Link::new(Msg::AsText.text(lang), format!("{page}{sep}format=text")).into(),
    ];
    for l in also {
        out.push(Inline::text(" · "));
        out.push(l.clone().into());
    }
    // The API docs are linked once, in the bar (issue 32).
    out
}

/// The text form: the bare address on `/`; else the answer's fields by
/// name (English; without the empty ones of an address that is not
/// public) or the groups' labels and values, with what a
/// special-purpose block is for and where its RFC is, and the source.
fn text_form(
    p: &LookupPage,
    lang: Lang,
    network: &[values::Row],
    location: &[values::Row],
) -> Block {
    if p.kind == LookupKind::Root {
        return Block::only(Only::TEXT, Kind::Line(p.info.ip.clone()));
    }
    let mut rows = Vec::new();
    if lang == Lang::En {
        // An address that is not public has no location and no AS: its
        // empty keys are left out, and `about` says once why.
        let known = |value: &str| p.info.is_public != Some(false) || !value.is_empty();
        for (key, value) in en_rows(p) {
            if !known(&value) {
                continue;
            }
            rows.push(text_row(key, &value));
            if let (true, Some(words), Some(special)) =
                (key == SPECIAL_ROW, p.special_words(), &p.special)
            {
                rows.push(text_row("about", &words));
                rows.push(text_row("rfc_url", &special.rfc_url));
            }
        }
    } else {
        rows.push(text_row(Msg::IpAddress.text(lang), &p.info.ip));
        for r in network.iter().chain(location) {
            rows.push(text_row(r.label.text(lang), &r.value));
            // What the block is for, and where its RFC is.
            if let (true, Some(words), Some(s)) = (
                r.id == "special-block",
                p.special_words_in(lang),
                &p.special,
            ) {
                rows.push(text_row(Msg::About.text(lang), &words));
                rows.push(text_row(Msg::RfcLink.text(lang), &s.rfc_url));
            }
        }
    }
    let key = match lang {
        Lang::En => "source",
        _ => Msg::Source.text(lang),
    };
    rows.push(text_row(key, &source()));
    Block::only(Only::TEXT, Kind::Rows { head: None, rows })
}

/// The licence's attribution as text.
pub(crate) fn source() -> String {
    format!(
        "{} ({}), CC BY 4.0",
        crate::web::render::page::ATTRIBUTION_TEXT,
        crate::web::render::page::ATTRIBUTION_URL
    )
}

/// A row of the HTML groups: the value linked in the page's language, and
/// the commands of the single-field route that print it.
fn html_row(r: &values::Row, view: &View, base: &str) -> Row {
    let lang = view.lang;
    let value = match &r.link {
        Some(link) => Link::new(&r.value, view.href(link)).into(),
        None => Inline::text(&r.value),
    };
    Row {
        label: r.label.text(lang).to_owned(),
        value: vec![value],
        id: Some(r.id.to_owned()),
        lang: r.lang,
        commands: r
            .fields
            .iter()
            .map(|f| ((*f).to_owned(), format!("{}{base}/{f}", view.host())))
            .collect(),
        command_words: Some([
            Msg::CommandFor.text(lang),
            Msg::Copied.text(lang),
            Msg::Copy.text(lang),
        ]),
    }
}

/// The one line people came for: flag and country, AS number and operator,
/// range; or, for an address without a location, why.
fn summary(p: &LookupPage, view: &View) -> Vec<Inline> {
    let (info, lang) = (&p.info, view.lang);
    let (l, n) = (&info.location, &info.network);
    let span = |text| Inline::Span { id: None, text };
    let mut parts = Vec::new();
    let name = match lang {
        Lang::Bn => l.country_bn.as_ref().or(l.country.as_ref()),
        Lang::En => l.country.as_ref(),
    };
    match name {
        Some(name) => {
            let flag = flag_img(l.country_code.as_deref());
            let flag = if flag.is_empty() { flag } else { flag + " " };
            parts.push(span(vec![
                Inline::Html(flag),
                Inline::Span {
                    id: Some("country"),
                    text: vec![match &l.country_code {
                        Some(cc) => {
                            Link::new(name.to_string(), view.href(&format!("/country/{cc}"))).into()
                        }
                        None => Inline::text(name.to_string()),
                    }],
                },
            ]));
        }
        None if info.is_public == Some(false) => parts.push(match &p.special {
            Some(s) => span(vec![
                Inline::Span {
                    id: Some("special"),
                    text: vec![Inline::Text(s.label_in(lang))],
                },
                Inline::text(format!(": {}", Msg::SpecialNoLocation.text(lang))),
            ]),
            None => span(vec![Inline::text(Msg::PrivateNoLocation.text(lang))]),
        }),
        None => parts.push(span(vec![Inline::text(Msg::NoLocation.text(lang))])),
    }
    if let Some(asn) = n.asn {
        let mut text = vec![
            Link {
                id: Some("summary-asn"),
                ..Link::new(format!("AS{asn}"), view.href(&asn_links(asn).0))
            }
            .into(),
        ];
        if let Some(o) = &n.organization {
            text.push(Inline::text(" "));
            text.push(Inline::Span {
                id: Some("summary-org"),
                text: vec![Inline::text(o)],
            });
        }
        parts.push(span(text));
    }
    if let Some(range) = &n.range {
        let link = values::range_link(range).unwrap_or_default();
        parts.push(span(vec![
            Link {
                id: Some("summary-range"),
                class: Some("mono"),
                ..Link::new(range, view.href(&link))
            }
            .into(),
        ]));
    }
    parts
}

/// The script of the root page's per-family addresses: each `a[data-me]`
/// asks its origin's `/api/v1/me` and shows the address it answers as its
/// text (`textContent`: never markup). Allowed by its hash in the page's
/// CSP ([`crate::web::render::csp_for`]), with `connect-src` naming exactly the origins.
pub(crate) const FAMILY_SCRIPT: &str = r#"for(const a of document.querySelectorAll("a[data-me]")){fetch(a.dataset.me+"/api/v1/me",{headers:{Accept:"application/json"}}).then(r=>r.ok?r.json():Promise.reject(r.status)).then(j=>{a.textContent=j.ip}).catch(()=>{a.textContent=a.dataset.no})}"#;

/// "Your IPv4 address: ... · Your IPv6 address: ...": links to the
/// single-family origins (what works without JavaScript), which the script
/// fills in with the addresses they see.
fn family_addresses(families: &FamilyOrigins, lang: Lang) -> String {
    let mut out = String::from("<p class=\"families\">");
    for (i, (family, origin)) in families.each().enumerate() {
        let origin = origin.to_string();
        let id = family.to_ascii_lowercase();
        let _ = write!(
            out,
            "{sep}{}: <a id=\"{id}\" data-me=\"{o}\" data-no=\"{}\" href=\"{o}/\">{}</a>",
            Msg::YourFamilyAddress.fill(lang, &[family]),
            Msg::NotReachable.text(lang),
            esc(&Msg::AskOrigin.fill(lang, &[&origin])),
            sep = if i == 0 { "" } else { " · " },
            o = esc(&origin),
        );
    }
    let _ = write!(out, "</p><script>{FAMILY_SCRIPT}</script>");
    out
}

/// The world map (the asset), the country's outline on it marked `hit`, and
/// at city accuracy a pin on the city (issue 33: at country accuracy the
/// centroid is no place, so the country is shaded without a pin). A
/// coordinate that is not finite or out of range draws no pin.
fn map_figure(info: &IpInfo, lang: Lang) -> String {
    let l = &info.location;
    let pin = match (l.accuracy, l.latitude, l.longitude) {
        (Some(crate::model::Accuracy::City), Some(lat), Some(lon))
            if (-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon) =>
        {
            Some((lat, lon))
        }
        _ => None,
    };
    let hit = l
        .country_code
        .as_deref()
        .and_then(|code| Some((code, map::outline(code)?)));
    if pin.is_none() && hit.is_none() {
        return String::new();
    }
    let mut svg = String::with_capacity(1024);
    svg.push_str(map::map_open_tag());
    let _ = write!(
        svg,
        "<image href=\"{}\" x=\"0\" y=\"0\" width=\"1000\" height=\"500\"/>",
        map::world_map().path
    );
    if let Some((code, d)) = hit {
        let _ = write!(
            svg,
            "<path id=\"{}\" class=\"hit\" d=\"{}\"/>",
            esc(code),
            esc(d)
        );
    }
    if let Some((lat, lon)) = pin {
        let (x, y) = ((lon + 180.0) * 1000.0 / 360.0, (90.0 - lat) * 500.0 / 180.0);
        let _ = write!(
            svg,
            "<circle class=\"pin\" id=\"pin\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"7\"><title>{}</title></circle>",
            values::coordinates(lat, lon, lang)
        );
    }
    svg.push_str("</svg>");
    let name = match lang {
        Lang::Bn => l.country_bn.as_deref().or(l.country.as_deref()),
        Lang::En => l.country.as_deref(),
    };
    format!(
        "<figure class=\"map\" aria-label=\"{}\">{svg}</figure>",
        esc(&Msg::WorldMap.fill(lang, &[name.unwrap_or("")]))
    )
}
