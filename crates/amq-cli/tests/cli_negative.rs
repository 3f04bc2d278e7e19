//! `amq negative`: the negative cache, with exit statuses.

mod common;

use common::{amq, json, Dir};
use predicates::prelude::*;

#[test]
fn present_absent_and_remove() {
    let dir = Dir::new();
    let f = dir.path("c.amq");
    amq()
        .args([
            "negative", "new", "--l", "10", "--b", "128", "--ways", "4", "-o",
        ])
        .arg(&f)
        .assert()
        .success();
    amq()
        .args(["negative", "insert"])
        .arg(&f)
        .arg("-")
        .write_stdin("k1\nk2\n")
        .assert()
        .success();
    amq()
        .args(["negative", "contains"])
        .arg(&f)
        .args(["k1", "k2"])
        .assert()
        .code(0)
        .stdout("present\tk1\npresent\tk2\n");
    amq()
        .args(["negative", "contains"])
        .arg(&f)
        .args(["k1", "k3"])
        .assert()
        .code(1)
        .stdout("present\tk1\nabsent\tk3\n");
    amq()
        .args(["negative", "remove"])
        .arg(&f)
        .arg("k1")
        .assert()
        .code(0);
    amq()
        .args(["negative", "remove"])
        .arg(&f)
        .arg("k1")
        .assert()
        .code(1);
    let out = amq()
        .args(["negative", "contains", "--json"])
        .arg(&f)
        .arg("k1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out.stdout);
    assert_eq!(v["present"], false);
    let out = amq()
        .args(["negative", "info", "--json"])
        .arg(&f)
        .output()
        .unwrap();
    let v = json(&out.stdout);
    assert_eq!(v["slots"], 1024);
    assert_eq!(v["ways"], 4);
    assert_eq!(v["occupied"], 1);
    assert_eq!(v["bytes"], 1024 * 129 / 8);
    assert!(v["fpr_bound"].as_f64().unwrap() < 1e-37);
}

#[test]
fn ttl_with_an_explicit_clock_and_hex_items() {
    let dir = Dir::new();
    let f = dir.path("t.amq");
    amq()
        .args(["negative", "new", "--l", "8", "--ttl", "30", "-o"])
        .arg(&f)
        .assert()
        .success();
    amq()
        .args(["negative", "insert", "--hex", "--now", "100"])
        .arg(&f)
        .write_stdin("0xdeadbeef\n")
        .assert()
        .success();
    amq()
        .args(["negative", "contains", "--hex", "--now", "129"])
        .arg(&f)
        .arg("deadbeef")
        .assert()
        .code(0);
    amq()
        .args(["negative", "contains", "--hex", "--now", "130"])
        .arg(&f)
        .arg("deadbeef")
        .assert()
        .code(1);
    // info at a time: the entry counts while it lives, and only its slot after
    let info_at = |now: &str| {
        let out = amq()
            .args(["negative", "info", "--json", "--now", now])
            .arg(&f)
            .output()
            .unwrap();
        assert!(out.status.success());
        let v = json(&out.stdout);
        (
            v["occupied"].clone(),
            v["live_entries"].clone(),
            v["estimated_items"].clone(),
        )
    };
    assert_eq!(info_at("129"), (1.into(), 1.into(), 1.0.into()));
    assert_eq!(info_at("130"), (1.into(), 0.into(), 0.0.into()));
    amq()
        .args(["negative", "contains", "--hex", "--now", "100"])
        .arg(&f)
        .arg("0xzz")
        .assert()
        .code(2);
}

#[test]
fn errors_exit_2() {
    let dir = Dir::new();
    amq()
        .args(["negative", "new", "--l", "10", "--b", "200", "-o"])
        .arg(dir.path("x.amq"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid b"));
    amq()
        .args(["negative", "new", "--l", "10", "--ways", "3", "-o"])
        .arg(dir.path("x.amq"))
        .assert()
        .code(2);
    amq()
        .args(["negative", "contains"])
        .arg(dir.path("missing.amq"))
        .arg("x")
        .assert()
        .code(2);
    let w = dir.path("w.amq");
    amq()
        .args(["window", "new", "--preset", "neptune", "-o"])
        .arg(&w)
        .assert()
        .success();
    amq()
        .args(["negative", "info"])
        .arg(&w)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("wrong filter kind"));
}
