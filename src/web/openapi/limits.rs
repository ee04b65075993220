//! The answers of the limits every route sits behind ([`super::super::common`]),
//! added to every operation from the route table: 414 (path and query over
//! the limit), 429 (over the optional per-caller rate limit, with
//! `Retry-After`; on the routes the table marks limited), 503 (no request
//! slot free within the queue timeout: Error `overloaded` and `Retry-After`;
//! or a request still running at the request timeout: empty body) and, on
//! operations that take a body, 408 (the body did not arrive in time). Each
//! comes in the route's error format ([`super::super::routes`]), which each
//! description names; `format` or `Accept` may pick another.

use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{
    Content, HeaderBuilder, OpenApi, Ref, Response, ResponseBuilder, response::ResponseBuilder as B,
};

use super::super::routes::{self, Route};
use crate::web::serve::negotiate::{ClientKind, Format};
use crate::web::serve::state::Limits;

/// Adds the limit answers to every operation of `doc`.
pub(crate) fn add(doc: &mut OpenApi) {
    for (path, item) in doc.paths.paths.iter_mut() {
        let route = routes::by_template(path).unwrap_or_else(|| routes::fallback(path));
        let mut limits = vec![("414", uri_too_long(route)), ("503", unavailable(route))];
        if route.limited {
            limits.push(("429", rate_limited(route)));
        }
        let ops = [&mut item.get, &mut item.post, &mut item.head];
        for op in ops.into_iter().flatten() {
            for (status, response) in &limits {
                op.responses
                    .responses
                    .entry((*status).to_owned())
                    .or_insert_with(|| response.clone().into());
            }
        }
        if let Some(op) = &mut item.post {
            op.responses
                .responses
                .entry("408".to_owned())
                .or_insert_with(|| body_timeout(route).into());
        }
    }
}

/// An Error in the route's error format, which `format` or `Accept` may
/// change for another of the four; the description says the default.
fn errors(route: &Route, description: &str, builder: B) -> B {
    let error = || Content::new(Some(Ref::from_schema_name("ApiError")));
    let text = || Content::new(Some(ObjectBuilder::new().schema_type(Type::String)));
    let first = route.error_default(ClientKind::Browser);
    let mut formats = vec![first];
    formats.extend(Format::ALL.iter().copied().filter(|f| *f != first));
    let builder = builder.description(format!("{description}. {}", default_note(route)));
    formats.into_iter().fold(builder, |b, format| match format {
        Format::Json => b.content(format.media_type(), error()),
        _ => b.content(format.media_type(), text()),
    })
}

/// Which format the route's errors come in unless `format` or `Accept` asks.
pub(crate) fn default_note(route: &Route) -> String {
    let name = |f: Format| match f {
        Format::Json => "JSON",
        Format::Text => "plain text",
        Format::Markdown => "Markdown",
        Format::Html => "HTML",
    };
    let e = route.errors;
    let asks = "unless `format` or `Accept` asks for another format";
    if e.browser == e.command_line && e.browser == e.other {
        format!("In {} {asks}", name(e.browser))
    } else if e.command_line == e.other {
        format!(
            "In {} for browsers, {} for other clients, {asks}",
            name(e.browser),
            name(e.other)
        )
    } else {
        format!(
            "In {} for browsers, {} for command-line clients, {} for other programs, {asks}",
            name(e.browser),
            name(e.command_line),
            name(e.other)
        )
    }
}

fn retry_after() -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(Some(ObjectBuilder::new().schema_type(Type::Integer)))
        .description(Some("Seconds to wait before asking again"))
        .build()
}

/// The limit answers once, for the docs page's table: (status, description).
pub(crate) fn shared() -> Vec<(&'static str, String)> {
    let note = "In the route's error format (JSON for the API, the page's format for pages) \
                unless `format` or `Accept` asks for another format";
    vec![
        (
            "408",
            format!("{BODY_TIMEOUT}. Only operations that take a body. {note}"),
        ),
        ("414", format!("{}. {note}", uri_too_long_text())),
        (
            "429",
            format!(
                "{RATE_LIMITED}. Only with `--rate-limit`; `/healthz` and `/metrics` are never limited. {note}"
            ),
        ),
        (
            "503",
            format!(
                "{UNAVAILABLE}; the batch route also waits at most the queue timeout for one of its slots (`--batch-max-in-flight`, 16 by default). {note}"
            ),
        ),
    ]
}

fn uri_too_long_text() -> String {
    format!(
        "The path and query are longer than {} bytes (Error `uri_too_long`)",
        Limits::default().max_uri_bytes
    )
}

const UNAVAILABLE: &str = "Every request slot stayed busy for the queue timeout (`--queue-timeout`, 1 s \
     by default; Error `overloaded`, `Retry-After`), or the request ran past the request \
     timeout (empty body). `/healthz` and `/metrics` never wait for a slot";

const BODY_TIMEOUT: &str = "The request body did not arrive within the header timeout \
     (`--header-timeout`; Error `body_timeout`); the connection is closed";

const RATE_LIMITED: &str =
    "Over the per-caller rate limit (`--rate-limit`, off by default; Error `rate_limited`)";

fn uri_too_long(route: &Route) -> Response {
    errors(route, &uri_too_long_text(), ResponseBuilder::new()).build()
}

fn unavailable(route: &Route) -> Response {
    let mut description = UNAVAILABLE.to_owned();
    if route.template == routes::API_IP_BATCH.template {
        description.push_str(
            ". A batch also waits at most the queue timeout for one of the batch slots \
             (`--batch-max-in-flight`, 16 by default; held until its answer is sent)",
        );
    }
    let builder = ResponseBuilder::new().header("Retry-After", retry_after());
    errors(route, &description, builder).build()
}

fn body_timeout(route: &Route) -> Response {
    errors(route, BODY_TIMEOUT, ResponseBuilder::new()).build()
}

fn rate_limited(route: &Route) -> Response {
    let builder = ResponseBuilder::new().header("Retry-After", retry_after());
    errors(route, RATE_LIMITED, builder).build()
}
