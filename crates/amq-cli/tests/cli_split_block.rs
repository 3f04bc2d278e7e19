//! `amq build --kind split-block-bloom`, then `info`, `contains`, `query`, `merge` and `plan`
//! on it, with exit statuses.

mod common;

use common::{amq, info, success_json, words, Dir};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn build(dir: &Dir, name: &str, input: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.path(name);
    amq()
        .args(["build", "--kind", "split-block-bloom"])
        .args(extra)
        .arg("-o")
        .arg(&out)
        .arg(input)
        .assert()
        .success()
        .stderr(predicate::str::contains("built split-block-bloom: "));
    out
}

fn count(f: &Path, items: &Path) -> u64 {
    let out = amq()
        .args(["query", "--count"])
        .arg(f)
        .arg(items)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn build_info_contains_query() {
    let dir = Dir::new();
    let members = dir.write("members.txt", words("m", 5000));
    let others = dir.write("others.txt", words("o", 50_000));
    let f = build(&dir, "s.amq", &members, &["--fpr", "0.01"]);
    let v = info(&f);
    assert_eq!(v["kind"], "split-block-bloom");
    assert_eq!(v["k"], 8);
    assert_eq!(v["items_inserted"], 5000);
    let m = v["m_bits"].as_u64().unwrap();
    assert_eq!(v["blocks"].as_u64().unwrap() * 512, m);
    let plan = success_json(amq().args([
        "plan",
        "--items",
        "5000",
        "--fpr",
        "0.01",
        "--kind",
        "split-block-bloom",
        "--json",
    ]));
    assert_eq!(plan["m_bits"].as_u64(), Some(m), "build sizes as plan does");
    assert!(plan["fpr"].as_f64().unwrap() <= 0.01);
    amq()
        .arg("contains")
        .arg(&f)
        .args(["m0", "m4999"])
        .assert()
        .code(0)
        .stdout("maybe\tm0\nmaybe\tm4999\n");
    assert_eq!(count(&f, &members), 5000);
    let rate = count(&f, &others) as f64 / 50_000.0;
    let eps = plan["fpr"].as_f64().unwrap();
    let sigma = (eps * (1.0 - eps) / 50_000.0).sqrt();
    assert!((rate - eps).abs() < 4.0 * sigma, "{rate} vs {eps}");
    // k is fixed at 8
    amq()
        .args([
            "build",
            "--kind",
            "split-block-bloom",
            "--bits",
            "4096",
            "--hashes",
            "3",
        ])
        .arg("-o")
        .arg(dir.path("bad.amq"))
        .arg(&members)
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error:"));
}

#[test]
fn merge_is_the_union() {
    let dir = Dir::new();
    let shape = ["--bits", "8192", "--seed", "3"];
    let (a, a_in) =
        common::assert_merge_is_union(&dir, |d, name, input| build(d, name, input, &shape));
    let c = build(&dir, "c.amq", &a_in, &["--bits", "8192", "--seed", "4"]);
    amq()
        .arg("merge")
        .arg(&a)
        .arg(&c)
        .arg("-o")
        .arg(dir.path("bad.amq"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("seed"));
}
