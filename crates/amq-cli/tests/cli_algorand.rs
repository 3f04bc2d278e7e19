//! `amq algorand indices|check|replay|plan` against the Python oracle
//! (tests/vectors/algorand/registry-oracle.json), with exit statuses.

mod common;

use base64::Engine as _;
use common::{amq, json_lines, success_json, vector, Dir};
use predicates::prelude::*;
use serde_json::Value;

fn oracle() -> Value {
    vector("algorand/registry-oracle.json")
}

#[test]
fn indices_match_the_oracle() {
    let out = amq()
        .args(["algorand", "indices", "The GOAT", "BAYC1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    // field order as the issue shows it
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        text.starts_with("{\"unit_name\":\"The GOAT\",\"h1\":"),
        "{text}"
    );
    let got = json_lines(&out.stdout);
    let o = oracle();
    for (g, name) in got.iter().zip(["54686520474f4154", "4241594331"]) {
        let want = o["indices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name_hex"] == name && c["m"] == 32768)
            .unwrap();
        assert_eq!(g["h1"], want["h1"]);
        assert_eq!(g["h2"], want["h2"]);
    }
    // --hex, non-UTF-8 bytes
    let out = amq()
        .args(["algorand", "indices", "--hex", "0xfffe0001"])
        .output()
        .unwrap();
    let g = &json_lines(&out.stdout)[0];
    let want = o["indices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name_hex"] == "fffe0001" && c["m"] == 32768)
        .unwrap();
    assert_eq!((&g["h1"], &g["h2"]), (&want["h1"], &want["h2"]));
    // k = 4 adds h3, h4
    let out = amq()
        .args(["algorand", "indices", "--k", "4", "x"])
        .output()
        .unwrap();
    assert!(json_lines(&out.stdout)[0]["h4"].is_u64());
}

#[test]
fn replay_matches_the_oracle() {
    let o = oracle();
    for r in o["replays"].as_array().unwrap() {
        let calls: Vec<&str> = r["calls_hex"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let mut cmd = amq();
        cmd.args(["algorand", "replay", "--hex", "--max-supply"])
            .arg(r["max_supply"].to_string());
        if !r["bootstrapped"].as_bool().unwrap() {
            cmd.arg("--not-bootstrapped");
        }
        let out = cmd.write_stdin(calls.join("\n") + "\n").output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let got = json_lines(&out.stdout);
        assert_eq!(got.len(), calls.len() + 1);
        for (g, want) in got.iter().zip(r["results"].as_array().unwrap()) {
            assert_eq!(&g["result"], want);
        }
        let summary = got.last().unwrap();
        assert_eq!(summary["minted"], r["minted"]);
        assert_eq!(summary["box_sha256"], r["box_sha256"]);
        assert_eq!(summary["box_base64"], r["box_base64"]);
    }
}

#[test]
fn replay_text_lines_and_empty_name() {
    let out = amq()
        .args(["algorand", "replay", "--max-supply", "10000", "-"])
        .write_stdin("The GOAT\nThe GOAT\r\nNINEBYTES\n\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let l: Vec<&str> = text.lines().collect();
    assert_eq!(l[0], r#"{"unit_name":"The GOAT","result":"ok"}"#);
    assert_eq!(
        l[1],
        r#"{"unit_name":"The GOAT","result":"fail: Unit name already taken"}"#
    );
    assert_eq!(
        l[2],
        r#"{"unit_name":"NINEBYTES","result":"fail: value is too long"}"#
    );
    assert_eq!(l[3], r#"{"unit_name":"","result":"ok"}"#);
    assert!(
        l[4].starts_with(r#"{"minted":2,"box_base64":""#),
        "{}",
        l[4]
    );
    // never bootstrapped: null box fields
    amq()
        .args([
            "algorand",
            "replay",
            "--max-supply",
            "3",
            "--not-bootstrapped",
        ])
        .write_stdin("A\n")
        .assert()
        .success()
        .stdout(predicate::str::ends_with(
            "{\"minted\":0,\"box_base64\":null,\"box_sha256\":null}\n",
        ));
}

#[test]
fn check_reads_raw_base64_and_algod_json() {
    let o = oracle();
    let r = &o["replays"][0]; // The GOAT, "", ff fe, BAYC1, BAYC2 minted
    let b64 = r["box_base64"].as_str().unwrap();
    let raw = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    let dir = Dir::new();
    let raw_path = dir.write("bloom.bin", &raw);
    let b64_path = dir.write("bloom.b64", format!("{b64}\n"));
    let json_path = dir.write(
        "box.json",
        format!(r#"{{"name":"Ymxvb20=","round":1234,"value":"{b64}"}}"#),
    );
    for path in [&raw_path, &b64_path, &json_path] {
        amq()
            .args(["algorand", "check", "--box"])
            .arg(path)
            .args(["The GOAT", "BAYC1", "BAYC9"])
            .assert()
            .code(1)
            .stdout("taken\tThe GOAT\ntaken\tBAYC1\navailable\tBAYC9\n");
        amq()
            .args(["algorand", "check", "--box"])
            .arg(path)
            .arg("BAYC9")
            .assert()
            .code(0);
    }
    // --hex and --json
    let out = amq()
        .args(["algorand", "check", "--json", "--hex", "--box"])
        .arg(&raw_path)
        .arg("fffe")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = &json_lines(&out.stdout)[0];
    assert_eq!(v["unit_name"], "fffe");
    assert_eq!(v["available"], false);
    // forcing --format raw on base64 text reads a box of another size: an error, not answers
    amq()
        .args(["algorand", "check", "--format", "raw", "--box"])
        .arg(&b64_path)
        .arg("x")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("has 5465 bytes"));
}

#[test]
fn errors_exit_2() {
    let dir = Dir::new();
    let empty = dir.write("empty", b"");
    amq()
        .args(["algorand", "check", "--box"])
        .arg(&empty)
        .arg("x")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("box size"));
    let big = dir.write("big", vec![0u8; 32_769]);
    amq()
        .args(["algorand", "check", "--box"])
        .arg(&big)
        .arg("x")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("too large"));
    amq()
        .args(["algorand", "check", "--box", "/nonexistent/box", "x"])
        .assert()
        .code(2);
    amq()
        .args(["algorand", "indices", "--k", "5", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("k must be 1 to 4"));
    amq()
        .args(["algorand", "replay", "--max-supply", "3", "--hex"])
        .write_stdin("zz\n")
        .assert()
        .code(2);
    amq()
        .args(["algorand", "plan", "--supply", "1000000", "--fpr", "0.001"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("32,768-byte box"));
}

#[test]
fn plan_json() {
    let v = success_json(amq().args([
        "algorand", "plan", "--supply", "10000", "--fpr", "1%", "--json",
    ]));
    assert_eq!(v["box_bytes"], 13_184);
    assert_eq!(v["k"], 4);
    assert_eq!(v["min_balance_microalgos"], 2_500 + 400 * (5 + 13_184));
    assert_eq!(v["fits_on_stack"], false);
    assert_eq!(v["hashes"][0], "sha512_256");
    // 13,184 bytes at 1,024 per reference, 8 references per app call
    assert_eq!(v["box_references"], 13);
    assert_eq!(v["app_calls_for_box_references"], 2);
}
