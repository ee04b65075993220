//! Private and special addresses explained (issue 14, section 4, and issue
//! 23, point 3), over a real loopback socket: every answer names the IANA
//! special-purpose block of an address, `special_purpose` (`{name, rfc,
//! rfc_url, range}` or null): the JSON of both lookups and of the pages, the
//! batch's JSON, NDJSON and CSV, the single-field route, MCP and the OpenAPI
//! schema; every other field keeps its meaning. The text, Markdown and HTML
//! pages name the entry and its RFC right after its block and say in a
//! sentence what it is for, linking the RFC; the root page and
//! `/api/v1/me` of a caller on loopback add the `--trusted-proxy` hint. An
//! ordinary address has null and no such line; a block the registry marks
//! globally reachable (192.0.0.9, 64:ff9b::/96) is named, its address still
//! public.

use serde_json::Value;

use crate::support::{self, SPECIAL_KEYS, TestServer, http::get, wire};

/// Address, its registry block, and the entry as the pages must name it
/// (the IANA registry's name and its "RFC" column).
const CASES: &[(&str, &str, &str)] = &[
    ("10.1.2.3", "10.0.0.0/8", "Private-Use (RFC 1918)"),
    ("127.0.0.1", "127.0.0.0/8", "Loopback (RFC 1122)"),
    (
        "192.0.2.1",
        "192.0.2.0/24",
        "Documentation (TEST-NET-1, RFC 5737)",
    ),
    (
        "100.64.0.1",
        "100.64.0.0/10",
        "Shared Address Space (RFC 6598)",
    ),
    ("::1", "::1/128", "Loopback Address (RFC 4291)"),
    ("fd00::1", "fc00::/7", "Unique-Local (RFC 4193, RFC 8190)"),
    ("2001:db8::1", "2001:db8::/32", "Documentation (RFC 3849)"),
    ("fe80::1", "fe80::/10", "Link-Local Unicast (RFC 4291)"),
    // IPv6 space the IANA IPv6 Address Space registry keeps back.
    ("4000::1", "4000::/3", "Reserved by IETF (RFC 4291)"),
    ("::808:808", "::/8", "Reserved by IETF (RFC 4291)"),
    ("e000::1", "e000::/4", "Reserved by IETF (RFC 4291)"),
    ("fec0::1", "fec0::/10", "Site-Local (deprecated, RFC 3879)"),
];

/// The `special_purpose` object the JSON of `ip` must carry.
fn expected(ip: &str) -> Value {
    let (name, rfc, range) = match ip {
        "10.1.2.3" => ("Private-Use", "RFC 1918", "10.0.0.0/8"),
        "127.0.0.1" => ("Loopback", "RFC 1122", "127.0.0.0/8"),
        "192.0.2.1" => ("Documentation (TEST-NET-1)", "RFC 5737", "192.0.2.0/24"),
        "100.64.0.1" => ("Shared Address Space", "RFC 6598", "100.64.0.0/10"),
        "::1" => ("Loopback Address", "RFC 4291", "::1/128"),
        "fd00::1" => ("Unique-Local", "RFC 4193, RFC 8190", "fc00::/7"),
        "2001:db8::1" => ("Documentation", "RFC 3849", "2001:db8::/32"),
        "fe80::1" => ("Link-Local Unicast", "RFC 4291", "fe80::/10"),
        "4000::1" => ("Reserved by IETF", "RFC 4291", "4000::/3"),
        "::808:808" => ("Reserved by IETF", "RFC 4291", "::/8"),
        "e000::1" => ("Reserved by IETF", "RFC 4291", "e000::/4"),
        "fec0::1" => ("Site-Local (deprecated)", "RFC 3879", "fec0::/10"),
        "192.0.0.9" => ("Port Control Protocol Anycast", "RFC 7723", "192.0.0.9/32"),
        "64:ff9b::808:808" => ("IPv4-IPv6 Translation", "RFC 6052", "64:ff9b::/96"),
        _ => return Value::Null,
    };
    let number = rfc.split(", ").next().unwrap().trim_start_matches("RFC ");
    serde_json::json!({
        "name": name,
        "rfc": rfc,
        "rfc_url": format!("https://www.rfc-editor.org/rfc/rfc{number}"),
        "range": range,
    })
}

