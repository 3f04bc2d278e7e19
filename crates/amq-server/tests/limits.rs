//! `--max-filter-bytes` against a real server process: a filter that grows (a scalable Bloom
//! filter's links, an expandable cuckoo filter's links, a sliding-window Bloom filter's
//! archive, a sliding-window cuckoo filter's epochs) stops at the limit with a 422, before
//! the growth is allocated, and a restart (under any limit) serves the same filter; a server
//! stopped by SIGTERM leaves no record to replay.

mod common;

use common::server::{Options, Server};
use serde_json::{json, Value};

#[test]
#[ignore = "the server process the other tests start (tests/common/server.rs)"]
fn server_process() {
    common::server::serve();
}

fn items(prefix: &str, range: std::ops::Range<u32>) -> Vec<String> {
    range.map(|i| format!("{prefix}-{i}")).collect()
}

fn create(s: &Server, name: &str, spec: Value) -> Value {
    let (status, v) = s.json("PUT", &format!("/api/v1/filters/{name}"), Some(&spec));
    assert_eq!(status, 201, "{spec}: {v}");
    v
}

fn add(s: &Server, name: &str, items: &[String]) -> (u16, Value) {
    s.json(
        "POST",
        &format!("/api/v1/filters/{name}/items"),
        Some(&json!({ "items": items })),
    )
}

fn info(s: &Server, name: &str) -> Value {
    let (status, v) = s.json("GET", &format!("/api/v1/filters/{name}"), None);
    assert_eq!(status, 200, "{v}");
    v
}

fn export(s: &Server, name: &str) -> Vec<u8> {
    let (status, bytes) = s.request("GET", &format!("/api/v1/filters/{name}/export"), None);
    assert_eq!(status, 200);
    bytes
}

fn error(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("an error: {v}"))
}

/// The store's commits so far (`amq_store_commits_total`).
fn commits(s: &Server) -> f64 {
    let (_, metrics) = s.request("GET", "/metrics", None);
    let metrics = String::from_utf8(metrics).unwrap();
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("amq_store_commits_total "))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no commit count in {metrics}"))
}

/// N of a refusal's "N of the M items were added".
fn added_before(v: &Value) -> usize {
    let e = error(v);
    let at = e.find(" of the ").unwrap_or_else(|| panic!("{e}"));
    let n = e[..at].rsplit(' ').next().unwrap();
    n.parse().unwrap_or_else(|_| panic!("{e}"))
}

