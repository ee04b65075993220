//! `/docs` as plain text: the document's Markdown without its marks
//! ([`super::cmark::text`]), each operation as `METHOD base+path`, then its
//! examples, indented.

use std::fmt::Write;

use super::cmark::text as plain;
use crate::web::openapi::docs::{DocsPage, Operation};

/// `s` with every line indented by `by`.
fn indent(s: &str, by: &str) -> String {
    s.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{by}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn page(d: &DocsPage) -> String {
    let mut out = format!(
        "{} API {}\n\n{}\n\nBase URL: {}\n\nContents\n",
        d.title,
        d.version,
        plain(&d.description),
        d.base_url
    );
    for g in &d.groups {
        let _ = writeln!(out, "  {}", g.title);
        for op in &g.operations {
            let _ = writeln!(out, "    {} {}", op.method, op.path);
        }
    }
    out.push_str("  Fields, Error codes, Limits\n");
    for g in &d.groups {
        let title = g.title.to_uppercase();
        let _ = write!(out, "\n\n{title}\n\n{}\n", plain(&g.description));
        for op in &g.operations {
            operation(&mut out, d, op);
        }
    }
    out.push_str("\n\nFIELDS\n");
    for s in &d.schemas {
        let _ = write!(out, "\n{}: {}\n", s.name, plain(&s.description));
        for f in &s.fields {
            let req = if f.required { ", required" } else { "" };
            let _ = writeln!(
                out,
                "  {} ({}{req}): {} Example: {}",
                f.name,
                f.kind,
                plain(&f.description),
                f.example
            );
        }
    }
    out.push_str("\n\nERROR CODES\n\n");
    for e in &d.errors {
        let _ = writeln!(out, "  {} ({}): {}", e.code, e.status, plain(&e.when));
    }
    out.push_str("\n\nLIMITS\n\n");
    for r in &d.limits {
        let _ = writeln!(
            out,
            "  {}: {} [{}]",
            r.status,
            plain(&r.description),
            r.media_types.join(", ")
        );
    }
    let _ = writeln!(out, "\nData: {}", d.attribution);
    out
}

fn operation(out: &mut String, d: &DocsPage, op: &Operation) {
    let _ = write!(
        out,
        "\n{} {}{}\n{}\n",
        op.method,
        d.base_url,
        op.path,
        indent(&plain(&op.summary), "  ")
    );
    if !op.description.is_empty() {
        let _ = writeln!(out, "\n{}", indent(&plain(&op.description), "  "));
    }
    for p in &op.parameters {
        let req = if p.required { "required" } else { "optional" };
        let _ = writeln!(
            out,
            "  param {} ({}, {req}, {}): {}",
            p.name,
            p.location,
            p.schema,
            plain(&p.description)
        );
    }
    for e in &op.examples {
        let _ = writeln!(out, "\n  Example: {}\n    $ {}", e.title, e.request);
        if let Some(answer) = &e.answer {
            let _ = writeln!(out, "{}", indent(answer.trim_end(), "    "));
        }
    }
    out.push('\n');
    for r in &op.responses {
        let _ = writeln!(
            out,
            "  {} {} [{}]",
            r.status,
            plain(&r.description),
            r.media_types.join(", ")
        );
    }
    if !op.limits.is_empty() {
        let _ = writeln!(out, "  {}: see LIMITS", op.limits.join(", "));
    }
}
