//! The route table: every path the service answers, as data. Per route its
//! template (as the router and the OpenAPI document write it), the default
//! format of its answers per kind of client, the format its errors come in,
//! how long caches may keep its answers and whether the limits apply to it.
//!
//! Everything that needs a route's policy reads it here: the router
//! ([`super::router`]), the hot path ([`super::hot`]), the common layer and
//! its refusals ([`super::common`], [`crate::web::serve::refusal`]), every handler's
//! answer and error, and the OpenAPI document ([`super::openapi`]). So they
//! cannot disagree.
//!
//! The rule for errors (docs/API.md, "Endpoints"): an error comes in the format of
//! the route's [`Route::errors`] for the kind of client, unless `?format=` or
//! `Accept` names an offered format. Every error of a route, a 400 or a 404
//! from its handler as much as a 414, 429, 408 or 503 from the limits in
//! front of it, follows the same rule: for a browser an HTML page on the
//! pages, JSON on the API.

use crate::web::serve::negotiate::{ClientKind, Format};

mod paths;

/// A format for each kind of client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Defaults {
    pub browser: Format,
    pub command_line: Format,
    pub other: Format,
}

impl Defaults {
    /// The same format for every client.
    pub(crate) const fn all(format: Format) -> Self {
        Defaults {
            browser: format,
            command_line: format,
            other: format,
        }
    }

    /// The format for `kind`.
    pub(crate) fn pick(&self, kind: ClientKind) -> Format {
        match kind {
            ClientKind::Browser => self.browser,
            ClientKind::CommandLine => self.command_line,
            ClientKind::Other => self.other,
        }
    }
}

/// The pages' defaults: HTML for browsers, plain text for command-line
/// clients and other programs.
pub(crate) const PAGE: Defaults = Defaults {
    browser: Format::Html,
    command_line: Format::Text,
    other: Format::Text,
};

/// JSON for everyone.
pub(crate) const JSON: Defaults = Defaults::all(Format::Json);

/// What a route answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Produces {
    /// A page in the four formats (`?format=`, `Accept`), these by default.
    Negotiated(Defaults),
    /// A document of one media type.
    Fixed(&'static str),
}

/// How long caches may keep a successful answer (errors are never kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caching {
    /// Depends on who asks (`/`, `/api/v1/me`): never stored.
    PerCaller,
    /// Same answer for everyone until the data changes: kept briefly.
    Shared,
    /// Description documents: kept an hour (private when built from the
    /// request's `Host`, see [`crate::web::serve::base::BaseUrl`]).
    Document,
    /// Content-addressed assets: kept a year.
    Immutable,
}

impl Caching {
    /// The `Cache-Control` value of a successful answer.
    pub(crate) const fn header(self) -> &'static str {
        match self {
            Caching::PerCaller => "no-store",
            Caching::Shared => "public, max-age=300",
            Caching::Document => "public, max-age=3600",
            Caching::Immutable => "public, max-age=31536000, immutable",
        }
    }
}

/// One route and its policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Route {
    /// The path template (`{name}` is one non-empty segment).
    pub template: &'static str,
    pub answer: Produces,
    /// The default format of every error on this route, per client.
    pub errors: Defaults,
    pub caching: Caching,
    /// Behind the rate limit (429) and the in-flight cap (a slot, 503 when
    /// none frees up in time). Probes and scrapers are not.
    pub limited: bool,
    /// Described in the OpenAPI document.
    pub documented: bool,
}

const fn page(template: &'static str, caching: Caching) -> Route {
    Route {
        template,
        answer: Produces::Negotiated(PAGE),
        errors: PAGE,
        caching,
        limited: true,
        documented: true,
    }
}

const fn api(template: &'static str, caching: Caching) -> Route {
    Route {
        template,
        answer: Produces::Negotiated(JSON),
        errors: JSON,
        caching,
        limited: true,
        documented: true,
    }
}

const fn document(template: &'static str, media_type: &'static str, errors: Defaults) -> Route {
    Route {
        template,
        answer: Produces::Fixed(media_type),
        errors,
        caching: Caching::Document,
        limited: true,
        documented: true,
    }
}