#[test]
fn a_scalable_bloom_filter_stops_growing_at_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let limit = 1_000_000;
    let s = Server::start(
        &data,
        Options {
            max_filter_bytes: Some(limit),
            ..Options::default()
        },
    );
    // link 0 holds 1000 items in 1,384 bytes; link 1 would hold 10^8 in about 156 MB
    let created = create(
        &s,
        "s",
        json!({"kind": "scalable-bloom", "items": 1000, "fpr": 0.01, "expansion": 100000}),
    );
    let all = items("item", 0..1100);
    let (status, v) = add(&s, "s", &all);
    assert_eq!(status, 422, "{v}");
    assert!(error(&v).contains("--max-filter-bytes"), "{v}");
    // the first link is full (a false positive adds nothing, so a few more may have gone
    // through), and no second one was made
    let n = added_before(&v);
    assert!((1000..1100).contains(&n), "{v}");
    let after = info(&s, "s");
    assert_eq!(after["links"], 1, "{after}");
    assert_eq!(after["bytes"], created["bytes"]);
    assert_eq!(after["items_inserted"], 1000);
    // the items before the refused one are in
    let (_, q) = s.json(
        "POST",
        "/api/v1/filters/s/contains",
        Some(&json!({ "items": all[..n] })),
    );
    assert_eq!(q["maybe"], json!(vec![true; n]));
    // a request refused at its first item is answered without writing anything
    let before = commits(&s);
    let (status, v) = add(&s, "s", &items("more", 0..3));
    assert_eq!(status, 422, "{v}");
    assert!(error(&v).contains("0 of the 3 items were added"), "{v}");
    assert_eq!(commits(&s), before);
    // an item held already needs no link, and is taken
    let (status, v) = add(&s, "s", &all[..1]);
    assert_eq!((status, &v["added"]), (200, &json!([false])), "{v}");

    // a chain whose next link would take 13 GB (2 · (2^32 − 1) items): refused before it is
    // allocated, within the timeout, the filter as it was
    let huge = create(
        &s,
        "huge",
        json!({"kind": "scalable-bloom", "items": 2, "fpr": 0.01, "expansion": 4294967295u32}),
    );
    let start = std::time::Instant::now();
    let (status, v) = add(&s, "huge", &items("h", 0..6));
    assert_eq!(status, 422, "{v}");
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    assert!((2..6).contains(&added_before(&v)), "{v}");
    assert_eq!(info(&s, "huge")["bytes"], huge["bytes"]);

    // a restart replays the refused inserts as they were served: under the same limit, and
    // under a larger one (the limit is in each change record)
    let exports = [export(&s, "s"), export(&s, "huge")];
    let list = s.json("GET", "/api/v1/filters", None).1;
    s.kill();
    for max in [limit, 1 << 40] {
        let s = Server::start(
            &data,
            Options {
                max_filter_bytes: Some(max),
                ..Options::default()
            },
        );
        assert_eq!(
            s.json("GET", "/api/v1/filters", None).1,
            list,
            "limit {max}"
        );
        assert_eq!(
            [export(&s, "s"), export(&s, "huge")],
            exports,
            "limit {max}"
        );
        s.kill();
    }
}

#[test]
fn every_growing_kind_stops_at_the_limit_and_restarts_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let limit = 2048;
    let s = Server::start(
        &data,
        Options {
            max_filter_bytes: Some(limit),
            ..Options::default()
        },
    );
    let kinds = [
        // links of 186, 348, 896 and 1,752 bytes
        (
            "chain",
            json!({"kind": "expandable-cuckoo", "items": 100, "fpr": 0.01}),
        ),
        // a 128-byte window that archives a chunk of at most 32 bytes every 4 items
        (
            "window",
            json!({"kind": "sliding-window-bloom", "window_bits": 1024, "chunk_bits": 256, "batch": 4, "k": 3}),
        ),
        // an epoch table of 160 bytes every 50 members
        (
            "epochs",
            json!({"kind": "sliding-window-cuckoo", "epoch_items": 50, "fpr": 0.01}),
        ),
    ];
    for (name, spec) in &kinds {
        create(&s, name, spec.clone());
        let mut refused = None;
        for round in 0..40 {
            let sent = items(name, round * 100..(round + 1) * 100);
            let (status, v) = add(&s, name, &sent);
            if status != 200 {
                refused = Some((status, v, sent));
                break;
            }
        }
        let (status, v, sent) = refused.unwrap_or_else(|| panic!("{name}: never refused"));
        assert_eq!(status, 422, "{name}: {v}");
        assert!(error(&v).contains("--max-filter-bytes"), "{name}: {v}");
        let bytes = info(&s, name)["bytes"].as_u64().unwrap();
        assert!(bytes <= limit, "{name}: {bytes} bytes");
        // the items refused are refused again, whole, and change nothing; only the
        // expandable cuckoo filter, whose newest link must be tried, logs the attempt
        let rest = &sent[added_before(&v)..];
        let before = (commits(&s), export(&s, name));
        let (status, again) = add(&s, name, rest);
        assert_eq!(status, 422, "{name}: {again}");
        assert!(error(&again).contains(" 0 of the "), "{name}: {again}");
        assert_eq!(export(&s, name), before.1, "{name}");
        if *name != "chain" {
            assert_eq!(commits(&s), before.0, "{name}");
        }
        // the metrics report the same size
        let (_, metrics) = s.request("GET", "/metrics", None);
        let metrics = String::from_utf8(metrics).unwrap();
        let line = format!("amq_filter_bytes{{filter=\"{name}\",");
        let reported = metrics
            .lines()
            .find(|l| l.starts_with(&line))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse::<f64>().ok());
        assert_eq!(reported, Some(bytes as f64), "{name}");
    }
    let exports: Vec<Vec<u8>> = kinds.iter().map(|(n, _)| export(&s, n)).collect();
    s.kill();
    let s = Server::start(&data, Options::default());
    for ((name, _), bytes) in kinds.iter().zip(&exports) {
        assert_eq!(&export(&s, name), bytes, "{name}");
    }
}

