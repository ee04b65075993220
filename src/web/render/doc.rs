//! The view model: a page as a small document tree (pandoc's one tree, many
//! writers). A resource builds one [`Doc`] from its data and the request's
//! [`super::View`]; one writer per format renders any of them: aligned text
//! ([`super::text`]), Markdown ([`super::markdown`]) and HTML
//! ([`super::html`], inside the frame every page shares). So a new resource
//! adds a builder of its view, and no arm to any writer.
//!
//! A block is shown in every format unless it says otherwise ([`Only`]):
//! what a format needs that the others do not (the HTML page's map, the
//! text page's raw field names) is a block of that format alone, as pandoc
//! has raw blocks. JSON is not a view: it is the serde model.

use super::view::View;

/// One page, before it is written in a format.
#[derive(Debug, Clone, Default)]
pub(crate) struct Doc {
    /// The HTML `<title>` (before ` · iplookup`).
    pub title: String,
    /// The page's own path and query (the HTML frame's language link and
    /// Markdown alternate).
    pub canonical: String,
    /// The data releases the page came from (the HTML footer).
    pub releases: Option<Releases>,
    /// The HTML page loads the pages' script (copy buttons, filters).
    pub script: bool,
    pub blocks: Vec<Block>,
}

/// The formats a block is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Only(u8);

impl Only {
    pub(crate) const TEXT: Only = Only(1);
    pub(crate) const MARKDOWN: Only = Only(2);
    pub(crate) const HTML: Only = Only(4);
    pub(crate) const ALL: Only = Only(7);

    /// Whether a block of these formats is written in `format`'s.
    pub(crate) fn has(self, format: Only) -> bool {
        self.0 & format.0 != 0
    }

    /// Both sets of formats.
    pub(crate) const fn or(self, other: Only) -> Only {
        Only(self.0 | other.0)
    }
}

/// A block and the formats it is written in.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub only: Only,
    pub kind: Kind,
}

/// What a block is.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// A line of small print above the heading (HTML only by nature).
    Kicker(String),
    /// The page's heading: `# ...` in Markdown, `<h1>` in HTML (`words`:
    /// in the text face, not the monospace of an address), not in text.
    Heading {
        id: Option<&'static str>,
        words: bool,
        text: Vec<Inline>,
    },
    /// A paragraph.
    Para {
        id: Option<&'static str>,
        class: Option<&'static str>,
        text: Vec<Inline>,
    },
    /// Labelled rows: `label: value` lines in text, a two-column table in
    /// Markdown (`head`: its column names, none for `| | |`), a `<dl>` in HTML.
    Rows {
        head: Option<[&'static str; 2]>,
        rows: Vec<Row>,
    },
    /// A table: in text one `key:` line per row (cells joined by spaces).
    Table {
        id: Option<&'static str>,
        /// The text form's key of each row.
        key: String,
        head: Vec<Cell>,
        rows: Vec<Vec<Cell>>,
    },
    /// A list (`- item` in Markdown).
    List {
        id: Option<&'static str>,
        class: Option<&'static str>,
        items: Vec<Vec<Inline>>,
    },
    /// A group of blocks under a title: `## title` in Markdown, a
    /// `<section>` (or `<div>` without title and id) in HTML.
    Section {
        id: Option<&'static str>,
        class: Option<&'static str>,
        title: Option<String>,
        body: Vec<Block>,
    },
    /// Blocks shown on request: in HTML a `<details>` (no script needed)
    /// whose `<summary>` is `summary`; the other formats write the body.
    Details {
        id: Option<&'static str>,
        summary: String,
        body: Vec<Block>,
    },
    /// Where a page of a long list is, and the links to the others: in
    /// HTML a `<nav>` (the previous page, the position, the next page,
    /// then `also`), `label`: its `aria-label`.
    Pager {
        prev: Option<Box<Link>>,
        position: String,
        next: Option<Box<Link>>,
        also: Vec<Link>,
        label: Option<&'static str>,
    },
    /// The HTML box that filters the list after it in place (shown by the
    /// pages' script): its label and the count of items.
    Filter { label: String, count: String },
    /// The search form, holding this value.
    Form(String),
    /// A line written as it is (the root's bare address in text).
    Line(String),
    /// Markup written as it is (HTML: the map, the script of the root page).
    Raw(String),
}

