//! What a hostile data file or request could still do after the first two
//! black-box passes (issue 22, the serving half), over a real socket:
//!
//! - CSV cells are defused after sanitising and past leading white space
//!   and format characters, full-width forms included; text answers drop
//!   U+FEFF and U+200B;
//! - batch and MCP answers are charged by bytes: an answer over one
//!   client's share is refused (413), whatever its entries hold; MCP
//!   `lookup_asn` pages an AS at the data files' bound and charges the page;
//! - the batch route honours `?format=`, skips a BOM before a text batch,
//!   and answers an unsupported `Content-Type` 415 with an Error body, as
//!   `/mcp` does;
//! - `Host: [fe80::1%25eth0]` is 400 `bad_host`;
//! - `If-None-Match: *` is 304 on a `GET` of any page.

use crate::support;

use serde_json::Value;

use support::data::{ANY_ROWS, TempDir, country_csv};
use support::wire::{self, Wire};

async fn post(
    addr: std::net::SocketAddr,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Wire {
    wire::send(addr, "POST", target, headers, body).await
}

/// An Error body with `code`, as JSON.
fn assert_error(w: &Wire, status: u16, code: &str) {
    assert_eq!(w.status, status, "{}: {}", w.what, w.body);
    assert!(
        w.must("content-type").starts_with("application/json"),
        "{}: {:?}",
        w.what,
        w.headers
    );
    let body = w.json();
    assert_eq!(body["error"], code, "{}: {}", w.what, w.body);
    assert!(body["message"].is_string(), "{}: {}", w.what, w.body);
}

/// The CSV cells of the answer's first column, header skipped.
fn first_cells(csv: &str) -> Vec<String> {
    let mut reader = csv::ReaderBuilder::new().from_reader(csv.as_bytes());
    reader
        .records()
        .map(|r| r.expect("a CSV row")[0].to_owned())
        .collect()
}

#[tokio::test]
async fn csv_cells_are_defused_past_white_space_format_characters_and_full_width_forms() {
    let server = support::start(support::config()).await;
    let inputs = [
        "\t=1",
        " =1+1",
        "\u{a0}=1",
        "\u{feff}=1",
        "\u{200b}=1",
        "\u{3000}+1",
        "\u{ff1d}1+1",
        "\u{ff0b}1",
        "\u{ff0d}1",
        "\u{ff20}x",
        " \u{200b}\u{a0}@x",
    ];
    let body = serde_json::to_vec(&inputs).unwrap();
    let w = post(
        server.addr,
        "/api/v1/ip",
        &[("content-type", "application/json"), ("accept", "text/csv")],
        &body,
    )
    .await;
    assert_eq!(w.status, 200, "{}", w.body);
    assert!(
        !w.body.contains(['\u{feff}', '\u{200b}', '\t']),
        "{:?}",
        w.body
    );
    let cells = first_cells(&w.body);
    assert_eq!(cells.len(), inputs.len(), "{}", w.body);
    for (input, cell) in inputs.iter().zip(&cells) {
        assert!(cell.starts_with('\''), "{input:?} came out as {cell:?}");
    }
}

/// The binary serving a small release whose organisation of 8.8.8.0/24
/// hides text behind U+200B, U+FEFF and U+2060, and starts a formula.
fn serve_invisible() -> (TempDir, support::proc::Running) {
    let dir = TempDir::new("invisible");
    dir.write("dbip-country-lite-2026-07.csv", &country_csv(20, "DE"));
    let org = "\u{feff}=ex\u{200b}ample\u{2060} Corp";
    dir.write(
        "dbip-asn-lite-2026-07.csv",
        &support::data::asn_csv(20, 64500, org),
    );
    let server = support::proc::serve(&[
        "--data-dir",
        dir.str(),
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
    ]);
    (dir, server)
}

#[tokio::test(flavor = "multi_thread")]
async fn text_and_markdown_answers_drop_zero_width_spaces_and_byte_order_marks() {
    let (_dir, server) = serve_invisible();
    let json = wire::send(server.addr, "GET", "/api/v1/ip/8.8.8.8", &[], b"").await;
    assert_eq!(
        json.json()["network"]["organization"],
        "\u{feff}=ex\u{200b}ample\u{2060} Corp",
        "JSON keeps the data as it is"
    );
    for target in [
        "/api/v1/ip/8.8.8.8?format=text",
        "/api/v1/ip/8.8.8.8?format=md",
        "/8.8.8.8?format=text",
        "/8.8.8.8?format=md",
        "/8.8.8.8?format=html",
        "/api/v1/ip/8.8.8.8/organization",
    ] {
        let w = wire::send(server.addr, "GET", target, &[], b"").await;
        assert_eq!(w.status, 200, "{target}: {}", w.body);
        assert!(
            !w.body.contains(['\u{feff}', '\u{200b}', '\u{2060}']),
            "{target}: {:?}",
            w.body
        );
        assert!(w.body.contains("example Corp"), "{target}: {}", w.body);
    }
    let csv = post(
        server.addr,
        "/api/v1/ip",
        &[("content-type", "text/plain"), ("accept", "text/csv")],
        b"8.8.8.8\n",
    )
    .await;
    let mut reader = csv::Reader::from_reader(csv.body.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = header.iter().position(|h| h == "organization").unwrap();
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(&row[column], "'=example Corp", "{}", csv.body);
}

#[tokio::test]
async fn the_batch_route_honours_format_in_the_query() {
    let server = support::start(support::config()).await;
    let text = [("content-type", "text/plain")];
    let answer = |target: &'static str| post(server.addr, target, &text, b"8.8.8.8\n1.1.1.1\n");
    let csv = answer("/api/v1/ip?format=csv").await;
    assert_eq!(csv.status, 200, "{}", csv.body);
    assert_eq!(csv.must("content-type"), "text/csv; charset=utf-8");
    assert_eq!(first_cells(&csv.body), ["8.8.8.8", "1.1.1.1"]);
    let nd = answer("/api/v1/ip?format=ndjson").await;
    assert_eq!(nd.must("content-type"), "application/x-ndjson");
    assert_eq!(nd.body.lines().count(), 2, "{}", nd.body);
    let json = answer("/api/v1/ip?format=json").await;
    assert_eq!(json.json().as_array().map(Vec::len), Some(2));
    // The query wins over Accept.
    let both = post(
        server.addr,
        "/api/v1/ip?format=CSV",
        &[
            ("content-type", "text/plain"),
            ("accept", "application/json"),
        ],
        b"8.8.8.8\n",
    )
    .await;
    assert_eq!(both.must("content-type"), "text/csv; charset=utf-8");
    // A format of the pages this route does not offer, and no format.
    assert_error(
        &answer("/api/v1/ip?format=html").await,
        406,
        "not_acceptable",
    );
    assert_error(
        &answer("/api/v1/ip?format=text").await,
        406,
        "not_acceptable",
    );
    assert_error(&answer("/api/v1/ip?format=xml").await, 400, "bad_format");
}

#[tokio::test]
async fn a_text_batch_starting_with_a_byte_order_mark_skips_it() {
    let server = support::start(support::config()).await;
    for (content_type, body) in [
        ("text/plain", &b"\xEF\xBB\xBF8.8.8.8\r\n1.1.1.1\r\n"[..]),
        ("text/plain; charset=utf-8", b"\xEF\xBB\xBF8.8.8.8\n"),
        ("application/json", b"\xEF\xBB\xBF[\"8.8.8.8\"]"),
    ] {
        let w = post(
            server.addr,
            "/api/v1/ip",
            &[("content-type", content_type)],
            body,
        )
        .await;
        assert_eq!(w.status, 200, "{content_type}: {}", w.body);
        let entries = w.json();
        assert_eq!(entries[0]["ip"], "8.8.8.8", "{content_type}: {}", w.body);
        assert!(entries[0].get("error").is_none(), "{}", w.body);
    }
}

#[tokio::test]
async fn an_unsupported_content_type_is_415_with_an_error_body_on_every_route_with_a_body() {
    let server = support::start(support::config()).await;
    let mcp_accept = ("accept", "application/json, text/event-stream");
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for content_type in [
        Some("application/xml"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("text/csv"),
        None,
    ] {
        let mut headers = vec![];
        if let Some(ct) = content_type {
            headers.push(("content-type", ct));
        }
        let batch = post(server.addr, "/api/v1/ip", &headers, b"[\"8.8.8.8\"]").await;
        assert_error(&batch, 415, "unsupported_media_type");
        headers.push(mcp_accept);
        let mcp = post(server.addr, "/mcp", &headers, ping).await;
        assert_error(&mcp, 415, "unsupported_media_type");
    }
    // A body that is JSON in name but not an array of strings stays 400.
    let bad = post(
        server.addr,
        "/api/v1/ip",
        &[("content-type", "application/json")],
        b"{}",
    )
    .await;
    assert_error(&bad, 400, "bad_body");
}

#[tokio::test]
async fn an_ipv6_host_with_a_zone_id_is_a_bad_host() {
    let server = support::start(support::config()).await;
    for host in [
        "[fe80::1%25eth0]",
        "[fe80::1%eth0]:8080",
        "[::1%251]",
        "[v1.x]",
    ] {
        let w = wire::send(
            server.addr,
            "GET",
            "/api/v1/ip/8.8.8.8",
            &[("host", host)],
            b"",
        )
        .await;
        assert_error(&w, 400, "bad_host");
    }
    for host in ["[fe80::1]", "[::1]:8080", "127.0.0.1:80", "example.com"] {
        let w = wire::send(
            server.addr,
            "GET",
            "/api/v1/ip/8.8.8.8",
            &[("host", host)],
            b"",
        )
        .await;
        assert_eq!(w.status, 200, "{host}: {}", w.body);
    }
}

#[tokio::test]
async fn if_none_match_star_is_304_on_a_get_of_any_page() {
    let server = support::start(support::config()).await;
    for target in [
        "/api/v1/ip/8.8.8.8",
        "/api/v1/ip/8.8.8.8/country_code",
        "/8.8.8.8?format=html",
        "/api/v1/me",
        "/api/v1/openapi.json",
        "/llms.txt",
    ] {
        let w = wire::send(server.addr, "GET", target, &[("if-none-match", "*")], b"").await;
        assert_eq!(w.status, 304, "{target}: {}", w.body);
        assert!(w.body.is_empty(), "{target}: {}", w.body);
        let plain = wire::send(server.addr, "GET", target, &[], b"").await;
        assert_eq!(plain.status, 200, "{target}");
    }
    // Only a representation that exists matches: a 404 stays a 404.
    let missing = wire::send(server.addr, "GET", "/nope", &[("if-none-match", "*")], b"").await;
    assert_eq!(missing.status, 404);
}

/// An ASN release whose every organisation is 250 bytes (within the
/// 256-byte cap on strings at load), so that an entry of a batch or of MCP
/// `lookup_ips` is about three times its usual size.
fn long_names_dir() -> TempDir {
    let dir = TempDir::new("long-names");
    dir.write("dbip-country-lite-2026-07.csv", &country_csv(20, "DE"));
    let mut asn = String::new();
    for i in 0..256u32 {
        let org = format!("{i:03} {}", "Long Name Networks ".repeat(13));
        let org = &org[..250];
        asn.push_str(&format!(
            "20.0.{i}.0,20.0.{i}.255,{},\"{org}\"\n",
            64600 + i
        ));
    }
    dir.write("dbip-asn-lite-2026-07.csv", &asn);
    dir
}

/// Addresses in the long-named rows.
fn long_named(n: usize) -> Vec<String> {
    (0..n)
        .map(|k| format!("20.0.{}.{}", k % 256, 1 + k / 256 % 250))
        .collect()
}

/// The server over `dir`'s release (any row count) with `--batch-answer-mib mib`.
fn serve_with_answer_budget(dir: &TempDir, mib: &str) -> support::proc::Running {
    support::proc::serve(&[
        "--data-dir",
        dir.str(),
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
        "--batch-answer-mib",
        mib,
    ])
}

/// With a budget of 1 MiB (a quarter, 256 KiB, per client), a batch whose
/// answer would pass the client's share is refused with 413 whatever the
/// data makes of an entry, and a smaller one is answered; MCP `lookup_ips`
/// gets the tool's error. Before, the answer was built whole, however large
/// its entries.
#[tokio::test(flavor = "multi_thread")]
async fn an_answer_over_the_clients_share_of_bytes_is_refused() {
    let dir = long_names_dir();
    let server = serve_with_answer_budget(&dir, "1");
    let json = [("content-type", "application/json")];
    let big = serde_json::to_vec(&long_named(1000)).unwrap();
    let refused = post(server.addr, "/api/v1/ip", &json, &big).await;
    assert_error(&refused, 413, "body_too_large");
    assert!(
        refused.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("send fewer addresses")),
        "{}",
        refused.body
    );
    let small = serde_json::to_vec(&long_named(100)).unwrap();
    let answered = post(server.addr, "/api/v1/ip", &json, &small).await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    let entries = answered.json();
    assert_eq!(entries.as_array().map(Vec::len), Some(100));
    assert_eq!(
        entries[0]["network"]["organization"].as_str().map(str::len),
        Some(250)
    );
    // MCP: the same tool answer is charged as the MCP library holds it.
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "lookup_ips", "arguments": {"ips": long_named(1000)}}});
    let mcp = post(
        server.addr,
        "/mcp",
        &[
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ],
        &serde_json::to_vec(&call).unwrap(),
    )
    .await;
    assert_eq!(mcp.status, 200, "{}", mcp.body);
    let answer: Value = mcp.json();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(answer.to_string().contains("body_too_large"), "{answer}");
}

