//! `POST /api/v1/ip`: many addresses in one request.
//!
//! The body is a JSON array of strings (`application/json`) or one address
//! per line (`text/plain`; empty lines skipped, any other line an entry,
//! `\r\n` accepted), at most `--batch-limit` entries in [`max_body_bytes`]
//! bytes. The answer has one entry per input, in input order: the `IpInfo`
//! of `GET /api/v1/ip/{ip}`, or an Error (`invalid_ip`, the input quoted and
//! cut to 100 characters in `message`) in its place. As a JSON array (the
//! default), NDJSON (`application/x-ndjson`) or CSV (`text/csv`, [`csv`]),
//! by `Accept`.
//!
//! What a client controls, and its bound:
//! - the body: read up to [`max_body_bytes`], never more (413 beyond, whatever
//!   `Content-Length` says), and only until the body deadline of the common
//!   layer (`--header-timeout` from the head, 408);
//! - the entries: at most `--batch-limit` (413);
//! - the rate limit, when on, counts every address: the common layer takes
//!   the request's token, this handler the other `n - 1` at once once it has
//!   counted them, or answers 429 (a batch larger than `--rate-burst` never
//!   passes);
//! - the answer: built in memory one entry at a time, each written as soon
//!   as it is answered (no answer kept): about 470 bytes per entry as JSON,
//!   180 as CSV, so about 0.3-0.5 MB for a batch of 1,000, held while it is
//!   sent; at most `--batch-max-in-flight` answers are built or unsent at
//!   once ([`super::slots`]: a batch waits `--queue-timeout` for a slot, then
//!   gets 503 `overloaded`), and the bytes they hold are charged to the
//!   client's share and the budget of all answers as they grow, whatever
//!   the data makes of an entry (an answer alone over the client's share:
//!   413 `body_too_large`; over what others leave: 503 `overloaded`);
//! - reverse DNS: each entry is answered with [`Rdns::Cached`], with
//!   `reverse_dns` from the cache only: a batch sends no PTR query and waits
//!   for none, so it cannot take the `--rdns-max-in-flight` slots of single
//!   lookups nor run into the request timeout.
//!
//! Every error of the route is JSON (an Error body): 400 `bad_body` for a
//! body that is not an array of strings or not UTF-8; 415
//! `unsupported_media_type` for another `Content-Type`; 406
//! `not_acceptable` when `?format=` or `Accept` names none of the three
//! (400 `bad_format` for a `?format=` that is no format).
//!
//! [`Rdns::Cached`]: crate::lookup::Rdns::Cached

use std::net::{IpAddr, Ipv4Addr};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Serialize;

mod output;

pub use output::Output;

use super::routes;
use super::schema::BatchFormatName;
use crate::fields::csv;
use crate::lookup::{self, LookupError, Rdns};
use crate::model::{self, ErrorCode, IpInfo};
use crate::web::serve::admission::Refusal;
use crate::web::serve::admission::batch::{BatchSlot, MCP_COPIES, Meter};
use crate::web::serve::body::{error_json, read_capped};
use crate::web::serve::client::caller;
use crate::web::serve::policy::typed;
use crate::web::serve::refusal;
use crate::web::serve::served::{Served, describe};
use crate::web::serve::state::AppState;
use axum::routing::post;

/// Default of `--batch-limit`.
pub const DEFAULT_BATCH_LIMIT: usize = 1000;
/// The range `--batch-limit` is checked against.
pub const BATCH_LIMIT_RANGE: std::ops::RangeInclusive<u64> = 1..=100_000;
/// Body bytes allowed per entry: an IPv6 address in its longest form, quoted,
/// with a comma and indentation, fits in 64.
pub const BYTES_PER_ENTRY: usize = 64;
/// Body bytes allowed beyond that (brackets, a byte-order mark, whitespace).
pub const BODY_SLACK: usize = 4096;

/// The largest body a batch of at most `limit` entries may be sent in.
pub fn max_body_bytes(limit: usize) -> usize {
    limit
        .saturating_mul(BYTES_PER_ENTRY)
        .saturating_add(BODY_SLACK)
}

/// One entry of the answer: the address's answer or the error in its place.
#[derive(Debug, Serialize, utoipa::ToSchema, schemars::JsonSchema)]
#[serde(untagged)]
#[schema(as = BatchEntry)]
#[schemars(rename = "BatchEntry")]
pub enum BatchEntry {
    Info(Box<IpInfo>),
    Error(model::Error),
}

impl BatchEntry {
    fn of(result: Result<IpInfo, LookupError>) -> Self {
        match result {
            Ok(info) => BatchEntry::Info(Box::new(info)),
            Err(e) => BatchEntry::Error(e.body()),
        }
    }
}

