//! `amq serve` when the disk refuses a write: the server answers 503 with the cause, keeps
//! answering queries, loses no acknowledged item, and takes writes again once there is room.
//!
//! The "full disk" is the process's file size limit (`ulimit -S -f`: the server takes SIGXFSZ,
//! so the write fails with EFBIG instead of killing the process), raised later from outside
//! with `prlimit`: no mount, no privileges.

mod common;

use common::server::{all_found, items, Server, AMQ};
use serde_json::json;
use std::process::Command;

/// Items per request.
const BATCH: usize = 5_000;

#[test]
fn a_full_disk_is_a_503_that_loses_nothing_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // 2 MiB: the new store file takes about 1.5 MiB, so a few batches fit and then one does not
    let mut cmd = Command::new("bash");
    cmd.args([
        "-c",
        r#"ulimit -S -f 2048 && exec "$0" serve --listen 127.0.0.1:0 --data "$1""#,
        AMQ,
    ])
    .arg(&data);
    let s = Server::spawn(cmd);
    let (status, _) = s.json(
        "PUT",
        "/api/v1/filters/f",
        Some(&json!({"kind": "bloom", "items": 100_000, "fpr": 0.01})),
    );
    assert_eq!(status, 201);

    // fill until the store refuses a commit
    let mut acked = Vec::new();
    let mut refused = None;
    for b in 0..400 {
        let batch = items(&format!("b{b}"), 0..BATCH);
        let (status, v) = s.json(
            "POST",
            "/api/v1/filters/f/items",
            Some(&json!({ "items": batch })),
        );
        if status == 200 {
            acked.extend(batch);
            continue;
        }
        refused = Some((status, v, batch));
        break;
    }
    let (status, body, lost) = refused.expect("the file size limit was never reached");
    assert!(!acked.is_empty(), "not one batch fit");
    assert_eq!(status, 503, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(error.contains("File too large"), "{error}");

    // still serving, in the state of the last acknowledged write
    assert!(all_found(&s, "f", &acked));
    let (status, info) = s.json("GET", "/api/v1/filters/f", None);
    assert_eq!(status, 200);
    assert_eq!(info["items_inserted"], acked.len());
    // the refused batch is not in memory either (ε is 1%: most of it answers "no")
    let (_, v) = s.json(
        "POST",
        "/api/v1/filters/f/contains",
        Some(&json!({ "items": lost })),
    );
    let maybes = v["maybe"].as_array().unwrap();
    assert!(maybes.iter().filter(|m| **m == true).count() < BATCH / 10);

    // a larger write meets the same wall and says why (not "previous I/O error")
    let again = items("again", 0..4 * BATCH);
    let (status, v) = s.json(
        "POST",
        "/api/v1/filters/f/items",
        Some(&json!({ "items": again })),
    );
    assert_eq!(status, 503, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("File too large"),
        "{v}"
    );

    // the two refused commits are counted where Prometheus scrapes
    let (status, metrics) = s.call("GET", "/metrics", None).unwrap();
    assert_eq!(status, 200);
    let metrics = String::from_utf8(metrics).unwrap();
    assert!(
        metrics
            .lines()
            .any(|l| l == "amq_store_commit_failures_total 2"),
        "{metrics}"
    );

    // room again: the same write goes through, without a restart
    let pid = s.child.id().to_string();
    let ok = Command::new("prlimit")
        .args(["--pid", &pid, "--fsize=unlimited"])
        .status()
        .expect("prlimit (util-linux) runs");
    assert!(ok.success());
    let (status, v) = s.json(
        "POST",
        "/api/v1/filters/f/items",
        Some(&json!({ "items": again })),
    );
    assert_eq!(status, 200, "{v}");
    acked.extend(again);

    // and a kill -9 loses none of it
    s.kill9();
    let s = Server::start(&data, &[]);
    let (status, info) = s.json("GET", "/api/v1/filters/f", None);
    assert_eq!(status, 200);
    assert_eq!(info["items_inserted"], acked.len());
    assert!(all_found(&s, "f", &acked));
}
