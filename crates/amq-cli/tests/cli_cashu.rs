//! `amq cashu build|match|fpr` against the published Cashu GCS vectors, with exit statuses.

mod common;

use common::{amq, json, json_lines, success_json, vector, Dir};
use predicates::prelude::*;
use serde_json::Value;

fn vectors() -> Value {
    vector("cashu-gcs/nuts-pr261-gcs-vector.json")
}

/// The strings of a JSON array, one per line.
fn lines(v: &Value) -> String {
    common::lines(v.as_array().unwrap().iter().map(|s| s.as_str().unwrap()))
}

fn build(args: &[&str], stdin: &str) -> Value {
    success_json(
        amq()
            .args(["cashu", "build", "--timestamp", "1700000000"])
            .args(args)
            .write_stdin(stdin),
    )
}

#[test]
fn build_reproduces_all_three_vectors() {
    let v = vectors();
    let items = lines(&v["items_hex"]);
    for (args, expected) in [
        (vec![], &v["hash128_variant"]["filter_base64"]),
        (
            vec!["--hash", "murmur3-128"],
            &v["hash128_variant"]["filter_base64"],
        ),
        (vec!["--hash", "murmur3-32x2"], &v["filter_base64"]),
        (
            vec!["--hash", "siphash"],
            &v["siphash_variant"]["filter_base64"],
        ),
        (
            vec![
                "--hash",
                "siphash",
                "--key",
                "00000000000000000000000000000000",
            ],
            &v["siphash_variant"]["filter_base64"],
        ),
    ] {
        let r = build(&args, &items);
        assert_eq!(&r["content"], expected, "{args:?}");
        assert_eq!(r["n"], 10);
        assert_eq!(r["p"], 19);
        assert_eq!(r["m"], 784_931);
        assert_eq!(r["timestamp"], 1_700_000_000);
    }
    // the field order of the spec
    let out = amq()
        .args(["cashu", "build", "--timestamp", "5", "-"])
        .write_stdin("")
        .assert()
        .success();
    out.stdout("{\"n\":0,\"p\":19,\"m\":784931,\"content\":\"\",\"timestamp\":5}\n");
}

#[test]
fn match_prints_one_line_per_item_and_exits_by_result() {
    let v = vectors();
    let dir = Dir::new();
    let filter = dir.write(
        "filter.json",
        format!(
            r#"{{"n": 10, "p": null, "m": null, "content": ["{}"], "timestamp": 1}}"#,
            v["filter_base64"].as_str().unwrap()
        ),
    );
    let members = lines(&v["items_hex"]);
    let out = amq()
        .args(["cashu", "match", "--hash", "murmur3-32x2", "--filter"])
        .arg(&filter)
        .write_stdin(members.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let rows = json_lines(&out.stdout);
    assert_eq!(rows.len(), 10);
    for (row, item) in rows.iter().zip(v["items_hex"].as_array().unwrap()) {
        assert_eq!(&row["item"], item);
        assert_eq!(row["match"], true);
    }
    // a non-member: exit 1
    let non = lines(&v["non_members_hex"]);
    amq()
        .args(["cashu", "match", "--hash", "murmur3-32x2", "--filter"])
        .arg(&filter)
        .write_stdin(format!("{members}{non}"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(r#""match":false"#));
    // duplicate targets are an error, as the draft says
    let first = v["items_hex"][0].as_str().unwrap();
    amq()
        .args(["cashu", "match", "--hash", "murmur3-32x2", "--filter"])
        .arg(&filter)
        .write_stdin(format!("{first}\n{first}\n"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not unique"));
}

#[test]
fn bad_responses_and_arguments_exit_2() {
    let dir = Dir::new();
    let filter = dir.write(
        "filter.json",
        r#"{"n": 5000000000, "content": "AAAA", "timestamp": 0}"#,
    );
    amq()
        .args(["cashu", "match", "--filter"])
        .arg(&filter)
        .write_stdin("00\n")
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error:").and(predicate::str::contains("2^32")));
    // two codes whose unary quotient never ends: refused on reading, named by file, with the
    // bytes it needs
    dir.write(
        "filter.json",
        r#"{"n": 2, "p": 19, "m": 784931, "content": "////////", "timestamp": 0}"#,
    );
    amq()
        .args(["cashu", "match", "--filter"])
        .arg(&filter)
        .write_stdin("00\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "filter.json: not a valid GetFilterResponse: truncated input: golomb-rice code at \
             byte 0 needs 9 bytes, 6 left",
        ));
    dir.write("filter.json", "not json");
    amq()
        .args(["cashu", "match", "--filter"])
        .arg(&filter)
        .write_stdin("00\n")
        .assert()
        .code(2);
    amq()
        .args(["cashu", "build", "--m", "4294967296", "-"])
        .write_stdin("00\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("smaller than 2^32"));
    amq()
        .args(["cashu", "build", "--key", "00", "-"])
        .write_stdin("00\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("only for --hash siphash"));
    amq()
        .args(["cashu", "build", "--hash", "siphash", "--key", "0011", "-"])
        .write_stdin("00\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("16 bytes"));
    amq()
        .args(["cashu", "build", "-"])
        .write_stdin("zz\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid hex"));
}

#[test]
fn fpr_reproduces_the_bulk_table() {
    for (x, expected) in [
        ("1", "0.999998726\n"),
        ("10", "0.999987260\n"),
        ("300", "0.999617874\n"),
        ("5000", "0.993650255\n"),
    ] {
        amq()
            .args(["cashu", "fpr", "--m", "784931", "--queries", x])
            .assert()
            .success()
            .stdout(expected);
    }
    let out = amq()
        .args(["cashu", "fpr", "--queries", "5000", "--json"])
        .output()
        .unwrap();
    let v = json(&out.stdout);
    assert!((v["any_false_positive"].as_f64().unwrap() - 0.006349745).abs() < 1e-8);
    amq()
        .args(["cashu", "fpr", "--m", "0", "--queries", "1"])
        .assert()
        .code(2);
}
