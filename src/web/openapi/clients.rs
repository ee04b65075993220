//! The generated clients' calls that `/docs` shows beside the lookups, after
//! `curl` (issue 31): Python (openapi-python-client), TypeScript
//! (openapi-typescript + openapi-fetch) and Rust (progenitor, the workspace's
//! `crates/iplookup-client`). Each snippet is a call the suite makes against
//! the live server: the lines between `example: OPERATION` and
//! `end example` in `tests/py/python_client_calls.py`,
//! `tests/ts/openapi_fetch_calls.ts` and `tests/it/rust_client.rs`,
//! dedented. They are copied here rather than included because the image
//! builds from `src/` without `tests/`; the test
//! `every_shown_snippet_is_a_marked_tested_call` holds the two equal.

use super::super::render::ClientExample;

/// A client language: its tab's name and the generator behind it.
pub(crate) struct Language {
    /// The tab's key (`data-lang`) and the file marker's comment.
    pub(crate) key: &'static str,
    pub(crate) name: &'static str,
    pub(crate) generator: &'static str,
    /// The tested file holding its calls, from the repository's root (read
    /// by the test that holds the snippets to it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) file: &'static str,
}

pub(crate) const PYTHON: Language = Language {
    key: "python",
    name: "Python",
    generator: "openapi-python-client",
    file: "tests/py/python_client_calls.py",
};

pub(crate) const TYPESCRIPT: Language = Language {
    key: "typescript",
    name: "TypeScript",
    generator: "openapi-typescript + openapi-fetch",
    file: "tests/ts/openapi_fetch_calls.ts",
};

pub(crate) const RUST: Language = Language {
    key: "rust",
    name: "Rust",
    generator: "iplookup-client (progenitor)",
    file: "tests/it/rust_client.rs",
};

/// The languages, in the tabs' order (after `curl`).
pub(crate) const LANGUAGES: [&Language; 3] = [&PYTHON, &TYPESCRIPT, &RUST];