/// The English sentence each page shows for the entry (the first words).
fn sentence_start(ip: &str) -> &'static str {
    match ip {
        "10.1.2.3" => "Private addresses are for the networks inside homes",
        "127.0.0.1" => "A loopback address never leaves the machine",
        "192.0.2.1" | "2001:db8::1" => "This block is reserved for examples in documentation",
        "100.64.0.1" => "Shared address space is what an internet provider gives",
        "::1" => "::1 never leaves the machine",
        "fd00::1" => "Unique local addresses are IPv6's private addresses",
        "fe80::1" => "fe80::/10 addresses exist on every IPv6 interface",
        "4000::1" | "::808:808" | "e000::1" => {
            "This part of the IPv6 space is kept back by the IETF"
        }
        "fec0::1" => "fec0::/10 was IPv6's first form of private addresses",
        _ => panic!("no sentence for {ip}"),
    }
}

const PROXY_HINT: &str = "start the service with --trusted-proxy naming the proxy";

async fn page(srv: &TestServer, path: &str) -> String {
    let (status, _, body) = get(&support::client(), &srv.url(path)).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

/// The value of the `key:` line of an aligned text page, and the line before it.
fn text_row<'a>(body: &'a str, key: &str) -> Option<(&'a str, &'a str)> {
    let lines: Vec<&str> = body.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&format!("{key}:")))?;
    let value = lines[at][key.len() + 1..].trim();
    Some((value, if at > 0 { lines[at - 1] } else { "" }))
}

/// The keys of `IpInfo` and its parts: the specification's, then
/// `special_purpose`, null or `{name, rfc, rfc_url, range}`.
fn assert_json_keys(v: &Value, what: &str) {
    let keys = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v
            .as_object()
            .unwrap_or_else(|| panic!("{what}: not an object: {v}"))
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    };
    let sorted = |k: &[&str]| {
        let mut k: Vec<String> = k.iter().map(|s| s.to_string()).collect();
        k.sort();
        k
    };
    assert_eq!(keys(v), sorted(support::TOP_KEYS), "{what}: {v}");
    assert_eq!(
        keys(&v["location"]),
        sorted(support::LOCATION_KEYS),
        "{what}: {v}"
    );
    assert_eq!(
        keys(&v["network"]),
        sorted(support::NETWORK_KEYS),
        "{what}: {v}"
    );
    if !v["special_purpose"].is_null() {
        assert_eq!(
            keys(&v["special_purpose"]),
            sorted(SPECIAL_KEYS),
            "{what}: {v}"
        );
    }
}

#[tokio::test]
async fn text_pages_name_the_registry_entry_after_the_range_and_explain_it() {
    let srv = support::start(support::config()).await;
    for &(ip, block, entry) in CASES {
        for path in [
            format!("/{ip}?format=text"),
            format!("/api/v1/ip/{ip}?format=text"),
        ] {
            let body = page(&srv, &path).await;
            let (value, before) = text_row(&body, "special_purpose")
                .unwrap_or_else(|| panic!("{path}: no special_purpose line:\n{body}"));
            assert_eq!(value, entry, "{path}:\n{body}");
            assert!(before.starts_with("range:"), "{path}:\n{body}");
            assert_eq!(before["range:".len()..].trim(), block, "{path}:\n{body}");
            let (about, before) = text_row(&body, "about").expect("an about: line");
            assert!(before.starts_with("special_purpose:"), "{path}:\n{body}");
            assert!(about.starts_with(sentence_start(ip)), "{path}:\n{body}");
            assert!(about.contains("no location"), "{path}:\n{body}");
            assert!(!about.contains(PROXY_HINT), "{path}: not the caller's page");
            let (url, _) = text_row(&body, "rfc_url").expect("an rfc_url: line");
            assert_eq!(url, expected(ip)["rfc_url"], "{path}:\n{body}");
        }
    }
}

