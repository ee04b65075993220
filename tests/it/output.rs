//! What reaches a terminal or a Markdown viewer (issue 12 §2), over a real
//! socket to the real binary serving a data directory whose ASN file names
//! an organisation with terminal escapes, bidi overrides, C1 controls and
//! Markdown, autolink and HTML bait:
//!
//! - text, Markdown and HTML answers carry no C0/C1 control, DEL or bidi
//!   control character, from the data or from the request (error messages);
//! - JSON keeps the name exactly, escaped by JSON's rules;
//! - Markdown rendered by GitHub's own renderer (cmark-gfm, through
//!   `tests/py/markdown_render.py`) shows every value as its plain text: no
//!   link, emphasis, code, HTML or extra table cell comes out of a value, and
//!   the service's own links (other forms, docs, DB-IP attribution) stay links.

use crate::support;

use std::io::Write;
use std::process::Stdio;

use serde_json::Value;

use support::data::{ANY_ROWS, TempDir, asn_csv, country_csv};

/// The binary serving the small release in `dir` (no reverse DNS).
fn serve_data_dir(dir: &TempDir) -> support::proc::Running {
    let dir_arg = dir.path().to_str().unwrap();
    support::proc::serve(&[
        "--data-dir",
        dir_arg,
        "--no-reverse-dns",
        ANY_ROWS[0],
        ANY_ROWS[1],
    ])
}

/// The organisation name of 8.8.8.0/24 in the test data. No `"`: the CSV
/// field is quoted. At most 256 bytes: a longer name refuses the release.
const ORG: &str = concat!(
    "\u{1b}]0;pwned\u{7}\u{1b}[31mRed\u{1b}[0m Corp\u{9b}2J ",
    "\u{202e}lanigiro\u{202c} \u{2066}iso\u{2069} \u{200f}rlm\u{200e} \u{61c}alm ",
    "del\u{7f} tab\there ",
    "[x](http://evil) <script>alert(1)</script> **b** ",
    "www.evil.com https://evil.com/p a@b.com <http://auto.evil> ",
    "`tick` ``two`` | pipe || &amp; &#64; $x$ ![i](http://e/i) #"
);

/// The characters no text, Markdown or HTML answer may carry (issue 12):
/// C0 and C1 controls, DEL, and the bidi overrides, isolates and marks.
fn unsafe_char(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
        || matches!(
            c,
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}'
        )
}

/// What a reader may see of `ORG` on one line: its unsafe characters gone,
/// a tab turned into a space.
fn visible(s: &str) -> String {
    s.chars()
        .filter_map(|c| match c {
            '\t' | '\n' | '\r' => Some(' '),
            c if unsafe_char(c) => None,
            c => Some(c),
        })
        .collect()
}