/// `/`: the caller (bare address for command-line clients), or the lookup form's redirect.
pub(crate) const ROOT: Route = page("/", Caching::PerCaller);
/// `/{ip}`: the page of an address (and every other one-segment path: 404).
pub(crate) const ADDRESS: Route = page("/{ip}", Caching::Shared);
/// `/AS{asn}`: the page of an autonomous system (`/as{asn}` too, through
/// [`ADDRESS`]'s handler, which owns every other one-segment path).
pub(crate) const ASN_PAGE: Route = page("/AS{asn}", Caching::Shared);
/// `/{network}/{length_or_field}`: the page of a prefix (`/8.8.8.0/24`: digits
/// after the address), or one field of an address as a line of text
/// (`/8.8.8.8/country_code`, as `/api/v1/ip/{ip}/{field}`); one route,
/// its handler dispatching on the second segment ([`super::network`]).
pub(crate) const PREFIX_PAGE: Route = page("/{network}/{length_or_field}", Caching::Shared);
/// `/country/{cc}`: the page of a country (`BD`, `bd`).
pub(crate) const COUNTRY_PAGE: Route = page("/country/{cc}", Caching::Shared);
/// `/docs`: the API documentation for people.
pub(crate) const DOCS: Route = page("/docs", Caching::Document);
/// `/docs/try`: a try-it form of `/docs` without JavaScript; redirects to the answer.
pub(crate) const DOCS_TRY: Route = Route {
    documented: false,
    ..page("/docs/try", Caching::PerCaller)
};
/// `/api/v1/me`: the caller, through the API.
pub(crate) const API_ME: Route = api("/api/v1/me", Caching::PerCaller);
/// `/api/v1/ip/{ip}`: one address (the hot route).
pub(crate) const API_IP: Route = api("/api/v1/ip/{ip}", Caching::Shared);
/// `/api/v1/asn/{asn}`: one autonomous system.
pub(crate) const API_ASN: Route = api("/api/v1/asn/{asn}", Caching::Shared);
/// `/api/v1/asn/{asn}/prefixes.csv`: every prefix of an AS, as CSV.
pub(crate) const API_ASN_CSV: Route = Route {
    answer: Produces::Fixed(CSV_TEXT),
    ..api("/api/v1/asn/{asn}/prefixes.csv", Caching::Shared)
};
/// `/api/v1/prefix/{network}/{length}`: one prefix in the data (JSON; its
/// page in the other formats comes with the view model).
pub(crate) const API_PREFIX: Route = Route {
    answer: Produces::Fixed(JSON_TEXT),
    ..api("/api/v1/prefix/{network}/{length}", Caching::Shared)
};
/// `/api/v1/prefix/{prefix}`: the prefix in one segment (`8.8.8.0%2F24`),
/// or an address without its length (400 `invalid_prefix`, naming `/32`).
pub(crate) const API_PREFIX_ONE: Route = Route {
    documented: false,
    answer: Produces::Fixed(JSON_TEXT),
    ..api("/api/v1/prefix/{prefix}", Caching::Shared)
};
/// `/api/v1/country/{cc}`: one country, its address space and its ASes (JSON).
pub(crate) const API_COUNTRY: Route = Route {
    answer: Produces::Fixed(JSON_TEXT),
    ..api("/api/v1/country/{cc}", Caching::Shared)
};
/// The media type of the JSON-only answers.
pub(crate) const JSON_TEXT: &str = "application/json";
/// The media type of [`API_ASN_CSV`].
pub(crate) const CSV_TEXT: &str = "text/csv; charset=utf-8";
/// `/api/v1/asn/`: the AS number is missing (400).
pub(crate) const API_ASN_MISSING: Route = Route {
    documented: false,
    ..api("/api/v1/asn/", Caching::PerCaller)
};
/// `/api/v1/ip/{ip}/{field}`: one field of an address's answer, as plain text.
pub(crate) const API_IP_FIELD: Route = Route {
    answer: Produces::Fixed(FIELD_TEXT),
    ..api("/api/v1/ip/{ip}/{field}", Caching::Shared)
};
/// `/api/v1/me/{field}`: one field of the caller's answer, as plain text.
pub(crate) const API_ME_FIELD: Route = Route {
    answer: Produces::Fixed(FIELD_TEXT),
    ..api("/api/v1/me/{field}", Caching::PerCaller)
};
/// `POST /api/v1/ip`: many addresses at once (JSON, NDJSON or CSV by
/// `Accept`, see [`super::batch`]); errors in JSON.
pub(crate) const API_IP_BATCH: Route = Route {
    answer: Produces::Fixed("application/json"),
    ..api("/api/v1/ip", Caching::PerCaller)
};
/// The media type of a single field.
pub(crate) const FIELD_TEXT: &str = "text/plain; charset=utf-8";
/// `/api/v1/ip/`: the address is missing (400).
pub(crate) const API_IP_MISSING: Route = Route {
    documented: false,
    ..api("/api/v1/ip/", Caching::PerCaller)
};
/// `/api/v1/ip//{field}`: the address is missing before a field (400, as
/// [`API_IP_MISSING`]; a doubled slash from joining `base + "/" + ip` with
/// an empty address, not a field named by the address).
pub(crate) const API_IP_FIELD_MISSING: Route = Route {
    documented: false,
    ..api("/api/v1/ip//{field}", Caching::PerCaller)
};
/// One of ifconfig.co's routes (`/ip`, `/country`, ...): one line of text
/// about the caller, or about `?ip=` ([`crate::web::address::ifconfig`]); errors JSON.
const fn curl_line(template: &'static str) -> Route {
    Route {
        answer: Produces::Fixed(FIELD_TEXT),
        ..api(template, Caching::PerCaller)
    }
}
/// `/ip`: the address, bare.
pub(crate) const CURL_IP: Route = curl_line("/ip");
/// `/json`: the IpInfo of the caller or of `?ip=`.
pub(crate) const CURL_JSON: Route = Route {
    answer: Produces::Fixed(JSON_TEXT),
    ..curl_line("/json")
};
/// `/country`: the country's name. Exact: the country page `/country/{cc}`
/// has one more segment.
pub(crate) const CURL_COUNTRY: Route = curl_line("/country");
/// `/country-iso`: the country code.
pub(crate) const CURL_COUNTRY_ISO: Route = curl_line("/country-iso");
/// `/city`: the city (an empty line when unknown).
pub(crate) const CURL_CITY: Route = curl_line("/city");
/// `/asn`: `AS15169`.
pub(crate) const CURL_ASN: Route = curl_line("/asn");
/// `/asn-org`: the AS's organisation.
pub(crate) const CURL_ASN_ORG: Route = curl_line("/asn-org");
/// `/coordinates`: `lat,lon`.
pub(crate) const CURL_COORDINATES: Route = curl_line("/coordinates");
/// `/healthz`: the loaded releases; neither rate-limited nor queued.
pub(crate) const HEALTHZ: Route = Route {
    limited: false,
    ..api("/healthz", Caching::PerCaller)
};
/// `/metrics`: Prometheus; neither rate-limited nor queued.
pub(crate) const METRICS: Route = Route {
    template: "/metrics",
    answer: Produces::Fixed("text/plain; version=0.0.4; charset=utf-8"),
    errors: Defaults::all(Format::Text),
    caching: Caching::PerCaller,
    limited: false,
    documented: true,
};
/// `/api/v1/openapi.json`.
pub(crate) const OPENAPI: Route = document("/api/v1/openapi.json", "application/json", JSON);
/// `/api/v1/openapi-3.0.json`: the same document converted to OpenAPI 3.0.
pub(crate) const OPENAPI_30: Route = document("/api/v1/openapi-3.0.json", "application/json", JSON);
/// `/openapi.json`, where tools look first: a permanent redirect to [`OPENAPI`].
pub(crate) const OPENAPI_ALIAS: Route = Route {
    documented: false,
    ..document("/openapi.json", "application/json", JSON)
};
/// `/llms.txt`.
pub(crate) const LLMS_TXT: Route = document("/llms.txt", "text/markdown; charset=utf-8", PAGE);
/// `/robots.txt` (RFC 9309): crawlers may read the pages, not the API.
pub(crate) const ROBOTS_TXT: Route = Route {
    documented: false,
    ..document("/robots.txt", "text/plain; charset=utf-8", PAGE)
};
/// `/.well-known/api-catalog` (RFC 9727).
pub(crate) const API_CATALOG: Route = document(
    "/.well-known/api-catalog",
    "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"",
    JSON,
);
/// The MCP server card.
pub(crate) const SERVER_CARD: Route = document(
    "/.well-known/mcp/server-card.json",
    "application/mcp-server-card+json",
    JSON,
);
/// The MCP server card again, at the shorter name.
pub(crate) const SERVER_CARD_ALIAS: Route = Route {
    documented: false,
    ..document("/.well-known/mcp", "application/mcp-server-card+json", JSON)
};
/// The agent skills index.
pub(crate) const SKILLS_INDEX: Route = document(
    "/.well-known/agent-skills/index.json",
    "application/json",
    JSON,
);
/// The agent skill.
pub(crate) const SKILL_MD: Route = document(
    "/.well-known/agent-skills/iplookup/SKILL.md",
    "text/markdown; charset=utf-8",
    PAGE,
);
/// `/mcp`: JSON-RPC (`POST`, answered by rmcp; its own refusals carry
/// `no-store`); a plain `GET` gets the server card, with [`SERVER_CARD`]'s
/// media type and caching.
pub(crate) const MCP: Route = Route {
    template: "/mcp",
    answer: Produces::Fixed("application/json"),
    errors: JSON,
    caching: Caching::PerCaller,
    limited: true,
    documented: true,
};
/// `/assets/{file}`: the pages' static files, by content-hashed name.
pub(crate) const ASSETS: Route = Route {
    template: "/assets/{file}",
    answer: Produces::Fixed("image/svg+xml"),
    errors: JSON,
    caching: Caching::Immutable,
    limited: true,
    documented: true,
};

