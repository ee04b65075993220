//! The docs page (`/docs`) before rendering: the OpenAPI document flattened
//! into groups of operations (in the order of the document's `tags`), each
//! with its parameters, responses, examples and try-it form, then one table
//! per schema and one of the error codes ([`super::super::openapi`] builds
//! it; this module renders it as HTML, Markdown and plain text, the texts of
//! the document, written in Markdown, through [`cmark`]).

pub(crate) mod cmark;
pub(crate) mod html;
pub(crate) mod markdown;
pub(crate) mod text;

use serde::Serialize;

/// The human API documentation: the OpenAPI document, flattened.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DocsPage {
    pub title: String,
    pub version: String,
    /// Markdown.
    pub description: String,
    pub base_url: String,
    /// The operations by tag, lookups first.
    pub groups: Vec<Group>,
    /// One table per object schema of the document.
    pub schemas: Vec<SchemaDoc>,
    /// Every error code, its status and when it comes.
    pub errors: Vec<ErrorDoc>,
    /// The answers of the limits every route sits behind (414, 429, 503,
    /// and 408 for a body), described once; operations name their statuses.
    pub limits: Vec<ResponseDoc>,
    pub attribution: String,
}

impl DocsPage {
    /// Every operation, in the page's order.
    pub(crate) fn operations(&self) -> impl Iterator<Item = &Operation> {
        self.groups.iter().flat_map(|g| g.operations.iter())
    }
}

/// The operations of one tag.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Group {
    /// The tag's name (the anchor of its heading).
    pub tag: String,
    /// Its heading.
    pub title: String,
    /// Markdown.
    pub description: String,
    pub operations: Vec<Operation>,
}

/// One operation of the API, for the docs page and llms.txt.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Operation {
    /// The operationId: the anchor of the operation on the page.
    pub id: String,
    pub method: String,
    pub path: String,
    pub summary: String,
    /// Markdown.
    pub description: String,
    pub parameters: Vec<Parameter>,
    /// The request body, one row per media type (none for a `GET`).
    pub body: Vec<BodyDoc>,
    /// The operation's own responses (not the limits').
    pub responses: Vec<ResponseDoc>,
    /// The statuses of the limit answers it can give (see [`DocsPage::limits`]).
    pub limits: Vec<String>,
    pub examples: Vec<Example>,
    /// The same call through the generated clients (Python, TypeScript,
    /// Rust), shown after the first `curl` example.
    pub clients: Vec<ClientExample>,
    /// A form that asks the operation and shows the answer.
    pub try_it: Option<TryIt>,
}

/// A parameter of an operation.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Parameter {
    pub name: String,
    pub location: String,
    pub required: bool,
    /// Markdown.
    pub description: String,
    /// The type and the values it takes, in a few words.
    pub schema: String,
}

/// A request body in one media type.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BodyDoc {
    pub media_type: String,
    pub required: bool,
    /// Markdown.
    pub description: String,
    /// The type, in a few words (`array of string`).
    pub schema: String,
    /// The document's example, as JSON.
    pub example: String,
}

/// A response of an operation.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ResponseDoc {
    pub status: String,
    /// Markdown.
    pub description: String,
    pub media_types: Vec<String>,
}

/// A request and, where it is data, its answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Example {
    pub title: String,
    /// A `curl` command.
    pub request: String,
    /// The answer's media type.
    pub media_type: String,
    /// The answer, as the server gives it (JSON indented); none for a
    /// document that is not data (this page, the OpenAPI document, ...).
    pub answer: Option<String>,
}

/// A call of an operation through a generated client, as the suite makes it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ClientExample {
    /// The tab's key: `python`, `typescript`, `rust`.
    pub language: String,
    /// `Python`, ...
    pub name: String,
    /// The generator or library.
    pub generator: String,
    pub code: String,
}

/// A try-it form: its inputs fill the operation's path.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TryIt {
    /// The path template the inputs fill (`/api/v1/ip/{ip}`).
    pub path: String,
    /// The query the answer is asked with (`format=json`), if any.
    pub query: String,
    pub inputs: Vec<TryInput>,
    /// For a `POST` (the batch): the body's example, one item a line; the
    /// inputs are then query parameters, and the form needs the page's script.
    pub body: Option<String>,
}

/// An input of a try-it form.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TryInput {
    /// The path parameter it fills (the query parameter, for a `POST`).
    pub name: String,
    pub label: String,
    /// Filled in.
    pub value: String,
    /// The values it may take (a choice), or empty (free text).
    pub options: Vec<String>,
}

/// One object schema: a table of its properties.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SchemaDoc {
    pub name: String,
    /// Markdown.
    pub description: String,
    pub fields: Vec<FieldDoc>,
}

/// One property of a schema.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FieldDoc {
    pub name: String,
    /// `string or null`, `integer`, `Location`, `array of string`, ...
    pub kind: String,
    pub required: bool,
    /// Markdown.
    pub description: String,
    /// An example value, as JSON.
    pub example: String,
}

/// One error code.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ErrorDoc {
    pub code: String,
    pub status: u16,
    /// Markdown.
    pub when: String,
}

/// The HTML anchor of a schema's table.
pub(crate) fn schema_anchor(name: &str) -> String {
    format!("schema-{name}")
}