#[test]
fn a_merge_is_held_to_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spec = json!({"kind": "scalable-bloom", "items": 100, "fpr": 0.01, "seed": 1});
    let s = Server::start(&data, Options::default());
    create(&s, "small", spec.clone());
    create(&s, "big", spec);
    assert_eq!(add(&s, "big", &items("b", 0..1000)).0, 200);
    let big = info(&s, "big")["bytes"].as_u64().unwrap();
    let small = info(&s, "small");
    s.kill();
    // a server whose limit is below what the union would take
    let s = Server::start(
        &data,
        Options {
            max_filter_bytes: Some(big - 1),
            ..Options::default()
        },
    );
    let (status, v) = s.json(
        "POST",
        "/api/v1/filters/small/merge",
        Some(&json!({"from": "big"})),
    );
    assert_eq!(status, 422, "{v}");
    assert!(error(&v).contains("--max-filter-bytes"), "{v}");
    assert_eq!(info(&s, "small"), small);
    // merging the smaller into the larger adds no link
    let (status, v) = s.json(
        "POST",
        "/api/v1/filters/big/merge",
        Some(&json!({"from": "small"})),
    );
    assert_eq!((status, v["bytes"].as_u64()), (200, Some(big)), "{v}");
}

/// SIGTERM: the server stops, folds every filter's log into its snapshot and exits 0, so the
/// next start replays no record. A record replayed by another version would be applied under
/// that version's byte accounting, and could be refused where it was acknowledged.
#[test]
fn a_stopped_server_folds_its_logs_and_restarts_the_same() {
    use amq_server::engine::keys;
    use amq_server::store::{RedbStore, Store};
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let options = Options {
        max_filter_bytes: Some(2048),
        ..Options::default()
    };
    let names = ["window", "plain", "untouched"];
    let s = Server::start(&data, options);
    create(
        &s,
        "window",
        json!({"kind": "sliding-window-bloom", "window_bits": 1024, "chunk_bits": 256, "batch": 4, "k": 3}),
    );
    create(
        &s,
        "plain",
        json!({"kind": "bloom", "items": 1000, "fpr": 0.01}),
    );
    create(
        &s,
        "untouched",
        json!({"kind": "bloom", "items": 10, "fpr": 0.01}),
    );
    for round in 0..3 {
        for name in &names[..2] {
            let (status, v) = add(&s, name, &items(name, round * 10..(round + 1) * 10));
            assert_eq!(status, 200, "{name}: {v}");
        }
    }
    let exports: Vec<Vec<u8>> = names.iter().map(|n| export(&s, n)).collect();
    let printed = s.stop();
    assert!(
        printed.contains("stopped; 2 filter logs folded into their snapshots"),
        "{printed}"
    );
    // each filter is its snapshot alone
    let store = RedbStore::open(&data).unwrap();
    for name in names {
        let rows: Vec<Vec<u8>> = store
            .scan(&keys::filter_prefix(name))
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(rows, vec![keys::snapshot_key(name)], "{name}");
    }
    drop(store);
    let s = Server::start(&data, options);
    for (name, bytes) in names.iter().zip(&exports) {
        assert_eq!(&export(&s, name), bytes, "{name}");
    }
    // nothing changed since: nothing to fold
    assert!(s.stop().contains("stopped; 0 filter logs folded"));
}
