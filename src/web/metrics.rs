//! Prometheus metrics on `/metrics`: requests by route and status, a latency
//! histogram, the age of the loaded data release, reloads and the reverse DNS
//! cache's hits and misses.

use std::sync::OnceLock;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::{NaiveDate, Utc};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::AppState;

/// The process-wide recorder, installed on first use.
pub fn handle() -> Option<&'static PrometheusHandle> {
    static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let buckets = [
                0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                1.0,
            ];
            PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full("iplookup_request_duration_seconds".into()),
                    &buckets,
                )
                .ok()?
                .install_recorder()
                .ok()
                .inspect(|handle| {
                    // Without upkeep the histogram keeps every sample until a scrape.
                    let handle = handle.clone();
                    let _ = std::thread::Builder::new()
                        .name("metrics-upkeep".into())
                        .spawn(move || {
                            loop {
                                std::thread::sleep(std::time::Duration::from_secs(5));
                                handle.run_upkeep();
                            }
                        });
                })
        })
        .as_ref()
}

/// Middleware: counts each request by route and status and times it.
pub async fn track(request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let started = Instant::now();
    let response = next.run(request).await;
    let status = response.status().as_u16().to_string();
    metrics::counter!("iplookup_requests_total", "route" => route.clone(), "status" => status)
        .increment(1);
    metrics::histogram!("iplookup_request_duration_seconds", "route" => route)
        .record(started.elapsed().as_secs_f64());
    response
}

/// `GET /metrics`: the Prometheus text exposition.
pub async fn metrics(State(state): State<AppState>) -> Response {
    let db = state.lookup.db();
    for (table, info) in [
        ("country", &db.release().country),
        ("asn", &db.release().asn),
    ] {
        if let Some(age) = release_age_seconds(&info.date) {
            metrics::gauge!("iplookup_data_release_age_seconds", "table" => table).set(age);
        }
        metrics::gauge!("iplookup_data_rows", "table" => table).set(info.rows as f64);
    }
    let body = handle().map(PrometheusHandle::render).unwrap_or_default();
    let mut response = body.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

/// Seconds since a `YYYY-MM-DD` or `YYYY-MM` release date.
fn release_age_seconds(date: &str) -> Option<f64> {
    let day = NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .or_else(|_| NaiveDate::parse_from_str(&format!("{date}-01"), "%Y-%m-%d"))
        .ok()?;
    let start = day.and_hms_opt(0, 0, 0)?.and_utc();
    Some((Utc::now() - start).num_seconds() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_age_reads_both_date_forms() {
        assert!(release_age_seconds("2026-06-01").unwrap() > 0.0);
        assert!(release_age_seconds("2026-06").unwrap() > 0.0);
        assert_eq!(release_age_seconds("June"), None);
    }
}
