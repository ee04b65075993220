//! The Markdown writer: any [`Doc`] as Markdown, its blocks one after
//! another with a blank line between: the heading (`# ...`), paragraphs,
//! labelled rows and tables as GFM tables, lists, sections under `## title`.
//! Every value is escaped ([`escape`]): it renders as exactly its
//! characters.

use std::fmt::Write;

use super::doc::{Block, Doc, Inline, Kind, Only};
use super::page::{ATTRIBUTION_TEXT, ATTRIBUTION_URL};
use crate::fields::sanitize::one_line;

/// `doc` as Markdown.
pub(crate) fn write(doc: &Doc) -> String {
    let mut parts = Vec::new();
    blocks(&doc.blocks, &mut parts);
    let mut out = parts.join("\n\n");
    out.push('\n');
    out
}

fn blocks(list: &[Block], parts: &mut Vec<String>) {
    for block in list.iter().filter(|b| b.only.has(Only::MARKDOWN)) {
        match &block.kind {
            Kind::Heading { text, .. } => parts.push(format!("# {}", inlines(text))),
            Kind::Para { text, .. } => parts.push(inlines(text)),
            Kind::Rows { head, rows } if !rows.is_empty() => {
                let mut t = match head {
                    Some([a, b]) => format!("| {a} | {b} |\n|---|---|"),
                    None => "| | |\n|---|---|".to_owned(),
                };
                for r in rows {
                    let _ = write!(t, "\n| {} | {} |", r.label, inlines(&r.value));
                }
                parts.push(t);
            }
            Kind::Table { head, rows, .. } => {
                let mut t = String::from("|");
                for h in head {
                    let _ = write!(t, " {} |", inlines(&h.text));
                }
                t.push_str("\n|");
                t.push_str(&"---|".repeat(head.len()));
                for row in rows {
                    t.push_str("\n|");
                    for c in row {
                        let _ = write!(t, " {} |", inlines(&c.text));
                    }
                }
                parts.push(t);
            }
            Kind::List { items, .. } => parts.push(
                items
                    .iter()
                    .map(|i| format!("- {}", inlines(i)))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            Kind::Section { title, body, .. } => {
                if let Some(title) = title {
                    parts.push(format!("## {title}"));
                }
                blocks(body, parts);
            }
            Kind::Details { body, .. } => blocks(body, parts),
            Kind::Line(line) => parts.push(line.clone()),
            Kind::Rows { .. } | Kind::Kicker(_) | Kind::Form(_) | Kind::Raw(_) => {}
            Kind::Pager { .. } | Kind::Filter { .. } => {}
        }
    }
}

/// Inline content as Markdown: text escaped, links to their (unescaped,
/// the service's own) paths.
fn inlines(list: &[Inline]) -> String {
    let mut out = String::new();
    for i in list {
        match i {
            Inline::Text(s) | Inline::Num(s) => out.push_str(&escape(s)),
            Inline::Plain(s) => out.push_str(s),
            Inline::Code(s) => {
                let _ = write!(out, "`{}`", one_line(s));
            }
            Inline::Strong(s) => {
                let _ = write!(out, "**{}**", escape(s));
            }
            Inline::Link(l) if l.code => {
                let _ = write!(out, "[`{}`]({})", one_line(&l.text), l.href);
            }
            Inline::Link(l) => {
                let _ = write!(out, "[{}]({})", escape(&l.text), l.href);
            }
            Inline::Span { text, .. } => out.push_str(&inlines(text)),
            Inline::Html(_) => {}
        }
    }
    out
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
