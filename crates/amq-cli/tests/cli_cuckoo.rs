//! `amq build --kind cuckoo`, `amq remove`, `amq info` and `amq plan --kind cuckoo`, with exit
//! statuses.

mod common;

use common::{amq, info, json, json_lines, lines, success_json, words, Dir};
use predicates::prelude::*;

/// Builds a cuckoo filter of the lines "id-0" .. "id-{n-1}".
fn build(dir: &Dir, n: usize, extra: &[&str]) -> std::path::PathBuf {
    let f = dir.path("ids.amq");
    let items = words("id-", n);
    amq()
        .args(["build", "--kind", "cuckoo", "--fpr", "0.001", "-o"])
        .arg(&f)
        .args(extra)
        .arg("-")
        .write_stdin(items)
        .assert()
        .success()
        .stderr(predicate::str::contains("built cuckoo: "));
    f
}

#[test]
fn build_contains_remove_and_info() {
    let dir = Dir::new();
    let f = build(&dir, 5000, &[]);
    let v = info(&f);
    assert_eq!(v["kind"], "cuckoo");
    assert_eq!(v["items_inserted"], 5000);
    assert_eq!(v["fingerprint_bits"], 16.0); // ⌈log2(8/0.001)⌉ = 13, rounded up to 16
    assert_eq!(v["k"], 2);
    let load = v["load_factor"].as_f64().unwrap();
    assert!(load > 0.9 && load <= 0.95, "{load}");
    amq()
        .args(["contains"])
        .arg(&f)
        .args(["id-0", "id-4999"])
        .assert()
        .code(0)
        .stdout("maybe\tid-0\nmaybe\tid-4999\n");
    // remove: exit 0 when every item was there, and the file is rewritten
    amq()
        .arg("remove")
        .arg(&f)
        .args(["id-1", "id-2"])
        .assert()
        .code(0)
        .stdout("removed\tid-1\nremoved\tid-2\n");
    assert_eq!(info(&f)["items_inserted"], 4998);
    amq()
        .arg("contains")
        .arg(&f)
        .args(["id-1", "id-3"])
        .assert()
        .code(1)
        .stdout("no\tid-1\nmaybe\tid-3\n");
    // exit 1 if an item was not there; the others are still removed
    amq()
        .arg("remove")
        .arg(&f)
        .args(["id-3", "id-1"])
        .assert()
        .code(1)
        .stdout("removed\tid-3\nabsent\tid-1\n");
    assert_eq!(info(&f)["items_inserted"], 4997);
    // --json, and items from a file or stdin
    let out = amq()
        .args(["remove", "--json"])
        .arg(&f)
        .args(["--file", "-"])
        .write_stdin("id-4\nid-5\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["item"], "id-4");
    assert_eq!(lines[0]["removed"], true);
    // the human info shows the load factor and fingerprint bits
    amq()
        .arg("info")
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::contains("load factor"))
        .stdout(predicate::str::contains("fingerprint bits 16"));
}

#[test]
fn hex_items() {
    let dir = Dir::new();
    let f = dir.path("h.amq");
    amq()
        .args(["build", "--kind", "cuckoo", "--fpr", "0.01", "--hex", "-o"])
        .arg(&f)
        .arg("-")
        .write_stdin("deadbeef\n0x00ff\n\n")
        .assert()
        .success();
    assert_eq!(info(&f)["items_inserted"], 3);
    assert_eq!(info(&f)["fingerprint_bits"], 12.0);
    amq()
        .args(["remove", "--hex"])
        .arg(&f)
        .args(["0xDEADBEEF", "00ff"])
        .assert()
        .code(0);
    amq()
        .args(["contains", "--hex"])
        .arg(&f)
        .arg("deadbeef")
        .assert()
        .code(1);
    amq()
        .args(["remove", "--hex"])
        .arg(&f)
        .arg("zz")
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: "));
}

#[test]
fn a_full_filter_is_an_error_and_no_file_is_written() {
    let dir = Dir::new();
    let f = dir.path("small.amq");
    let items = lines(0..1000);
    amq()
        .args([
            "build", "--kind", "cuckoo", "--fpr", "0.01", "--items", "100", "-o",
        ])
        .arg(&f)
        .arg("-")
        .write_stdin(items)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("full"));
    assert!(!f.exists());
}