/// The binary serving a data directory whose ASN file names `ORG`.
fn serve() -> (TempDir, support::proc::Running) {
    let dir = TempDir::new("output");
    std::fs::write(
        dir.path().join("dbip-country-lite-2026-07.csv"),
        country_csv(20, "DE"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("dbip-asn-lite-2026-07.csv"),
        asn_csv(20, 64500, ORG),
    )
    .unwrap();
    let server = serve_data_dir(&dir);
    (dir, server)
}

async fn get(
    client: &reqwest::Client,
    base: &str,
    target: &str,
    accept: Option<&str>,
) -> (u16, String) {
    let mut req = client.get(format!("{base}{target}"));
    if let Some(a) = accept {
        req = req.header("accept", a);
    }
    let r = req.send().await.expect("request");
    let status = r.status().as_u16();
    (status, r.text().await.expect("UTF-8 body"))
}

fn assert_clean(what: &str, body: &str) {
    if let Some(c) = body.chars().find(|&c| c != '\n' && unsafe_char(c)) {
        panic!("{what}: carries {c:?}:\n{body}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn organisation_names_reach_text_markdown_and_html_without_controls() {
    let (_dir, server) = serve();
    let base = &server.base;
    let client = support::client();

    // JSON: the name exactly, its controls escaped by JSON's rules.
    let (status, json) = get(&client, base, "/api/v1/ip/8.8.8.8", None).await;
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["network"]["asn"], 64500, "{v}");
    assert_eq!(v["network"]["organization"], ORG);
    assert!(
        json.contains(r"\u001b]0;pwned\u0007\u001b[31mRed"),
        "{json}"
    );
    assert!(
        json.contains(r"del\u007f") || json.contains("del\u{7f}"),
        "{json}"
    );
    assert!(json.contains(r"tab\there"), "{json}");
    assert!(!json.bytes().any(|b| b < 0x20 && b != b'\n'), "{json}");

    let want = visible(ORG);
    for (target, accept) in [
        ("/api/v1/ip/8.8.8.8?format=text", None),
        ("/8.8.8.8?format=text", None),
        ("/8.8.8.8", Some("text/plain")),
        ("/api/v1/ip/8.8.8.8?format=md", None),
        ("/8.8.8.8?format=md", None),
        ("/8.8.8.8", Some("text/markdown")),
        ("/8.8.8.8?format=html", None),
    ] {
        let what = format!("{target} ({accept:?})");
        let (status, body) = get(&client, base, target, accept).await;
        assert_eq!(status, 200, "{what}");
        assert_clean(&what, &body);
        if body.starts_with("ip:") {
            // Text: the name on its own line, as a reader sees it.
            let line = body
                .lines()
                .find(|l| l.starts_with("organization:"))
                .unwrap_or_else(|| panic!("{what}: no organization line:\n{body}"));
            assert_eq!(line["organization:".len()..].trim(), want, "{what}");
        }
    }

    // The single field, plain text for a terminal: the name as a reader sees it.
    let (status, body) = get(&client, base, "/api/v1/ip/8.8.8.8/organization", None).await;
    assert_eq!(status, 200);
    assert_clean("/api/v1/ip/8.8.8.8/organization", &body);
    assert_eq!(body, format!("{want}\n"));

    // Error messages repeat request bytes: controls from the request are
    // dropped too (percent-encoded ESC, BEL, C1 and RLO in the path).
    for format in ["text", "md", "html"] {
        let target = format!("/api/v1/ip/1.2.3%1B%5B2J%07%C2%9B%E2%80%AEx?format={format}");
        let (status, body) = get(&client, base, &target, None).await;
        assert_eq!(status, 400, "{target}: {body}");
        assert!(
            body.contains("1.2.3"),
            "{target}: the message lost the input: {body}"
        );
        assert_clean(&target, &body);
    }
}

/// Renders `markdown` with cmark-gfm (tests/py/markdown_render.py).
fn render(markdown: &str) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/py/markdown_render.py");
    let mut child = std::process::Command::new(support::test_python())
        .arg(script)
        .env("PYTHONIOENCODING", "utf-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the Python test tools");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(markdown.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "markdown_render.py failed (is cmarkgfm from tests/requirements.txt installed?): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON from markdown_render.py")
}

/// Links the service itself writes: its own pages and the DB-IP attribution.
fn own_link(href: &str) -> bool {
    (href.starts_with('/') && !href.starts_with("//")) || href == "https://db-ip.com"
}

#[tokio::test(flavor = "multi_thread")]
async fn markdown_values_render_as_plain_text_in_githubs_renderer() {
    let (_dir, server) = serve();
    let want = visible(ORG);
    let client = support::client();

    for target in ["/api/v1/ip/8.8.8.8?format=md", "/8.8.8.8?format=md"] {
        let (status, md) = get(&client, &server.base, target, None).await;
        assert_eq!(status, 200, "{target}");
        let page = render(&md);
        let html = page["html"].as_str().unwrap();

        // Every row of the field table has exactly two cells: no pipe from a
        // value opened a third.
        let rows = page["rows"].as_array().unwrap();
        assert!(rows.len() >= 20, "{target}: {rows:?}");
        for row in rows {
            assert_eq!(row.as_array().unwrap().len(), 2, "{target}: {row}");
        }
        let org = rows
            .iter()
            .find(|r| r[0]["text"] == "organization")
            .unwrap_or_else(|| panic!("{target}: no organization row:\n{html}"));
        // The reader sees the name as written (less its controls) ...
        assert_eq!(org[1]["text"], want.as_str(), "{target}:\n{md}\n{html}");
        // ... and no element comes out of it but the code span that keeps
        // `@` from becoming an e-mail link.
        let tags = org[1]["tags"].as_array().unwrap();
        assert!(
            tags.iter().all(|t| t == "code"),
            "{target}: {tags:?}\n{html}"
        );
        assert_eq!(page["comments"], 0, "{target}: HTML was dropped:\n{html}");
        for tag in ["script", "img", "em", "strong", "del", "math"] {
            assert!(
                page["tags"].get(tag).is_none(),
                "{target}: <{tag}> in\n{html}"
            );
        }

        // Every link is the service's own, and those are still links.
        let links: Vec<&str> = page["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        for href in &links {
            assert!(own_link(href), "{target}: link to {href} in\n{html}");
        }
        for href in ["https://db-ip.com", "/docs", "/api/v1/ip/8.8.8.8"] {
            assert!(
                links.contains(&href),
                "{target}: no link to {href}: {links:?}"
            );
        }
    }

    // An error message echoing hostile input: rendered as text as well.
    let bait = "%5Bx%5D(http:%2F%2Fevil)%20**b**%20www.evil.com%20a@b.com%20%3Cscript%3E%60t%60%7C";
    let (status, md) = get(
        &client,
        &server.base,
        &format!("/api/v1/ip/{bait}?format=md"),
        None,
    )
    .await;
    assert_eq!(status, 400, "{md}");
    let page = render(&md);
    let html = page["html"].as_str().unwrap();
    assert!(
        html.contains("www.evil.com"),
        "the input is not in the message:\n{html}"
    );
    for href in page["links"].as_array().unwrap() {
        assert!(
            own_link(href.as_str().unwrap()),
            "link to {href} in\n{html}"
        );
    }
    for tag in ["script", "em", "strong", "img"] {
        assert!(page["tags"].get(tag).is_none(), "<{tag}> in\n{html}");
    }
    assert_eq!(page["comments"], 0, "HTML was dropped:\n{html}");
}

/// A deterministic stream of values built from Markdown's metacharacters,
/// autolink triggers, controls and letters.
fn hostile_values(n: usize) -> Vec<String> {
    const PIECES: &[&str] = &[
        "*",
        "_",
        "**",
        "__",
        "~",
        "~~",
        "`",
        "``",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        "!",
        "&",
        "#",
        "|",
        "\\",
        "$",
        "@",
        ":",
        "//",
        ".",
        "-",
        "+",
        "=",
        "{",
        "}",
        "^",
        " ",
        " ",
        "a",
        "b",
        "x1",
        "www.",
        "http://",
        "https://",
        "mailto:",
        "ftp://",
        "evil.com",
        "a@b.co",
        "&amp;",
        "&#64;",
        "<b>",
        "</b>",
        "<!--",
        "-->",
        "<http://x.y>",
        "[x](y)",
        "![i](j)",
        "1.",
        "- ",
        "\u{1b}[31m",
        "\u{7}",
        "\u{9b}",
        "\u{202e}",
        "\u{2066}",
        "\t",
        "\u{7f}",
        "é",
        "ব",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..n)
        .map(|_| {
            let len = 1 + (next() % 12) as usize;
            (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn hundreds_of_hostile_values_render_as_themselves_in_githubs_renderer() {
    let values = hostile_values(250);
    let dir = TempDir::new("output-fuzz");
    std::fs::write(
        dir.path().join("dbip-country-lite-2026-07.csv"),
        country_csv(20, "DE"),
    )
    .unwrap();
    let mut asn = String::new();
    for (i, v) in values.iter().enumerate() {
        asn.push_str(&format!("20.0.{i}.0,20.0.{i}.255,{},\"{v}\"\n", 64600 + i));
    }
    std::fs::write(dir.path().join("dbip-asn-lite-2026-07.csv"), asn).unwrap();
    let server = serve_data_dir(&dir);
    let client = support::client();

    // One table of every organization row, as the service writes them, and
    // the names the service holds (from JSON).
    let mut table = String::from("| Field | Value |\n|---|---|\n");
    let mut want = Vec::new();
    for i in 0..values.len() {
        let ip = format!("20.0.{i}.1");
        let (_, json) = get(&client, &server.base, &format!("/api/v1/ip/{ip}"), None).await;
        let v: Value = serde_json::from_str(&json).expect("JSON");
        let org = v["network"]["organization"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let (status, md) = get(
            &client,
            &server.base,
            &format!("/api/v1/ip/{ip}?format=md"),
            None,
        )
        .await;
        assert_eq!(status, 200);
        assert_clean(&ip, &md);
        let row = md
            .lines()
            .find(|l| l.starts_with("| organization |"))
            .unwrap_or_else(|| panic!("{ip}: no organization row:\n{md}"));
        table.push_str(row);
        table.push('\n');
        want.push(org);
    }
    // The data file is the service's: every row loaded as written.
    let same = want.iter().zip(&values).filter(|(w, v)| w == v).count();
    assert_eq!(same, values.len(), "rows not loaded as written");

    let page = render(&table);
    let rows = page["rows"].as_array().unwrap();
    assert_eq!(rows.len(), want.len(), "{}", page["html"]);
    for (row, org) in rows.iter().zip(&want) {
        let cells = row.as_array().unwrap();
        assert_eq!(cells.len(), 2, "{org:?}: {row}");
        assert_eq!(
            cells[1]["text"].as_str().unwrap().trim(),
            visible(org).trim(),
            "{org:?}: {row}"
        );
        let tags = cells[1]["tags"].as_array().unwrap();
        assert!(tags.iter().all(|t| t == "code"), "{org:?}: {tags:?}");
    }
    assert!(
        page["links"].as_array().unwrap().is_empty(),
        "{}",
        page["links"]
    );
    assert_eq!(page["comments"], 0, "{}", page["html"]);
}