#[tokio::test]
async fn markdown_pages_name_the_registry_entry_and_explain_it() {
    let srv = support::start(support::config()).await;
    for &(ip, block, entry) in CASES {
        for path in [
            format!("/{ip}?format=md"),
            format!("/api/v1/ip/{ip}?format=md"),
        ] {
            let body = page(&srv, &path).await;
            let rows = format!("| range | {block} |\n| special_purpose | {entry} |\n");
            assert!(body.contains(&rows), "{path}: no\n{rows}in\n{body}");
            let want = expected(ip);
            let rfc = want["rfc"].as_str().unwrap().split(", ").next().unwrap();
            let link = format!("[{rfc}]({})", want["rfc_url"].as_str().unwrap());
            let para = body
                .lines()
                .find(|l| l.starts_with("**"))
                .unwrap_or_else(|| panic!("{path}: no explanation paragraph:\n{body}"));
            assert!(para.contains(sentence_start(ip)), "{path}: {para}");
            assert!(
                para.ends_with(&format!("Defined in {link}.")),
                "{path}: {para}"
            );
        }
    }
}

#[tokio::test]
async fn html_pages_name_the_registry_entry_and_explain_it() {
    let srv = support::start(support::config()).await;
    for &(ip, block, entry) in CASES {
        for path in [
            format!("/{ip}?format=html"),
            format!("/api/v1/ip/{ip}?format=html"),
        ] {
            let body = page(&srv, &path).await;
            // The range opens its prefix page.
            let cells =
                format!("<dt>Range</dt><dd id=\"range\"><a href=\"/{block}\">{block}</a></dd>");
            assert!(body.contains(&cells), "{path}: no {cells} in\n{body}");
            let cells = format!(
                "<div><dt>Special-purpose block</dt><dd id=\"special-block\">{entry}</dd></div>"
            );
            assert!(body.contains(&cells), "{path}: no {cells} in\n{body}");
            let lead = format!("<span id=\"special\">{entry}</span>");
            assert!(body.contains(&lead), "{path}: no {lead} in\n{body}");
            let want = expected(ip);
            let rfc = want["rfc"].as_str().unwrap().split(", ").next().unwrap();
            let about = body
                .split("<p id=\"special-about\">")
                .nth(1)
                .and_then(|rest| rest.split("</p>").next())
                .unwrap_or_else(|| panic!("{path}: no #special-about:\n{body}"));
            let start = sentence_start(ip).replace('\'', "&#39;");
            assert!(about.starts_with(&start), "{path}: {about}");
            let link = format!(
                "<a id=\"special-rfc\" href=\"{}\">{rfc}</a>",
                want["rfc_url"].as_str().unwrap()
            );
            assert!(about.contains(&link), "{path}: no {link} in {about}");
            // In Bangla: the block's Bangla name and sentence (not English
            // marked as such), the same RFC link.
            let body = page(&srv, &format!("{path}&lang=bn")).await;
            assert!(
                body.starts_with("<!doctype html><html lang=\"bn\">"),
                "{path}"
            );
            let about = body
                .split("<p id=\"special-about\">")
                .nth(1)
                .and_then(|rest| rest.split("</p>").next())
                .unwrap_or_else(|| panic!("{path} bn: no #special-about:\n{body}"));
            assert!(about.contains("কোনো অবস্থান নেই"), "{path} bn: {about}");
            assert!(!about.contains(&start), "{path} bn: English: {about}");
            assert!(about.contains(&link), "{path} bn: no {link} in {about}");
            let entry_bn = body
                .split("<dd id=\"special-block\">")
                .nth(1)
                .and_then(|rest| rest.split("</dd>").next())
                .unwrap_or_default();
            assert!(
                entry_bn.contains(rfc)
                    && entry_bn
                        .chars()
                        .any(|c| ('\u{980}'..='\u{9ff}').contains(&c)),
                "{path} bn: block {entry_bn}"
            );
        }
    }
}

