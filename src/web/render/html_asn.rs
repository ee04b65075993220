//! The HTML page of an autonomous system: a summary (operator, counts in
//! the reader's language, IPv6 also in /48s), the countries of its IPv4
//! space as a table with flag, name, addresses and a share bar, the world
//! map with those countries coloured by share, and one page of its prefixes
//! (`?page=N`) as a compact multi-column list, each linked to its address
//! page, filterable in place by the pages' script; links to the previous
//! and next pages and to the CSV of them all.

use std::fmt::Write;

use super::html_frame::{Frame, document, esc, flag_img_lazy, lookup_form};
use super::i18n::{Lang, Msg};
use super::map;
use super::page::{AsnPage, asn_csv_link, asn_links, page_link, page_span, slash48s};
use super::values::range_link;
use super::view::View;
use crate::geo::countries::CountryTable;
use crate::model::AsnInfo;

pub(super) fn asn(p: &AsnPage, view: &View) -> String {
    let (info, lang) = (&p.info, view.lang);
    let (path, api) = asn_links(info.asn);
    let this = page_link(&path, info.page.number);
    let mut body = format!(
        "<p class=\"kicker\">{}</p><h1 id=\"asn\">AS{}</h1><p class=\"summary\"><span id=\"organization\">{}</span></p>",
        Msg::AutonomousSystem.text(lang),
        info.asn,
        esc(&info.organization)
    );
    body.push_str(&lookup_form("", view));
    body.push_str(&summary(info, lang));
    if !info.countries.is_empty() {
        let _ = write!(
            body,
            "<section class=\"group\" id=\"countries-group\"><h2>{}</h2><div class=\"split\">{}<div>{}</div></div></section>",
            Msg::Countries.text(lang),
            share_map(info, lang),
            countries(info, lang)
        );
    }
    body.push_str(&prefixes(info, view, &path));
    let _ = write!(
        body,
        "<p>{} <a id=\"json-link\" href=\"{j}\">JSON</a> · <a href=\"{p}{s}format=md\">Markdown</a> · <a href=\"{p}{s}format=text\">{}</a> · <a id=\"csv-link\" href=\"{csv}\">CSV</a></p>",
        Msg::ThisPageAs.text(lang),
        Msg::AsText.text(lang),
        j = esc(&page_link(&api, info.page.number)),
        p = esc(&view.href(&this)),
        s = if view.lang_in_query || this.contains('?') {
            '&'
        } else {
            '?'
        },
        csv = esc(&asn_csv_link(info.asn)),
    );
    let title = format!("AS{}", info.asn);
    let frame = Frame {
        releases: p.releases.as_ref(),
        script: true,
        ..Frame::new(&title, &this)
    };
    document(&frame, &body, view)
}

/// The counts: addresses and prefixes per family, IPv6 also in /48s.
fn summary(info: &AsnInfo, lang: Lang) -> String {
    // Each count is one unbroken number (`.num`); a line may break only
    // between the count of addresses and that of /48s.
    let num = |n: u128| format!("<span class=\"num\">{}</span>", lang.count(n));
    let v6: u128 = info.addresses.v6.parse().unwrap_or(0);
    let mut v6_text = num(v6);
    if v6 > 0 {
        let n48 = lang.count(slash48s(&info.addresses.v6));
        let _ = write!(
            v6_text,
            " <span class=\"num\">({})</span>",
            esc(&Msg::Slash48s.fill(lang, &[&n48]))
        );
    }
    let cells = [
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
    ];
    let mut out = String::from("<section class=\"group\" id=\"counts\"><dl>");
    for (id, label, value) in cells {
        let _ = write!(
            out,
            "<div><dt>{}</dt><dd id=\"{id}\">{value}</dd></div>",
            label.text(lang),
        );
    }
    out.push_str("</dl></section>");
    out
}

/// The rows of the countries' table that show their flag (the largest
/// shares).
const FLAGGED_ROWS: usize = 8;

