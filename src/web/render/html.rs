//! HTML: a small, fast page that works without JavaScript and reads well on a
//! phone: the address, its country (with the Bangla name), network and local
//! time, a world map with the country highlighted and the centroid marked, a
//! lookup form, links to the other forms, and the DB-IP attribution.
//!
//! Nothing from other origins: styles are inline, and the map is this
//! service's own asset (`/assets/world.HASH.svg`, see [`crate::web::assets`]),
//! drawn as an SVG `<image>` under the highlighted country's outline and the
//! pin, so a page carries one country's outline instead of the whole map.

use std::fmt::Write;

use super::map;
use super::page::{
    ATTRIBUTION_TEXT, ATTRIBUTION_URL, AsnPage, LookupKind, LookupPage, Page, SPECIAL_ROW,
    asn_links, asn_summary, links, listed, lookup_rows, percent,
};
use crate::fields::sanitize::is_unsafe;
use crate::model::IpInfo;
use crate::web::origin::FamilyOrigins;

pub(super) const STYLE: &str = r#"
:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#15181d;--muted:#5b6470;--card:#fff;--line:#dfe3e8;--accent:#0b63ce;--land:#cfd6de;--hit:#e4572e}
@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--fg:#e8ebef;--muted:#9aa4b1;--card:#171b21;--line:#2a3038;--accent:#6aa9ff;--land:#39424d;--hit:#ff7a50}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans Bengali",sans-serif;background:var(--bg);color:var(--fg)}
main{max-width:960px;margin:0 auto;padding:1.25rem}a{color:var(--accent)}
header{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem 1rem;justify-content:space-between}
h1{font-size:clamp(1.5rem,5vw,2.4rem);margin:.2rem 0;word-break:break-all;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.lead{font-size:1.25rem;margin:.25rem 0 1rem}.flag{font-size:1.6rem;vertical-align:-.15rem}.muted{color:var(--muted)}
form{display:flex;gap:.5rem;margin:1rem 0}input{flex:1;min-width:0;font:inherit;padding:.55rem .7rem;border:1px solid var(--line);border-radius:.5rem;background:var(--card);color:var(--fg)}
button{font:inherit;padding:.55rem 1rem;border:0;border-radius:.5rem;background:#0b5cc0;color:#fff;cursor:pointer}
.map{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:.5rem;margin:1rem 0}
.map svg{display:block;width:100%;height:auto}.map path{fill:var(--land);stroke:var(--card);stroke-width:.3}
.map path.hit{fill:var(--hit)}.map .pin{fill:none;stroke:var(--fg);stroke-width:2}
dl{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:.75rem;margin:1rem 0;padding:0}
dl div{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:.6rem .8rem}
dt{font-size:.8rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}dd{margin:0;word-break:break-word}
footer{margin-top:1.5rem;font-size:.9rem;color:var(--muted)}footer p{margin:.3rem 0}
"#;

pub fn page(page: &Page) -> String {
    match page {
        Page::Lookup(p) => lookup(p),
        Page::Asn(p) => asn_html(p),
        Page::Health(h) => {
            let mut body = format!("<h1>Health: {}</h1><dl>", esc(h.status));
            for (name, t) in h.tables() {
                body.push_str(&cell(&format!("{name} release"), &t.release_date));
                body.push_str(&cell(&format!("{name} rows"), &t.rows.to_string()));
                body.push_str(&cell(&format!("{name} source"), &t.source));
            }
            for r in &h.refused {
                let what = format!("{}: {}", r.file, r.reason);
                body.push_str(&cell(&format!("refused {}", r.table), &what));
            }
            body.push_str("</dl>");
            document("Health", &body, "/healthz")
        }
        // Rendered by `super::docs::html` (see `Page::render`).
        Page::Docs(_) => String::new(),
        Page::Error(e) => {
            let body = format!(
                "<h1>{}</h1><p class=\"lead\">{}</p>{}<p><a href=\"/\">Home</a> · <a href=\"/docs\">API documentation</a></p><p class=\"muted\">Status {} · error <code>{}</code></p>",
                esc(e.headline()),
                esc(e.body.message.as_deref().unwrap_or(e.body.error.as_str())),
                lookup_form(e.input.as_deref().unwrap_or("")),
                e.status.as_u16(),
                e.body.error,
            );
            document(e.headline(), &body, "/")
        }
    }
}

fn lookup(p: &LookupPage) -> String {
    let (info, kind) = (&p.info, p.kind);
    let l = &info.location;
    let (page_path, api_path) = links(info);
    let self_path = if kind == LookupKind::Root {
        "/".to_owned()
    } else {
        page_path.clone()
    };
    let heading = if matches!(kind, LookupKind::Root | LookupKind::ApiMe) {
        "Your IP address"
    } else {
        "IP address"
    };
    let mut body = String::new();
    let _ = write!(
        body,
        "<header><div><p class=\"muted\">{heading}</p><h1 id=\"ip\">{}</h1></div></header>",
        esc(&info.ip)
    );
    let place = match (&l.country, &l.country_bn) {
        (Some(name), Some(bn)) => format!(
            "<span class=\"flag\" aria-hidden=\"true\">{}</span> <span id=\"country\">{}</span> <span class=\"muted\" lang=\"bn\" id=\"country-bn\">{}</span>",
            esc(l.flag.as_deref().unwrap_or("")),
            esc(name),
            esc(bn)
        ),
        (Some(name), None) => format!("<span id=\"country\">{}</span>", esc(name)),
        _ if info.is_public == Some(false) => match &p.special {
            Some(s) => format!(
                "<span id=\"special\">{}</span>: a special-purpose address, no location",
                esc(&s.label())
            ),
            None => "Private or special-purpose address: no location".to_owned(),
        },
        _ => "No location data for this address".to_owned(),
    };
    let _ = write!(body, "<p class=\"lead\">{place}</p>");
    if let (Some(words), Some(special)) = (p.special_words(), &p.special) {
        let _ = write!(
            body,
            "<p id=\"special-about\">{} Defined in <a href=\"{}\">{}</a>.</p>",
            esc(&words),
            esc(&special.rfc_url),
            esc(special.rfcs.first().copied().unwrap_or_default()),
        );
    }
    if let Some(families) = p.families.as_deref().filter(|_| kind == LookupKind::Root) {
        body.push_str(&family_addresses(families));
    }
    body.push_str(&lookup_form(if kind == LookupKind::Address {
        &info.ip
    } else {
        ""
    }));
    body.push_str(&map(info));
    body.push_str("<dl>");
    for (key, value) in lookup_rows(p) {
        if key == "ip" || key == "flag" || value.is_empty() {
            continue;
        }
        match info.network.asn.filter(|_| key == "asn") {
            Some(asn) => {
                let _ = write!(
                    body,
                    "<div><dt>ASN</dt><dd><a id=\"asn-link\" href=\"{}\">{asn}</a></dd></div>",
                    asn_links(asn).0
                );
            }
            None => body.push_str(&cell(&label(key), &value)),
        }
    }
    body.push_str("</dl>");
    let sep = if self_path.contains('?') { '&' } else { '?' };
    let _ = write!(
        body,
        "<p>This page as <a href=\"{api}\">JSON</a> · <a href=\"{p}{sep}format=md\">Markdown</a> · <a href=\"{p}{sep}format=text\">text</a>. <a href=\"/docs\">API documentation</a></p>",
        api = esc(&api_path),
        p = esc(&self_path),
    );
    document(&info.ip, &body, &self_path)
}

/// The script of the root page's per-family addresses: each `a[data-me]`
/// asks its origin's `/api/v1/me` and shows the address it answers as its
/// text (`textContent`: never markup). Allowed by its hash in the page's
/// CSP ([`super::csp_for`]), with `connect-src` naming exactly the origins.
pub(super) const FAMILY_SCRIPT: &str = r#"for(const a of document.querySelectorAll("a[data-me]")){fetch(a.dataset.me+"/api/v1/me",{headers:{Accept:"application/json"}}).then(r=>r.ok?r.json():Promise.reject(r.status)).then(j=>{a.textContent=j.ip}).catch(()=>{a.textContent="not reachable"})}"#;

/// "Your IPv4 address: ... · Your IPv6 address: ...": links to the
/// single-family origins (what works without JavaScript), which the script
/// fills in with the addresses they see.
fn family_addresses(families: &FamilyOrigins) -> String {
    let mut out = String::from("<p class=\"families\">");
    for (i, (family, origin)) in families.each().enumerate() {
        let origin = origin.to_string();
        let id = family.to_ascii_lowercase();
        let _ = write!(
            out,
            "{sep}Your {family} address: <a id=\"{id}\" data-me=\"{o}\" href=\"{o}/\">ask {o}</a>",
            sep = if i == 0 { "" } else { " · " },
            o = esc(&origin),
        );
    }
    let _ = write!(out, "</p><script>{FAMILY_SCRIPT}</script>");
    out
}

fn lookup_form(value: &str) -> String {
    format!(
        "<form action=\"/\" method=\"get\" role=\"search\"><input name=\"ip\" value=\"{}\" placeholder=\"Look up an IPv4 or IPv6 address\" aria-label=\"IP address\" autocomplete=\"off\" spellcheck=\"false\" required><button type=\"submit\">Look up</button></form>",
        esc(value)
    )
}

/// The world map (the asset), the country's outline on it marked `hit`, and
/// a pin on the centroid.
fn map(info: &IpInfo) -> String {
    let l = &info.location;
    let (Some(lat), Some(lon)) = (l.latitude, l.longitude) else {
        return String::new();
    };
    let mut svg = String::with_capacity(1024);
    svg.push_str(map::map_open_tag());
    let _ = write!(
        svg,
        "<image href=\"{}\" x=\"0\" y=\"0\" width=\"1000\" height=\"500\"/>",
        map::world_map().path
    );
    if let Some((code, d)) = l
        .country_code
        .as_deref()
        .and_then(|code| Some((code, map::outline(code)?)))
    {
        let _ = write!(
            svg,
            "<path id=\"{}\" class=\"hit\" d=\"{}\"/>",
            esc(code),
            esc(d)
        );
    }
    let (x, y) = ((lon + 180.0) * 1000.0 / 360.0, (90.0 - lat) * 500.0 / 180.0);
    let _ = write!(
        svg,
        "<circle class=\"pin\" id=\"pin\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"7\"><title>centroid {lat}, {lon}</title></circle></svg>"
    );
    let name = l.country.as_deref().unwrap_or("");
    format!(
        "<figure class=\"map\" aria-label=\"World map with {} highlighted\">{svg}</figure>",
        esc(name)
    )
}

fn cell(label: &str, value: &str) -> String {
    format!("<div><dt>{}</dt><dd>{}</dd></div>", esc(label), esc(value))
}

fn label(key: &str) -> String {
    match key {
        "asn" => "ASN".to_owned(),
        "country_bn" => "Country (Bangla)".to_owned(),
        "is_public" => "Public".to_owned(),
        "reverse_dns" => "Reverse DNS".to_owned(),
        SPECIAL_ROW => "IANA special-purpose block".to_owned(),
        other => {
            let s = other.replace('_', " ");
            let mut c = s.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        }
    }
}

fn document(title: &str, body: &str, canonical: &str) -> String {
    document_with(title, "", body, canonical)
}

/// [`document`] with `head` (a page's own style) at the end of its head.
pub(super) fn document_with(title: &str, head: &str, body: &str, canonical: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><link rel=\"icon\" href=\"data:,\"><title>{t} · iplookup</title><meta name=\"description\" content=\"IP address lookup: country, network, ASN, range.\"><link rel=\"alternate\" type=\"text/markdown\" href=\"{c}?format=md\"><style>{STYLE}</style>{head}</head><body><main>{body}<footer><p><a href=\"{ATTRIBUTION_URL}\">{ATTRIBUTION_TEXT}</a> (CC BY 4.0) · ASN data also from RouteViews and NRO (CC BY 4.0) · Coordinates are country centroids, not street addresses.</p><p><a href=\"/docs\">API</a> · <a href=\"/api/v1/openapi.json\">OpenAPI</a> · <a href=\"/llms.txt\">llms.txt</a></p></footer></main></body></html>\n",
        t = esc(title),
        c = esc(canonical),
    )
}

/// Escapes text for HTML content and attribute values; control and bidi
/// characters (see [`is_unsafe`]) are dropped, tabs and line breaks become spaces.
pub fn esc(s: &str) -> String {
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

/// HTML: the heading, the summary cells, a country list and the prefix lists.
fn asn_html(p: &AsnPage) -> String {
    let info = &p.info;
    let (page, api) = asn_links(info.asn);
    let mut body = format!(
        "<header><div><p class=\"muted\">Autonomous system</p><h1 id=\"asn\">AS{}</h1></div></header><p class=\"lead\" id=\"organization\">{}</p><dl>",
        info.asn,
        esc(&info.organization)
    );
    for (key, value) in asn_summary(info).iter().skip(2) {
        body.push_str(&cell(&key.replace('_', " "), value));
    }
    body.push_str("</dl>");
    if !info.countries.is_empty() {
        body.push_str("<section><h2>Countries of its IPv4 space</h2><ul id=\"countries\">");
        for c in &info.countries {
            let _ = write!(
                body,
                "<li>{} ({}): {} addresses, {}</li>",
                esc(&c.country),
                esc(&c.country_code),
                c.addresses,
                percent(c.share)
            );
        }
        body.push_str("</ul></section>");
    }
    for (key, list, more) in listed(&info.prefixes) {
        if list.is_empty() {
            continue;
        }
        let family = if key == "prefix_v4" { "IPv4" } else { "IPv6" };
        let _ = write!(body, "<section><h2>{family} prefixes</h2><ul id=\"{key}\">");
        for n in list {
            let _ = write!(body, "<li><code>{}</code></li>", esc(n));
        }
        if more > 0 {
            let _ = write!(
                body,
                "<li>... {more} more: see <a href=\"{}\">the JSON</a></li>",
                esc(&api)
            );
        }
        body.push_str("</ul></section>");
    }
    let _ = write!(
        body,
        "<p>This page as <a href=\"{api}\">JSON</a> · <a href=\"{p}?format=md\">Markdown</a> · <a href=\"{p}?format=text\">text</a>. <a href=\"/docs\">API documentation</a></p>",
        api = esc(&api),
        p = esc(&page),
    );
    document(&format!("AS{}", info.asn), &body, &page)
}