/// The JSON of both lookups, of the address page and of the root carries
/// `special_purpose`; every other field keeps its meaning (not public, the
/// block as `network.range`, no location).
#[tokio::test]
async fn json_answers_carry_special_purpose() {
    let srv = support::start(support::config()).await;
    for &(ip, block, _) in CASES {
        for path in [format!("/api/v1/ip/{ip}"), format!("/{ip}?format=json")] {
            let v = srv.get_json(&path).await;
            assert_json_keys(&v, &path);
            assert_eq!(v["special_purpose"], expected(ip), "{path}: {v}");
            assert_eq!(v["is_public"], Value::Bool(false), "{path}: {v}");
            assert_eq!(v["network"]["range"], Value::from(block), "{path}: {v}");
            assert!(
                v["location"]
                    .as_object()
                    .unwrap()
                    .values()
                    .all(Value::is_null),
                "{path}: {v}"
            );
        }
        // The single field: the block's name.
        let (status, headers, body) = get(
            &support::client(),
            &srv.url(&format!("/api/v1/ip/{ip}/special_purpose")),
        )
        .await;
        assert_eq!(status, 200, "{ip}: {body}");
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/plain")
        );
        assert_eq!(
            body,
            format!("{}\n", expected(ip)["name"].as_str().unwrap()),
            "{ip}"
        );
    }
    // An ordinary address: null, an empty line.
    let v = srv.get_json("/api/v1/ip/8.8.8.8").await;
    assert_json_keys(&v, "8.8.8.8");
    assert_eq!(v["special_purpose"], Value::Null, "{v}");
    let (_, _, body) = get(
        &support::client(),
        &srv.url("/api/v1/ip/8.8.8.8/special_purpose"),
    )
    .await;
    assert_eq!(body, "\n");
}

/// The batch route in its three formats and the MCP tools carry it too.
#[tokio::test]
async fn batch_ndjson_csv_and_mcp_carry_special_purpose() {
    let srv = support::start(support::config()).await;
    let ips = ["10.1.2.3", "8.8.8.8", "fd00::1", "192.0.0.9"];
    let body = serde_json::to_vec(&ips).unwrap();
    let post = |accept: &'static str| {
        let body = body.clone();
        let addr = srv.addr;
        async move {
            let headers = [("Content-Type", "application/json"), ("Accept", accept)];
            let r = wire::send(addr, "POST", "/api/v1/ip", &headers, &body).await;
            assert_eq!(r.status, 200, "{accept}: {}", r.body);
            r.body
        }
    };
    let json: Vec<Value> = serde_json::from_str(&post("application/json").await).unwrap();
    let ndjson: Vec<Value> = post("application/x-ndjson")
        .await
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (i, ip) in ips.iter().enumerate() {
        assert_eq!(json[i]["special_purpose"], expected(ip), "JSON {ip}");
        assert_eq!(ndjson[i]["special_purpose"], expected(ip), "NDJSON {ip}");
    }
    let csv = post("text/csv").await;
    let mut reader = ::csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = header
        .iter()
        .position(|h| h == "special_purpose")
        .expect("a special_purpose column");
    assert_eq!(header.get(column + 1), Some("error"), "{header:?}");
    assert_eq!(header.get(column - 1), Some("reverse_dns"), "{header:?}");
    let cells: Vec<String> = reader
        .records()
        .map(|r| r.unwrap()[column].to_owned())
        .collect();
    assert_eq!(
        cells,
        [
            "Private-Use",
            "",
            "Unique-Local",
            "Port Control Protocol Anycast"
        ]
    );

    // MCP: lookup_ip's structured content, and its output schema.
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "lookup_ip", "arguments": {"ip": "10.1.2.3"}}});
    let r = wire::send(
        srv.addr,
        "POST",
        "/mcp",
        &headers,
        &serde_json::to_vec(&call).unwrap(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let answer = r.json();
    assert_eq!(
        answer["result"]["structuredContent"]["special_purpose"],
        expected("10.1.2.3"),
        "{answer}"
    );
    let list = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let r = wire::send(
        srv.addr,
        "POST",
        "/mcp",
        &headers,
        &serde_json::to_vec(&list).unwrap(),
    )
    .await;
    let tools = r.json()["result"]["tools"].clone();
    let tool = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "lookup_ip")
        .unwrap()
        .clone();
    let schema = tool["outputSchema"].to_string();
    assert!(
        schema.contains("special_purpose") && schema.contains("rfc_url"),
        "{schema}"
    );
}