/// The countries as a table: flag, name (in the page's language), addresses, share bar.
fn countries(info: &AsnInfo, lang: Lang) -> String {
    let mut out = format!(
        "<table id=\"countries\"><thead><tr><th>{}</th><th class=\"n\">{}</th><th class=\"n\">{}</th><th class=\"bar-cell\"><span class=\"vh\">{}</span></th></tr></thead><tbody>",
        Msg::Country.text(lang),
        Msg::Addresses.text(lang),
        Msg::Share.text(lang),
        Msg::Share.text(lang)
    );
    // Flags for the first rows only (issue 32: AS174's 100 flags were 100
    // requests); the rest load lazily if at all.
    for (row, c) in info.countries.iter().enumerate() {
        let flag = if row < FLAGGED_ROWS {
            flag_img_lazy(Some(&c.country_code))
        } else {
            String::new()
        };
        let name = country_name(c, lang);
        let width = (c.share * 100.0).clamp(0.0, 100.0);
        let _ = write!(
            out,
            "<tr><td>{} {}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"bar-cell\"><div class=\"share\"><svg viewBox=\"0 0 100 1\" preserveAspectRatio=\"none\" width=\"100%\" height=\"100%\"><rect width=\"{width:.2}\" height=\"1\" fill=\"currentColor\"/></svg></div></td></tr>",
            flag,
            esc(&name),
            lang.count(u128::from(c.addresses)),
            lang.percent(c.share),
        );
    }
    out.push_str("</tbody></table>");
    out
}

/// A country's name in `lang` (CLDR's Bangla name from the country table).
fn country_name(c: &crate::model::AsnCountry, lang: Lang) -> String {
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
fn share_map(info: &AsnInfo, lang: Lang) -> String {
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

/// This page of the prefixes: where it is in the whole, the filter box (shown
/// by the script), the list, and the links to the other pages.
fn prefixes(info: &AsnInfo, view: &View, path: &str) -> String {
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
    let mut pager = String::from("<nav class=\"pager\">");
    if n > 1 {
        let _ = write!(
            pager,
            "<a rel=\"prev\" href=\"{}\">← {}</a>",
            esc(&view.href(&page_link(path, n - 1))),
            Msg::Previous.text(lang)
        );
    }
    let _ = write!(pager, "<span class=\"muted\">{}</span>", esc(&position));
    if n < pages {
        let _ = write!(
            pager,
            "<a rel=\"next\" href=\"{}\">{} →</a>",
            esc(&view.href(&page_link(path, n + 1))),
            Msg::Next.text(lang)
        );
    }
    let _ = write!(
        pager,
        "<a href=\"{}\" download>{}</a></nav>",
        esc(&asn_csv_link(info.asn)),
        Msg::DownloadCsv.text(lang)
    );
    let listed = info.prefixes.v4.len() + info.prefixes.v6.len();
    let mut out = format!(
        "<section id=\"prefix-section\"><h2>{}</h2>{pager}<p id=\"filter\" hidden><input type=\"search\" aria-label=\"{f}\" placeholder=\"{f}\" autocomplete=\"off\" spellcheck=\"false\"> <span class=\"muted\"><span id=\"shown\">{}</span> / {}</span></p><ul class=\"prefixes mono\" id=\"prefixes\">",
        Msg::Prefixes.text(lang),
        lang.count(listed as u128),
        lang.count(listed as u128),
        f = Msg::FilterPrefixes.text(lang),
    );
    for prefix in info.prefixes.v4.iter().chain(&info.prefixes.v6) {
        let link = range_link(prefix).unwrap_or_default();
        let _ = write!(
            out,
            "<li><a href=\"{}\">{}</a></li>",
            esc(&view.href(&link)),
            esc(prefix)
        );
    }
    out.push_str("</ul>");
    if pages > 1 {
        out.push_str(&pager.replace("class=\"pager\"", "class=\"pager\" aria-label=\"pages\""));
    }
    out.push_str("</section>");
    out
}
