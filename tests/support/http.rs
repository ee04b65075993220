//! Requests through `reqwest` (the [`super::client`] of every test),
//! [`eventually`] for what a server does in its own time, and [`metric`] to
//! read `/metrics`.

use std::time::{Duration, Instant};

/// `GET url` through `client`: status, headers and body; panics if it fails
/// or takes more than 10 s.
pub async fn get(client: &reqwest::Client, url: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let answer = async {
        let r = client.get(url).send().await?;
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        Ok::<_, reqwest::Error>((status, headers, r.text().await?))
    };
    tokio::time::timeout(Duration::from_secs(10), answer)
        .await
        .unwrap_or_else(|_| panic!("GET {url}: no answer in 10 s"))
        .unwrap_or_else(|e| panic!("GET {url}: {e}"))
}

/// `GET url`, which must answer 200 with a JSON body: the body.
pub async fn get_json(client: &reqwest::Client, url: &str) -> serde_json::Value {
    let (status, headers, body) = get(client, url).await;
    assert_eq!(status, 200, "GET {url}: {body}");
    let ct = headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        ct.starts_with("application/json"),
        "GET {url}: content-type {ct:?}"
    );
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {url}: not JSON ({e}): {body}"))
}

/// Polls `check` every 50 ms until it holds; panics after `limit` naming
/// `what`. Returns how long it took.
pub async fn eventually<F, Fut>(limit: Duration, what: &str, mut check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    loop {
        if check().await {
            return started.elapsed();
        }
        assert!(started.elapsed() < limit, "not within {limit:?}: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The value of one Prometheus sample line (`name{labels} value`) of a
/// `/metrics` text, 0 if absent.
pub fn metric(text: &str, name_and_labels: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name_and_labels)?.trim().parse().ok())
        .unwrap_or(0.0)
}
