//! The HTML page of an address (and of the caller, on `/`): a summary line
//! first (flag, country, AS number and operator, range), then the Network
//! and Location groups ([`super::values`]), each value with the `curl`
//! command that prints it and a copy button (shown by the pages' script;
//! without JavaScript the command is there to select), and the world map
//! sized to its group, with the country highlighted and the centroid
//! marked.

use std::fmt::Write;

use super::html_frame::{Frame, document, esc, flag_img, lookup_form};
use super::i18n::{Lang, Msg};
use super::map;
use super::page::{LookupKind, LookupPage, asn_links, links};
use super::values::{self, Row};
use super::view::View;
use crate::model::IpInfo;
use crate::web::origin::FamilyOrigins;

pub(super) fn lookup(p: &LookupPage, view: &View) -> String {
    let (info, kind, lang) = (&p.info, p.kind, view.lang);
    let (page_path, api_path) = links(info);
    let self_path = if kind == LookupKind::Root {
        "/".to_owned()
    } else {
        page_path.clone()
    };
    let heading = if matches!(kind, LookupKind::Root | LookupKind::ApiMe) {
        Msg::YourIpAddress
    } else {
        Msg::IpAddress
    };
    let mut body = format!(
        "<p class=\"kicker\">{}</p><h1 id=\"ip\">{}</h1>",
        heading.text(lang),
        esc(&info.ip)
    );
    body.push_str(&summary(p, view));
    // What a special-purpose block is for, in the page's language, with its
    // RFC linked.
    if let (Some(words), Some(special)) = (p.special_words_in(lang), &p.special) {
        let _ = write!(
            body,
            "<p id=\"special-about\">{} <a id=\"special-rfc\" href=\"{}\">{}</a></p>",
            esc(&words),
            esc(&special.rfc_url),
            esc(special.rfcs.first().copied().unwrap_or_default()),
        );
    }
    if let Some(families) = p.families.as_deref().filter(|_| kind == LookupKind::Root) {
        body.push_str(&family_addresses(families, lang));
    }
    body.push_str(&lookup_form(
        if kind == LookupKind::Address {
            &info.ip
        } else {
            ""
        },
        view,
    ));
    // The commands: the caller's own fields on `/`, the address's elsewhere.
    let base = match kind {
        LookupKind::Root | LookupKind::ApiMe => "/api/v1/me".to_owned(),
        _ => api_path.clone(),
    };
    let cmd = Commands {
        host: view.host(),
        base: &base,
        lang,
    };
    body.push_str("<div class=\"groups\">");
    let _ = write!(
        body,
        "<section class=\"group\" id=\"network\"><h2>{}</h2><dl>",
        Msg::Network.text(lang)
    );
    for r in values::network(p, lang) {
        body.push_str(&row(&r, &cmd, view));
    }
    body.push_str("</dl></section>");
    let _ = write!(
        body,
        "<section class=\"group\" id=\"location\"><h2>{}</h2>{}",
        Msg::Location.text(lang),
        map_figure(info, lang)
    );
    let rows = values::location(p, lang);
    if rows.is_empty() {
        let why = if info.is_public == Some(false) {
            Msg::PrivateNoLocation
        } else {
            Msg::NoLocation
        };
        let _ = write!(body, "<p class=\"muted\">{}</p>", why.text(lang));
    }
    body.push_str("<dl>");
    for r in rows {
        body.push_str(&row(&r, &cmd, view));
    }
    body.push_str("</dl></section></div>");
    let sep = if self_path.contains('?') { '&' } else { '?' };
    let _ = write!(
        body,
        "<p>{} <a id=\"json-link\" href=\"{api}\">JSON</a> · <a href=\"{p}{sep}format=md\">Markdown</a> · <a href=\"{p}{sep}format=text\">{}</a></p>",
        Msg::ThisPageAs.text(lang),
        Msg::AsText.text(lang),
        api = esc(&api_path),
        p = esc(&view.href(&self_path)),
    );
    let frame = Frame {
        releases: p.releases.as_ref(),
        script: true,
        ..Frame::new(&info.ip, &self_path)
    };
    document(&frame, &body, view)
}

