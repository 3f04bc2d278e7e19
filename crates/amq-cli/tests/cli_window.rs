//! `amq window` (sliding-window Bloom) and `amq aging`, with exit statuses.

mod common;

use common::{amq, json, words, Dir};
use predicates::prelude::*;

/// A new sliding-window Bloom filter of W = 512, S = 64, B = 2, k = 4 in `dir`.
fn small_window(dir: &Dir) -> std::path::PathBuf {
    let f = dir.path("w.amq");
    amq()
        .args([
            "window", "new", "--window", "512", "--chunk", "64", "--batch", "2", "--hashes", "4",
            "-o",
        ])
        .arg(&f)
        .assert()
        .success();
    f
}

#[test]
fn window_insert_assigns_positions_and_finds_items_there() {
    let dir = Dir::new();
    let f = small_window(&dir);
    amq()
        .args(["window", "insert"])
        .arg(&f)
        .arg("-")
        .write_stdin("apple\nbanana\ncherry\n")
        .assert()
        .success()
        .stdout("0\tapple\n1\tbanana\n2\tcherry\n");
    amq()
        .args(["window", "contains"])
        .arg(&f)
        .args(["--at", "1", "banana"])
        .assert()
        .code(0)
        .stdout("maybe\tbanana\n");
    amq()
        .args(["window", "contains"])
        .arg(&f)
        .args(["--at", "0", "banana"])
        .assert()
        .code(1)
        .stdout("no\tbanana\n");
    // many more items: apple's chunks are archived and still answered
    let many = words("item-", 500);
    amq()
        .args(["window", "insert"])
        .arg(&f)
        .write_stdin(many)
        .assert()
        .success();
    amq()
        .args(["window", "contains"])
        .arg(&f)
        .args(["--at", "0", "apple"])
        .assert()
        .code(0);
    // explicit positions, JSON out
    let out = amq()
        .args(["window", "insert", "--json", "--at", "10000"])
        .arg(&f)
        .write_stdin("late\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = json(&out.stdout);
    assert_eq!(v["position"], 10000);
    let out = amq()
        .args(["window", "info", "--json"])
        .arg(&f)
        .output()
        .unwrap();
    let v = json(&out.stdout);
    assert_eq!(v["next_position"], 10001);
    assert_eq!(v["items_inserted"], 504);
    assert_eq!(v["window_start_chunk"], 5000);
    assert!(v["archived_chunks"].as_u64().unwrap() > 0);
}

/// A bad item after good ones: the command fails naming it, prints no position (the
/// earlier items' positions would be lies: the file keeps none of them) and leaves the file
/// as it was.
#[test]
fn window_insert_failing_midway_prints_nothing_and_changes_nothing() {
    let dir = Dir::new();
    let f = small_window(&dir);
    let before = std::fs::read(&f).unwrap();
    // the last position, u64::MAX, is refused: the second item fails
    amq()
        .args(["window", "insert", "--at", &(u64::MAX - 1).to_string()])
        .arg(&f)
        .arg("-")
        .write_stdin("first\nsecond\nthird\n")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "item 2 (second); nothing was written",
        ));
    assert_eq!(std::fs::read(&f).unwrap(), before);
}

#[test]
fn window_neptune_preset_and_errors() {
    let dir = Dir::new();
    let f = dir.path("n.amq");
    amq()
        .args(["window", "new", "--preset", "neptune", "-o"])
        .arg(&f)
        .assert()
        .success();
    let out = amq()
        .args(["window", "info", "--json"])
        .arg(&f)
        .output()
        .unwrap();
    let v = json(&out.stdout);
    assert_eq!(
        (v["window_bits"].as_u64(), v["chunk_bits"].as_u64()),
        (Some(1 << 20), Some(4096))
    );
    assert_eq!((v["batch"].as_u64(), v["k"].as_u64()), (Some(8), Some(45)));
    // bad shape, missing shape, a file of another kind, garbage: exit 2 with one error line
    amq()
        .args([
            "window", "new", "--window", "1000", "--chunk", "64", "--batch", "1", "--hashes", "3",
            "-o",
        ])
        .arg(dir.path("x.amq"))
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: "));
    amq()
        .args(["window", "new", "-o"])
        .arg(dir.path("y.amq"))
        .assert()
        .code(2);
    let neg = dir.path("neg.amq");
    amq()
        .args(["negative", "new", "--l", "4", "-o"])
        .arg(&neg)
        .assert()
        .success();
    amq()
        .args(["window", "contains", "--at", "0"])
        .arg(&neg)
        .arg("x")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "wrong filter kind: expected sliding-window-bloom, found negative-cache",
        ));
    let junk = dir.write("junk.amq", b"not a filter");
    amq().args(["window", "info"]).arg(&junk).assert().code(2);
}

