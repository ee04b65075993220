//! The frame every HTML page shares: the style, the bar (home, API, the
//! link to the other language), the footer (the DB-IP attribution, the data
//! releases, the flags' credit, the docs), the search form, and escaping.
//!
//! Nothing from other origins: styles are inline (allowed by their hash),
//! and the map, the flags and the one script are this service's own assets
//! ([`super::assets`]).

use super::assets;
use super::i18n::{Lang, Msg};
use super::page::{ATTRIBUTION_TEXT, ATTRIBUTION_URL, Releases};
use super::view::View;
use crate::fields::sanitize::is_unsafe;

pub(super) const STYLE: &str = r#"
:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#15181d;--muted:#5b6470;--card:#fff;--line:#dfe3e8;--accent:#0b63ce;--land:#cfd6de;--hit:#e4572e;--code:#eef1f5}
@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--fg:#e8ebef;--muted:#9aa4b1;--card:#171b21;--line:#2a3038;--accent:#6aa9ff;--land:#39424d;--hit:#ff7a50;--code:#1f252d}}
*{box-sizing:border-box}[hidden]{display:none!important}.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans Bengali",sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--accent)}code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.bar{max-width:1080px;margin:0 auto;padding:.6rem 1.25rem 0;display:flex;justify-content:space-between;align-items:center;gap:1rem}
.brand{font-weight:700;color:var(--fg);text-decoration:none}.bar nav{display:flex;gap:1rem}
main{max-width:1080px;margin:0 auto;padding:.4rem 1.25rem 1.25rem}
.kicker{margin:.4rem 0 0;color:var(--muted);font-size:.9rem}.muted{color:var(--muted)}
h1{font-size:clamp(1.5rem,6vw,2.3rem);line-height:1.2;margin:0;word-break:break-all;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
h1.words{font-family:inherit;word-break:normal}
.summary{font-size:1.1rem;margin:.35rem 0 .6rem;display:flex;flex-wrap:wrap;gap:.15rem 1.1rem;align-items:baseline}
.summary>span{overflow-wrap:anywhere}
details>summary{min-height:24px;padding:.2rem 0;cursor:pointer}
img.flag{width:1.5em;height:1.125em;vertical-align:-.2em;border-radius:2px;box-shadow:0 0 0 1px var(--line)}
form{display:flex;gap:.5rem;margin:.5rem 0 1rem;max-width:640px}input{flex:1;min-width:0;font:inherit;padding:.5rem .7rem;border:1px solid var(--line);border-radius:.5rem;background:var(--card);color:var(--fg)}
button{font:inherit;padding:.5rem 1rem;border:0;border-radius:.5rem;background:#0b5cc0;color:#fff;cursor:pointer}
.groups{display:grid;gap:1rem;grid-template-columns:minmax(0,1fr)}@media (min-width:820px){.groups{grid-template-columns:minmax(0,1fr) minmax(0,1fr);align-items:start}.groups>#location{grid-column:2;grid-row:1/span 2}}.group.map{padding:.75rem}
.group{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:.2rem 1rem .5rem;min-width:0}
h2{font-size:.85rem;margin:.6rem 0 .3rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}h2:lang(bn){text-transform:none;letter-spacing:0}
dl{margin:0}dl>div{padding:.4rem 0;border-top:1px solid var(--line);display:grid;grid-template-columns:9rem minmax(0,1fr);gap:0 .75rem}dl>div:first-child{border-top:0}
dt{color:var(--muted);font-size:.9rem}dd{margin:0;overflow-wrap:anywhere}
dd.cmd{grid-column:2;display:flex;gap:.4rem;align-items:center;font-size:.75rem;min-width:0}code.cmd{color:var(--muted);white-space:nowrap;overflow:hidden;min-width:0;flex:0 1 auto}code.cmd .u{display:inline-block;vertical-align:bottom;max-width:calc(100% - 5ch);overflow:hidden;text-overflow:ellipsis;direction:rtl}
.num{white-space:nowrap}#addresses-v6{overflow-x:auto}#rows,#ases,#ases-rest{display:block;overflow-x:auto}#addresses-v6 .num{font-size:min(1em,3.5vw)}
button.copy{flex:none;white-space:nowrap;font-size:.72rem;min-height:24px;min-width:24px;padding:.1rem .5rem;background:transparent;color:var(--accent);border:1px solid var(--line);border-radius:.35rem}button.copy.done{color:var(--fg)}
.split{display:grid;gap:.5rem 1.5rem;grid-template-columns:minmax(0,1fr)}@media (min-width:820px){.split{grid-template-columns:minmax(0,1.1fr) minmax(0,1fr);align-items:start}}
.lead{font-size:1.1rem}
@media (max-width:560px){dl>div{grid-template-columns:minmax(0,1fr)}dd.cmd{grid-column:1}code.cmd .h{display:none}code.cmd bdo::before{content:"…"}form{flex-wrap:wrap}form input{flex:1 1 100%}}
#filter input{font:inherit;width:min(100%,24rem);padding:.3rem .6rem;border:1px solid var(--line);border-radius:.5rem;background:var(--card);color:var(--fg)}
.map{margin:.5rem 0}.map svg{display:block;width:100%;height:auto;max-height:45vh}.map path{fill:var(--land);stroke:var(--card);stroke-width:.3}
.map path.hit{fill:var(--hit)}.map .pin{fill:none;stroke:var(--fg);stroke-width:2}
.note{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--accent);border-radius:.5rem;padding:.5rem .8rem;margin:.5rem 0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .4rem;border-top:1px solid var(--line);vertical-align:middle}th{color:var(--muted);font-weight:600;font-size:.85rem}td.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.bar-cell{width:30%}.share{height:.6rem;background:var(--line);border-radius:.3rem;overflow:hidden}.share svg{display:block;color:var(--hit)}
ul.prefixes{list-style:none;padding:0;margin:.5rem 0;columns:13rem auto;column-gap:1.2rem;font-size:.9rem}ul.prefixes li{break-inside:avoid}ul.chunk{margin:0;content-visibility:auto;contain-intrinsic-block-size:auto 150rem}.filtering ul.chunk{content-visibility:visible}ul.prefixes a{display:inline-block;min-height:24px;line-height:24px}.pager a{display:inline-block;min-height:24px;min-width:24px;line-height:24px;text-align:center}.pager a.current{font-weight:700;text-decoration:none;color:var(--fg)}
.pager{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;margin:.5rem 0}
footer{margin-top:1.5rem;font-size:.9rem;color:var(--muted)}footer p{margin:.3rem 0}
#ases-section{content-visibility:auto;contain-intrinsic-size:auto 560rem}
"#;

/// What the frame of a page needs besides its body.
pub(crate) struct Frame<'a> {
    pub title: &'a str,
    /// The page's own path (and query), for the language link and the
    /// Markdown alternate.
    pub canonical: &'a str,
    pub releases: Option<&'a Releases>,
    /// Load the pages' script (copy buttons, the prefix filter).
    pub script: bool,
    /// More of the head: a page's own style (the docs page's).
    pub head: &'a str,
    /// The page is written in the request's language and links to itself
    /// in the other one; `false` for a page in English only (the docs).
    pub translated: bool,
}

impl<'a> Frame<'a> {
    pub(crate) fn new(title: &'a str, canonical: &'a str) -> Self {
        Frame {
            title,
            canonical,
            releases: None,
            script: false,
            head: "",
            translated: true,
        }
    }
}

/// The search form: an address or an AS number, kept in the box.
pub(super) fn lookup_form(value: &str, view: &View) -> String {
    let lang = view.lang;
    let hidden = if view.lang_in_query {
        format!(
            "<input type=\"hidden\" name=\"lang\" value=\"{}\">",
            lang.code()
        )
    } else {
        String::new()
    };
    format!(
        "<form action=\"/\" method=\"get\" role=\"search\"><input name=\"ip\" value=\"{}\" placeholder=\"{}\" aria-label=\"{}\" autocomplete=\"off\" spellcheck=\"false\" required>{hidden}<button type=\"submit\">{}</button></form>",
        esc(value),
        Msg::LookUpPlaceholder.text(lang),
        Msg::LookUpPlaceholder.text(lang),
        Msg::LookUp.text(lang),
    )
}

/// A flag image for the country `code`, empty when the set has none.
pub(crate) fn flag_img(code: Option<&str>) -> String {
    flag_tag(code, "")
}

/// [`flag_img`] for a list of countries, most of them below the first
/// screen: loaded only when scrolled near (`loading="lazy"`).
pub(crate) fn flag_img_lazy(code: Option<&str>) -> String {
    flag_tag(code, " loading=\"lazy\" decoding=\"async\"")
}

fn flag_tag(code: Option<&str>, attributes: &str) -> String {
    match code.and_then(super::flags::flag) {
        Some(f) => format!(
            "<img class=\"flag\" src=\"{}\" alt=\"\" width=\"24\" height=\"18\"{attributes}>",
            f.path
        ),
        None => String::new(),
    }
}

/// The id of the footer. The head asks the browser not to render before
/// the parser has reached it (`<link rel="expect" blocking="render">`,
/// HTML's render-blocking; browsers without it render as before), so the
/// page is laid out and painted once, whole. Without it Chromium lays out
/// the first chunk of a large page, paints, then lays out the rest in a
/// second long task after the first paint, which Lighthouse counts as
/// blocking time (issue 32; BENCHMARKS.md, "Seventeenth session").
pub(crate) const PAGE_END: &str = "page-end";

/// The whole document: the bar (home, docs, the other language), the body,
/// and the footer (attribution, data releases, flags credit, docs links).
pub(crate) fn document(frame: &Frame, body: &str, view: &View) -> String {
    let lang = view.lang;
    let other = if lang == Lang::En { Lang::Bn } else { Lang::En };
    let switch = View {
        lang: other,
        lang_in_query: true,
        host: None,
    };
    let canonical = strip_lang(frame.canonical);
    let script = if frame.script {
        format!("<script src=\"{}\" defer></script>", assets::script().path)
    } else {
        String::new()
    };
    let releases = frame
        .releases
        .map(|r| {
            format!(
                "<p id=\"releases\">{}</p>",
                esc(&Msg::DataReleases.fill(lang, &[&lang.date(&r.country), &lang.date(&r.asn)]))
            )
        })
        .unwrap_or_default();
    let md_sep = if canonical.contains('?') { '&' } else { '?' };
    // The other language: a link in the bar, only where the page exists in
    // it. No `<link rel="alternate" hreflang>` in the head: search engines
    // want its URL absolute (issue 32, Lighthouse's SEO audit), and the
    // renderers know no base URL (`--public-url` or the request's scheme).
    let lang_link = if frame.translated {
        let href = esc(&switch.href(&canonical));
        format!(
            "<a id=\"lang-link\" lang=\"{oc}\" hreflang=\"{oc}\" href=\"{href}\">{}</a>",
            other.own_name(),
            oc = other.code()
        )
    } else {
        String::new()
    };
    // The licence's attribution and the flags' credit are names: English on
    // every page (marked as such on a page in another language).
    let en = if lang == Lang::En { "" } else { " lang=\"en\"" };
    // The flags' credit, on the pages that show a flag.
    let flags_credit = if body.contains("<img class=\"flag\"") {
        format!(
            "{} <a id=\"flags-credit\" href=\"{FLAGS_URL}\"{en}>flag-icons</a> (MIT) · ",
            Msg::FlagsCreditName.text(lang)
        )
    } else {
        String::new()
    };
    format!(
        "<!doctype html><html lang=\"{code}\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><link rel=\"icon\" href=\"data:,\"><link rel=\"expect\" href=\"#{PAGE_END}\" blocking=\"render\"><title>{t} · iplookup</title><meta name=\"description\" content=\"IP address lookup: country, network, ASN, range.\"><link rel=\"alternate\" type=\"text/markdown\" href=\"{c}{md_sep}format=md\"><style>{STYLE}</style>{script}{head}</head><body><div class=\"bar\"><a class=\"brand\" href=\"{home}\">iplookup</a><nav><a href=\"/docs\" hreflang=\"en\">{api_docs}</a>{lang_link}</nav></div><main>{body}<footer id=\"{PAGE_END}\"><p><a href=\"{ATTRIBUTION_URL}\"{en}>{ATTRIBUTION_TEXT}</a> (CC BY 4.0) · {asn_also} · {centroids}</p>{releases}<p>{flags_credit}<a href=\"/api/v1/openapi.json\">OpenAPI</a> · <a href=\"/llms.txt\">llms.txt</a></p></footer></main></body></html>\n",
        code = lang.code(),
        t = esc(frame.title),
        c = esc(&canonical),
        home = esc(&view.href("/")),
        asn_also = Msg::AsnAlso.text(lang),
        centroids = Msg::Centroids.text(lang),
        api_docs = Msg::ApiDocs.text(lang),
        head = frame.head,
    )
}

/// Where the flags come from (credited in the footer like the data).
const FLAGS_URL: &str = "https://github.com/lipis/flag-icons";

/// A path without its `lang=` query parameter.
fn strip_lang(path: &str) -> String {
    let Some((base, query)) = path.split_once('?') else {
        return path.to_owned();
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.starts_with("lang=") && !p.is_empty())
        .collect();
    if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    }
}

/// Escapes text for HTML content and attribute values; control and bidi
/// characters (see [`is_unsafe`]) are dropped, tabs and line breaks become spaces.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(' '),
            c if is_unsafe(c) => {}
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