/// Why a body is not a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// 400 `bad_body`.
    Bad(String),
    /// 413 `body_too_large`.
    TooLarge(String),
    /// 415 `unsupported_media_type`: sent as neither JSON nor text.
    MediaType(String),
}

/// The body formats of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFormat {
    /// `application/json`: an array of strings.
    Json,
    /// `text/plain`: one address per line.
    Lines,
}

impl BodyFormat {
    /// The format a `Content-Type` names, or the 415 error.
    pub fn of(content_type: Option<&str>) -> Result<BodyFormat, BodyError> {
        let media = content_type
            .and_then(|c| c.split(';').next())
            .map(|m| m.trim().to_ascii_lowercase());
        match media.as_deref() {
            Some("application/json") => Ok(BodyFormat::Json),
            Some("text/plain") => Ok(BodyFormat::Lines),
            _ => Err(BodyError::MediaType(
                "Content-Type must be application/json (an array of strings) or text/plain (one address per line)".into(),
            )),
        }
    }
}

/// The entries of a body sent as `content_type`, at most `limit` of them.
pub fn entries(
    content_type: Option<&str>,
    body: &[u8],
    limit: usize,
) -> Result<Vec<String>, BodyError> {
    let entries = match BodyFormat::of(content_type)? {
        BodyFormat::Json => json_entries(body)?,
        BodyFormat::Lines => line_entries(body)?,
    };
    if entries.len() > limit {
        return Err(BodyError::TooLarge(format!(
            "a batch may hold at most {limit} addresses; this one holds {}",
            entries.len()
        )));
    }
    Ok(entries)
}

fn json_entries(body: &[u8]) -> Result<Vec<String>, BodyError> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    serde_json::from_slice::<Vec<String>>(body).map_err(|e| {
        let reason: String = e.to_string().chars().take(200).collect();
        BodyError::Bad(format!(
            "the body must be a JSON array of strings: {reason}"
        ))
    })
}

/// The lines of a `text/plain` body (a byte-order mark at its start
/// skipped): each line that is not empty once its `\n` or `\r\n` is taken
/// off is an entry, whitespace-only ones included (they are `invalid_ip`), so
/// that answers pair with input lines by position, as `iplookup lookup`'s do.
fn line_entries(body: &[u8]) -> Result<Vec<String>, BodyError> {
    let text =
        std::str::from_utf8(body).map_err(|_| BodyError::Bad("the body is not UTF-8".into()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    Ok(text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect())
}

/// `POST /api/v1/ip`.
#[utoipa::path(post, path = "/api/v1/ip", tag = "lookup",
    summary = "Look up many addresses in one request (in input order)",
    description = "The body: a JSON array of address strings (`application/json`), or one address per line (`text/plain`, for files: `curl --data-binary @addresses.txt -H 'Content-Type: text/plain' BASE/api/v1/ip`; empty lines skipped, CRLF accepted; any other line, whitespace-only included, is an entry; this second body is described here and not as a second request body because common client generators cannot send it), at most `--batch-limit` (default 1000) entries and 64 bytes per entry plus 4096 bytes. The answer holds one entry per input, in input order: the IpInfo of `GET /api/v1/ip/{ip}`, or an Error (`invalid_ip`, the input in `message`) in its place. By `?format=` (`json`, `ndjson`, `csv`) or else `Accept`: a JSON array (default), NDJSON (`application/x-ndjson`, one entry per line) or CSV (`text/csv`: a header row with every IpInfo field flat and `error`, one row per input; an error row keeps the input in `ip` and the code in `error`). `reverse_dns` comes from the reverse-DNS cache only (a batch sends no PTR query). With a rate limit, each address costs one request's token; a batch larger than the burst is refused at once with 413 (no wait would let it through). Errors are JSON.",
    params(("format" = Option<BatchFormatName>, Query, description = "The answer's form: `json` (a JSON array, the default), `ndjson` (`application/x-ndjson`, one entry per line) or `csv` (`text/csv`); overrides `Accept`")),
    request_body(description = "The addresses", content(
        (Vec<String> = "application/json", example = json!(["8.8.8.8", "2001:4860:4860::8888", "not-an-ip"])),
    )),
    responses(
        (status = 200, description = "One entry per input, in input order: IpInfo or Error", content(
            (Vec<BatchEntry> = "application/json"),
            (String = "application/x-ndjson"),
            (String = "text/csv"),
        )),
        (status = 400, description = "The body is not an array of strings or not UTF-8 (error `bad_body`), or `?format=` names no format (error `bad_format`)", body = model::Error),
        (status = 406, description = "`?format=` or `Accept` names none of JSON, NDJSON and CSV (error `not_acceptable`)", body = model::Error),
        (status = 413, description = "More entries than `--batch-limit` (or, with a rate limit, than `--rate-burst`), a body over its byte cap, or an answer over the bytes one client's answers may hold (error `body_too_large`)", body = model::Error),
        (status = 415, description = "The body is sent as neither `application/json` nor `text/plain` (error `unsupported_media_type`)", body = model::Error),
    ))]