/// The OpenAPI document describes `special_purpose` and each of its
/// properties (the docs are built from these descriptions).
#[tokio::test]
async fn the_openapi_schema_describes_special_purpose() {
    let srv = support::start(support::config()).await;
    let doc = srv.get_json("/api/v1/openapi.json").await;
    let schemas = &doc["components"]["schemas"];
    let field = &schemas["IpInfo"]["properties"]["special_purpose"];
    assert!(field.to_string().contains("SpecialPurpose"), "{field}");
    assert!(field.to_string().contains("null"), "nullable: {field}");
    let special = &schemas["SpecialPurpose"];
    for key in SPECIAL_KEYS {
        let description = special["properties"][key]["description"]
            .as_str()
            .unwrap_or_default();
        assert!(!description.is_empty(), "{key}: {special}");
    }
    let mut required: Vec<&str> = special["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    required.sort();
    let mut want = SPECIAL_KEYS.to_vec();
    want.sort();
    assert_eq!(required, want);
    let field_param = doc.to_string();
    assert!(
        field_param.contains("\"special_purpose\""),
        "the field parameter's enum"
    );
}

#[tokio::test]
async fn ordinary_addresses_have_no_registry_line() {
    let srv = support::start(support::config()).await;
    for ip in ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"] {
        for format in ["text", "md", "html"] {
            let path = format!("/{ip}?format={format}");
            let body = page(&srv, &path).await;
            for marker in [
                "special_purpose",
                "special-purpose",
                "special-about",
                "RFC ",
            ] {
                assert!(!body.contains(marker), "{path}: {marker:?} in\n{body}");
            }
        }
        let v = srv.get_json(&format!("/api/v1/ip/{ip}")).await;
        assert_eq!(v["is_public"], Value::Bool(true), "{ip}: {v}");
        assert_eq!(v["special_purpose"], Value::Null, "{ip}: {v}");
        assert_json_keys(&v, ip);
    }
}

/// Blocks the registry marks globally reachable are named, and their
/// addresses stay public: what the data says of them is kept.
#[tokio::test]
async fn globally_reachable_blocks_are_named_and_stay_public() {
    let srv = support::start(support::config()).await;
    for ip in ["192.0.0.9", "64:ff9b::808:808"] {
        let v = srv.get_json(&format!("/api/v1/ip/{ip}")).await;
        assert_json_keys(&v, ip);
        assert_eq!(v["is_public"], Value::Bool(true), "{ip}: {v}");
        assert_eq!(v["special_purpose"], expected(ip), "{ip}: {v}");
        assert_ne!(
            v["network"]["range"],
            expected(ip)["range"],
            "{ip}: the data's range, not the block"
        );
        let text = page(&srv, &format!("/{ip}?format=text")).await;
        let (about, _) = text_row(&text, "about").expect("about:");
        assert!(
            about.contains("reachable on the internet") || about.contains("what the data says"),
            "{ip}: {about}"
        );
        assert!(!about.contains("no location"), "{ip}: {about}");
    }
}

