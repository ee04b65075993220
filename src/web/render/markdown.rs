//! Markdown: a heading, a table of the fields, links to the other forms and
//! the docs, and the DB-IP attribution line. In Bangla the tables are the
//! HTML page's groups, labels and values ([`super::values`]).

use std::fmt::Write;

use super::i18n::{Lang, Msg};
use super::page::{
    ATTRIBUTION_TEXT, ATTRIBUTION_URL, AsnPage, LookupKind, LookupPage, Page, asn_csv_link,
    asn_links, links, lookup_rows, page_link, page_span, slash48s,
};
use super::values;
use super::view::View;
use crate::fields::sanitize::one_line;

pub(crate) fn page(page: &Page, view: &View) -> String {
    let lang = view.lang;
    match page {
        Page::Lookup(p) if lang != Lang::En => {
            let (page_path, api_path) = links(&p.info);
            let heading = match p.kind {
                LookupKind::Root | LookupKind::ApiMe => Msg::YourIpAddress,
                _ => Msg::IpAddress,
            };
            let mut out = format!("# {}: {}\n", heading.text(lang), escape(&p.info.ip));
            if let (Some(words), Some(special)) = (p.special_words_in(lang), &p.special) {
                let _ = writeln!(
                    out,
                    "\n**{}।** {} [{}]({})",
                    escape(&special.label_in(lang)),
                    escape(&words),
                    special.rfcs.first().copied().unwrap_or_default(),
                    special.rfc_url
                );
            }
            for (title, rows) in [
                (Msg::Network, values::network(p, lang)),
                (Msg::Location, values::location(p, lang)),
            ] {
                let _ = writeln!(out, "\n## {}\n", title.text(lang));
                if rows.is_empty() {
                    let why = if p.info.is_public == Some(false) {
                        Msg::PrivateNoLocation
                    } else {
                        Msg::NoLocation
                    };
                    let _ = writeln!(out, "{}", why.text(lang));
                    continue;
                }
                out.push_str("| | |\n|---|---|\n");
                for r in rows {
                    let _ = writeln!(out, "| {} | {} |", r.label.text(lang), escape(&r.value));
                }
            }
            let _ = writeln!(
                out,
                "\n{} [JSON]({api_path}) · [{}]({page_path}?format=text&lang=bn) · [HTML]({page_path}?lang=bn) · [{}](/docs)\n",
                Msg::ThisPageAs.text(lang),
                Msg::AsText.text(lang),
                Msg::ApiDocs.text(lang),
            );
            attribution(&mut out);
            out
        }
        Page::Lookup(p) => {
            let (page_path, api_path) = links(&p.info);
            let title = match p.kind {
                LookupKind::Root | LookupKind::ApiMe => {
                    format!("Your IP address: {}", escape(&p.info.ip))
                }
                _ => format!("IP address {}", escape(&p.info.ip)),
            };
            let mut out = format!("# {title}\n\n");
            if let (Some(words), Some(special)) = (p.special_words(), &p.special) {
                let _ = writeln!(
                    out,
                    "**{}.** {} Defined in [{}]({}).\n",
                    escape(&special.label()),
                    escape(&words),
                    special.rfcs.first().copied().unwrap_or_default(),
                    special.rfc_url
                );
            }
            lookup_table(&mut out, p);
            let _ = writeln!(
                out,
                "\nOther forms: [JSON]({api_path}) · [text]({page_path}?format=text) · [HTML]({page_path}?format=html) · [Markdown]({page_path}?format=md)\n"
            );
            let _ = writeln!(
                out,
                "API: `GET /api/v1/ip/{{ip}}`, `GET /api/v1/me` · [API docs](/docs) · [OpenAPI](/api/v1/openapi.json)\n"
            );
            attribution(&mut out);
            out
        }
        Page::Asn(p) => asn_markdown(p, lang),
        Page::Health(h) if lang != Lang::En => {
            let rows = super::html::health_rows(h, lang);
            let mut out = format!("# {}\n\n| | |\n|---|---|\n", Msg::Health.text(lang));
            for (key, value) in rows {
                let _ = writeln!(out, "| {} | {} |", escape(&key), escape(&value));
            }
            out
        }
        Page::Health(h) => {
            let mut out = format!("# Health: {}\n\n", h.status);
            let rows: Vec<(String, String)> = h
                .tables()
                .into_iter()
                .flat_map(|(name, t)| {
                    [
                        (format!("{name} release"), t.release_date.clone()),
                        (format!("{name} rows"), t.rows.to_string()),
                        (format!("{name} source"), t.source.clone()),
                    ]
                })
                .chain(h.refused.iter().map(|r| {
                    (
                        format!("refused {}", r.table),
                        format!("{}: {}", r.file, r.reason),
                    )
                }))
                .collect();
            let rows: Vec<(&str, String)> =
                rows.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
            table(&mut out, &rows);
            out
        }
        // Rendered by `super::docs::markdown` (see `Page::render`).
        Page::Docs(_) => String::new(),
        Page::Error(e) if lang != Lang::En => {
            let headline = super::i18n::error_headline(lang, e.body.error, e.status.as_u16());
            let status = lang.digits(&e.status.as_u16().to_string());
            let code = e.body.error.to_string();
            format!(
                "# {}: {headline}\n\n{}\n\n{} [{}]({}) · [{}](/docs)\n",
                Msg::ErrorHeading.text(lang),
                escape(&super::error_words::message(e, lang)),
                Msg::StatusLine.fill(lang, &[&status, &code]),
                Msg::Home.text(lang),
                view.href("/"),
                Msg::ApiDocs.text(lang),
            )
        }
        Page::Error(e) => {
            // The code is one of the service's own identifiers (`bad_format`).
            let mut out = format!("# Error: {}\n\n", e.headline());
            if let Some(m) = &e.body.message {
                let _ = writeln!(out, "{}\n", escape(m));
            }
            let _ = writeln!(
                out,
                "Status {}, error `{}`. [Home](/) · [API docs](/docs)",
                e.status.as_u16(),
                e.body.error
            );
            out
        }
    }
}

