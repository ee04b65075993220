//! The HTML writer: any [`Doc`] as a small, fast page that works without
//! JavaScript and reads well on a phone, inside the frame every page shares
//! ([`super::html_frame`]: the style, the bar, the footer, the language
//! link). Every value is escaped ([`esc`]); only [`Kind::Raw`] and
//! [`Inline::Html`] blocks, built by the service from its own data (the
//! map, a flag, a share bar), are written as they are.

use std::fmt::Write;

use super::doc::{Block, Doc, Inline, Kind, Link, Only, Row};
use super::html_frame::{Frame, document, esc, lookup_form};
use super::view::View;

/// `doc` as an HTML document.
pub(crate) fn write(doc: &Doc, view: &View) -> String {
    let mut body = String::new();
    blocks(&doc.blocks, view, &mut body);
    let frame = Frame {
        releases: doc.releases.as_ref(),
        script: doc.script,
        ..Frame::new(&doc.title, &doc.canonical)
    };
    document(&frame, &body, view)
}

fn blocks(list: &[Block], view: &View, out: &mut String) {
    for block in list.iter().filter(|b| b.only.has(Only::HTML)) {
        match &block.kind {
            Kind::Kicker(s) => {
                let _ = write!(out, "<p class=\"kicker\">{}</p>", esc(s));
            }
            Kind::Heading { id, words, text } => {
                let class = if *words { " class=\"words\"" } else { "" };
                let _ = write!(out, "<h1{class}{}>{}</h1>", attr("id", *id), inlines(text));
            }
            Kind::Para { id, class, text } => {
                let _ = write!(
                    out,
                    "<p{}{}>{}</p>",
                    attr("class", *class),
                    attr("id", *id),
                    inlines(text)
                );
            }
            Kind::Rows { rows, .. } => {
                out.push_str("<dl>");
                for r in rows {
                    row(r, out);
                }
                out.push_str("</dl>");
            }
            Kind::Table { id, head, rows, .. } => {
                let _ = write!(out, "<table{}><thead><tr>", attr("id", *id));
                for h in head {
                    let _ = write!(out, "<th{}>{}</th>", cell_class(h), inlines(&h.text));
                }
                out.push_str("</tr></thead><tbody>");
                for cells in rows {
                    out.push_str("<tr>");
                    for c in cells {
                        let _ = write!(out, "<td{}>{}</td>", cell_class(c), cell_inlines(c));
                    }
                    out.push_str("</tr>");
                }
                out.push_str("</tbody></table>");
            }
            Kind::List { id, class, items } => item_list(*id, *class, items, out),
            Kind::Section {
                id,
                class,
                title,
                body,
            } => {
                let tag = if id.is_some() { "section" } else { "div" };
                let _ = write!(out, "<{tag}{}{}>", attr("class", *class), attr("id", *id));
                if let Some(title) = title {
                    let _ = write!(out, "<h2>{}</h2>", esc(title));
                }
                blocks(body, view, out);
                let _ = write!(out, "</{tag}>");
            }
            Kind::Details { id, summary, body } => {
                let _ = write!(
                    out,
                    "<details{}><summary>{}</summary>",
                    attr("id", *id),
                    esc(summary)
                );
                blocks(body, view, out);
                out.push_str("</details>");
            }
            Kind::Pager {
                prev,
                position,
                next,
                also,
                label,
            } => {
                let _ = write!(out, "<nav class=\"pager\"{}>", attr("aria-label", *label));
                if let Some(l) = prev {
                    link(l, out);
                }
                let _ = write!(out, "<span class=\"muted\">{}</span>", esc(position));
                if let Some(l) = next {
                    link(l, out);
                }
                for l in also {
                    link(l, out);
                }
                out.push_str("</nav>");
            }
            Kind::Filter { label, count } => {
                let _ = write!(
                    out,
                    "<p id=\"filter\" hidden><input type=\"search\" aria-label=\"{f}\" placeholder=\"{f}\" autocomplete=\"off\" spellcheck=\"false\"> <span class=\"muted\"><span id=\"shown\">{n}</span> / {n}</span></p>",
                    f = esc(label),
                    n = esc(count),
                );
            }
            Kind::Form(value) => out.push_str(&lookup_form(value, view)),
            Kind::Raw(html) => out.push_str(html),
            Kind::Line(_) => {}
        }
    }
}

/// Items of a list written as one `<ul>`; a longer list is written as
/// several, [`LIST_CHUNK`] items each (class `chunk`), which the browser
/// lays out and paints only when scrolled near (`content-visibility: auto`
/// in the frame's style). An AS page's 500 prefixes then cost the first
/// layout one chunk, not 500 items (BENCHMARKS.md, "Seventeenth session").
const LIST_CHUNK: usize = 50;

