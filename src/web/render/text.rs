//! The text writer: any [`Doc`] as plain text that reads well in a terminal
//! and in `grep`: every labelled row of the view (and every row of its
//! tables, under the table's key) as aligned `label: value` lines, the
//! values in one column; a bare line ([`Kind::Line`]) as it is. Headings,
//! paragraphs and lists are the other formats'.

use std::fmt::Write;

use super::doc::{Block, Doc, Inline, Kind, Only};
use crate::fields::sanitize::one_line;

/// `doc` as text.
pub(crate) fn write(doc: &Doc) -> String {
    let mut lines = String::new();
    let mut rows = Vec::new();
    collect(&doc.blocks, &mut lines, &mut rows);
    let rows: Vec<(&str, String)> = rows.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    if !rows.is_empty() {
        lines.push_str(&aligned(&rows));
    }
    lines
}

fn collect(blocks: &[Block], lines: &mut String, rows: &mut Vec<(String, String)>) {
    for block in blocks.iter().filter(|b| b.only.has(Only::TEXT)) {
        match &block.kind {
            Kind::Rows { rows: r, .. } => {
                rows.extend(r.iter().map(|r| (r.label.clone(), plain(&r.value))));
            }
            Kind::Table { key, rows: r, .. } => rows.extend(r.iter().map(|cells| {
                let cells: Vec<String> = cells.iter().map(|c| plain(&c.text)).collect();
                (key.clone(), cells.join(" "))
            })),
            Kind::Section { body, .. } | Kind::Details { body, .. } => {
                collect(body, lines, rows);
            }
            Kind::Line(line) => {
                lines.push_str(line);
                lines.push('\n');
            }
            _ => {}
        }
    }
}

/// Inline content as plain text (links by their text, code in backticks).
pub(crate) fn plain(inlines: &[Inline]) -> String {
    let mut out = String::new();
    for i in inlines {
        match i {
            Inline::Text(s) | Inline::Num(s) | Inline::Strong(s) | Inline::Plain(s) => {
                out.push_str(s);
            }
            Inline::Code(s) => {
                let _ = write!(out, "`{s}`");
            }
            Inline::Link(l) => out.push_str(&l.text),
            Inline::Span { text, .. } => out.push_str(&plain(text)),
            Inline::Html(_) => {}
        }
    }
    out
}

/// `key: value` lines with the values in one column; a value stays on its
/// line (line breaks in it become spaces, controls are dropped).
pub(crate) fn aligned(rows: &[(&str, String)]) -> String {
    // Aligned by characters (a Bangla label is three bytes a letter).
    let width = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0)
        + 1;
    let mut out = String::new();
    for (key, value) in rows {
        let label = format!("{key}:");
        let pad = width.saturating_sub(label.chars().count());
        let value = one_line(value);
        let _ = writeln!(out, "{label}{:pad$} {value}", "");
    }
    out.lines()
        .map(str::trim_end)
        .fold(String::new(), |mut acc, l| {
            acc.push_str(l);
            acc.push('\n');
            acc
        })
}
