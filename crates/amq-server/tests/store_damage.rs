//! A damaged `amq.redb`, against a real server process: a byte flipped in the latest commit
//! after a kill, a file truncated, a file emptied. Each start is refused with a message that
//! says what happened; none is served as if nothing had (helper-24 found the first rolled
//! back to the commit before without a word, losing an acknowledged add, the second
//! panicking inside redb, the third served as an empty store).

mod common;

use common::server::{Options, Server};
use serde_json::json;
use std::path::Path;

#[test]
#[ignore = "the server process the other tests start (tests/common/server.rs)"]
fn server_process() {
    common::server::serve();
}

/// A store with one filter and two acknowledged adds, the server killed (no clean stop).
fn killed_store(data: &Path) {
    let s = Server::start(data, Options::default());
    let spec = json!({"kind": "bloom", "items": 1000, "fpr": 0.0001});
    assert_eq!(s.json("PUT", "/api/v1/filters/b", Some(&spec)).0, 201);
    for item in ["FIRST", "LAST"] {
        let body = json!({ "items": [item] });
        assert_eq!(
            s.json("POST", "/api/v1/filters/b/items", Some(&body)).0,
            200
        );
    }
    s.kill();
}

fn refused(data: &Path) -> String {
    match Server::try_start(data, Options::default()) {
        Ok(_) => panic!("a server started on a damaged store"),
        Err(printed) => {
            assert!(!printed.contains("panicked"), "{printed}");
            printed
        }
    }
}

#[test]
fn a_store_that_was_not_damaged_reopens_with_every_acknowledged_add() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    killed_store(&data);
    let s = Server::start(&data, Options::default());
    let (status, v) = s.json(
        "POST",
        "/api/v1/filters/b/contains",
        Some(&json!({"items": ["FIRST", "LAST"]})),
    );
    assert_eq!((status, &v["maybe"]), (200, &json!([true, true])), "{v}");
}

#[test]
fn a_damaged_latest_commit_is_refused_not_rolled_back() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    killed_store(&data);
    // byte 100 lies in the header's primary commit slot
    let file = data.join("amq.redb");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[100] ^= 0x55;
    std::fs::write(&file, &bytes).unwrap();
    let printed = refused(&data);
    assert!(
        printed.contains("damaged after its last commit was written; restore it from a backup"),
        "{printed}"
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        bytes,
        "the file is untouched"
    );
}

#[test]
fn a_truncated_or_emptied_store_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    killed_store(&data);
    let file = data.join("amq.redb");
    let whole = std::fs::read(&file).unwrap();
    for len in [4096, whole.len() / 2] {
        std::fs::write(&file, &whole[..len]).unwrap();
        let printed = refused(&data);
        assert!(
            printed.contains("redb cannot open it (truncated or corrupt")
                || printed.contains("I/O error"),
            "{len} bytes: {printed}"
        );
    }
    std::fs::write(&file, b"").unwrap();
    let printed = refused(&data);
    assert!(
        printed.contains("the store file is empty (0 bytes)"),
        "{printed}"
    );
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 0);
}
