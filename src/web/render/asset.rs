//! One file the pages load, named by its content ([`Asset`]), with its
//! compressed forms, each made once, when first asked for.

use std::sync::OnceLock;

use sha2::Digest;

use crate::web::serve::encoding::{self, Coding};

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
    /// The body in brotli and in gzip (at their best levels), made when
    /// first asked for; `None` when the coding saves nothing.
    br: OnceLock<Option<Encoded>>,
    gzip: OnceLock<Option<Encoded>>,
}

/// An asset's body in one content coding, and its strong `ETag` (the
/// identity's, with the coding's name: RFC 9110 section 8.8.3, a strong tag
/// differs between codings).
#[derive(Debug)]
pub(crate) struct Encoded {
    pub body: Vec<u8>,
    pub etag: String,
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
            br: OnceLock::new(),
            gzip: OnceLock::new(),
        }
    }

    /// Whether the asset is big enough to be sent compressed to a client
    /// that asks (the answer then varies with `Accept-Encoding`).
    pub(crate) fn compressible(&self) -> bool {
        self.body.len() >= encoding::THRESHOLD
    }

    /// The asset in `coding`, compressed once at the best level; `None`
    /// when it is below the threshold or the coding saves nothing.
    pub(crate) fn encoded(&self, coding: Coding) -> Option<&Encoded> {
        if !self.compressible() {
            return None;
        }
        let cell = match coding {
            Coding::Br => &self.br,
            Coding::Gzip => &self.gzip,
        };
        cell.get_or_init(|| {
            let body = coding.encode(&self.body, true);
            let hash = self.etag.trim_matches('"');
            (body.len() < self.body.len()).then(|| Encoded {
                body,
                etag: format!("\"{hash}-{}\"", coding.name()),
            })
        })
        .as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_asset_is_compressed_once_per_coding() {
        let big = Asset::new("t", "svg", b"<svg><path d=\"M0 0h1\"/></svg>".repeat(100));
        let br = big.encoded(Coding::Br).unwrap();
        assert!(std::ptr::eq(br, big.encoded(Coding::Br).unwrap()), "kept");
        let gz = big.encoded(Coding::Gzip).unwrap();
        assert!(br.body.len() < big.body.len() && gz.body.len() < big.body.len());
        assert_eq!(br.etag, format!("\"{}-br\"", big.etag.trim_matches('"')));
        assert_ne!(br.etag, gz.etag);
        let small = Asset::new("s", "svg", b"<svg/>".to_vec());
        assert!(small.encoded(Coding::Br).is_none() && !small.compressible());
    }
}