pub async fn api_ip_batch(State(state): State<AppState>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let output = match output_of(&parts) {
        Ok(output) => output,
        Err(refused) => return *refused,
    };
    let content_type = header_text(&parts.headers, header::CONTENT_TYPE);
    if let Err(e) = BodyFormat::of(content_type.as_deref()) {
        return body_error(e);
    }
    let cap = max_body_bytes(state.batch_limit);
    let bytes = match read_capped(body, cap, &routes::API_IP_BATCH).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let inputs = match entries(content_type.as_deref(), &bytes, state.batch_limit) {
        Ok(inputs) => inputs,
        Err(e) => return body_error(e),
    };
    if let Some(refused) = over_burst(&state, inputs.len()) {
        return refused;
    }
    if let Some(refused) = extra_tokens(&state, &parts, inputs.len()) {
        return refused;
    }
    let client = caller(&parts, &state.proxies).unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    let slot = match state.batch_slots.take(client).await {
        Ok(slot) => slot,
        Err(busy) => {
            metrics::counter!("iplookup_overloaded_total").increment(1);
            return refusal::Refuser::of_parts(&parts, &routes::API_IP_BATCH).refused(busy);
        }
    };
    match answer(&state, output, &inputs, slot).await {
        Ok(response) => response,
        Err((spent, answered)) => {
            metrics::counter!("iplookup_batch_answer_refused_total").increment(1);
            refusal::Refuser::of_parts(&parts, &routes::API_IP_BATCH).refused_after(
                spent,
                answered,
                inputs.len(),
            )
        }
    }
}

/// The answer format a request names: `?format=` (`json`, `ndjson`,
/// `csv`), else `Accept`; or the 400 (no format), 406 (not offered here)
/// answer.
fn output_of(parts: &Parts) -> Result<Output, Box<Response>> {
    let wants = crate::web::serve::respond::Wants::read(&parts.uri, &parts.headers);
    if wants.bad_query {
        return Err(Box::new(error_json(
            &routes::API_IP_BATCH,
            StatusCode::BAD_REQUEST,
            ErrorCode::BadQuery,
            "the query string could not be read".into(),
        )));
    }
    if let Some(format) = &wants.format {
        return match Output::from_query(format) {
            Ok(Some(output)) => Ok(output),
            Ok(None) => Err(Box::new(not_acceptable())),
            Err(()) => {
                let shown: String = format.chars().take(40).collect();
                Err(Box::new(error_json(
                    &routes::API_IP_BATCH,
                    StatusCode::BAD_REQUEST,
                    ErrorCode::BadFormat,
                    format!("unknown format {shown:?}: use json, ndjson or csv"),
                )))
            }
        };
    }
    let accept = header_text(&parts.headers, header::ACCEPT);
    Output::negotiate(accept.as_deref()).ok_or_else(|| Box::new(not_acceptable()))
}

/// The Error answer to a body that is no batch.
fn body_error(e: BodyError) -> Response {
    let (status, code, message) = match e {
        BodyError::Bad(m) => (StatusCode::BAD_REQUEST, ErrorCode::BadBody, m),
        BodyError::TooLarge(m) => (StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::BodyTooLarge, m),
        BodyError::MediaType(m) => (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::UnsupportedMediaType,
            m,
        ),
    };
    error_json(&routes::API_IP_BATCH, status, code, message)
}

/// The answer of each of `inputs`, in order (the MCP tool `lookup_ips`'s),
/// each charged to `meter` at [`MCP_COPIES`] times its JSON size (the MCP
/// library holds it that many times over); stops with the number answered
/// when the meter refuses.
pub async fn lookup_all(
    state: &AppState,
    inputs: &[String],
    meter: Option<&Meter>,
) -> Result<Vec<BatchEntry>, (Refusal, usize)> {
    let mut answers = Vec::with_capacity(inputs.len());
    let mut bytes = inputs
        .len()
        .saturating_mul(std::mem::size_of::<BatchEntry>());
    for input in inputs {
        let result = match lookup::parse(input) {
            Ok(ip) => Ok(state.lookup.lookup(ip, Rdns::Cached).await.info),
            Err(e) => Err(e),
        };
        let entry = BatchEntry::of(result);
        if let Some(meter) = meter {
            let size = json_size(&entry).saturating_mul(MCP_COPIES);
            bytes = bytes.saturating_add(size);
            meter.charge_to(bytes).map_err(|s| (s, answers.len()))?;
        }
        answers.push(entry);
    }
    Ok(answers)
}