/// One labelled row.
#[derive(Debug, Clone, Default)]
pub(crate) struct Row {
    pub label: String,
    pub value: Vec<Inline>,
    /// The HTML element id of the value.
    pub id: Option<String>,
    /// The value is in another language than the page's (its tag).
    pub lang: Option<&'static str>,
    /// The commands that print it: (element id's field, the URL after `curl `).
    pub commands: Vec<(String, String)>,
    /// The words of the command's title and copy buttons.
    pub command_words: Option<[&'static str; 3]>,
}

/// A table cell: its content and whether it is a number (right-aligned).
#[derive(Debug, Clone, Default)]
pub(crate) struct Cell {
    pub text: Vec<Inline>,
    pub number: bool,
    /// HTML: the cell's class (`bar-cell`).
    pub class: Option<&'static str>,
}

/// Inline content.
#[derive(Debug, Clone)]
pub(crate) enum Inline {
    /// Words or a value, escaped as each format needs.
    Text(String),
    /// A number that does not break (HTML `<span class="num">`).
    Num(String),
    /// Code: a command, an identifier.
    Code(String),
    /// Strong words.
    Strong(String),
    Link(Link),
    /// Inline content kept together (HTML `<span>`, with its id).
    Span {
        id: Option<&'static str>,
        text: Vec<Inline>,
    },
    /// HTML alone (a flag image, a share bar); nothing elsewhere.
    Html(String),
    /// Text and Markdown alone; nothing in HTML.
    Plain(String),
}

/// A link.
#[derive(Debug, Clone, Default)]
pub(crate) struct Link {
    pub text: String,
    pub href: String,
    pub id: Option<&'static str>,
    pub class: Option<&'static str>,
    pub rel: Option<&'static str>,
    /// The language of the page it links to, when not the page's.
    pub hreflang: Option<&'static str>,
    pub download: bool,
    /// The text is code (a prefix).
    pub code: bool,
}

impl Block {
    /// A block written in every format.
    pub(crate) fn all(kind: Kind) -> Block {
        Block {
            only: Only::ALL,
            kind,
        }
    }

    /// A block written in `only`'s formats.
    pub(crate) fn only(only: Only, kind: Kind) -> Block {
        Block { only, kind }
    }
}

/// Where a long table is cut ([`Kind::split_table`]): the first `top`
/// rows stay in view, the others go behind a `<details>` of this `id`, in a
/// table of `rest_id`.
pub(crate) struct Cut {
    pub top: usize,
    pub id: &'static str,
    pub rest_id: &'static str,
}

impl Kind {
    /// A table of more than `cut.top` rows as its first rows and a
    /// [`Kind::Details`] holding the others (no script needed; the browser
    /// lays out none of them until it is opened), else the table alone.
    /// `summary`: the details' summary, from the number of rows they hold.
    pub(crate) fn split_table(
        self,
        cut: &Cut,
        summary: impl FnOnce(usize) -> String,
    ) -> (Kind, Option<Kind>) {
        match self {
            Kind::Table {
                id,
                key,
                head,
                mut rows,
            } if rows.len() > cut.top => {
                let rest = rows.split_off(cut.top);
                let details = Kind::Details {
                    id: Some(cut.id),
                    summary: summary(rest.len()),
                    body: vec![Block::all(Kind::Table {
                        id: Some(cut.rest_id),
                        key: key.clone(),
                        head: head.clone(),
                        rows: rest,
                    })],
                };
                let top = Kind::Table {
                    id,
                    key,
                    head,
                    rows,
                };
                (top, Some(details))
            }
            table => (table, None),
        }
    }
}

impl Inline {
    pub(crate) fn text(s: impl Into<String>) -> Inline {
        Inline::Text(s.into())
    }
}

impl Link {
    pub(crate) fn new(text: impl Into<String>, href: impl Into<String>) -> Link {
        Link {
            text: text.into(),
            href: href.into(),
            ..Link::default()
        }
    }
}

impl From<Link> for Inline {
    fn from(l: Link) -> Inline {
        Inline::Link(l)
    }
}

/// `text` with its `` `code` `` spans as [`Inline::Code`] (an error
/// message's commands), the rest as [`Inline::Text`].
pub(crate) fn with_code(text: &str) -> Vec<Inline> {
    let parts: Vec<&str> = text.split('`').collect();
    // An odd number of parts: the backticks pair up.
    if parts.len() % 2 == 0 {
        return vec![Inline::text(text)];
    }
    parts
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.is_empty())
        .map(|(i, p)| {
            if i % 2 == 1 {
                Inline::Code((*p).to_owned())
            } else {
                Inline::text(*p)
            }
        })
        .collect()
}

/// A resource's answer: its JSON (the serde model) and its view for the
/// text, Markdown and HTML writers.
pub(crate) trait Resource: std::fmt::Debug + Send + Sync {
    /// Writes the answer's JSON to `out`.
    fn json(&self, out: &mut Vec<u8>) -> serde_json::Result<()>;
    /// The answer as a view in `view`'s language.
    fn view(&self, view: &View) -> Doc;
}

/// The release dates of the data an answer came from (`YYYY-MM-DD`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Releases {
    pub country: String,
    pub asn: String,
}

impl Releases {
    /// The releases of `db`.
    pub(crate) fn of(db: &crate::geo::GeoDb) -> Releases {
        let release = db.release();
        Releases {
            country: release.country.date.clone(),
            asn: release.asn.date.clone(),
        }
    }
}