/// `/api/{rest}`: one segment under `/api/` that no route names (`/api/v2`):
/// the API's 404 in JSON, as [`API_UNKNOWN`] answers; declared so the
/// router does not give it to [`PREFIX_PAGE`], which would take it.
pub(crate) const API_UNKNOWN_ONE: Route = Route {
    documented: false,
    ..api("/api/{rest}", Caching::PerCaller)
};
/// Any other path under `/api/`: 404 in JSON.
pub(crate) const API_UNKNOWN: Route = Route {
    documented: false,
    ..api("/api/{*rest}", Caching::PerCaller)
};
/// Any other path: 404 as a page.
pub(crate) const PAGE_UNKNOWN: Route = Route {
    documented: false,
    ..page("/{*rest}", Caching::PerCaller)
};

/// Every route the router serves. No two of them name the same path
/// ([`shadowed`], held by a test), so the router's choice never depends on
/// their order; the order is the one `/docs` and the OpenAPI document list
/// the described ones in.
pub(crate) const ALL: &[&Route] = &[
    // The lookups.
    &API_ME,
    &API_IP,
    &API_ME_FIELD,
    &API_IP_FIELD,
    &API_IP_BATCH,
    &API_ASN,
    &API_ASN_CSV,
    &API_PREFIX,
    &API_COUNTRY,
    // ifconfig.co's routes, for curl.
    &CURL_IP,
    &CURL_JSON,
    &CURL_COUNTRY,
    &CURL_COUNTRY_ISO,
    &CURL_CITY,
    &CURL_ASN,
    &CURL_ASN_ORG,
    &CURL_COORDINATES,
    // The pages.
    &ROOT,
    &ADDRESS,
    &ASN_PAGE,
    &PREFIX_PAGE,
    &COUNTRY_PAGE,
    &DOCS,
    &ASSETS,
    // For tools and agents.
    &OPENAPI,
    &OPENAPI_30,
    &LLMS_TXT,
    &API_CATALOG,
    &SERVER_CARD,
    &MCP,
    &SKILLS_INDEX,
    &SKILL_MD,
    // For the operator.
    &HEALTHZ,
    &METRICS,
    // Not described: aliases, missing parts, the fallback.
    &DOCS_TRY,
    &OPENAPI_ALIAS,
    &SERVER_CARD_ALIAS,
    &ROBOTS_TXT,
    &API_IP_MISSING,
    &API_IP_FIELD_MISSING,
    &API_ASN_MISSING,
    &API_PREFIX_ONE,
    &API_UNKNOWN_ONE,
    &PAGE_UNKNOWN,
];

