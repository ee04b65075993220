//! Markdown: a heading, a table of the fields, links to the other forms and
//! the docs, and the DB-IP attribution line.

use std::fmt::Write;

use super::{ATTRIBUTION_TEXT, ATTRIBUTION_URL, LookupKind, Page, info_rows, links};

pub fn page(page: &Page) -> String {
    match page {
        Page::Lookup(p) => {
            let (page_path, api_path) = links(&p.info);
            let title = match p.kind {
                LookupKind::Root | LookupKind::ApiMe => format!("Your IP address: {}", p.info.ip),
                _ => format!("IP address {}", p.info.ip),
            };
            let mut out = format!("# {title}\n\n");
            table(&mut out, &info_rows(&p.info));
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
        Page::Docs(d) => {
            let mut out = format!(
                "# {} API {}\n\n{}\n\nBase URL: `{}`\n",
                d.title, d.version, d.description, d.base_url
            );
            for op in &d.operations {
                let _ = writeln!(
                    out,
                    "\n## `{} {}`\n\n{}\n",
                    op.method,
                    op.path,
                    escape(&op.summary)
                );
                if !op.description.is_empty() {
                    let _ = writeln!(out, "{}\n", op.description);
                }
                if !op.parameters.is_empty() {
                    out.push_str(
                        "| Parameter | In | Required | Description |\n|---|---|---|---|\n",
                    );
                    for p in &op.parameters {
                        let _ = writeln!(
                            out,
                            "| `{}` | {} | {} | {} |",
                            p.name,
                            p.location,
                            if p.required { "yes" } else { "no" },
                            escape(&p.description)
                        );
                    }
                    out.push('\n');
                }
                out.push_str("| Status | Meaning | Media types |\n|---|---|---|\n");
                for r in &op.responses {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} |",
                        r.status,
                        escape(&r.description),
                        r.media_types.join(", ")
                    );
                }
            }
            out.push('\n');
            attribution(&mut out);
            out
        }
        Page::Error(e) => {
            let mut out = format!("# Error: {}\n\n", e.body.error);
            if let Some(m) = &e.body.message {
                let _ = writeln!(out, "{}\n", escape(m));
            }
            let _ = writeln!(out, "See the [API docs](/docs).");
            out
        }
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

/// Escapes characters that would break a table cell or start markup.
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '|' | '\\' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