/// MCP `lookup_asn` for an AS at the data files' bound (99,540 prefixes):
/// pages of 10,000 prefixes, each charged to the call's batch slot as
/// `lookup_ips` answers are; with a budget too small for one page
/// (`--batch-answer-mib 1`: 256 KiB a client) the tool's error
/// `body_too_large`. Before, the one answer held every prefix, uncharged.
#[tokio::test(flavor = "multi_thread")]
async fn mcp_lookup_asn_pages_an_as_at_the_bound_and_charges_the_page() {
    let dir = TempDir::new("mcp-as-bound");
    dir.write("dbip-country-lite-2026-07.csv", &country_csv(20, "DE"));
    let asn = format!(
        "8.8.8.0,8.8.8.255,15169,\"Google LLC\"\n{}",
        crate::hostile::scattered_rows(790)
    );
    dir.write("dbip-asn-lite-2026-07.csv", &asn);
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    let call = |page: Option<u32>| {
        let mut arguments = serde_json::json!({"asn": "AS64500"});
        if let Some(n) = page {
            arguments["page"] = n.into();
        }
        let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "lookup_asn", "arguments": arguments}});
        serde_json::to_vec(&call).unwrap()
    };
    for (budget, answered) in [("64", true), ("1", false)] {
        let server = serve_with_answer_budget(&dir, budget);
        let mcp = post(server.addr, "/mcp", &headers, &call(None)).await;
        assert_eq!(mcp.status, 200, "{}", mcp.body);
        let answer: Value = mcp.json();
        if !answered {
            assert_eq!(answer["result"]["isError"], true, "{answer}");
            assert!(answer.to_string().contains("body_too_large"), "{answer}");
            continue;
        }
        let info = &answer["result"]["structuredContent"];
        assert_eq!(info["prefix_count"]["v6"], 99_540, "{answer}");
        assert_eq!(info["page"]["pages"], 10, "{}", info["page"]);
        assert_eq!(
            info["prefixes"]["v6"].as_array().map(Vec::len),
            Some(10_000)
        );
        let last = post(server.addr, "/mcp", &headers, &call(Some(10))).await;
        let last: Value = last.json();
        let info = &last["result"]["structuredContent"];
        assert_eq!(info["page"]["number"], 10, "{last}");
        assert_eq!(info["prefixes"]["v6"].as_array().map(Vec::len), Some(9_540));
        let past: Value = post(server.addr, "/mcp", &headers, &call(Some(11)))
            .await
            .json();
        assert_eq!(past["result"]["isError"], true, "{past}");
        assert!(past.to_string().contains("AS64500 has 10 pages"), "{past}");
    }
}
