//! `/docs` as Markdown: the document's texts are Markdown already and go
//! in as they are (code spans stay code spans); values of the data in the
//! examples go in fenced code blocks.

use std::fmt::Write;

use crate::web::openapi::docs::{DocsPage, Example, Operation, schema_anchor};
use crate::web::render::markdown::attribution;

/// Text for one table cell: on one line, `|` escaped.
fn cell(md: &str) -> String {
    md.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// A fence longer than any run of backticks in `s`.
fn fence(s: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat(longest.max(2) + 1)
}

pub(crate) fn page(d: &DocsPage) -> String {
    let mut out = format!(
        "# {} API {}\n\n{}\n\nBase URL: `{}` · [OpenAPI 3.1](/api/v1/openapi.json) · [HTML](/docs) · [llms.txt](/llms.txt)\n\n## Contents\n\n",
        d.title, d.version, d.description, d.base_url
    );
    for g in &d.groups {
        let _ = writeln!(out, "- [{}](#{})", g.title, g.tag);
        for op in &g.operations {
            let _ = writeln!(
                out,
                "  - [`{} {}`](#{}): {}",
                op.method,
                op.path,
                op.id,
                cell(&op.summary)
            );
        }
    }
    out.push_str("- [Fields](#fields)\n- [Error codes](#errors)\n- [Limits](#limits)\n");
    for g in &d.groups {
        let _ = write!(
            out,
            "\n<a id=\"{}\"></a>\n\n## {}\n\n{}\n",
            g.tag, g.title, g.description
        );
        for op in &g.operations {
            operation(&mut out, op);
        }
    }
    out.push_str("\n<a id=\"fields\"></a>\n\n## Fields\n\nEvery member of every object the API answers with, once.\n");
    for s in &d.schemas {
        let _ = write!(
            out,
            "\n<a id=\"{}\"></a>\n\n### {}\n\n{}\n\n| Field | Type | Description | Example |\n|---|---|---|---|\n",
            schema_anchor(&s.name),
            s.name,
            s.description
        );
        for f in &s.fields {
            let _ = writeln!(
                out,
                "| `{}`{} | {} | {} | `{}` |",
                f.name,
                if f.required { " (required)" } else { "" },
                cell(&f.kind),
                cell(&f.description),
                cell(&f.example).replace('`', "'")
            );
        }
    }
    out.push_str(
        "\n<a id=\"errors\"></a>\n\n## Error codes\n\n| Code | Status | When |\n|---|---|---|\n",
    );
    for e in &d.errors {
        let _ = writeln!(out, "| `{}` | {} | {} |", e.code, e.status, cell(&e.when));
    }
    out.push_str("\n<a id=\"limits\"></a>\n\n## Limits\n\n| Status | Description | Media types |\n|---|---|---|\n");
    for r in &d.limits {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            r.status,
            cell(&r.description),
            r.media_types.join(", ")
        );
    }
    out.push('\n');
    attribution(&mut out);
    out
}

fn operation(out: &mut String, op: &Operation) {
    let _ = write!(
        out,
        "\n<a id=\"{}\"></a>\n\n### `{} {}`\n\n{}\n\n",
        op.id, op.method, op.path, op.summary
    );
    if !op.description.is_empty() {
        let _ = write!(out, "{}\n\n", op.description);
    }
    if !op.parameters.is_empty() {
        out.push_str("| Parameter | In | Type | Description |\n|---|---|---|---|\n");
        for p in &op.parameters {
            let _ = writeln!(
                out,
                "| `{}`{} | {} | {} | {} |",
                p.name,
                if p.required { " (required)" } else { "" },
                p.location,
                cell(&p.schema),
                cell(&p.description)
            );
        }
        out.push('\n');
    }
    if !op.body.is_empty() {
        out.push_str(
            "Request body:\n\n| Media type | Type | Description | Example |\n|---|---|---|---|\n",
        );
        for b in &op.body {
            let _ = writeln!(
                out,
                "| `{}`{} | {} | {} | `{}` |",
                b.media_type,
                if b.required { " (required)" } else { "" },
                cell(&b.schema),
                cell(&b.description),
                b.example
            );
        }
        out.push('\n');
    }
    for e in &op.examples {
        example(out, e);
    }
    for c in &op.clients {
        let _ = write!(
            out,
            "{} ({}):\n\n```{}\n{}\n```\n\n",
            c.name, c.generator, c.language, c.code
        );
    }
    out.push_str("| Status | Description | Media types |\n|---|---|---|\n");
    for r in &op.responses {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            r.status,
            cell(&r.description),
            r.media_types.join(", ")
        );
    }
    if !op.limits.is_empty() {
        let _ = writeln!(
            out,
            "| {} | The limits' answers: see [Limits](#limits) | |",
            op.limits.join(", ")
        );
    }
}

fn example(out: &mut String, e: &Example) {
    let f = fence(&e.request);
    let _ = write!(out, "Example: {}\n\n{f}sh\n{}\n{f}\n\n", e.title, e.request);
    if let Some(answer) = &e.answer {
        let lang = match e.media_type.as_str() {
            "application/json" => "json",
            "text/markdown" => "markdown",
            _ => "text",
        };
        let f = fence(answer);
        let _ = write!(out, "{f}{lang}\n{}\n{f}\n\n", answer.trim_end());
    }
}