/// The length of `entry` as JSON, counted without writing it anywhere.
pub(crate) fn json_size<T: serde::Serialize>(entry: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Counting cannot fail.
    let _ = serde_json::to_writer(&mut count, entry);
    count.0
}

/// The JSON answer of a batch of `inputs` as the data alone answers it
/// (no reverse DNS): the same entries and writer as the route's, for the
/// documentation's example.
pub fn example_answer(lookup: &crate::lookup::Lookup, inputs: &[&str]) -> Vec<u8> {
    let mut writer = Writer::new(Output::Json, inputs.len());
    for input in inputs {
        let now = chrono::Utc::now();
        let entry =
            BatchEntry::of(crate::lookup::parse(input).map(|ip| lookup.lookup_at(ip, now).info));
        writer.entry(input, &entry);
    }
    writer.finish()
}

/// The 413 answer to a batch of more addresses than the rate limit's
/// burst: a caller's bucket never holds that many tokens, so a 429 and its
/// `Retry-After` would promise what never comes; `None` without a limit.
fn over_burst(state: &AppState, entries: usize) -> Option<Response> {
    let burst = state.limiter.as_ref()?.burst();
    if !routes::API_IP_BATCH.limited || entries <= burst as usize {
        return None;
    }
    Some(error_json(
        &routes::API_IP_BATCH,
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::BodyTooLarge,
        format!(
            "{entries} addresses: more than the rate limit lets one caller send at once (--rate-burst {burst}); split the batch"
        ),
    ))
}

/// The rate limit's tokens for the entries beyond the first (the common
/// layer took the request's), or the 429 answer.
fn extra_tokens(state: &AppState, parts: &Parts, entries: usize) -> Option<Response> {
    let extra = u32::try_from(entries.saturating_sub(1)).unwrap_or(u32::MAX);
    refusal::rate_limit_n(state, parts, &routes::API_IP_BATCH, extra)
}

/// The body of a 200 answer, written one entry at a time as it is
/// answered: no answer is kept once written.
enum Writer {
    /// A JSON array; whether an entry is written yet.
    Json(Vec<u8>, bool),
    Ndjson(Vec<u8>),
    Csv(Vec<u8>),
}

impl Writer {
    /// A writer for `entries` entries in `output`.
    fn new(output: Output, entries: usize) -> Self {
        match output {
            Output::Json => {
                let mut out = Vec::with_capacity(entries * 512 + 2);
                out.push(b'[');
                Writer::Json(out, false)
            }
            Output::Ndjson => Writer::Ndjson(Vec::with_capacity(entries * 512)),
            Output::Csv => {
                let mut out = Vec::with_capacity(entries * 256 + 256);
                csv::header(&mut out);
                Writer::Csv(out)
            }
        }
    }

    /// Writes the answer to `input`.
    fn entry(&mut self, input: &str, entry: &BatchEntry) {
        // Serialising these types into memory cannot fail.
        match self {
            Writer::Json(out, started) => {
                // Indented as `serde_json::to_writer_pretty` writes an array,
                // like every JSON answer.
                if std::mem::replace(started, true) {
                    out.push(b',');
                }
                out.extend_from_slice(b"\n  ");
                let at = out.len();
                let _ = serde_json::to_writer_pretty(&mut *out, entry);
                // A string holds no raw newline: each one starts a line.
                let indented = out[at..]
                    .split(|&b| b == b'\n')
                    .collect::<Vec<_>>()
                    .join(&b"\n  "[..]);
                out.truncate(at);
                out.extend_from_slice(&indented);
            }
            Writer::Ndjson(out) => {
                let _ = serde_json::to_writer(&mut *out, entry);
                out.push(b'\n');
            }
            Writer::Csv(out) => match entry {
                BatchEntry::Info(info) => csv::row(out, info),
                BatchEntry::Error(e) => {
                    let input: String = input.chars().take(100).collect();
                    csv::error_row(out, &input, e.error.as_str());
                }
            },
        }
    }

    /// The bytes the body holds (its buffer's capacity).
    fn held(&self) -> usize {
        match self {
            Writer::Json(out, _) | Writer::Ndjson(out) | Writer::Csv(out) => out.capacity(),
        }
    }

