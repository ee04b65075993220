//! One file the pages load, named by its content ([`Asset`]).

use sha2::Digest;

/// One asset: its bytes, the name it is served under and its `ETag`.
#[derive(Debug)]
pub(crate) struct Asset {
    /// `/assets/{stem}.{hash}.{ext}`.
    pub path: String,
    /// The served bytes.
    pub body: Vec<u8>,
    /// A strong `ETag`: the content hash, quoted.
    pub etag: String,
    /// The `Content-Type`.
    pub content_type: &'static str,
}

impl Asset {
    /// The asset `stem.ext` with these bytes, named by their SHA-256 (16 hex
    /// digits); `svg` is `image/svg+xml`, `js` is `text/javascript`.
    pub(crate) fn new(stem: &str, ext: &str, body: Vec<u8>) -> Self {
        let digest = sha2::Sha256::digest(&body);
        let hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        let content_type = match ext {
            "js" => "text/javascript; charset=utf-8",
            _ => "image/svg+xml",
        };
        Asset {
            path: format!("/assets/{stem}.{hash}.{ext}"),
            etag: format!("\"{hash}\""),
            body,
            content_type,
        }
    }
}
