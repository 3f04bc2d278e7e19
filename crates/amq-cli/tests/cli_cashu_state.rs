//! `amq cashu element|block|epoch` against the vectors of the compact state filters
//! (tests/vectors/cashu-state), with exit statuses.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn amq() -> Command {
    Command::cargo_bin("amq").unwrap()
}

fn vectors(name: &str) -> Value {
    let path = format!(
        "{}/../../tests/vectors/cashu-state/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

fn lines(v: &Value) -> String {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| format!("{}\n", s(x)))
        .collect()
}

fn stdout_of(args: &[&str], stdin: &str) -> String {
    let out = amq().args(args).write_stdin(stdin).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json_lines(text: &[u8]) -> Vec<Value> {
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

#[test]
fn element_prints_every_vector() {
    for name in ["revision-a.json", "revision-b.json"] {
        let v = vectors(name);
        for e in v["elements"].as_array().unwrap() {
            let mut args = vec!["cashu", "element", s(&e["kind"]), s(&e["id_hex"])];
            if !s(&e["state"]).is_empty() {
                args.push(s(&e["state"]));
            }
            assert_eq!(
                stdout_of(&args, ""),
                format!("{}\n", s(&e["e"])),
                "{args:?}"
            );
        }
    }
    // a quote id as text, with 0x on a point, and the JSON form with the preimage
    let quote = "019e6d5a-2347-7000-8afa-051ae571f334";
    let out = stdout_of(
        &["cashu", "element", "--text-id", "melt_quote", quote, "PAID"],
        "",
    );
    assert_eq!(
        out,
        "8a5b9cecaaf0ecd6edbb1a5aaffd770e43d180080126538f1489575ad9e09122\n"
    );
    let b = vectors("revision-b.json");
    let case = &b["cases"]["2"];
    let out = stdout_of(
        &[
            "cashu",
            "element",
            "--json",
            "mint_quote",
            s(&case["id_hex"]),
        ],
        "",
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["element"], case["e"]);
    assert_eq!(v["preimage"], case["preimage"]);
    assert_eq!(v["state"], "");
    let y = format!("0x{}", s(&b["cases"]["1"]["id_hex"]));
    let out = stdout_of(&["cashu", "element", "proof_state", &y, "SPENT"], "");
    assert_eq!(out.trim(), s(&b["cases"]["1"]["e"]));
}

#[test]
fn element_refuses_unknown_kinds_states_and_ids() {
    let y = "024cce997d3b518f739663b757deaec95bcd9473c30a14ac2fd04023a739d1a725";
    for (args, message) in [
        (vec!["proof_states", y, "SPENT"], "unknown kind"),
        (vec!["proof_state", y, "spent"], "not a proof_state state"),
        (vec!["proof_state", y], "not a proof_state state"),
        (vec!["mint_quote", "00", "PAID"], "has no state"),
        (vec!["proof_state", "024cce", "SPENT"], "33 bytes"),
        (vec!["blind_signature", "zz"], "invalid hex"),
        (vec!["melt_quote", "ff", "PAID"], "UTF-8"),
    ] {
        amq()
            .args(["cashu", "element"])
            .args(&args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(
                predicate::str::starts_with("error: ")
                    .and(predicate::str::contains(message))
                    .and(predicate::function(|e: &str| e.lines().count() == 1)),
            );
    }
}

#[test]
fn block_build_reproduces_cases_1_to_5_and_the_fold() {
    let v = vectors("revision-b.json");
    let cases = &v["cases"];
    for c in ["1", "2", "3"] {
        let case = &cases[c];
        let b = case["b"].to_string();
        let out = stdout_of(
            &["cashu", "block", "build", "--b", &b],
            &format!("{}\n", s(&case["e"])),
        );
        assert_eq!(out.trim(), s(&case["hex"]), "case {c}");
    }
    let four = lines(&cases["4"]["elements"]);
    let out = stdout_of(&["cashu", "block", "build", "--b", "10", "-"], &four);
    assert_eq!(out.trim(), s(&cases["4"]["hex"]));
    let out = stdout_of(
        &["cashu", "block", "build", "--b", "5"],
        &format!("{}\n", s(&cases["5"]["e"])),
    );
    assert_eq!(out.trim(), s(&cases["5"]["hex"]));
    // JSON: count, popcount
    let out = stdout_of(&["cashu", "block", "build", "--b", "10", "--json"], &four);
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((j["b"].as_u64(), j["count"].as_u64()), (Some(10), Some(5)));
    assert_eq!(j["popcount"], cases["4"]["popcount"]);
    assert_eq!(j["hex"], cases["4"]["hex"]);
    // --fold: five insertions fit b = 7 (capacity 5)
    let out = stdout_of(
        &["cashu", "block", "build", "--b", "10", "--fold", "--json"],
        &four,
    );
    let folded: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(folded["b"], 7);
    let direct = stdout_of(&["cashu", "block", "build", "--b", "7"], &four);
    assert_eq!(s(&folded["hex"]), direct.trim());
    // case 7: fold --to 6, of the hex and of the raw bytes in a file
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("4.bin");
    let out = amq()
        .args(["cashu", "block", "build", "--b", "10", "--raw"])
        .write_stdin(four.clone())
        .output()
        .unwrap();
    assert_eq!(out.stdout.len(), 128);
    std::fs::write(&raw, &out.stdout).unwrap();
    let hexfile = dir.path().join("4.hex");
    std::fs::write(&hexfile, format!("0x{}\n", s(&cases["4"]["hex"]))).unwrap();
    for source in [
        s(&cases["4"]["hex"]).to_string(),
        raw.display().to_string(),
        hexfile.display().to_string(),
    ] {
        let out = stdout_of(&["cashu", "block", "fold", "--to", "6", &source], "");
        assert_eq!(out.trim(), s(&cases["7"]["hex"]), "{source}");
    }
    // over capacity: built, with a warning
    amq()
        .args(["cashu", "block", "build", "--b", "6"])
        .write_stdin(four)
        .assert()
        .success()
        .stdout(format!("{}\n", s(&cases["7"]["hex"])))
        .stderr(predicate::str::contains("exceed the capacity 2"));
}

#[test]
fn block_match_prints_one_line_per_element_and_exits_by_result() {
    let v = vectors("revision-b.json");
    let four = &v["cases"]["4"];
    let members = lines(&four["elements"]);
    let block = s(&four["hex"]);
    let out = amq()
        .args(["cashu", "block", "match", "--block", block])
        .write_stdin(members.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let rows = json_lines(&out.stdout);
    assert_eq!(rows.len(), 5);
    for (row, e) in rows.iter().zip(four["elements"].as_array().unwrap()) {
        assert_eq!((&row["element"], &row["match"]), (e, &Value::Bool(true)));
    }
    let non = s(&four["non_member"]["e"]);
    let out = amq()
        .args(["cashu", "block", "match", "--block", block, "-"])
        .write_stdin(format!("{members}{non}\n"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let rows = json_lines(&out.stdout);
    assert_eq!(rows[5]["element"], non);
    assert_eq!(rows[5]["match"], false);
    // the folded block of case 7 still answers every member
    amq()
        .args([
            "cashu",
            "block",
            "match",
            "--block",
            s(&v["cases"]["7"]["hex"]),
        ])
        .write_stdin(members)
        .assert()
        .code(0);
}

#[test]
fn block_info_reports_width_fill_and_fpr() {
    let v = vectors("revision-b.json");
    let out = stdout_of(
        &[
            "cashu",
            "block",
            "info",
            "--json",
            s(&v["cases"]["4"]["hex"]),
        ],
        "",
    );
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["b"], 10);
    assert_eq!(j["bits"], 1024);
    assert_eq!(j["bytes"], 128);
    assert_eq!(j["capacity"], 44);
    assert_eq!(j["popcount"], 76);
    let fill = 76.0 / 1024.0;
    assert_eq!(j["fill"].as_f64().unwrap(), fill);
    assert!((j["fpr"].as_f64().unwrap() / f64::powi(fill, 16) - 1.0).abs() < 1e-12);
    let est = j["count_estimate"].as_f64().unwrap();
    assert!((4.5..5.5).contains(&est), "{est}");
    // a full block has no count estimate
    let out = stdout_of(&["cashu", "block", "info", "--json", "ffffffff"], "");
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["count_estimate"], Value::Null);
    assert_eq!(j["fpr"], 1.0);
    let text = stdout_of(&["cashu", "block", "info", "3abb2204"], "");
    assert!(text.contains("popcount") && text.contains("13"), "{text}");
    // a served body whose bytes happen to be hex digits is raw (b = 6 with 32 bits set, not
    // the 4-byte block ffffffff); the same digits with a line end, or in a *.hex file, are hex
    let dir = tempfile::tempdir().unwrap();
    let info = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = stdout_of(
            &["cashu", "block", "info", "--json", path.to_str().unwrap()],
            "",
        );
        let j: Value = serde_json::from_str(&out).unwrap();
        (j["b"].as_u64().unwrap(), j["popcount"].as_u64().unwrap())
    };
    assert_eq!(info("0.bin", b"ffffffff"), (6, 32));
    assert_eq!(info("00.bin", b"00000000"), (6, 16));
    assert_eq!(info("0.txt", b"ffffffff\n"), (5, 32));
    assert_eq!(info("0x.txt", b"0x00000000"), (5, 0));
    assert_eq!(info("0.hex", b"ffffffff"), (5, 32));
}

#[test]
fn bad_blocks_and_elements_exit_2() {
    for (args, stdin, message) in [
        (vec!["block", "info", "00112233445566"], "", "2^b/8 bytes"),
        (
            vec!["block", "info", "not-a-file"],
            "",
            "neither a file nor hex",
        ),
        (vec!["block", "build", "--b", "27"], "", "between 5 and 26"),
        (vec!["block", "build", "--b", "10"], "00\n", "32 bytes"),
        (vec!["block", "build", "--b", "10"], "\n", "32 bytes"),
        (
            vec!["block", "fold", "--to", "6", "3abb2204"],
            "",
            "smaller width",
        ),
        (
            vec!["block", "match", "--block", "3abb2204"],
            "zz\n",
            "invalid hex",
        ),
        (vec!["epoch", "build", "--p", "6"], "", "between 7 and 31"),
        (
            vec!["epoch", "match", "--p", "28", "--filter", "ffffffffff"],
            "",
            "truncated",
        ),
    ] {
        amq()
            .arg("cashu")
            .args(&args)
            .write_stdin(stdin)
            .assert()
            .code(2)
            .stderr(
                predicate::str::starts_with("error: ")
                    .and(predicate::str::contains(message))
                    .and(predicate::function(|e: &str| e.lines().count() == 1)),
            );
    }
}

#[test]
fn epoch_build_and_match_reproduce_revision_a() {
    let v = vectors("revision-a.json");
    let f = &v["filter"];
    let five = lines(&f["elements"]);
    let out = stdout_of(&["cashu", "epoch", "build", "--p", "28"], &five);
    assert_eq!(out, format!("{}\n", s(&f["data"])));
    // duplicates removed: the same data, N = 5
    let out = stdout_of(
        &["cashu", "epoch", "build", "--p", "28", "--json", "-"],
        &format!("{five}{five}"),
    );
    let j: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((j["n"].as_u64(), &j["data"]), (Some(5), &f["data"]));
    // single element and empty epoch
    let single = &v["single"];
    let e = stdout_of(
        &[
            "cashu",
            "element",
            "proof_state",
            s(&single["id_hex"]),
            s(&single["state"]),
        ],
        "",
    );
    let out = stdout_of(&["cashu", "epoch", "build", "--p", "28"], &e);
    assert_eq!(out.trim(), s(&single["data"]));
    assert_eq!(
        stdout_of(&["cashu", "epoch", "build", "--p", "28"], ""),
        "\n"
    );

    // matching: N from decoding, then the positions
    let m = &v["matching"];
    let out = amq()
        .args([
            "cashu",
            "epoch",
            "match",
            "--p",
            "28",
            "--filter",
            s(&f["data"]),
        ])
        .write_stdin(format!("{five}{}\n", s(&m["e"])))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let rows = json_lines(&out.stdout);
    assert_eq!(rows.len(), 6);
    for (row, pos) in rows.iter().zip(f["positions"].as_array().unwrap()) {
        assert_eq!(
            (&row["position"], &row["match"], &row["n"]),
            (pos, &Value::Bool(true), &f["n"])
        );
    }
    assert_eq!(rows[5]["position"], m["pos"]);
    assert_eq!(rows[5]["match"], false);
    // the filter from a file; and an empty epoch, which matches nothing
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("epoch.hex");
    std::fs::write(&file, format!("{}\n", s(&f["data"]))).unwrap();
    amq()
        .args(["cashu", "epoch", "match", "--p", "28", "--filter"])
        .arg(&file)
        .write_stdin(five.clone())
        .assert()
        .code(0);
    amq()
        .args(["cashu", "epoch", "match", "--p", "28", "--filter", ""])
        .write_stdin(five)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(r#""n":0"#));
}

#[test]
fn p_below_24_warns() {
    let v = vectors("revision-a.json");
    amq()
        .args(["cashu", "epoch", "build", "--p", "20"])
        .write_stdin(lines(&v["filter"]["elements"]))
        .assert()
        .success()
        .stderr(predicate::str::contains("below 24"));
}
