//! `GET /metrics`: each filter's Info as OpenMetrics gauges, the filter count and the store's
//! commits, in the text format Prometheus scrapes.

mod common;

use axum::http::{Method, StatusCode};
use common::{call, router};
use serde_json::json;
use std::collections::HashMap;

/// The samples of an OpenMetrics text body: `name{labels}` → value; checks its shape on
/// the way (`# HELP`/`# TYPE` before each family's samples, `# EOF` last).
fn samples(body: &str) -> HashMap<String, f64> {
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.last(), Some(&"# EOF"), "{body}");
    let mut typed = Vec::new();
    let mut out = HashMap::new();
    for line in &lines[..lines.len() - 1] {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            typed.push(rest.split(' ').next().unwrap().to_owned());
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').expect("a sample line");
        let family = series.split('{').next().unwrap();
        assert!(
            typed
                .iter()
                .any(|t| family == t || family == format!("{t}_total")),
            "{family} has no # TYPE line before it"
        );
        out.insert(series.to_owned(), value.parse().expect("a number"));
    }
    out
}

#[tokio::test]
async fn every_filter_and_the_store_commits_are_metrics() {
    let app = router();
    for (name, body) in [
        (
            "names",
            json!({"kind": "bloom", "items": 1000, "fpr": 0.01}),
        ),
        (
            "ids",
            json!({"kind": "cuckoo", "items": 1000, "fpr": 0.001}),
        ),
    ] {
        let r = call(
            &app,
            Method::PUT,
            &format!("/api/v1/filters/{name}"),
            Some(body),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED);
    }
    let items: Vec<String> = (0..300).map(|i| format!("item-{i}")).collect();
    for name in ["names", "ids"] {
        let r = call(
            &app,
            Method::POST,
            &format!("/api/v1/filters/{name}/items"),
            Some(json!({ "items": items })),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK);
    }

    let r = call(&app, Method::GET, "/metrics", None).await;
    assert_eq!(r.status, StatusCode::OK);
    let content_type = r.headers["content-type"].to_str().unwrap();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    let body = String::from_utf8(r.body.to_vec()).unwrap();
    let m = samples(&body);

    assert_eq!(m["amq_filters"], 2.0);
    // two creates and two adds, one commit each (the requests came one at a time)
    assert_eq!(m["amq_store_commits_total"], 4.0);
    assert_eq!(m["amq_store_commit_failures_total"], 0.0);
    for (name, kind) in [("names", "bloom"), ("ids", "cuckoo")] {
        let info = call(&app, Method::GET, &format!("/api/v1/filters/{name}"), None)
            .await
            .json();
        let labels = format!("{{filter=\"{name}\",kind=\"{kind}\"}}");
        for (metric, field) in [
            ("m_bits", "m_bits"),
            ("k", "k"),
            ("bytes", "bytes"),
            ("items_inserted", "items_inserted"),
            ("estimated_items", "estimated_items"),
            ("fill_ratio", "fill_ratio"),
            ("estimated_fpr", "estimated_fpr"),
        ] {
            let series = format!("amq_filter_{metric}{labels}");
            let got = *m
                .get(&series)
                .unwrap_or_else(|| panic!("no {series} in\n{body}"));
            let want = info[field].as_f64().unwrap();
            // the same f64; the metrics text may print it one unit in the last place off
            // (prometheus-client's float formatting is not shortest round-trip, as JSON's is)
            assert!(
                (got - want).abs() <= 4.0 * f64::EPSILON * want.abs(),
                "{series}: {got} against {want}"
            );
        }
        assert_eq!(m[&format!("amq_filter_items_inserted{labels}")], 300.0);
    }

    // a deleted filter leaves the metrics
    let r = call(&app, Method::DELETE, "/api/v1/filters/ids", None).await;
    assert_eq!(r.status, StatusCode::OK);
    let r = call(&app, Method::GET, "/metrics", None).await;
    let m = samples(std::str::from_utf8(&r.body).unwrap());
    assert_eq!(m["amq_filters"], 1.0);
    assert!(!m.keys().any(|k| k.contains("filter=\"ids\"")));
}
