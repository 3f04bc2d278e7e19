//! Requests against a real server process that are answered with what they mean or refused
//! with a clear 4xx: a negative cache's queries, specs with fields their kind does not take,
//! an import of bytes that are not a filter, a filter merged with itself, and a `--data` that
//! is not a directory.

mod common;

use common::server::{Options, Server};
use serde_json::{json, Value};

#[test]
#[ignore = "the server process the other tests start (tests/common/server.rs)"]
fn server_process() {
    common::server::serve();
}

fn start() -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&dir.path().join("data"), Options::default());
    (dir, s)
}

fn error(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("an error: {v}"))
}

#[test]
fn a_negative_cache_answers_definitely_present_or_maybe_absent() {
    let (_dir, s) = start();
    let spec = json!({"kind": "negative-cache", "l": 10, "b": 32, "ways": 4});
    assert_eq!(s.json("PUT", "/api/v1/filters/n", Some(&spec)).0, 201);
    let (status, v) = s.json(
        "POST",
        "/api/v1/filters/n/items",
        Some(&json!({"items": ["k1", "k3"]})),
    );
    assert_eq!(status, 200, "{v}");
    // the answer is named for what `true` means, and there is no "maybe" to misread
    let (status, v) = s.json("GET", "/api/v1/filters/n/contains/k1", None);
    assert_eq!(status, 200, "{v}");
    assert_eq!(v, json!({"item": "k1", "definitely_present": true}));
    let (_, v) = s.json("GET", "/api/v1/filters/n/contains/k2", None);
    assert_eq!(v, json!({"item": "k2", "definitely_present": false}));
    let (status, v) = s.json(
        "POST",
        "/api/v1/filters/n/contains",
        Some(&json!({"items": ["k1", "k2", "k3"]})),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v, json!({"definitely_present": [true, false, true]}));
    // removing what it does not hold: not found, without calling it definitely absent
    let (status, v) = s.json("DELETE", "/api/v1/filters/n/items/k2", None);
    assert_eq!(status, 404, "{v}");
    assert!(!error(&v).contains("definitely absent"), "{v}");
    assert!(error(&v).contains("not in the cache"), "{v}");
    assert_eq!(s.json("DELETE", "/api/v1/filters/n/items/k1", None).0, 200);
    let (_, v) = s.json("GET", "/api/v1/filters/n/contains/k1", None);
    assert_eq!(v["definitely_present"], false);
    // other kinds still answer "maybe"
    let spec = json!({"kind": "bloom", "items": 10, "fpr": 0.01});
    s.json("PUT", "/api/v1/filters/b", Some(&spec));
    let (_, v) = s.json("GET", "/api/v1/filters/b/contains/x", None);
    assert_eq!(v, json!({"item": "x", "maybe": false}));
}

