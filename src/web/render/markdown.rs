//! Markdown: a heading, a table of the fields, links to the other forms and
//! the docs, and the DB-IP attribution line.

use std::fmt::Write;

use super::page::{
    ATTRIBUTION_TEXT, ATTRIBUTION_URL, AsnPage, LookupKind, LookupPage, Page, asn_links,
    asn_summary, links, listed, lookup_rows, percent,
};
use crate::fields::sanitize::one_line;

pub fn page(page: &Page) -> String {
    match page {
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
        Page::Asn(p) => asn_markdown(p),
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
pub fn attribution(out: &mut String) {
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
pub fn escape(value: &str) -> String {
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

/// Markdown: a heading, the summary table, the countries, the prefixes,
/// the other forms and the attribution.
fn asn_markdown(p: &AsnPage) -> String {
    let info = &p.info;
    let (page, api) = asn_links(info.asn);
    let mut out = format!("# AS{} {}\n\n", info.asn, escape(&info.organization));
    table(&mut out, &asn_summary(info));
    if !info.countries.is_empty() {
        out.push_str("\n## Countries (IPv4)\n\n| Country | Addresses | Share |\n|---|---|---|\n");
        for c in &info.countries {
            let _ = writeln!(
                out,
                "| {} ({}) | {} | {} |",
                escape(&c.country),
                escape(&c.country_code),
                c.addresses,
                percent(c.share)
            );
        }
    }
    for (key, list, more) in listed(&info.prefixes) {
        if list.is_empty() {
            continue;
        }
        let family = if key == "prefix_v4" { "IPv4" } else { "IPv6" };
        let _ = writeln!(out, "\n## {family} prefixes\n");
        for n in list {
            let _ = writeln!(out, "- `{n}`");
        }
        if more > 0 {
            let _ = writeln!(out, "- ... {more} more: see [the JSON]({api})");
        }
    }
    let _ = writeln!(
        out,
        "\nOther forms: [JSON]({api}) · [text]({page}?format=text) · [HTML]({page}?format=html) · [Markdown]({page}?format=md)\n"
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
