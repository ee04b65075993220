//! The document's texts are CommonMark; here they become HTML (code spans,
//! lists, links and emphasis as such; any raw HTML in them shown as text,
//! never markup; links only to `http(s)` URLs, this site's paths and
//! anchors) and plain text (the same words without the marks).

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd, html};

fn parser(md: &str) -> Parser<'_> {
    Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH)
}

/// Whether a link target is one a page may carry.
fn safe_url(url: &str) -> bool {
    url.starts_with("https://")
        || url.starts_with("http://")
        || (url.starts_with('/') && !url.starts_with("//"))
        || url.starts_with('#')
}

/// `md` as HTML: block elements as they are (paragraphs, lists, tables).
pub(crate) fn html(md: &str) -> String {
    let events = parser(md).map(|event| match event {
        // Raw HTML is shown as the text it is.
        Event::Html(s) | Event::InlineHtml(s) => Event::Text(s),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) if !safe_url(&dest_url) => Event::Start(Tag::Link {
            link_type: LinkType::Inline,
            dest_url: CowStr::Borrowed("#"),
            title,
            id: if matches!(link_type, LinkType::Inline) {
                id
            } else {
                CowStr::Borrowed("")
            },
        }),
        Event::Start(Tag::Image { .. }) => Event::Text(CowStr::Borrowed("")),
        Event::End(TagEnd::Image) => Event::Text(CowStr::Borrowed("")),
        other => other,
    });
    let mut out = String::with_capacity(md.len() + md.len() / 4);
    html::push_html(&mut out, events);
    out
}

/// `md` as HTML inside one line (a table cell, a heading): without the
/// paragraph around it.
pub(crate) fn inline_html(md: &str) -> String {
    let out = html(md);
    let trimmed = out.trim_end();
    match trimmed
        .strip_prefix("<p>")
        .and_then(|s| s.strip_suffix("</p>"))
    {
        Some(inner) if !inner.contains("<p>") => inner.to_owned(),
        _ => trimmed.to_owned(),
    }
}

/// `md` as plain text: the words, code spans without backticks, links as
/// `text (url)`, list items as `- item`, paragraphs apart.
pub(crate) fn text(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut links: Vec<String> = Vec::new();
    for event in parser(md) {
        match event {
            Event::Text(s) | Event::Code(s) | Event::Html(s) | Event::InlineHtml(s) => {
                out.push_str(&s)
            }
            Event::SoftBreak => out.push(' '),
            Event::HardBreak => out.push('\n'),
            Event::Start(Tag::Item) => out.push_str("- "),
            Event::Start(Tag::Link { dest_url, .. }) => links.push(dest_url.into_string()),
            Event::End(TagEnd::Link) => {
                if let Some(url) = links.pop().filter(|u| !u.starts_with('#')) {
                    out.push_str(&format!(" ({url})"));
                }
            }
            Event::End(TagEnd::Paragraph) => out.push_str("\n\n"),
            Event::End(TagEnd::Item) if !out.ends_with('\n') => out.push('\n'),
            Event::End(TagEnd::List(_)) => out.push('\n'),
            _ => {}
        }
    }
    let trimmed = out.trim_end().replace("\n\n\n", "\n\n");
    trimmed.replace("\n\n- ", "\n- ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_lists_and_links_become_html() {
        let out = html("Use `Accept: text/plain`:\n\n- one\n- [two](/docs)\n");
        assert!(out.contains("<code>Accept: text/plain</code>"), "{out}");
        assert!(out.contains("<li>one</li>"), "{out}");
        assert!(out.contains("<a href=\"/docs\">two</a>"), "{out}");
        assert!(!out.contains('`'), "{out}");
    }

    #[test]
    fn raw_html_and_unsafe_links_are_text() {
        let out = html("a <script>alert(1)</script> <b>b</b> [x](javascript:alert(1))");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<b>"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
        assert!(!out.contains("javascript:"), "{out}");
        let block = html("<div onclick=x>hi</div>\n");
        assert!(!block.contains("<div"), "{block}");
    }

    #[test]
    fn inline_html_has_no_paragraph() {
        assert_eq!(inline_html("`a` b"), "<code>a</code> b");
    }

    #[test]
    fn text_drops_the_marks() {
        let out = text("Send `Accept: text/plain`, see [the docs](/docs).\n\n- one\n- two\n");
        assert_eq!(
            out,
            "Send Accept: text/plain, see the docs (/docs).\n- one\n- two"
        );
    }
}