/// The one line people came for: flag and country, AS number and operator,
/// range; or, for an address without a location, why.
fn summary(p: &LookupPage, view: &View) -> String {
    let (info, lang) = (&p.info, view.lang);
    let (l, n) = (&info.location, &info.network);
    let mut parts = Vec::new();
    let name = match lang {
        Lang::Bn => l.country_bn.as_ref().or(l.country.as_ref()),
        Lang::En => l.country.as_ref(),
    };
    match name {
        Some(name) => parts.push(format!(
            "<span>{}<span id=\"country\">{}</span></span>",
            flag_img(l.country_code.as_deref()).replace("\">", "\"> "),
            esc(name)
        )),
        None if info.is_public == Some(false) => parts.push(match &p.special {
            Some(s) => format!(
                "<span><span id=\"special\">{}</span>: {}</span>",
                esc(&s.label_in(lang)),
                Msg::SpecialNoLocation.text(lang)
            ),
            None => format!("<span>{}</span>", Msg::PrivateNoLocation.text(lang)),
        }),
        None => parts.push(format!("<span>{}</span>", Msg::NoLocation.text(lang))),
    }
    if let Some(asn) = n.asn {
        let org = n
            .organization
            .as_deref()
            .map(|o| format!(" <span id=\"summary-org\">{}</span>", esc(o)))
            .unwrap_or_default();
        parts.push(format!(
            "<span><a id=\"summary-asn\" href=\"{}\">AS{asn}</a>{org}</span>",
            esc(&view.href(&asn_links(asn).0))
        ));
    }
    if let Some(range) = &n.range {
        let link = values::range_link(range).unwrap_or_default();
        parts.push(format!(
            "<span><a id=\"summary-range\" class=\"mono\" href=\"{}\">{}</a></span>",
            esc(&view.href(&link)),
            esc(range)
        ));
    }
    format!("<p class=\"summary\" id=\"summary\">{}</p>", parts.join(""))
}

/// How the `curl` commands of a page are written.
struct Commands<'a> {
    host: &'a str,
    /// `/api/v1/ip/{ip}` or `/api/v1/me`.
    base: &'a str,
    lang: Lang,
}

/// One `<div><dt><dd>` row: label, value (linked, in its language) and the
/// commands that print it, each with its copy button. A command too long
/// for its column is cut at its start, after `curl` (`curl …/8.8.8.8/asn`:
/// the URL is right-aligned in its box, kept left-to-right by `<bdo>`), so
/// the field it prints stays in sight; the whole command is what is copied.
fn row(r: &Row, cmd: &Commands, view: &View) -> String {
    let value = match &r.link {
        Some(link) => format!(
            "<a href=\"{}\">{}</a>",
            esc(&view.href(link)),
            esc(&r.value)
        ),
        None => esc(&r.value),
    };
    let lang_attr = r.lang.map(|t| format!(" lang=\"{t}\"")).unwrap_or_default();
    let mut out = format!(
        "<div><dt>{}</dt><dd id=\"{}\"{lang_attr}>{value}</dd>",
        r.label.text(cmd.lang),
        r.id
    );
    for field in r.fields {
        let id = format!("cmd-{field}");
        let _ = write!(
            out,
            "<dd class=\"cmd\"><code class=\"cmd\" id=\"{id}\" title=\"{}\">curl <span class=\"u\"><bdo dir=\"ltr\">{}{}/{field}</bdo></span></code><button type=\"button\" class=\"copy\" data-for=\"{id}\" data-done=\"{}\" hidden>{}</button></dd>",
            Msg::CommandFor.text(cmd.lang),
            esc(cmd.host),
            esc(cmd.base),
            Msg::Copied.text(cmd.lang),
            Msg::Copy.text(cmd.lang),
        );
    }
    out.push_str("</div>");
    out
}