/// The fields of a lookup page, the AS number linked to its page.
fn lookup_table(out: &mut String, p: &LookupPage) {
    out.push_str("| Field | Value |\n|---|---|\n");
    for (key, value) in lookup_rows(p) {
        let _ = match p.info.network.asn.filter(|_| key == "asn") {
            Some(asn) => writeln!(out, "| {key} | [{asn}]({}) |", asn_links(asn).0),
            None => writeln!(out, "| {key} | {} |", escape(&value)),
        };
    }
}

fn table(out: &mut String, rows: &[(&str, String)]) {
    out.push_str("| Field | Value |\n|---|---|\n");
    for (key, value) in rows {
        let _ = writeln!(out, "| {key} | {} |", escape(value));
    }
}

/// The licence's attribution line.
pub(crate) fn attribution(out: &mut String) {
    let _ = writeln!(out, "[{ATTRIBUTION_TEXT}]({ATTRIBUTION_URL})");
}

/// A value as Markdown that renders as exactly its characters, on one line:
/// no markup, no HTML, no link. Controls are dropped and line breaks become
/// spaces (see [`one_line`]); ASCII punctuation that starts markup is
/// backslash-escaped (`<` included, so neither HTML nor `<...>` autolinks);
/// and the GFM extended autolinks are broken where they are recognised: the
/// `.` after `www`, the `:` before `//`, and `@`, which becomes a code span
/// because cmark-gfm joins escaped text before it looks for e-mail
/// addresses.
pub(crate) fn escape(value: &str) -> String {
    let value = one_line(value);
    let bytes = value.as_bytes();
    let mut out = String::with_capacity(value.len() + 8);
    for (i, c) in value.char_indices() {
        let rest = &value[i + c.len_utf8()..];
        let www = i >= 3 && bytes[i - 3..i].eq_ignore_ascii_case(b"www");
        // `- x`, `+ x`, `1. x` or `1) x` at the start would open a list.
        let marker = (rest.is_empty() || rest.starts_with(' '))
            && match c {
                '-' | '+' => i == 0,
                '.' | ')' => i > 0 && bytes[..i].iter().all(u8::is_ascii_digit),
                _ => false,
            };
        match c {
            '@' => out.push_str("`@`"),
            '.' if www => out.push_str("\\."),
            ':' if rest.starts_with("//") => out.push_str("\\:"),
            c if marker || MARKUP.contains(c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Punctuation that opens or closes Markdown (CommonMark and GFM) markup:
/// emphasis, strikethrough, code, links and images (`[`), HTML and
/// autolinks, entities, headings, quotes, table cells, and GitHub's `$`
/// math.
const MARKUP: &str = "\\`*_~[]<>&#|$";

/// Markdown: a heading, the summary table, the countries, this page of
/// the prefixes and the links to the others, the other forms and the
/// attribution.
fn asn_markdown(p: &AsnPage, lang: Lang) -> String {
    let info = &p.info;
    let (page, api) = asn_links(info.asn);
    let bn = lang != Lang::En;
    let count = |n: u128| if bn { lang.count(n) } else { n.to_string() };
    let mut out = format!("# AS{} {}\n\n", info.asn, escape(&info.organization));
    let mut v6 = if bn {
        lang.count(info.addresses.v6.parse().unwrap_or(0))
    } else {
        info.addresses.v6.clone()
    };
    if bn && slash48s(&info.addresses.v6) > 0 {
        let n48 = lang.count(slash48s(&info.addresses.v6));
        v6 = format!("{v6} ({})", Msg::Slash48s.fill(lang, &[&n48]));
    }
    let key = |en: &'static str, msg: Msg| if bn { msg.text(lang) } else { en };
    let summary = [
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
    if bn {
        out.push_str("| | |\n|---|---|\n");
        for (key, value) in &summary {
            let _ = writeln!(out, "| {key} | {} |", escape(value));
        }
    } else {
        table(&mut out, &summary);
    }
    if !info.countries.is_empty() {
        let table = crate::geo::countries::CountryTable::embedded().ok();
        if bn {
            let _ = writeln!(
                out,
                "\n## {}\n\n| {} | {} | {} |\n|---|---|---|",
                Msg::Countries.text(lang),
                Msg::Country.text(lang),
                Msg::Addresses.text(lang),
                Msg::Share.text(lang)
            );
        } else {
            out.push_str(
                "\n## Countries (IPv4)\n\n| Country | Addresses | Share |\n|---|---|---|\n",
            );
        }
        for c in &info.countries {
            let name = match lang {
                Lang::En => c.country.clone(),
                _ => table
                    .and_then(|t| t.get(&c.country_code))
                    .and_then(|row| row.name_bn.clone())
                    .unwrap_or_else(|| c.country.clone()),
            };
            let share = if bn {
                lang.percent(c.share)
            } else {
                format!("{:.2}%", c.share * 100.0)
            };
            let _ = writeln!(
                out,
                "| {} ({}) | {} | {share} |",
                escape(&name),
                escape(&c.country_code),
                count(u128::from(c.addresses)),
            );
        }
    }
    let (n, pages) = (info.page.number, info.page.pages);
    let (first, last) = page_span(info);
    let total = info.prefix_count.v4 + info.prefix_count.v6;
    for (family, list) in [("IPv4", &info.prefixes.v4), ("IPv6", &info.prefixes.v6)] {
        if list.is_empty() {
            continue;
        }
        let heading = match (bn, family) {
            (false, _) => format!("{family} prefixes"),
            (true, "IPv4") => Msg::PrefixesV4.text(lang).to_owned(),
            (true, _) => Msg::PrefixesV6.text(lang).to_owned(),
        };
        let _ = writeln!(out, "\n## {heading}\n");
        for prefix in list.iter() {
            let link = values::range_link(prefix).unwrap_or_default();
            let _ = writeln!(out, "- [`{prefix}`]({link})");
        }
    }
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
    let _ = write!(out, "\n{position}");
    let md = |k: u32| {
        let l = page_link(&page, k);
        let sep = if l.contains('?') { '&' } else { '?' };
        format!("{l}{sep}format=md")
    };
    if n > 1 {
        let _ = write!(out, " · [{}]({})", Msg::Previous.text(lang), md(n - 1));
    }
    if n < pages {
        let _ = write!(out, " · [{}]({})", Msg::Next.text(lang), md(n + 1));
    }
    let _ = writeln!(
        out,
        " · [{}]({})\n",
        Msg::DownloadCsv.text(lang),
        asn_csv_link(info.asn)
    );
    let q = if bn { "&lang=bn" } else { "" };
    let _ = writeln!(
        out,
        "{} [JSON]({api}) · [{}]({page}?format=text{q}) · [HTML]({page}?format=html{q}) · [Markdown]({page}?format=md{q})\n",
        Msg::OtherForms.text(lang),
        Msg::AsText.text(lang),
    );
    attribution(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn plain_values_stay_as_they_are() {
        for v in [
            "8.8.8.8",
            "2001:db8::1",
            "Google LLC",
            "-122.4",
            "dns.google",
            "Deutschland (DE)",
        ] {
            assert_eq!(escape(v), v);
        }
    }

    #[test]
    fn markup_and_autolinks_are_escaped() {
        assert_eq!(escape("[x](http://evil)"), "\\[x\\](http\\://evil)");
        assert_eq!(escape("<script>"), "\\<script\\>");
        assert_eq!(escape("**b** | c"), "\\*\\*b\\*\\* \\| c");
        assert_eq!(escape("WWW.evil.com"), "WWW\\.evil.com");
        assert_eq!(escape("a@b.com"), "a`@`b.com");
        assert_eq!(escape("- x"), "\\- x");
        assert_eq!(escape("12. x"), "12\\. x");
        assert_eq!(escape("a\nb\u{1b}[31m"), "a b\\[31m");
    }
}