#[test]
fn build_summary_json() {
    let dir = Dir::new();
    let f = dir.path("j.amq");
    let v = success_json(
        amq()
            .args(["build", "--kind", "cuckoo", "--fpr", "0.05", "--json", "-o"])
            .arg(&f)
            .arg("-")
            .write_stdin("a\nb\na\n"),
    );
    assert_eq!(v["items_inserted"], 2); // distinct items
    assert_eq!(v["fingerprint_bits"], 8);
    assert_eq!(v["buckets"], 1);
    assert!((v["load_factor"].as_f64().unwrap() - 0.5).abs() < 1e-12);
}

#[test]
fn wrong_flags_and_kinds_exit_2() {
    let dir = Dir::new();
    let f = dir.path("x.amq");
    for args in [
        &["build", "--kind", "cuckoo", "--bits", "1000"][..],
        &[
            "build", "--kind", "cuckoo", "--fpr", "0.01", "--hashes", "3",
        ],
        &["build", "--kind", "cuckoo", "--fpr", "0.00001"], // needs > 16 fingerprint bits
    ] {
        amq()
            .args(args)
            .arg("-o")
            .arg(&f)
            .arg("-")
            .write_stdin("a\n")
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("error: "));
    }
    // a Bloom filter cannot remove
    let b = dir.path("b.amq");
    amq()
        .args(["build", "--fpr", "0.01", "-o"])
        .arg(&b)
        .arg("-")
        .write_stdin("a\n")
        .assert()
        .success();
    let before = std::fs::read(&b).unwrap();
    amq()
        .arg("remove")
        .arg(&b)
        .arg("a")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("only a cuckoo filter"));
    assert_eq!(std::fs::read(&b).unwrap(), before);
    // a missing file, a corrupt file
    amq()
        .arg("remove")
        .arg(dir.path("missing.amq"))
        .arg("a")
        .assert()
        .code(2);
    dir.write("x.amq", b"AMQ\0garbage");
    amq().arg("remove").arg(&f).arg("a").assert().code(2);
}

#[test]
fn merge_refuses_one_file_given_twice() {
    // merged with itself, a cuckoo filter would hold every fingerprint twice (it has room)
    let dir = Dir::new();
    build(&dir, 100, &["--items", "1000"]);
    std::fs::hard_link(dir.path("ids.amq"), dir.path("link.amq")).unwrap();
    for (inputs, named) in [
        (["ids.amq", "ids.amq"], "ids.amq is given twice"),
        (
            ["./ids.amq", "ids.amq"],
            "./ids.amq and ids.amq are the same file",
        ),
        (
            ["ids.amq", "link.amq"],
            "ids.amq and link.amq are the same file",
        ),
    ] {
        let out = amq()
            .current_dir(dir.root())
            .arg("merge")
            .args(inputs)
            .args(["-o", "out.amq"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{inputs:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.starts_with("error: "), "{stderr}");
        assert!(stderr.contains(named), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!dir.path("out.amq").exists(), "{inputs:?}");
    }
}

#[test]
fn plan_cuckoo() {
    let v = success_json(amq().args([
        "plan", "--items", "1000000", "--fpr", "0.001", "--kind", "cuckoo", "--json",
    ]));
    assert_eq!(v["kind"], "cuckoo");
    assert_eq!(v["fingerprint_bits"], 16);
    assert_eq!(v["buckets"], 263_158);
    assert!(v["fpr"].as_f64().unwrap() <= 0.001);
    let out = amq()
        .args([
            "plan", "--items", "1000000", "--memory", "2MB", "--kind", "cuckoo", "--json",
        ])
        .output()
        .unwrap();
    let v = json(&out.stdout);
    assert_eq!(v["fingerprint_bits"], 12);
    assert!(v["bytes"].as_u64().unwrap() <= 2_000_000);
    amq()
        .args([
            "plan", "--items", "1000000", "--fpr", "0.01", "--kind", "cuckoo",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("fingerprint 12 bits"));
    amq()
        .args([
            "plan", "--items", "1000000", "--memory", "1KB", "--kind", "cuckoo",
        ])
        .assert()
        .code(2);
    amq()
        .args([
            "plan", "--items", "10", "--fpr", "0.01", "--hashes", "2", "--kind", "cuckoo",
        ])
        .assert()
        .code(2);
}