/// The script of the root page's per-family addresses: each `a[data-me]`
/// asks its origin's `/api/v1/me` and shows the address it answers as its
/// text (`textContent`: never markup). Allowed by its hash in the page's
/// CSP ([`super::csp_for`]), with `connect-src` naming exactly the origins.
pub(super) const FAMILY_SCRIPT: &str = r#"for(const a of document.querySelectorAll("a[data-me]")){fetch(a.dataset.me+"/api/v1/me",{headers:{Accept:"application/json"}}).then(r=>r.ok?r.json():Promise.reject(r.status)).then(j=>{a.textContent=j.ip}).catch(()=>{a.textContent=a.dataset.no})}"#;

/// "Your IPv4 address: ... · Your IPv6 address: ...": links to the
/// single-family origins (what works without JavaScript), which the script
/// fills in with the addresses they see.
fn family_addresses(families: &FamilyOrigins, lang: Lang) -> String {
    let mut out = String::from("<p class=\"families\">");
    for (i, (family, origin)) in families.each().enumerate() {
        let origin = origin.to_string();
        let id = family.to_ascii_lowercase();
        let _ = write!(
            out,
            "{sep}{}: <a id=\"{id}\" data-me=\"{o}\" data-no=\"{}\" href=\"{o}/\">{}</a>",
            Msg::YourFamilyAddress.fill(lang, &[family]),
            Msg::NotReachable.text(lang),
            esc(&Msg::AskOrigin.fill(lang, &[&origin])),
            sep = if i == 0 { "" } else { " · " },
            o = esc(&origin),
        );
    }
    let _ = write!(out, "</p><script>{FAMILY_SCRIPT}</script>");
    out
}

/// The world map (the asset), the country's outline on it marked `hit`, and
/// at city accuracy a pin on the city (issue 33: at country accuracy the
/// centroid is no place, so the country is shaded without a pin). A
/// coordinate that is not finite or out of range draws no pin.
fn map_figure(info: &IpInfo, lang: Lang) -> String {
    let l = &info.location;
    let pin = match (l.accuracy, l.latitude, l.longitude) {
        (Some(crate::model::Accuracy::City), Some(lat), Some(lon))
            if (-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon) =>
        {
            Some((lat, lon))
        }
        _ => None,
    };
    let hit = l
        .country_code
        .as_deref()
        .and_then(|code| Some((code, map::outline(code)?)));
    if pin.is_none() && hit.is_none() {
        return String::new();
    }
    let mut svg = String::with_capacity(1024);
    svg.push_str(map::map_open_tag());
    let _ = write!(
        svg,
        "<image href=\"{}\" x=\"0\" y=\"0\" width=\"1000\" height=\"500\"/>",
        map::world_map().path
    );
    if let Some((code, d)) = hit {
        let _ = write!(
            svg,
            "<path id=\"{}\" class=\"hit\" d=\"{}\"/>",
            esc(code),
            esc(d)
        );
    }
    if let Some((lat, lon)) = pin {
        let (x, y) = ((lon + 180.0) * 1000.0 / 360.0, (90.0 - lat) * 500.0 / 180.0);
        let _ = write!(
            svg,
            "<circle class=\"pin\" id=\"pin\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"7\"><title>{}</title></circle>",
            values::coordinates(lat, lon, lang)
        );
    }
    svg.push_str("</svg>");
    let name = match lang {
        Lang::Bn => l.country_bn.as_deref().or(l.country.as_deref()),
        Lang::En => l.country.as_deref(),
    };
    format!(
        "<figure class=\"map\" aria-label=\"{}\">{svg}</figure>",
        esc(&Msg::WorldMap.fill(lang, &[name.unwrap_or("")]))
    )
}