#[test]
fn a_spec_with_a_field_its_kind_does_not_take_is_refused() {
    let (_dir, s) = start();
    for (body, field) in [
        (
            json!({"kind": "bloom", "items": 10, "fpr": 0.01, "hashes": 3}),
            "\"hashes\"",
        ),
        (
            json!({"kind": "cuckoo", "items": 10, "fpr": 0.01, "k": 3}),
            "\"k\"",
        ),
        (
            json!({"kind": "bloom", "items": 10, "fpr": 0.01, "bogus": 1}),
            "\"bogus\"",
        ),
        (
            json!({"kind": "scalable-bloom", "items": 10, "fpr": 0.01, "m_bits": 64}),
            "\"m_bits\"",
        ),
        (
            json!({"kind": "bloom", "items": 10, "fpr": 0.01, "m_bits": 64}),
            "fpr and m_bits",
        ),
        (
            json!({"kind": "cuckoo", "items": 10, "memory_bytes": 64, "fpr": 0.01}),
            "fpr and memory_bytes",
        ),
        (
            json!({"kind": "bloom", "items": 10}),
            "sized by one of fpr, m_bits or memory_bytes (a false-positive rate, bits or bytes): give one",
        ),
    ] {
        let (status, v) = s.json("PUT", "/api/v1/filters/x", Some(&body));
        assert_eq!(status, 422, "{body}: {v}");
        assert!(error(&v).contains(field), "{body}: {v}");
        // nothing was created
        assert_eq!(s.json("GET", "/api/v1/filters/x", None).0, 404);
        // the same as query parameters of a plan
        let query: Vec<String> = body
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), str::to_owned)))
            .collect();
        let (status, v) = s.json("GET", &format!("/api/v1/plan?{}", query.join("&")), None);
        assert_eq!(status, 422, "{query:?}: {v}");
        assert!(error(&v).contains(field), "{query:?}: {v}");
    }
    // every field a kind takes is still taken, optional ones as null, and the seed
    for body in [
        json!({"kind": "bloom", "items": 10, "m_bits": 640, "k": 3, "seed": 9}),
        json!({"kind": "bloom", "items": 10, "fpr": 0.01, "k": null}),
        json!({"kind": "scalable-bloom", "items": 10, "fpr": 0.01, "expansion": 4, "tightening": 0.5, "nonscaling": false}),
        json!({"kind": "negative-cache", "l": 10, "b": 16, "ways": 4, "ttl": 60}),
        json!({"kind": "aging-bloom", "window": 100, "generations": 4, "fpr": 0.01}),
    ] {
        let (status, v) = s.json("PUT", "/api/v1/filters/ok", Some(&body));
        assert_eq!(status, 201, "{body}: {v}");
        assert_eq!(s.json("DELETE", "/api/v1/filters/ok", None).0, 200);
    }
    let (status, v) = s.json(
        "GET",
        "/api/v1/plan?kind=scalable-bloom&items=10&fpr=0.01&nonscaling=true",
        None,
    );
    assert_eq!(status, 200, "{v}");
    // an aging filter's generations default to 4, as in the CLI and the Redis module
    let body = json!({"kind": "aging-bloom", "window_seconds": 3600, "items_per_generation": 1000, "fpr": 0.01});
    let (status, v) = s.json("PUT", "/api/v1/filters/ag", Some(&body));
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["generations"], 4, "{v}");
    let (status, v) = s.json(
        "GET",
        "/api/v1/plan?kind=aging-bloom&window=1000&fpr=0.01",
        None,
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["generations"], 4, "{v}");
}

#[test]
fn an_import_of_bytes_that_are_not_a_filter_says_so_once() {
    let (_dir, s) = start();
    let (status, body) = s.request(
        "PUT",
        "/api/v1/filters/g/import",
        Some(b"garbagegarbagegarbagegarbage"),
    );
    assert_eq!(status, 422);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(error(&v).matches("not an .amq file").count(), 1, "{v}");
    assert!(error(&v).contains("magic"), "{v}");
}

#[test]
fn a_filter_is_not_merged_with_itself() {
    let (_dir, s) = start();
    for (name, spec) in [
        (
            "s",
            json!({"kind": "scalable-bloom", "items": 100, "fpr": 0.01}),
        ),
        ("c", json!({"kind": "cuckoo", "items": 100, "fpr": 0.01})),
        ("b", json!({"kind": "bloom", "items": 100, "fpr": 0.01})),
    ] {
        assert_eq!(
            s.json("PUT", &format!("/api/v1/filters/{name}"), Some(&spec))
                .0,
            201
        );
        let items: Vec<String> = (0..150).map(|i| format!("x{i}")).collect();
        s.json(
            "POST",
            &format!("/api/v1/filters/{name}/items"),
            Some(&json!({ "items": items })),
        );
        let before = s.json("GET", &format!("/api/v1/filters/{name}"), None).1;
        let (status, v) = s.json(
            "POST",
            &format!("/api/v1/filters/{name}/merge"),
            Some(&json!({ "from": name })),
        );
        assert_eq!(status, 422, "{name}: {v}");
        assert!(error(&v).contains("itself"), "{v}");
        assert_eq!(
            s.json("GET", &format!("/api/v1/filters/{name}"), None).1,
            before,
            "{name}"
        );
    }
}

#[test]
fn a_data_path_that_is_a_file_is_not_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.json");
    std::fs::write(&file, "{}").unwrap();
    let printed = match Server::try_start(&file, Options::default()) {
        Ok(_) => panic!("a server started on a file"),
        Err(printed) => printed,
    };
    assert!(printed.contains("not a directory"), "{printed}");
    assert!(!printed.contains("File exists"), "{printed}");
    // the file is untouched
    assert_eq!(std::fs::read(&file).unwrap(), b"{}");
}
