//! `GET /metrics`: every filter's shape, fill and estimated false-positive rate, and the
//! store's commits, in the OpenMetrics text format for Prometheus
//! (<https://prometheus.io/docs/specs/om/open_metrics_spec/>), encoded by prometheus-client.
//!
//! The figures are the filters' [`amq::Info`], read at scrape time, so an alert can compare
//! `amq_filter_estimated_fpr` with the rate a filter was planned for.

use crate::error::ApiError;
use crate::AppState;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;

/// A filter's labels: its name and kind.
type Labels = Vec<(&'static str, String)>;
/// A floating-point gauge per filter.
type PerFilter = Family<Labels, Gauge<f64, AtomicU64>>;

/// The OpenMetrics text media type.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The metrics, in the OpenMetrics text format.
#[utoipa::path(get, path = "/metrics", tag = "meta",
    responses((status = 200, description = "Per filter (labels filter and kind): \
        amq_filter_m_bits, amq_filter_k, amq_filter_bytes, amq_filter_items_inserted, \
        amq_filter_estimated_items, amq_filter_fill_ratio, amq_filter_estimated_fpr; \
        amq_filters; amq_store_commits_total and amq_store_commit_failures_total since the \
        process started; amq_workers, the runtime's worker threads", content_type = "application/openmetrics-text")))]
pub async fn metrics(State(state): State<AppState>) -> Result<impl IntoResponse, ApiError> {
    let workers = tokio::runtime::Handle::current().metrics().num_workers();
    // every filter's info walks its table: off the async workers
    let body = super::off_runtime(move || text(&state, workers)).await?;
    Ok(([(header::CONTENT_TYPE, CONTENT_TYPE)], body))
}

/// The metrics' text; `workers` is the runtime's count of worker threads.
fn text(state: &AppState, workers: usize) -> String {
    let mut registry = Registry::with_prefix("amq");
    let gauges: [(&str, &str, PerFilter); 7] = [
        (
            "filter_m_bits",
            "m, the bits of the filter's table",
            Family::default(),
        ),
        (
            "filter_k",
            "k, the hash functions (probes) per item",
            Family::default(),
        ),
        ("filter_bytes", "payload bytes", Family::default()),
        ("filter_items_inserted", "items inserted", Family::default()),
        (
            "filter_estimated_items",
            "distinct items estimated from the fill",
            Family::default(),
        ),
        (
            "filter_fill_ratio",
            "bits set over m, or the load factor",
            Family::default(),
        ),
        (
            "filter_estimated_fpr",
            "the false-positive rate now, from the filter's state",
            Family::default(),
        ),
    ];
    let filters = state.engine().filters();
    for (name, entry) in &filters {
        let info = entry.read(|f| f.info());
        let labels: Labels = vec![
            ("filter", name.clone()),
            ("kind", info.kind().name().into()),
        ];
        let values = [
            info.m_bits as f64,
            f64::from(info.k),
            info.bytes as f64,
            info.inserted as f64,
            info.estimated_items,
            info.fill_ratio,
            info.estimated_fpr,
        ];
        for ((_, _, family), value) in gauges.iter().zip(values) {
            family.get_or_create(&labels).set(value);
        }
    }
    for (name, help, family) in gauges {
        registry.register(name, help, family);
    }
    for (name, help, n) in [
        ("filters", "filters served", filters.len()),
        (
            "workers",
            "the runtime's worker threads (--workers)",
            workers,
        ),
    ] {
        let gauge = Gauge::<i64>::default();
        gauge.set(i64::try_from(n).unwrap_or(i64::MAX));
        registry.register(name, help, gauge);
    }
    let (made, refused) = state.engine().commit_counts();
    for (name, help, n) in [
        (
            "store_commits",
            "commits the store made since the process started",
            made,
        ),
        (
            "store_commit_failures",
            "commits the store refused (each a 503 for its requests)",
            refused,
        ),
    ] {
        let counter = Counter::<u64>::default();
        counter.inc_by(n);
        registry.register(name, help, counter);
    }
    let mut body = String::new();
    // writing to a String cannot fail
    let _ = encode(&mut body, &registry);
    body
}