#[tokio::test]
async fn the_root_page_of_a_loopback_caller_names_its_entry_and_the_proxy_flag() {
    let v4 = support::start(support::config()).await;
    let mut cfg = support::config();
    cfg.listen = "[::1]:0".parse().unwrap();
    let v6 = support::start(cfg).await;
    for (srv, block, entry) in [
        (&v4, "127.0.0.0/8", "Loopback (RFC 1122)"),
        (&v6, "::1/128", "Loopback Address (RFC 4291)"),
    ] {
        let md = page(srv, "/?format=md").await;
        let rows = format!("| range | {block} |\n| special_purpose | {entry} |\n");
        assert!(md.contains(&rows), "root Markdown: no\n{rows}in\n{md}");
        assert!(
            md.contains(PROXY_HINT),
            "root Markdown: no proxy hint in\n{md}"
        );
        let html = page(srv, "/?format=html").await;
        let cell = format!("<dt>Special-purpose block</dt><dd id=\"special-block\">{entry}</dd>");
        assert!(html.contains(&cell), "root HTML: no {cell} in\n{html}");
        assert!(
            html.contains(PROXY_HINT),
            "root HTML: no proxy hint in\n{html}"
        );
        let me = page(srv, "/api/v1/me?format=text").await;
        assert_eq!(text_row(&me, "special_purpose").map(|r| r.0), Some(entry));
        assert!(
            text_row(&me, "about").is_some_and(|r| r.0.contains(PROXY_HINT)),
            "{me}"
        );
        // An address page of the same address is not the caller's: no hint.
        let ip = srv.addr.ip().to_string();
        let other = page(srv, &format!("/{ip}?format=md")).await;
        assert!(!other.contains(PROXY_HINT), "{other}");
        // The root's text form stays the bare address.
        let bare = page(srv, "/?format=text").await;
        assert_eq!(bare.trim_end(), ip);
        let root = srv.get_json("/?format=json").await;
        assert_json_keys(&root, "root JSON");
        assert_eq!(root["special_purpose"], expected(&ip), "{root}");
        assert_json_keys(&srv.get_json("/api/v1/me").await, "/api/v1/me");
    }
}

/// The text answer of an address that is not public leaves out its empty
/// keys (no location, no AS: `about` says once why) and stays aligned; a
/// public address keeps every key, empty or not.
#[tokio::test]
async fn the_text_of_a_private_address_has_no_empty_keys_and_stays_aligned() {
    let srv = support::start(support::config()).await;
    for path in ["/10.1.2.3?format=text", "/api/v1/ip/10.1.2.3?format=text"] {
        let body = page(&srv, path).await;
        let lines: Vec<&str> = body.lines().collect();
        assert!(lines.len() >= 6, "{path}:\n{body}");
        let column = |l: &str| {
            let (key, rest) = l.split_once(':').expect("key: value");
            key.len() + 1 + rest.len() - rest.trim_start().len()
        };
        let at = column(lines[0]);
        for line in &lines {
            let (_, value) = line.split_once(':').expect("key: value");
            assert!(
                !value.trim().is_empty(),
                "{path}: empty key {line:?}\n{body}"
            );
            assert_eq!(column(line), at, "{path}: not aligned {line:?}\n{body}");
        }
        for key in ["country_code", "country", "asn", "latitude", "reverse_dns"] {
            assert!(text_row(&body, key).is_none(), "{path}: {key}\n{body}");
        }
        for key in ["ip", "is_public", "range", "special_purpose", "source"] {
            assert!(text_row(&body, key).is_some(), "{path}: no {key}\n{body}");
        }
        let (about, _) = text_row(&body, "about").expect("about:");
        assert!(about.contains("no location"), "{path}: {about}");
    }
    let public = page(&srv, "/8.8.8.8?format=text").await;
    assert_eq!(text_row(&public, "city").map(|r| r.0), Some(""), "{public}");
}