    /// The whole body.
    fn finish(self) -> Vec<u8> {
        match self {
            Writer::Json(mut out, started) => {
                if started {
                    out.push(b'\n');
                }
                out.extend_from_slice(b"]\n");
                out
            }
            Writer::Ndjson(out) | Writer::Csv(out) => out,
        }
    }
}

/// The 200 answer in `output`: each of `inputs` looked up and written in
/// turn, the bytes its body holds charged to the slot's meter as it grows;
/// its body keeps `slot` until it is sent ([`BatchSlot::follow`]). When the meter
/// refuses, the answer is dropped: why, and how many were answered.
async fn answer(
    state: &AppState,
    output: Output,
    inputs: &[String],
    slot: BatchSlot,
) -> Result<Response, (Refusal, usize)> {
    let meter = slot.meter();
    let mut writer = Writer::new(output, inputs.len());
    meter.charge_to(writer.held()).map_err(|s| (s, 0))?;
    for (done, input) in inputs.iter().enumerate() {
        let result = match lookup::parse(input) {
            Ok(ip) => Ok(state.lookup.lookup(ip, Rdns::Cached).await.info),
            Err(e) => Err(e),
        };
        writer.entry(input, &BatchEntry::of(result));
        meter.charge_to(writer.held()).map_err(|s| (s, done))?;
    }
    let mut response = typed(
        output.content_type(),
        slot.follow(Body::from(writer.finish())),
    );
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("Accept"));
    Ok(response)
}

/// All the values of a header as text, joined with ", ".
fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    let values: Vec<&str> = headers
        .get_all(name)
        .into_iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

/// 406: none of the three formats is acceptable.
fn not_acceptable() -> Response {
    let offered: Vec<&str> = Output::ALL
        .iter()
        .map(|o| o.content_type().split(';').next().unwrap_or(""))
        .collect();
    error_json(
        &routes::API_IP_BATCH,
        StatusCode::NOT_ACCEPTABLE,
        ErrorCode::NotAcceptable,
        format!(
            "no offered format matches Accept; offered: {}",
            offered.join(", ")
        ),
    )
}

/// The routes this module answers.
pub(crate) const SERVED: &[Served] = &[Served::new(
    &routes::API_IP_BATCH,
    |_| post(api_ip_batch),
    &[describe::<__path_api_ip_batch>],
)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_picks_the_preferred_of_the_three() {
        assert_eq!(Output::negotiate(None), Some(Output::Json));
        assert_eq!(Output::negotiate(Some("text/csv")), Some(Output::Csv));
        assert_eq!(
            Output::negotiate(Some("application/x-ndjson")),
            Some(Output::Ndjson)
        );
        assert_eq!(
            Output::negotiate(Some("text/csv;q=0.5, application/x-ndjson")),
            Some(Output::Ndjson)
        );
        assert_eq!(Output::negotiate(Some("*/*")), Some(Output::Json));
        assert_eq!(Output::negotiate(Some("text/html")), None);
        assert_eq!(Output::negotiate(Some("text/csv;q=0")), None);
    }

    #[test]
    fn the_slots_budget_for_the_default_batch() {
        assert_eq!(
            crate::web::serve::admission::batch::DEFAULT_ENTRIES,
            DEFAULT_BATCH_LIMIT
        );
    }

    #[test]
    fn bodies_become_entries_in_order() {
        let json = entries(Some("application/json"), br#"["1.1.1.1", "x"]"#, 10);
        assert_eq!(json, Ok(vec!["1.1.1.1".to_owned(), "x".to_owned()]));
        let text = entries(
            Some("text/plain; charset=utf-8"),
            b"1.1.1.1\r\n\n  \nx\n",
            10,
        );
        // Only empty lines are skipped: a whitespace-only one is an entry.
        assert_eq!(
            text,
            Ok(vec!["1.1.1.1".to_owned(), "  ".to_owned(), "x".to_owned()])
        );
        assert!(matches!(
            entries(Some("application/json"), b"[1]", 10),
            Err(BodyError::Bad(_))
        ));
        assert!(matches!(
            entries(Some("text/plain"), b"\xff\n", 10),
            Err(BodyError::Bad(_))
        ));
        assert!(matches!(
            entries(Some("application/xml"), b"[]", 10),
            Err(BodyError::MediaType(_))
        ));
        assert!(matches!(
            entries(Some("text/plain"), b"a\nb\nc\n", 2),
            Err(BodyError::TooLarge(_))
        ));
    }
}
