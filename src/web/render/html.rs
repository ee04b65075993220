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
                esc(status_word(h.status, lang))
            );
            for (label, value) in health_rows(h, lang).iter().skip(1) {
                body.push_str(&cell(label, value));
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
            let message = super::error_words::message(e, lang);
            let body = format!(
                "<p class=\"kicker\">{} {}</p><h1 class=\"words\" id=\"error\">{}</h1><p class=\"lead\" id=\"error-message\">{}</p>{}<p><a href=\"{}\">{}</a></p>",
                Msg::ErrorHeading.text(lang),
                lang.digits(&status.to_string()),
                esc(headline),
                esc(&message),
                lookup_form(e.input.as_deref().unwrap_or(""), view),
                esc(&view.href("/")),
                Msg::Home.text(lang),
            );
            document(&Frame::new(headline, "/"), &body, view)
        }
    }
}

/// The health report as (label, value) rows in `lang`: the status, then
/// per loaded table its release date, rows and source, then the refused
/// files (their reasons are the loader's own English words).
pub(super) fn health_rows(h: &super::page::Health, lang: Lang) -> Vec<(String, String)> {
    let table = |name: &str| match name {
        "country" => Msg::Country.text(lang),
        "city" => Msg::City.text(lang),
        _ => "ASN",
    };
    let mut rows = vec![(
        Msg::Health.text(lang).to_owned(),
        status_word(h.status, lang).to_owned(),
    )];
    for (name, t) in h.tables() {
        let name = table(name);
        rows.push((
            Msg::HealthRelease.fill(lang, &[name]),
            lang.date(&t.release_date),
        ));
        rows.push((
            Msg::HealthRows.fill(lang, &[name]),
            lang.count(u128::from(t.rows)),
        ));
        rows.push((Msg::HealthSource.fill(lang, &[name]), t.source.clone()));
    }
    for r in &h.refused {
        rows.push((
            Msg::HealthRefused.fill(lang, &[table(r.table)]),
            format!("{}: {}", r.file, r.reason),
        ));
    }
    rows
}

/// The health status (`ok`) in `lang`.
fn status_word(status: &str, lang: Lang) -> &str {
    match (lang, status) {
        (Lang::Bn, "ok") => "ঠিক আছে",
        _ => status,
    }
}
