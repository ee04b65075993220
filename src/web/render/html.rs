//! HTML: small, fast pages that work without JavaScript and read well on a
//! phone, in the request's language ([`super::i18n`]). This module picks the
//! page and holds the plain ones (health, docs, errors); the frame every
//! page shares is [`super::html_frame`], the address pages
//! [`super::html_lookup`], the AS pages [`super::html_asn`].

use super::html_frame::{Frame, cell, document, esc, lookup_form};
use super::i18n::{Lang, Msg};
use super::page::Page;
use super::view::View;

pub(crate) fn page(page: &Page, view: &View) -> String {
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
        // Rendered by `super::docs::html` (see `Page::render`).
        Page::Docs(_) => String::new(),
        Page::Error(e) => {
            let status = e.status.as_u16();
            // English has a headline per code; Bangla one per kind of error.
            let headline = match lang {
                Lang::En => e.headline(),
                _ => super::i18n::error_headline(lang, e.body.error, status),
            };
            let message = e.body.message.as_deref().unwrap_or(e.body.error.as_str());
            // The detail is the service's own English sentence; a Bangla page
            // marks it as English.
            let detail_lang = if lang == Lang::En { "" } else { " lang=\"en\"" };
            let body = format!(
                "<p class=\"kicker\">{} {status}</p><h1 class=\"words\" id=\"error\">{}</h1><p class=\"lead\"{detail_lang}>{}</p>{}<p><a href=\"{}\">{}</a> · <a href=\"{}\">{}</a></p>",
                Msg::ErrorHeading.text(lang),
                esc(headline),
                esc(message),
                lookup_form(e.input.as_deref().unwrap_or(""), view),
                esc(&view.href("/")),
                Msg::Home.text(lang),
                esc(&view.href("/docs")),
                Msg::ApiDocs.text(lang),
            );
            document(&Frame::new(headline, "/"), &body, view)
        }
    }
}
