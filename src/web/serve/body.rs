//! Request bodies read whole, never past a byte cap whatever `Content-Length`
//! says (413 beyond it), and the JSON Error answers of the routes that take
//! a body (`POST /api/v1/ip`, `POST /mcp`). The body deadline itself is the
//! common layer's ([`crate::web::common`]).

use axum::body::{Body, Bytes, HttpBody};
use axum::http::StatusCode;
use axum::response::Response;

use super::negotiate::ClientKind;
use super::respond::{Wants, error};
use crate::model::{self, ErrorCode};
use crate::web::render::ErrorPage;
use crate::web::routes::Route;

/// The body, read to its end but never beyond `cap` bytes; 413 past the cap,
/// 400 when it cannot be read, both as `route`'s errors.
pub(crate) async fn read_capped(
    mut body: Body,
    cap: usize,
    route: &Route,
) -> Result<Bytes, Response> {
    let too_large = || {
        error_json(
            route,
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::BodyTooLarge,
            format!("the request body may hold at most {cap} bytes"),
        )
    };
    if body.size_hint().lower() > cap as u64 {
        return Err(too_large());
    }
    let mut collected = Vec::new();
    while let Some(frame) =
        std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await
    {
        let frame = frame.map_err(|e| {
            error_json(
                route,
                StatusCode::BAD_REQUEST,
                ErrorCode::BadBody,
                format!("the request body could not be read: {e}"),
            )
        })?;
        if let Ok(data) = frame.into_data() {
            if data.len() > cap - collected.len() {
                return Err(too_large());
            }
            collected.extend_from_slice(&data);
        }
    }
    Ok(collected.into())
}

/// An Error answer of `route` in its error format for programs (JSON on the
/// API and `/mcp`).
pub(crate) fn error_json(
    route: &Route,
    status: StatusCode,
    code: ErrorCode,
    message: String,
) -> Response {
    let page = ErrorPage {
        input: None,
        status,
        body: model::Error::new(code, message),
    };
    error(
        page,
        &Wants::default(),
        route.error_default(ClientKind::Other),
    )
}
