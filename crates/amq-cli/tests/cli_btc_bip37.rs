//! `amq btc bip37 build|contains` on Bitcoin Core's vectors, with exit statuses.

mod common;

use common::{amq, json, success_json};
use predicates::prelude::*;

const CORE_ITEMS: &str = "99108ad8ed9bb6274d3980bab5a85c048f0950c8\n\
b5a2c786d9ef4658287ced5914b37a1b4aa32eee\n\
0xb9300670b4c5366e95b2699e8b18bc75e5f729c5\r\n";

#[test]
fn build_reproduces_core_serializations() {
    amq()
        .args(["btc", "bip37", "build", "--elements", "3", "--fpr", "0.01"])
        .args(["--tweak", "0", "--flags", "1", "-"])
        .write_stdin(CORE_ITEMS)
        .assert()
        .success()
        .stdout("03614e9b050000000000000001\n");
    // with tweak 2147483649 (given in hex here)
    amq()
        .args(["btc", "bip37", "build", "--elements", "3", "--fpr", "0.01"])
        .args(["--tweak", "0x80000001", "--flags", "1"])
        .write_stdin(CORE_ITEMS)
        .assert()
        .success()
        .stdout("03ce4299050000000100008001\n");
}

#[test]
fn build_json_reports_shape() {
    let v = success_json(
        amq()
            .args(["btc", "bip37", "build", "--elements", "3", "--fpr", "0.01"])
            .args(["--tweak", "0", "--flags", "1", "--json"])
            .write_stdin(CORE_ITEMS),
    );
    assert_eq!(v["filterload"], "03614e9b050000000000000001");
    assert_eq!(v["bytes"], 3);
    assert_eq!(v["hash_funcs"], 5);
    assert_eq!(v["elements_inserted"], 3);
    let fpr = v["expected_fpr"].as_f64().unwrap();
    assert!((fpr - amq::math::fpr(3, 24, 5)).abs() < 1e-12);
}

#[test]
fn contains_exit_statuses() {
    amq()
        .args(["btc", "bip37", "contains", "0x03614e9b050000000000000001"])
        .args([
            "99108ad8ed9bb6274d3980bab5a85c048f0950c8",
            "b5a2c786d9ef4658287ced5914b37a1b4aa32eee",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("maybe\t99108ad8"));
    amq()
        .args(["btc", "bip37", "contains", "03614e9b050000000000000001"])
        .args([
            "99108ad8ed9bb6274d3980bab5a85c048f0950c8",
            "19108ad8ed9bb6274d3980bab5a85c048f0950c8",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("no\t19108ad8"));
    let out = amq()
        .args([
            "btc",
            "bip37",
            "contains",
            "--json",
            "03614e9b050000000000000001",
        ])
        .arg("19108ad8ed9bb6274d3980bab5a85c048f0950c8")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out.stdout);
    assert_eq!(v["maybe"], false);
}

#[test]
fn empty_filter_matches_everything() {
    // ε = 1 gives Core's 0-byte filter, which matches every item
    amq()
        .args([
            "btc",
            "bip37",
            "build",
            "--elements",
            "10",
            "--fpr",
            "1",
            "--tweak",
            "7",
        ])
        .write_stdin("")
        .assert()
        .success()
        .stdout("00000000000700000000\n");
    amq()
        .args([
            "btc",
            "bip37",
            "contains",
            "00000000000700000000",
            "deadbeef",
        ])
        .assert()
        .code(0);
}

#[test]
fn errors_exit_2() {
    // 36,001 bytes: over Core's cap
    let mut payload = String::from("fda18c");
    payload.push_str(&"00".repeat(36_001 + 9));
    amq()
        .args(["btc", "bip37", "contains", &payload, "00"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("too large"));
    // 51 hash functions
    amq()
        .args(["btc", "bip37", "contains", "0100330000000000000000", "00"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nHashFuncs"));
    // truncated, and bad hex
    amq()
        .args(["btc", "bip37", "contains", "03614e9b0500", "00"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("truncated"));
    amq()
        .args([
            "btc",
            "bip37",
            "contains",
            "03614e9b050000000000000001",
            "xyz",
        ])
        .assert()
        .code(2);
    amq()
        .args([
            "btc",
            "bip37",
            "build",
            "--elements",
            "0",
            "--fpr",
            "0.01",
            "--tweak",
            "0",
        ])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid n"));
    amq()
        .args([
            "btc",
            "bip37",
            "build",
            "--elements",
            "3",
            "--fpr",
            "0.01",
            "--tweak",
            "0",
        ])
        .write_stdin("not hex\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("-:1"));
}
