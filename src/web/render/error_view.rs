//! The view of an error page: what happened in words (the headline), the
//! message in the reader's language ([`super::error_words`]), the status and
//! the code, the search form holding what was typed, and the way home.

use super::doc::{Block, Doc, Inline, Kind, Link, Only, Row, with_code};
use super::i18n::{Lang, Msg};
use super::page::ErrorPage;
use super::view::View;

/// The view of `e` in `view`'s language.
pub(crate) fn view(e: &ErrorPage, view: &View) -> Doc {
    let lang = view.lang;
    let status = lang.digits(&e.status.as_u16().to_string());
    let code = e.body.error.to_string();
    let headline = super::error_words::headline(e.body.error, lang);
    let message = super::error_words::message(e, lang);
    let text_rows = match lang {
        Lang::En => vec![
            text_row("error", &code),
            text_row("message", e.body.message.as_deref().unwrap_or_default()),
        ],
        Lang::Bn => vec![
            text_row(Msg::ErrorHeading.text(lang), headline),
            text_row(Msg::Status.text(lang), &status),
            text_row(Msg::ErrorCodeLabel.text(lang), &code),
            text_row(Msg::Message.text(lang), &message),
        ],
    };
    // The English page links home without the language; the others keep it.
    let home = match lang {
        Lang::En => "/".to_owned(),
        _ => view.href("/"),
    };
    let mut status_line = with_code(&Msg::StatusLine.fill(lang, &[&status, &code]));
    status_line.extend([
        Inline::text(" "),
        Link::new(Msg::Home.text(lang), home).into(),
        Inline::text(" · "),
        Link::new(Msg::ApiDocsShort.text(lang), "/docs").into(),
    ]);
    let mut blocks = vec![
        Block::only(
            Only::TEXT,
            Kind::Rows {
                head: None,
                rows: text_rows,
            },
        ),
        Block::only(
            Only::HTML,
            Kind::Kicker(format!("{} {status}", Msg::ErrorHeading.text(lang))),
        ),
        Block::only(
            Only::MARKDOWN,
            Kind::Heading {
                id: None,
                words: true,
                text: vec![Inline::Plain(format!(
                    "{}: {headline}",
                    Msg::ErrorHeading.text(lang)
                ))],
            },
        ),
        Block::only(
            Only::HTML,
            Kind::Heading {
                id: Some("error"),
                words: true,
                text: vec![Inline::text(headline)],
            },
        ),
    ];
    // An English error without a message says only its headline and code.
    if lang != Lang::En || e.body.message.is_some() {
        blocks.push(Block::only(
            Only::MARKDOWN,
            Kind::Para {
                id: None,
                class: None,
                text: linked(with_code(&message), view),
            },
        ));
    }
    blocks.extend([
        Block::only(
            Only::HTML,
            Kind::Para {
                id: Some("error-message"),
                class: Some("lead"),
                text: linked(with_code(&message), view),
            },
        ),
        Block::only(Only::HTML, Kind::Form(e.input.clone().unwrap_or_default())),
        Block::only(
            Only::MARKDOWN,
            Kind::Para {
                id: None,
                class: None,
                text: status_line,
            },
        ),
        Block::only(
            Only::HTML,
            Kind::Para {
                id: None,
                class: None,
                // The API docs are linked once, in the bar (issue 32).
                text: vec![Link::new(Msg::Home.text(lang), view.href("/")).into()],
            },
        ),
    ]);
    Doc {
        title: headline.to_owned(),
        canonical: "/".to_owned(),
        blocks,
        ..Doc::default()
    }
}

/// `text` with the page of a list it names in code (`?page=20`, the last
/// page of an AS's prefixes) as a link to that page.
fn linked(text: Vec<Inline>, view: &View) -> Vec<Inline> {
    text.into_iter()
        .map(|inline| match inline {
            Inline::Code(s) if s.starts_with("?page=") => {
                Link::new(s.clone(), view.href(&s)).into()
            }
            other => other,
        })
        .collect()
}

/// A row of the text form: a label and a plain value.
pub(crate) fn text_row(label: &str, value: &str) -> Row {
    Row {
        label: label.to_owned(),
        value: vec![Inline::text(value)],
        ..Row::default()
    }
}