/// Every snippet: the operation, the language, the code.
pub(crate) const SNIPPETS: &[(&str, &Language, &str)] = &[
    (
        "api_ip",
        &PYTHON,
        r#"client = Client(base_url=base, timeout=httpx.Timeout(30.0))
info = api_ip.sync(ip="8.8.8.8", client=client)"#,
    ),
    ("api_me", &PYTHON, "me = api_me.sync(client=client)"),
    (
        "api_me_field",
        &PYTHON,
        r#"mine = api_me_field.sync(field=FieldParam.COUNTRY_CODE, client=client)"#,
    ),
    (
        "api_ip_field",
        &PYTHON,
        r#"field = api_ip_field.sync(ip="8.8.8.8", field=FieldParam.COUNTRY_CODE, client=client)"#,
    ),
    (
        "api_ip_batch",
        &PYTHON,
        r#"body = ["8.8.8.8", "2001:4860:4860::8888", "not-an-ip"]
batch = api_ip_batch.sync(client=client, body=body)"#,
    ),
    (
        "api_asn",
        &PYTHON,
        r#"asn = api_asn.sync(asn="AS15169", client=client)"#,
    ),
    (
        "api_asn_csv",
        &PYTHON,
        r#"csv = api_asn_csv.sync(asn="AS15169", client=client)"#,
    ),
    (
        "api_prefix",
        &PYTHON,
        r#"prefix = api_prefix.sync(network="8.8.8.0", length="24", client=client)"#,
    ),
    (
        "api_country",
        &PYTHON,
        r#"country = api_country.sync(cc="US", client=client)"#,
    ),
    (
        "curl_ip",
        &PYTHON,
        r#"ip_line = curl_ip.sync(client=client, ip="8.8.8.8")"#,
    ),
    (
        "curl_country",
        &PYTHON,
        r#"country_line = curl_country.sync(client=client, ip="8.8.8.8")"#,
    ),
    (
        "curl_country_iso",
        &PYTHON,
        r#"iso_line = curl_country_iso.sync(client=client, ip="8.8.8.8")"#,
    ),
    (
        "curl_asn",
        &PYTHON,
        r#"asn_line = curl_asn.sync(client=client, ip="8.8.8.8")"#,
    ),
    (
        "curl_asn_org",
        &PYTHON,
        r#"org_line = curl_asn_org.sync(client=client, ip="8.8.8.8")"#,
    ),
    (
        "curl_city",
        &PYTHON,
        r#"city_line = curl_city.sync(client=client, ip="8.8.8.8")"#,
    ),
    (
        "curl_coordinates",
        &PYTHON,
        r#"coordinates = curl_coordinates.sync(client=client, ip="8.8.8.8")"#,
    ),
    (
        "curl_json",
        &PYTHON,
        r#"whole = curl_json.sync(client=client, ip="8.8.8.8")"#,
    ),
    (
        "api_ip",
        &TYPESCRIPT,
        r#"const api = createClient<paths, "application/json">({ baseUrl: base });
const { data: info, error: ipError } = await api.GET("/api/v1/ip/{ip}", {
  params: { path: { ip: "8.8.8.8" } },
});"#,
    ),
    (
        "api_me",
        &TYPESCRIPT,
        r#"const me = await api.GET("/api/v1/me");"#,
    ),
    (
        "api_me_field",
        &TYPESCRIPT,
        r#"const mine = await api.GET("/api/v1/me/{field}", {
  params: { path: { field: "country_code" } },
  parseAs: "text",
});"#,
    ),
    (
        "api_ip_field",
        &TYPESCRIPT,
        r#"const field = await api.GET("/api/v1/ip/{ip}/{field}", {
  params: { path: { ip: "8.8.8.8", field: "country_code" } },
  parseAs: "text",
});"#,
    ),
    (
        "api_ip_batch",
        &TYPESCRIPT,
        r#"const body = ["8.8.8.8", "2001:4860:4860::8888", "not-an-ip"];
const batch = await api.POST("/api/v1/ip", { body });"#,
    ),
    (
        "api_asn",
        &TYPESCRIPT,
        r#"const asn = await api.GET("/api/v1/asn/{asn}", { params: { path: { asn: "AS15169" } } });"#,
    ),
    (
        "api_asn_csv",
        &TYPESCRIPT,
        r#"const csv = await api.GET("/api/v1/asn/{asn}/prefixes.csv", {
  params: { path: { asn: "AS15169" } },
  parseAs: "text",
});"#,
    ),
    (
        "api_prefix",
        &TYPESCRIPT,
        r#"const prefix = await api.GET("/api/v1/prefix/{network}/{length}", {
  params: { path: { network: "8.8.8.0", length: "24" } },
});"#,
    ),
    (
        "api_country",
        &TYPESCRIPT,
        r#"const country = await api.GET("/api/v1/country/{cc}", { params: { path: { cc: "US" } } });"#,
    ),
    (
        "curl_ip",
        &TYPESCRIPT,
        r#"const ipLine = await api.GET("/ip", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });"#,
    ),
    (
        "curl_country",
        &TYPESCRIPT,
        r#"const countryLine = await api.GET("/country", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });"#,
    ),
    (
        "curl_country_iso",
        &TYPESCRIPT,
        r#"const isoLine = await api.GET("/country-iso", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });"#,
    ),
    (
        "curl_asn",
        &TYPESCRIPT,
        r#"const asnLine = await api.GET("/asn", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });"#,
    ),
    (
        "curl_asn_org",
        &TYPESCRIPT,
        r#"const orgLine = await api.GET("/asn-org", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });"#,
    ),
    (
        "curl_city",
        &TYPESCRIPT,
        r#"const cityLine = await api.GET("/city", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });"#,
    ),
    (
        "curl_coordinates",
        &TYPESCRIPT,
        r#"const coordinates = await api.GET("/coordinates", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });"#,
    ),
    (
        "curl_json",
        &TYPESCRIPT,
        r#"const whole = await api.GET("/json", { params: { query: { ip: "8.8.8.8" } } });"#,
    ),
    (
        "api_ip",
        &RUST,
        r#"let client = Client::new(&base);
let info = client.api_ip(&"8.8.8.8".parse()?, None).await?.into_inner();"#,
    ),
    (
        "api_me",
        &RUST,
        "let me = client.api_me(None).await?.into_inner();",
    ),
    (
        "api_me_field",
        &RUST,
        r#"let answer = client.api_me_field(types::FieldParam::Version).await?;
let version = answer
    .into_inner_stream()
    .map_ok(|b| b.to_vec())
    .try_concat()
    .await?;"#,
    ),
    (
        "api_ip_field",
        &RUST,
        r#"let answer = client
    .api_ip_field(&"8.8.8.8".parse()?, types::FieldParam::CountryCode)
    .await?;
let country = answer
    .into_inner_stream()
    .map_ok(|b| b.to_vec())
    .try_concat()
    .await?;"#,
    ),
    (
        "api_ip_batch",
        &RUST,
        r#"let body = vec!["8.8.8.8".to_owned(), "not-an-ip".to_owned()];
let entries = client.api_ip_batch(None, &body).await?.into_inner();"#,
    ),
    (
        "api_asn",
        &RUST,
        r#"let asn = client
    .api_asn(&"AS15169".parse()?, None, None, None, None)
    .await?
    .into_inner();"#,
    ),
    (
        "api_asn_csv",
        &RUST,
        r#"let answer = client.api_asn_csv(&"AS15169".parse()?).await?;
let csv = answer
    .into_inner_stream()
    .map_ok(|b| b.to_vec())
    .try_concat()
    .await?;"#,
    ),
    (
        "api_prefix",
        &RUST,
        r#"let prefix = client
    .api_prefix(&"8.8.8.0".parse()?, &"24".parse()?, None)
    .await?
    .into_inner();"#,
    ),
    (
        "api_country",
        &RUST,
        r#"let country = client.api_country(&"US".parse()?, None).await?.into_inner();"#,
    ),
    (
        "curl_ip",
        &RUST,
        "let ip_line = client.curl_ip(Some(&google)).await?;",
    ),
    (
        "curl_country",
        &RUST,
        r#"let country_line = client.curl_country(Some(&google)).await?;"#,
    ),
    (
        "curl_country_iso",
        &RUST,
        r#"let iso_line = client.curl_country_iso(Some(&google)).await?;"#,
    ),
    (
        "curl_asn",
        &RUST,
        "let asn_line = client.curl_asn(Some(&google)).await?;",
    ),
    (
        "curl_asn_org",
        &RUST,
        "let org_line = client.curl_asn_org(Some(&google)).await?;",
    ),
    (
        "curl_city",
        &RUST,
        "let city_line = client.curl_city(Some(&google)).await?;",
    ),
    (
        "curl_coordinates",
        &RUST,
        "let answer = client.curl_coordinates(Some(&google)).await?;",
    ),
    (
        "curl_json",
        &RUST,
        "let json = client.curl_json(None).await?.into_inner();",
    ),
];

