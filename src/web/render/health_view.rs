//! The view of `/healthz`: the status, then per loaded table its release
//! date, rows and source, then the refused files (their reasons are the
//! loader's own English words).

use super::doc::{Block, Doc, Inline, Kind, Only, Row};
use super::error_view::text_row;
use super::i18n::{Lang, Msg};
use super::page::Health;
use super::view::View;

impl super::doc::Resource for Health {
    fn json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer_pretty(out, self)
    }

    fn view(&self, view: &View) -> Doc {
        health(self, view)
    }
}

/// The view of `h` in `view`'s language.
fn health(h: &Health, view: &View) -> Doc {
    let lang = view.lang;
    let rows: Vec<Row> = rows(h, lang).iter().map(|(k, v)| text_row(k, v)).collect();
    let heading = format!(
        "{}: {}",
        Msg::Health.text(lang),
        Msg::status_word(h.status, lang)
    );
    let mut blocks = Vec::new();
    match lang {
        Lang::En => {
            // The English text and Markdown forms name the tables as the
            // JSON does.
            let mut text = vec![
                text_row("status", h.status),
                text_row("release", &h.release),
            ];
            let mut md = vec![text_row("release", &h.release)];
            for (name, t) in h.tables() {
                for (what, value) in [
                    ("release", t.release_date.clone()),
                    ("rows", t.rows.to_string()),
                    ("source", t.source.clone()),
                ] {
                    text.push(text_row(&format!("{name}_{what}"), &value));
                    md.push(text_row(&format!("{name} {what}"), &value));
                }
            }
            for r in &h.refused {
                let value = format!("{}: {}", r.file, r.reason);
                text.push(text_row(&format!("refused_{}", r.table), &value));
                md.push(text_row(&format!("refused {}", r.table), &value));
            }
            blocks.push(Block::only(
                Only::TEXT,
                Kind::Rows {
                    head: None,
                    rows: text,
                },
            ));
            blocks.push(Block::only(
                Only::MARKDOWN.or(Only::HTML),
                heading_block(&heading),
            ));
            blocks.push(Block::only(
                Only::MARKDOWN,
                Kind::Rows {
                    head: Some(["Field", "Value"]),
                    rows: md,
                },
            ));
        }
        Lang::Bn => {
            blocks.push(Block::only(
                Only::TEXT,
                Kind::Rows {
                    head: None,
                    rows: rows.clone(),
                },
            ));
            blocks.push(Block::only(
                Only::MARKDOWN,
                heading_block(Msg::Health.text(lang)),
            ));
            blocks.push(Block::only(Only::HTML, heading_block(&heading)));
            blocks.push(Block::only(
                Only::MARKDOWN,
                Kind::Rows {
                    head: None,
                    rows: rows.clone(),
                },
            ));
        }
    }
    blocks.push(Block::only(
        Only::HTML,
        Kind::Rows {
            head: None,
            rows: rows.into_iter().skip(1).collect(),
        },
    ));
    Doc {
        title: Msg::Health.text(lang).to_owned(),
        canonical: "/healthz".to_owned(),
        blocks,
        ..Doc::default()
    }
}

fn heading_block(text: &str) -> Kind {
    Kind::Heading {
        id: None,
        words: true,
        text: vec![Inline::text(text)],
    }
}

/// The health report as (label, value) rows in `lang`: the status, then
/// per loaded table its release date, rows and source, then the refused
/// files.
fn rows(h: &Health, lang: Lang) -> Vec<(String, String)> {
    let table = |name: &str| match name {
        "country" => Msg::Country.text(lang),
        "city" => Msg::City.text(lang),
        _ => "ASN",
    };
    let mut rows = vec![(
        Msg::Health.text(lang).to_owned(),
        Msg::status_word(h.status, lang).to_owned(),
    )];
    rows.push((Msg::HealthIdentity.text(lang).to_owned(), h.release.clone()));
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
