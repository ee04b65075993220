//! Static assets the pages refer to, served at `/assets/{name}.{hash}.svg`:
//! today the world map. The content hash in the name lets a browser keep an
//! asset for a year (`Cache-Control: public, max-age=31536000, immutable`):
//! a changed asset has a new name. The HTML page draws the map as an SVG
//! `<image>` of this asset, with the highlighted country and the pin on top
//! (see [`super::render`]), so the ~145 KB map is fetched once, not carried
//! by every answer.
//!
//! The served map is `assets/world.svg` with a `<style>` of its own (land and
//! border colours, light and dark, the same as the page's `--land` and
//! `--card`): an image cannot see the page's style sheet.

use std::collections::HashMap;
use std::sync::OnceLock;

use axum::body::Body;
use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use sha2::Digest;

use super::negotiate::Format;
use super::render::{ErrorPage, csp};
use super::respond::{Wants, error};
use crate::model::{self, ErrorCode};

/// The world map (Natural Earth, equirectangular, viewBox 0 0 1000 500).
const WORLD_SVG: &str = include_str!("../../assets/world.svg");

/// The map's own style: the colours of the page's `--land` (fill) and
/// `--card` (borders), light and dark.
pub const MAP_STYLE: &str = "path{fill:#cfd6de;stroke:#fff;stroke-width:.3}@media (prefers-color-scheme:dark){path{fill:#39424d;stroke:#171b21}}";

const SVG_TYPE: HeaderValue = HeaderValue::from_static("image/svg+xml");
const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");

/// One asset: its bytes, the name it is served under and its `ETag`.
#[derive(Debug)]
pub struct Asset {
    /// `/assets/{stem}.{hash}.svg`.
    pub path: String,
    /// The served bytes.
    pub body: Vec<u8>,
    /// A strong `ETag`: the content hash, quoted.
    pub etag: String,
}

impl Asset {
    /// The asset `stem` with these bytes, named by their SHA-256 (16 hex digits).
    fn new(stem: &str, body: Vec<u8>) -> Self {
        let digest = sha2::Sha256::digest(&body);
        let hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        Asset {
            path: format!("/assets/{stem}.{hash}.svg"),
            etag: format!("\"{hash}\""),
            body,
        }
    }
}

/// The world map as served: the file with [`MAP_STYLE`] added.
pub fn world_map() -> &'static Asset {
    static MAP: OnceLock<Asset> = OnceLock::new();
    MAP.get_or_init(|| Asset::new("world", styled_map().into_bytes()))
}

/// The map file with its style right after the opening `<svg ...>` tag.
fn styled_map() -> String {
    let svg = WORLD_SVG.trim();
    let at = svg.find('>').map_or(0, |i| i + 1);
    format!("{}<style>{MAP_STYLE}</style>{}\n", &svg[..at], &svg[at..])
}

/// The opening tag of the map (`<svg xmlns=... id="world" viewBox=...>`).
pub fn map_open_tag() -> &'static str {
    let svg = WORLD_SVG.trim_start();
    svg.find('>').map_or("<svg>", |i| &svg[..=i])
}

/// The outline (`d` attribute) of each country on the map, by ISO code.
fn outlines() -> &'static HashMap<&'static str, &'static str> {
    static OUTLINES: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    OUTLINES.get_or_init(|| {
        WORLD_SVG
            .lines()
            .filter_map(|line| {
                let rest = line.trim().strip_prefix("<path id=\"")?;
                let (code, rest) = rest.split_once('"')?;
                let d = rest.strip_prefix(" d=\"")?.split_once('"')?.0;
                Some((code, d))
            })
            .collect()
    })
}

/// The outline of the country `code` on the map, if it has one.
pub fn outline(code: &str) -> Option<&'static str> {
    outlines().get(code).copied()
}

/// `GET /assets/{file}`: an asset by its hashed name; 404 for any other name.
#[utoipa::path(get, path = "/assets/{file}", tag = "pages",
    summary = "A static asset of the pages (the world map), by its content-hashed name",
    description = "The HTML pages refer to the map as `/assets/world.HASH.svg`, where HASH is the start of the SHA-256 of its bytes: the name changes when the map does, so the answer may be kept for a year (`Cache-Control: public, max-age=31536000, immutable`). A strong `ETag` answers `If-None-Match` with 304. Any other name is 404.",
    params(("file" = String, Path, description = "The asset's name, as a page refers to it (the one value served is filled in when the document is served)")),
    responses(
        (status = 200, description = "The asset", content_type = "image/svg+xml", body = String),
        (status = 304, description = "Not modified (If-None-Match matched the ETag)"),
        (status = 400, description = "Bad `format` value (for the 404 answer)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 404, description = "No asset of that name (Error, JSON unless `Accept` or `format` asks for another format)", content((model::Error = "application/json"), (String = "text/plain"), (String = "text/markdown"), (String = "text/html"))),
        (status = 406, description = "No offered format matches `Accept` (for the 404 answer)", body = model::Error),
    ))]
pub async fn asset(
    file: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    wants: Wants,
) -> Response {
    let map = world_map();
    let name = file.as_ref().map(|Path(name)| name.as_str()).ok();
    if name.is_none() || map.path.strip_prefix("/assets/") != name {
        return not_found(&wants);
    }
    let fresh = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| {
            let tag = tag.trim();
            tag == "*" || tag.trim_start_matches("W/") == map.etag
        });
    let (status, body) = if fresh {
        (StatusCode::NOT_MODIFIED, Body::empty())
    } else {
        (StatusCode::OK, Body::from(map.body.as_slice()))
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, SVG_TYPE);
    h.insert(header::CACHE_CONTROL, IMMUTABLE);
    if let Ok(etag) = HeaderValue::from_str(&map.etag) {
        h.insert(header::ETAG, etag);
    }
    if let Ok(policy) = HeaderValue::from_str(csp()) {
        h.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    response
}

fn not_found(wants: &Wants) -> Response {
    let page = ErrorPage {
        status: StatusCode::NOT_FOUND,
        body: model::Error::new(
            ErrorCode::NotFound,
            "no such asset: the pages name their assets",
        ),
    };
    error(page, wants, Format::Json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_map_is_named_by_its_content() {
        let map = world_map();
        assert!(map.path.starts_with("/assets/world."), "{}", map.path);
        assert!(map.path.ends_with(".svg"), "{}", map.path);
        let digest = sha2::Sha256::digest(&map.body);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert!(map.path.contains(&hex[..16]), "{} vs {hex}", map.path);
    }

    #[test]
    fn the_map_carries_its_style_and_every_country() {
        let text = String::from_utf8(world_map().body.clone()).unwrap();
        assert!(text.starts_with("<svg "), "{}", &text[..40]);
        assert!(text.contains(&format!("<style>{MAP_STYLE}</style>")));
        assert!(text.trim_end().ends_with("</svg>"));
        assert!(outlines().len() > 200, "{}", outlines().len());
        for code in ["US", "CA", "BD", "FR"] {
            let d = outline(code).unwrap();
            assert!(
                text.contains(&format!("<path id=\"{code}\" d=\"{d}\"")),
                "{code}"
            );
        }
        assert_eq!(outline("XX"), None);
        assert!(map_open_tag().contains("viewBox=\"0 0 1000 500\""));
    }
}