/// The client calls shown for operation `id`, in the tabs' order.
pub(crate) fn for_operation(id: &str) -> Vec<ClientExample> {
    LANGUAGES
        .iter()
        .flat_map(|lang| {
            SNIPPETS
                .iter()
                .filter(move |(op, l, _)| *op == id && l.key == lang.key)
                .map(|(_, l, code)| ClientExample {
                    language: l.key.to_owned(),
                    name: l.name.to_owned(),
                    generator: l.generator.to_owned(),
                    code: (*code).to_owned(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::collections::BTreeSet;

    /// The marked regions of `file`: (operation, dedented text).
    fn marked(file: &str) -> Vec<(String, String)> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut out = Vec::new();
        let mut open: Option<(String, Vec<&str>)> = None;
        for line in text.lines() {
            let t = line.trim_start();
            let comment = t.strip_prefix("# ").or_else(|| t.strip_prefix("// "));
            match (comment, &mut open) {
                (Some(c), None) if c.starts_with("example: ") => {
                    open = Some((c["example: ".len()..].trim().to_owned(), Vec::new()));
                }
                (Some("end example"), Some(_)) => {
                    let (op, lines) = open.take().expect("open region");
                    let indent = lines
                        .iter()
                        .filter(|l| !l.trim().is_empty())
                        .map(|l| l.len() - l.trim_start().len())
                        .min()
                        .unwrap_or(0);
                    let body: Vec<&str> = lines
                        .iter()
                        .map(|l| l.get(indent..).unwrap_or(""))
                        .collect();
                    out.push((op, body.join("\n")));
                }
                (_, Some((_, lines))) => lines.push(line),
                _ => {}
            }
        }
        assert!(open.is_none(), "{file}: an `example:` region is not closed");
        out
    }

    #[test]
    fn every_shown_snippet_is_a_marked_tested_call() {
        for lang in LANGUAGES {
            let found: BTreeSet<(String, String)> = marked(lang.file).into_iter().collect();
            let shown: BTreeSet<(String, String)> = SNIPPETS
                .iter()
                .filter(|(_, l, _)| l.key == lang.key)
                .map(|(op, _, code)| ((*op).to_owned(), (*code).to_owned()))
                .collect();
            assert_eq!(
                shown, found,
                "src/web/openapi/clients.rs shows other {} calls than {} marks (`example: OPERATION` .. `end example`): copy the marked lines, dedented",
                lang.name, lang.file
            );
        }
    }

    #[test]
    fn api_ip_has_a_call_in_every_language() {
        let shown: Vec<String> = for_operation("api_ip")
            .into_iter()
            .map(|c| c.language)
            .collect();
        assert_eq!(shown, ["python", "typescript", "rust"]);
    }

    /// Every lookup (tag `lookup`: the API's and ifconfig.co's one-line
    /// routes) has a tested call in every language: the ones of the Rust
    /// client's file, which calls every lookup operation, are the list.
    #[test]
    fn every_api_lookup_has_a_call_in_every_language() {
        let ops: BTreeSet<String> = marked(RUST.file).into_iter().map(|(op, _)| op).collect();
        assert!(ops.len() >= 17, "{ops:?}");
        for op in &ops {
            let shown: Vec<String> = for_operation(op).into_iter().map(|c| c.language).collect();
            assert_eq!(shown, ["python", "typescript", "rust"], "{op}");
        }
    }
}
