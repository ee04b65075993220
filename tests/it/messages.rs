//! The messages of issue 32, over a real socket: the unknown AS named in a
//! sentence (English and Bangla) with the search box keeping what was
//! typed, a page past the end naming and linking the last one, and one
//! JSON style (indented, as `serde_json::to_writer_pretty`, then a
//! newline) for every JSON answer.

use crate::support;

use reqwest::header::{ACCEPT_LANGUAGE, CONTENT_TYPE, USER_AGENT};
use serde_json::Value;

use support::http::get;

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

/// GET `path` as a browser in `lang`: status and body.
async fn browse(server: &support::TestServer, path: &str, lang: &str) -> (u16, String) {
    let r = support::client()
        .get(server.url(path))
        .header(USER_AGENT, BROWSER)
        .header(ACCEPT_LANGUAGE, lang)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

#[tokio::test]
async fn an_unknown_as_is_named_in_a_sentence_and_the_box_keeps_it() {
    let server = support::start(support::config()).await;
    let (status, _, body) = get(&support::client(), &server.url("/api/v1/asn/AS4199999999")).await;
    assert_eq!(status, 404);
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"], "unknown_asn");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("The data knows no network numbered AS4199999999"),
        "{message}"
    );
    assert!(message.ends_with('.'), "{message}");
    for typed in ["AS4199999999", "as4199999999"] {
        let (status, html) = browse(&server, &format!("/{typed}"), "en").await;
        assert_eq!(status, 404);
        assert!(html.contains("no network numbered AS4199999999"), "{html}");
        assert!(
            html.contains(&format!("name=\"ip\" value=\"{typed}\"")),
            "{typed}: box"
        );
        let (_, bangla) = browse(&server, &format!("/{typed}"), "bn").await;
        assert!(
            bangla.contains("ডেটায় AS4199999999 নম্বরের কোনো নেটওয়ার্ক নেই"),
            "{bangla}"
        );
        assert!(bangla.contains(&format!("name=\"ip\" value=\"{typed}\"")));
    }
}

#[tokio::test]
async fn a_page_past_the_end_names_the_last_page_and_links_it() {
    let server = support::start(support::config()).await;
    let client = support::client();
    let (status, _, body) = get(&client, &server.url("/api/v1/asn/AS174?page=999")).await;
    assert_eq!(status, 404, "{body}");
    let message = serde_json::from_str::<Value>(&body).unwrap()["message"]
        .as_str()
        .unwrap()
        .to_owned();
    let last: u32 = message
        .split_once("`?page=")
        .and_then(|(_, rest)| rest.split_once('`'))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| panic!("no last page in {message:?}"));
    assert!(
        message.starts_with(&format!("AS174 has {last} page")),
        "{message}"
    );
    let (status, html) = browse(&server, "/AS174?page=999", "en").await;
    assert_eq!(status, 404);
    let link = format!("<a href=\"?page={last}\">?page={last}</a>");
    assert!(html.contains(&link), "no {link} in {html}");
    // The link leads to the last page, which is there.
    let (status, _) = browse(&server, &format!("/AS174?page={last}"), "en").await;
    assert_eq!(status, 200);
    let (status, bangla) = browse(&server, "/AS174?page=999&lang=bn", "bn").await;
    assert_eq!(status, 404);
    let digits: String = last
        .to_string()
        .chars()
        .map(|d| char::from_u32('০' as u32 + d.to_digit(10).unwrap()).unwrap())
        .collect();
    assert!(bangla.contains(&format!("শেষ পৃষ্ঠা {digits}")), "{bangla}");
    assert!(
        bangla.contains(&format!("href=\"?page={last}&amp;lang=bn\"")),
        "{bangla}"
    );
}

/// `json` indented as serde_json's pretty writer does (two spaces, `": "`),
/// in its own order: what every JSON answer must already be.
fn pretty(json: &str) -> String {
    let mut out = String::with_capacity(json.len() * 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut chars = json.trim().chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.extend(chars.next());
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out.push('\n');
    out
}

#[tokio::test]
async fn every_json_answer_is_indented_alike() {
    let server = support::start(support::config()).await;
    let client = support::client();
    for path in [
        "/api/v1/ip/8.8.8.8",
        "/api/v1/me",
        "/api/v1/asn/AS15169",
        "/api/v1/asn/AS4199999999",
        "/api/v1/prefix/8.8.8.0/24",
        "/api/v1/country/BT",
        "/api/v1/ip/nope",
        "/json?ip=8.8.8.8",
        "/healthz",
        "/AS15169?format=json",
        "/8.8.8.8?format=json",
        "/.well-known/api-catalog",
        "/.well-known/mcp/server-card.json",
    ] {
        let (_, headers, body) = get(&client, &server.url(path)).await;
        let media = headers[CONTENT_TYPE].to_str().unwrap();
        assert!(media.contains("json"), "{path}: {media}");
        serde_json::from_str::<Value>(&body).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(
            body.trim_end(),
            pretty(&body).trim_end(),
            "{path}: not indented as the others"
        );
    }
    let batch = client
        .post(server.url("/api/v1/ip"))
        .header(CONTENT_TYPE, "application/json")
        .body(r#"["8.8.8.8","2001:4860:4860::8888","nope"]"#)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(batch, pretty(&batch), "the batch answer");
    let entries: Vec<Value> = serde_json::from_str(&batch).unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[2]["error"], "invalid_ip");
}
