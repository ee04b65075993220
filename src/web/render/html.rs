//! HTML: small, fast pages that work without JavaScript and read well on a
//! phone, in the request's language ([`super::i18n`]). This module picks the
//! page and holds the plain ones (health, docs, errors); the frame every
//! page shares is [`super::html_frame`], the address pages
//! [`super::html_lookup`], the AS pages [`super::html_asn`].

use std::fmt::Write;

use super::html_frame::{Frame, cell, document, esc, lookup_form};
use super::i18n::{Lang, Msg};
use super::page::Page;
use super::view::View;

pub fn page(page: &Page, view: &View) -> String {
    let lang = view.lang;
    match page {
        Page::Lookup(p) => super::html_lookup::lookup(p, view),
        Page::Asn(p) => super::html_asn::asn(p, view),
        Page::Health(h) => {
            let mut body = format!(
                "<h1 class=\"words\">{}: {}</h1><dl>",
                Msg::Health.text(lang),
                esc(h.status)
            );
            for (name, t) in h.tables() {
                body.push_str(&cell(
                    &format!("{name} release"),
                    &lang.date(&t.release_date),
                ));
                body.push_str(&cell(
                    &format!("{name} rows"),
                    &lang.count(u128::from(t.rows)),
                ));
                body.push_str(&cell(&format!("{name} source"), &t.source));
            }
            for r in &h.refused {
                let what = format!("{}: {}", r.file, r.reason);
                body.push_str(&cell(&format!("refused {}", r.table), &what));
            }
            body.push_str("</dl>");
            document(&Frame::new(Msg::Health.text(lang), "/healthz"), &body, view)
        }
        Page::Docs(d) => {
            let mut body = format!(
                "<h1 class=\"words\">{} API <small class=\"muted\">{}</small></h1><p>{}</p><p>Base URL: <code>{}</code> · <a href=\"/api/v1/openapi.json\">OpenAPI 3.1</a> · <a href=\"/docs?format=md\">Markdown</a> · <a href=\"/llms.txt\">llms.txt</a></p>",
                esc(&d.title),
                esc(&d.version),
                esc(&d.description),
                esc(&d.base_url)
            );
            for op in &d.operations {
                let _ = write!(
                    body,
                    "<section><h2><code>{} {}</code></h2><p>{}</p>",
                    esc(&op.method),
                    esc(&op.path),
                    esc(&op.summary)
                );
                if !op.description.is_empty() {
                    let _ = write!(body, "<p class=\"muted\">{}</p>", esc(&op.description));
                }
                body.push_str("<ul>");
                for p in &op.parameters {
                    let _ = write!(
                        body,
                        "<li><code>{}</code> ({}, {}): {}</li>",
                        esc(&p.name),
                        esc(&p.location),
                        if p.required { "required" } else { "optional" },
                        esc(&p.description)
                    );
                }
                for r in &op.responses {
                    let _ = write!(
                        body,
                        "<li><strong>{}</strong> {} <span class=\"muted\">{}</span></li>",
                        esc(&r.status),
                        esc(&r.description),
                        esc(&r.media_types.join(", "))
                    );
                }
                body.push_str("</ul></section>");
            }
            document(&Frame::new(Msg::ApiDocs.text(lang), "/docs"), &body, view)
        }
        Page::Error(e) => {
            let status = e.status.as_u16();
            let headline = super::i18n::error_headline(lang, e.body.error, status);
            let message = e.body.message.as_deref().unwrap_or(e.body.error.as_str());
            // The detail is the service's own English sentence; a Bangla page
            // marks it as English.
            let detail_lang = if lang == Lang::En { "" } else { " lang=\"en\"" };
            let body = format!(
                "<p class=\"kicker\">{} {status}</p><h1 class=\"words\" id=\"error\">{}</h1><p class=\"lead\"{detail_lang}>{}</p>{}<p><a href=\"{}\">{}</a> · <a href=\"{}\">{}</a></p>",
                Msg::ErrorHeading.text(lang),
                esc(headline),
                esc(message),
                lookup_form("", view),
                esc(&view.href("/")),
                Msg::Home.text(lang),
                esc(&view.href("/docs")),
                Msg::ApiDocs.text(lang),
            );
            document(&Frame::new(headline, "/"), &body, view)
        }
    }
}
