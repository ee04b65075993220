//! Prometheus metrics on `/metrics`: requests by route and status, a latency
//! histogram, the age of the loaded data release, files of the data directory
//! refused, reloads, and reverse DNS (cache hits and misses; lookups skipped
//! because every slot was taken or because the PTR record was not a host name,
//! counted where they happen in `rdns`).

use std::collections::HashMap;
use std::sync::{OnceLock, PoisonError, RwLock};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use chrono::{NaiveDate, Utc};
use metrics::{Counter, Histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::served::{Served, describe};
use super::state::AppState;
use crate::web::routes;
use axum::routing::get;

/// The process-wide recorder, installed on first use.
pub(crate) fn handle() -> Option<&'static PrometheusHandle> {
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

/// The request metrics of one route: its latency histogram and its counters
/// by status, registered once so that recording a request builds no labels
/// and looks nothing up in the recorder.
#[derive(Debug)]
pub(crate) struct RouteMetrics {
    route: String,
    duration: Histogram,
    by_status: RwLock<Vec<(u16, Counter)>>,
}

impl RouteMetrics {
    /// Counts one response of this route and records how long it took.
    pub(crate) fn record(&self, status: StatusCode, elapsed: Duration) {
        let code = status.as_u16();
        self.duration.record(elapsed.as_secs_f64());
        // Counted under the read lock: no clone of the counter's handle.
        if let Some((_, counter)) = read(&self.by_status).iter().find(|(c, _)| *c == code) {
            counter.increment(1);
            return;
        }
        let mut by_status = self
            .by_status
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((_, counter)) = by_status.iter().find(|(c, _)| *c == code) {
            counter.increment(1);
            return;
        }
        let counter = metrics::counter!(
            "iplookup_requests_total",
            "route" => self.route.clone(),
            "status" => code.to_string()
        );
        counter.increment(1);
        by_status.push((code, counter));
    }
}

/// The metrics of `route` (a route template such as `/api/v1/ip/{ip}`, or
/// `unmatched`). Routes are few and fixed, so each is registered once for
/// the life of the process.
pub(crate) fn route_metrics(route: &str) -> &'static RouteMetrics {
    static ROUTES: OnceLock<RwLock<HashMap<String, &'static RouteMetrics>>> = OnceLock::new();
    let routes = ROUTES.get_or_init(Default::default);
    if let Some(m) = read(routes).get(route) {
        return m;
    }
    // The recorder must exist before handles are taken, or they record nothing.
    handle();
    let mut routes = routes.write().unwrap_or_else(PoisonError::into_inner);
    routes.entry(route.to_owned()).or_insert_with(|| {
        Box::leak(Box::new(RouteMetrics {
            route: route.to_owned(),
            duration: metrics::histogram!(
                "iplookup_request_duration_seconds",
                "route" => route.to_owned()
            ),
            by_status: RwLock::new(Vec::new()),
        }))
    })
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// `GET /metrics`: the Prometheus text exposition.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    summary = "Prometheus metrics: requests by route and status, latency, data release age, reloads, reverse DNS",
    description = "The Prometheus text exposition format (0.0.4). Requests are counted by route template (`/api/v1/ip/{ip}`, never the address) and status. Neither rate-limited nor queued behind the request slots.",
    responses((status = 200, description = "The metrics", content_type = "text/plain; version=0.0.4; charset=utf-8", body = String)))]
pub(crate) async fn metrics(State(state): State<AppState>) -> Response {
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
    for table in ["country", "asn", "city"] {
        let refused = db
            .release()
            .refused
            .iter()
            .filter(|r| r.table == table && !r.incomplete)
            .count();
        metrics::gauge!("iplookup_data_refused", "table" => table).set(refused as f64);
    }
    let body = handle().map(PrometheusHandle::render).unwrap_or_default();
    super::policy::document(body)
}

/// Seconds since a `YYYY-MM-DD` or `YYYY-MM` release date.
fn release_age_seconds(date: &str) -> Option<f64> {
    let day = NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .or_else(|_| NaiveDate::parse_from_str(&format!("{date}-01"), "%Y-%m-%d"))
        .ok()?;
    let start = day.and_hms_opt(0, 0, 0)?.and_utc();
    Some((Utc::now() - start).num_seconds() as f64)
}

/// The routes this module answers.
pub(crate) const SERVED: &[Served] = &[Served::new(
    &routes::METRICS,
    |_| get(metrics),
    &[describe::<__path_metrics>],
)];

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
