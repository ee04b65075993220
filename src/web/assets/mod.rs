//! Static assets the pages refer to, served at `/assets/{name}.{hash}.{ext}`:
//! the world map, the country flags (`flag-{code}.{hash}.svg`, npm
//! `flag-icons`, MIT) and the pages' script (`page.{hash}.js`), see
//! [`super::render::assets`]. The content hash in the name lets a browser keep an
//! asset for a year (`Cache-Control: public, max-age=31536000, immutable`):
//! a changed asset has a new name. The HTML page draws the map as an SVG
//! `<image>` of this asset, with the highlighted country and the pin on top
//! (see [`super::render`]), so the ~145 KB map is fetched once, not carried
//! by every answer.
//!
//! The served map is `assets/world.svg` with a `<style>` of its own (land and
//! border colours, light and dark, the same as the page's `--land` and
//! `--card`): an image cannot see the page's style sheet.
//!
//! An asset of a kilobyte or more is sent in brotli or gzip when the client
//! asks ([`crate::web::serve::encoding`]), compressed once at the best level when first
//! asked for; each coding has its own strong `ETag` (`"HASH-br"`).

use axum::body::Body;
use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;

use super::render::assets::find;
use super::render::{ErrorPage, csp};
use super::routes;
use crate::model::{self, ErrorCode};
use crate::web::serve::encoding;
use crate::web::serve::policy::{Tag, mark, typed};
use crate::web::serve::respond::{Wants, error_on};
use crate::web::serve::served::{Served, describe};
use axum::routing::get;

/// `GET /assets/{file}`: an asset by its hashed name; 404 for any other name.
#[utoipa::path(get, path = "/assets/{file}", tag = "pages",
    summary = "A static asset of the pages (the world map, a flag, the script), by its content-hashed name",
    description = "The HTML pages refer to the map as `/assets/world.HASH.svg`, to a country's flag as `/assets/flag-CODE.HASH.svg` and to their script as `/assets/page.HASH.js`, where HASH is the start of the SHA-256 of its bytes: the name changes when the map does, so the answer may be kept for a year (`Cache-Control: public, max-age=31536000, immutable`). Sent in brotli or gzip when `Accept-Encoding` asks (compressed once, `Vary: Accept-Encoding`), each coding with its own strong `ETag`, which answers `If-None-Match` with 304. Any other name is 404.",
    params(("file" = String, Path, description = "The asset's name, as a page refers to it (the one value served is filled in when the document is served)")),
    responses(
        (status = 200, description = "The asset", content((String = "image/svg+xml"), (String = "text/javascript; charset=utf-8"))),
        (status = 304, description = "Not modified (If-None-Match matched the ETag)"),
        (status = 400, description = "Bad `format` value (for the 404 answer)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 404, description = "No asset of that name (Error, JSON unless `Accept` or `format` asks for another format)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept` (for the 404 answer)", body = model::Error),
    ))]
pub(crate) async fn asset(
    file: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    wants: Wants,
) -> Response {
    let name = file.as_ref().map(|Path(name)| name.as_str()).ok();
    let Some(asset) = name.and_then(find) else {
        return not_found(&wants);
    };
    let encoded = encoding::chosen(&headers).and_then(|c| Some((c, asset.encoded(c)?)));
    let (body, etag) = match encoded {
        Some((_, e)) => (e.body.as_slice(), &e.etag),
        None => (asset.body.as_slice(), &asset.etag),
    };
    let mut response = mark(
        typed(asset.content_type, Body::from(body)),
        Tag(etag.clone()),
    );
    let h = response.headers_mut();
    if let Some((coding, _)) = encoded {
        h.insert(
            header::CONTENT_ENCODING,
            HeaderValue::from_static(coding.name()),
        );
    }
    if asset.compressible() {
        encoding::add_vary(h);
    }
    if let Ok(policy) = HeaderValue::from_str(csp()) {
        h.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    response
}

fn not_found(wants: &Wants) -> Response {
    let page = ErrorPage {
        input: None,
        status: StatusCode::NOT_FOUND,
        body: model::Error::new(
            ErrorCode::NotFound,
            "no such asset: the pages name their assets",
        ),
    };
    error_on(page, wants, &routes::ASSETS)
}

/// The routes this module answers.
pub(crate) const SERVED: &[Served] = &[Served::new(
    &routes::ASSETS,
    |_| get(asset),
    &[describe::<__path_asset>],
)];