#[test]
fn aging_by_count_forgets_after_the_window() {
    let dir = Dir::new();
    let f = dir.path("a.amq");
    amq()
        .args([
            "aging",
            "new",
            "--window",
            "100",
            "--generations",
            "3",
            "--fpr",
            "1e-6",
            "-o",
        ])
        .arg(&f)
        .assert()
        .success();
    amq()
        .args(["aging", "insert"])
        .arg(&f)
        .write_stdin("first\n")
        .assert()
        .success();
    amq()
        .args(["aging", "insert"])
        .arg(&f)
        .write_stdin(words("x", 99))
        .assert()
        .success();
    amq()
        .args(["aging", "contains"])
        .arg(&f)
        .arg("first")
        .assert()
        .code(0)
        .stdout("maybe\tfirst\n");
    // g·c = 3·50 insertions later it is gone
    amq()
        .args(["aging", "insert"])
        .arg(&f)
        .write_stdin(words("x", 60))
        .assert()
        .success();
    amq()
        .args(["aging", "contains"])
        .arg(&f)
        .args(["first", "x5"])
        .assert()
        .code(1)
        .stdout("no\tfirst\nmaybe\tx5\n");
    let out = amq()
        .args(["aging", "info", "--json"])
        .arg(&f)
        .output()
        .unwrap();
    let v = json(&out.stdout);
    assert_eq!(v["rotation"], "count");
    assert_eq!(v["rotation_period"], 50);
    assert_eq!(v["window_at_least"], 100);
    assert_eq!(v["items_inserted"], 160);
    assert!(v["fpr_bound"].as_f64().unwrap() <= 1e-6);
}

#[test]
fn aging_by_time_with_an_explicit_clock() {
    let dir = Dir::new();
    let f = dir.path("t.amq");
    amq()
        .args([
            "aging",
            "new",
            "--window-seconds",
            "60",
            "--generations",
            "4",
            "--items-per-generation",
            "100",
        ])
        .args(["--fpr", "0.001", "-o"])
        .arg(&f)
        .assert()
        .success();
    // Δ = 20 s: inserted at t = 1000 (interval 50), found until t = 1079, gone at 1080
    amq()
        .args(["aging", "insert", "--now", "1000"])
        .arg(&f)
        .write_stdin("token\n")
        .assert()
        .success();
    amq()
        .args(["aging", "contains", "--now", "1079"])
        .arg(&f)
        .arg("token")
        .assert()
        .code(0);
    amq()
        .args(["aging", "contains", "--now", "1080"])
        .arg(&f)
        .arg("token")
        .assert()
        .code(1);
    amq()
        .args(["aging", "new", "--fpr", "0.01", "-o"])
        .arg(dir.path("bad.amq"))
        .assert()
        .code(2);
}

/// `amq info` reads the sliding-window, aging and negative-cache files too, and shows what
/// their own `info` subcommands show.
#[test]
fn amq_info_reads_window_aging_and_negative_files() {
    let dir = Dir::new();
    let news: [(&str, &[&str]); 3] = [
        (
            "window",
            &[
                "--window", "512", "--chunk", "64", "--batch", "2", "--hashes", "4",
            ],
        ),
        (
            "aging",
            &["--window", "100", "--generations", "3", "--fpr", "0.01"],
        ),
        ("negative", &["--l", "10", "--b", "64", "--ways", "4"]),
    ];
    for (group, shape) in news {
        let f = dir.path(&format!("{group}.amq"));
        amq()
            .args([group, "new"])
            .args(shape)
            .arg("-o")
            .arg(&f)
            .assert()
            .success();
        amq()
            .args([group, "insert"])
            .arg(&f)
            .write_stdin("apple\nbanana\ncherry\n")
            .assert()
            .success();
        let own = amq()
            .args([group, "info", "--json"])
            .arg(&f)
            .output()
            .unwrap();
        let general = amq()
            .args(["info", "--json", "--now", "0"])
            .arg(&f)
            .output()
            .unwrap();
        assert!(general.status.success(), "{group}: {general:?}");
        let (own, general) = (json(&own.stdout), json(&general.stdout));
        assert_eq!(own, general, "{group}");
        assert_eq!(general["items_inserted"], 3, "{group}");
        amq()
            .arg("info")
            .arg(&f)
            .assert()
            .success()
            .stdout(predicate::str::starts_with("kind"));
    }
}