impl Route {
    /// The default format of an answer for `kind` (a fixed document's
    /// errors aside, its only format).
    pub(crate) fn answer_default(&self, kind: ClientKind) -> Format {
        match self.answer {
            Produces::Negotiated(defaults) => defaults.pick(kind),
            Produces::Fixed(_) => self.errors.pick(kind),
        }
    }

    /// The default format of an error for `kind`.
    pub(crate) fn error_default(&self, kind: ClientKind) -> Format {
        self.errors.pick(kind)
    }
}

/// The route of a template the router matched (`MatchedPath`), if it is one.
pub(crate) fn by_template(template: &str) -> Option<&'static Route> {
    ALL.iter().copied().find(|r| r.template == template)
}

/// The route that answers `path`, for the answers given where the router's
/// match is not at hand (the 503 of a client at its in-flight cap before
/// the router runs, the 405 of a path's other methods), in the route's
/// error format: of the routes whose template matches it, the one with
/// the most literal text (as the router picks `/docs` over `/{ip}`; no two
/// could take one address, [`shadowed`]), else the fallback. Held equal to
/// the router's choice by a test.
pub(crate) fn for_path(path: &str) -> &'static Route {
    ALL.iter()
        .copied()
        .filter(|r| !r.template.contains("{*"))
        .filter(|r| paths::template_matches(r.template, path))
        .max_by_key(|r| paths::literal_bytes(r.template))
        .unwrap_or_else(|| fallback(path))
}

/// The first pair of routes of `table` that would name one path (the
/// router would answer it by one and hide it from the other), if any:
/// [`paths::shadowed`] on their templates.
pub(crate) fn shadowed<'a>(table: &[&'a Route]) -> Option<(&'a str, &'a str)> {
    paths::shadowed(table.iter().map(|r| r.template))
}

/// The 404 route of a path no route names.
pub(crate) fn fallback(path: &str) -> &'static Route {
    if path == "/api" || path.starts_with("/api/") {
        &API_UNKNOWN
    } else {
        &PAGE_UNKNOWN
    }
}

#[cfg(test)]
pub(crate) mod tests;
