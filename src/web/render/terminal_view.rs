//! The home page's commands for a terminal: `curl HOST` (the bare
//! address) and the few others people use most, with the host the caller
//! used (or `--public-url`, [`View::host`]).

use super::doc::{Block, Inline, Kind, Only};
use super::i18n::Msg;
use super::view::View;

/// The commands, after `curl HOST`, and what each prints.
const COMMANDS: [(&str, Msg); 5] = [
    ("", Msg::CmdAddress),
    ("/json", Msg::CmdJson),
    ("/country-iso", Msg::CmdCountryCode),
    ("/asn", Msg::CmdAsn),
    ("/8.8.8.8", Msg::CmdAnyAddress),
];

/// The section "From a terminal": one command a line, what it prints beside it.
pub(crate) fn terminal(view: &View) -> Block {
    let host = view.host();
    let items = COMMANDS
        .iter()
        .map(|(path, words)| {
            vec![
                Inline::Code(format!("curl {host}{path}")),
                Inline::text(" "),
                Inline::text(words.text(view.lang)),
            ]
        })
        .collect();
    Block::only(
        Only::HTML,
        Kind::Section {
            id: Some("terminal"),
            class: Some("group"),
            title: Some(Msg::FromATerminal.text(view.lang).to_owned()),
            body: vec![Block::all(Kind::List {
                id: None,
                class: Some("commands"),
                items,
            })],
        },
    )
}
