//! Every page is one value rendered four ways: JSON, plain text, Markdown and
//! HTML. Handlers build a [`Page`]; only this module turns it into bytes.
//! JSON is the serde model; the other three are one view of the page
//! ([`doc::Doc`], built by the resource: [`crate::web::address::view`],
//! [`crate::web::asn::view`], `health_view`, `error_view`, or a
//! [`Resource`]'s own) written by one writer per format (`text`, `markdown`,
//! `html`). The docs page has writers of its own
//! ([`crate::web::openapi::docs`]).

mod asset;
pub(crate) mod assets;
pub(crate) mod doc;
pub(crate) mod error_view;
mod error_words;
pub(crate) mod flags;
mod health_view;
pub(crate) mod html;
pub(crate) mod html_frame;
pub(crate) mod i18n;
mod json;
pub(crate) mod map;
pub(crate) mod markdown;
pub(crate) mod page;
mod special_bn;
pub(crate) mod terminal_view;
pub(crate) mod text;
pub(crate) mod values;
pub(crate) mod view;

pub(crate) use self::i18n::Lang;
pub(crate) use self::page::{
    ATTRIBUTION_TEXT, ATTRIBUTION_URL, AsnPage, ErrorPage, Health, HealthData, HealthRefusal,
    HealthSource, LookupKind, LookupPage, Page, Releases, asn_links, page_link,
};
pub(crate) use self::view::View;
pub(crate) use crate::fields::sanitize::one_line;
pub(crate) use crate::web::openapi::docs::{
    BodyDoc, ClientExample, DocsPage, ErrorDoc, Example, FieldDoc, Group, Operation, Parameter,
    ResponseDoc, SchemaDoc, TryInput, TryIt,
};
use crate::web::serve::negotiate::Format;

impl Page {
    /// The body of the page in `format` (UTF-8), in `view`'s language (the
    /// docs page is English only).
    pub(crate) fn render(&self, format: Format, view: &View) -> Vec<u8> {
        use crate::fields::sanitize::page as sanitized;
        match (format, self) {
            (Format::Json, _) => self.json(),
            // The docs page has renderers of its own.
            (Format::Text, Page::Docs(d)) => {
                sanitized(crate::web::openapi::docs::text::page(d)).into_bytes()
            }
            (Format::Markdown, Page::Docs(d)) => {
                sanitized(crate::web::openapi::docs::markdown::page(d)).into_bytes()
            }
            (Format::Html, Page::Docs(d)) => crate::web::openapi::docs::html::page(d).into_bytes(),
            // What a terminal or a Markdown viewer shows: no control or
            // bidi character from any value, error message or docs text.
            (Format::Text, _) => sanitized(text::write(&self.view(view))).into_bytes(),
            (Format::Markdown, _) => sanitized(markdown::write(&self.view(view))).into_bytes(),
            (Format::Html, _) => html::write(&self.view(view), view).into_bytes(),
        }
    }

    /// The page as a view in `view`'s language (the docs page has
    /// renderers of its own).
    fn view(&self, view: &View) -> doc::Doc {
        match self {
            Page::Lookup(p) => crate::web::address::view::view(p, view),
            Page::Asn(p) => crate::web::asn::view::view(p, view),
            Page::Error(e) => error_view::view(e, view),
            Page::Resource(r) => r.view(view),
            Page::Docs(_) => doc::Doc::default(),
        }
    }

    fn json(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(1024);
        let written = match self {
            Page::Lookup(p) => {
                lookup_json(&mut body, &p.info);
                return body;
            }
            Page::Asn(p) => serde_json::to_writer_pretty(&mut body, &p.info),
            Page::Docs(d) => serde_json::to_writer_pretty(&mut body, d),
            Page::Error(e) => serde_json::to_writer_pretty(&mut body, &e.body),
            Page::Resource(r) => r.json(&mut body),
        };
        // These types hold only strings, numbers and options: serialising
        // into memory cannot fail, and serde_json writes UTF-8 (so the body
        // is not checked again).
        if written.is_err() {
            body.clear();
        }
        body.push(b'\n');
        body
    }
}

/// Appends the JSON body of a lookup's answer (`info`, then a newline) to
/// `out`: what [`Page::render`] gives for a [`Page::Lookup`] in JSON.
pub(crate) fn lookup_json(out: &mut Vec<u8>, info: &crate::model::IpInfo) {
    json::ip_info(out, info);
    out.push(b'\n');
}

/// The `Content-Security-Policy` of `page` in HTML: [`csp`], and for a root
/// page that asks the per-family origins for the visitor's addresses, its
/// one script by hash and `connect-src` with exactly those origins.
pub(crate) fn csp_for(page: &Page) -> std::borrow::Cow<'static, str> {
    use base64::Engine;
    use sha2::Digest;
    if let Page::Docs(_) = page {
        static DOCS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        return DOCS
            .get_or_init(|| {
                let digest =
                    sha2::Sha256::digest(crate::web::openapi::docs::html::TRY_SCRIPT.as_bytes());
                let script = base64::engine::general_purpose::STANDARD.encode(digest);
                format!(
                    "{}; script-src 'self' 'sha256-{script}'; connect-src 'self'",
                    csp_base()
                )
            })
            .as_str()
            .into();
    }
    let families = match page {
        Page::Lookup(p) if p.kind == LookupKind::Root => p.families.as_deref(),
        _ => None,
    };
    let Some(families) = families else {
        return csp().into();
    };
    static SCRIPT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let script = SCRIPT.get_or_init(|| {
        let digest = sha2::Sha256::digest(crate::web::address::view::FAMILY_SCRIPT.as_bytes());
        base64::engine::general_purpose::STANDARD.encode(digest)
    });
    let origins: Vec<String> = families.each().map(|(_, o)| o.to_string()).collect();
    format!(
        "{}; script-src 'self' 'sha256-{script}'; connect-src 'self' {}",
        csp_base(),
        origins.join(" ")
    )
    .into()
}

/// The `Content-Security-Policy` of HTML pages and of the assets they load:
/// [`csp_base`], and scripts only from this origin (the pages' one script
/// asset, [`assets::script`]), and requests only to this origin
/// (`connect-src 'self'`: Lighthouse and other tools read `/robots.txt`
/// from within the page, issue 32). The docs page's style
/// ([`crate::web::openapi::docs::html::DOCS_STYLE`]) is allowed by its hash too.
pub(crate) fn csp() -> &'static str {
    static CSP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CSP.get_or_init(|| format!("{}; script-src 'self'; connect-src 'self'", csp_base()))
}

/// Nothing external, the pages' inline style and the map's own style
/// ([`map::MAP_STYLE`]) allowed by their hashes, images (the map, the flags)
/// from this origin, forms only to this origin.
fn csp_base() -> &'static str {
    use base64::Engine;
    use sha2::Digest;
    static CSP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CSP.get_or_init(|| {
        let hash = |style: &str| {
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(style.as_bytes()))
        };
        format!(
            "default-src 'none'; style-src 'sha256-{}' 'sha256-{}' 'sha256-{}'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            hash(html_frame::STYLE),
            hash(map::MAP_STYLE),
            hash(crate::web::openapi::docs::html::DOCS_STYLE)
        )
    })
}