fn item_list(id: Option<&str>, class: Option<&str>, items: &[Vec<Inline>], out: &mut String) {
    if items.len() <= LIST_CHUNK {
        let _ = write!(out, "<ul{}{}>", attr("class", class), attr("id", id));
        items_of(items, out);
        return;
    }
    let class = match class {
        Some(c) => format!("{c} chunk"),
        None => "chunk".to_owned(),
    };
    for (i, chunk) in items.chunks(LIST_CHUNK).enumerate() {
        let id = if i == 0 { id } else { None };
        let _ = write!(out, "<ul{}{}>", attr("class", Some(&class)), attr("id", id));
        items_of(chunk, out);
    }
}

/// `<li>` of each item, and the list's end.
fn items_of(items: &[Vec<Inline>], out: &mut String) {
    for item in items {
        let _ = write!(out, "<li>{}</li>", inlines(item));
    }
    out.push_str("</ul>");
}

/// ` name="value"`, or nothing.
fn attr(name: &str, value: Option<&str>) -> String {
    value
        .map(|v| format!(" {name}=\"{}\"", esc(v)))
        .unwrap_or_default()
}

fn cell_class(c: &super::doc::Cell) -> String {
    attr("class", if c.number { Some("n") } else { c.class })
}

/// One `<div><dt><dd>` row: label, value (in its language) and the commands
/// that print it, each with its copy button (shown by the pages' script). A
/// command too long for its column is cut at its start, after `curl`
/// (`curl …/8.8.8.8/asn`: the URL is right-aligned in its box, kept
/// left-to-right by `<bdo>`), so the field it prints stays in sight; the
/// whole command is what is copied.
fn row(r: &Row, out: &mut String) {
    let _ = write!(
        out,
        "<div><dt>{}</dt><dd{}{}>{}</dd>",
        esc(&r.label),
        attr("id", r.id.as_deref()),
        attr("lang", r.lang),
        inlines(&r.value)
    );
    if let Some([title, done, copy]) = r.command_words {
        for (field, url) in &r.commands {
            let id = format!("cmd-{field}");
            // The host apart: a phone shows `…` for it, never a cut host.
            let at = url.find("://").map_or(0, |i| i + 3);
            let (host, path) = url.split_at(url[at..].find('/').map_or(url.len(), |i| at + i));
            let _ = write!(
                out,
                "<dd class=\"cmd\"><code class=\"cmd\" id=\"{id}\" title=\"{title}\">curl <span class=\"u\"><bdo dir=\"ltr\"><span class=\"h\">{}</span>{}</bdo></span></code><button type=\"button\" class=\"copy\" data-for=\"{id}\" data-done=\"{done}\" hidden>{copy}</button></dd>",
                esc(host),
                esc(path),
            );
        }
    }
    out.push_str("</div>");
}

fn link(l: &Link, out: &mut String) {
    let _ = write!(
        out,
        "<a{}{}{} href=\"{}\"{}{}>{}</a>",
        attr("id", l.id),
        attr("class", l.class),
        attr("rel", l.rel),
        esc(&l.href),
        attr("hreflang", l.hreflang),
        if l.download { " download" } else { "" },
        esc(&l.text)
    );
}

/// A table cell's content. A number cell (`td.n`) does not wrap already,
/// so its numbers are written bare: one element less per number, which on
/// a page of 500 rows is 2,000 elements the browser does not style.
fn cell_inlines(c: &super::doc::Cell) -> String {
    if !c.number {
        return inlines(&c.text);
    }
    let mut out = String::new();
    for i in &c.text {
        match i {
            Inline::Num(s) => out.push_str(&esc(s)),
            other => out.push_str(&inlines(std::slice::from_ref(other))),
        }
    }
    out
}

fn inlines(list: &[Inline]) -> String {
    let mut out = String::new();
    for i in list {
        match i {
            Inline::Text(s) => out.push_str(&esc(s)),
            Inline::Num(s) => {
                let _ = write!(out, "<span class=\"num\">{}</span>", esc(s));
            }
            Inline::Code(s) => {
                let _ = write!(out, "<code>{}</code>", esc(s));
            }
            Inline::Strong(s) => {
                let _ = write!(out, "<strong>{}</strong>", esc(s));
            }
            Inline::Link(l) => link(l, &mut out),
            Inline::Span { id, text } => {
                let _ = write!(out, "<span{}>{}</span>", attr("id", *id), inlines(text));
            }
            Inline::Html(h) => out.push_str(h),
            Inline::Plain(_) => {}
        }
    }
    out
}
