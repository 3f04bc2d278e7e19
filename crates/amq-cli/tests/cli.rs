//! The `amq` command line: plan, build, query, contains, info, merge, with exit statuses.

mod common;

use common::{amq, info, json_lines, success_json, words, Dir};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn plan_json(args: &[&str]) -> serde_json::Value {
    success_json(amq().arg("plan").args(args).arg("--json"))
}

fn close(v: &serde_json::Value, key: &str, want: f64, tol: f64) {
    let got = v[key].as_f64().unwrap_or_else(|| panic!("no {key} in {v}"));
    assert!(
        (got - want).abs() <= tol,
        "{key}: got {got}, want {want} ± {tol}"
    );
}

#[test]
fn plan_reproduces_the_smart_contract_seed() {
    // bit still zero: 0.875 for m = 8, k = 1, n = 1
    let v = plan_json(&[
        "--items", "1", "--bits", "8", "--hashes", "1", "--kind", "bloom",
    ]);
    close(&v, "bit_zero_probability", 0.875, 1e-12);
    // 0.669 for k = 3, n = 1 and 0.134 for k = 3, n = 5 (the seed gives three digits)
    let v = plan_json(&[
        "--items", "1", "--bits", "8", "--hashes", "3", "--kind", "bloom",
    ]);
    close(&v, "bit_zero_probability", 0.669, 1e-3);
    let v = plan_json(&[
        "--items", "5", "--bits", "8", "--hashes", "3", "--kind", "bloom",
    ]);
    close(&v, "bit_zero_probability", 0.134, 1e-3);
    // optimal k 2.2713 for m = 32,768, n = 10,000, and k = 2 chosen
    let v = plan_json(&["--items", "10000", "--bits", "32768", "--kind", "bloom"]);
    close(&v, "optimal_k", 2.2713, 5e-5);
    assert_eq!(v["k"], 2);
    assert_eq!(v["m_bits"], 32768);
    assert_eq!(v["bytes"], 4096);
}

#[test]
fn plan_reproduces_the_bloom_cuckoo_seed_table() {
    for (n, want) in [
        ("3", 0.01474),
        ("7", 0.11143),
        ("12", 0.30802),
        ("17", 0.50595),
        ("28", 0.79804),
    ] {
        let v = plan_json(&[
            "--items", n, "--bits", "32", "--hashes", "3", "--kind", "bloom",
        ]);
        close(&v, "fpr", want, 5e-6);
        assert!(v["fpr_exact"].as_f64().unwrap() >= v["fpr"].as_f64().unwrap() - 1e-3);
    }
}

#[test]
fn plan_fields_and_kinds() {
    // --hashes without --kind plans the kinds that take that k (not the split block kind,
    // whose k is 8, nor cuckoo)
    let out = amq()
        .args([
            "plan", "--items", "1000", "--fpr", "0.01", "--hashes", "5", "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kinds: Vec<String> = json_lines(&out.stdout)
        .iter()
        .map(|v| v["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["bloom", "blocked-bloom"]);
    let v = plan_json(&["--items", "1000000", "--fpr", "0.01", "--kind", "bloom"]);
    for key in [
        "kind",
        "items",
        "m_bits",
        "k",
        "bytes",
        "bits_per_key",
        "fpr",
        "fpr_exact",
        "bit_zero_probability",
    ] {
        assert!(!v[key].is_null(), "missing {key}");
    }
    assert_eq!(v["kind"], "bloom");
    assert_eq!(v["k"], 7);
    assert!(v["fpr"].as_f64().unwrap() <= 0.01);
    let b = plan_json(&[
        "--items",
        "1000000",
        "--fpr",
        "1%",
        "--kind",
        "blocked-bloom",
    ]);
    assert_eq!(b["kind"], "blocked-bloom");
    assert!(b["fpr"].as_f64().unwrap() <= 0.01);
    assert!(b["m_bits"].as_u64().unwrap().is_multiple_of(512));
    assert!(b["bits_per_key"].as_f64().unwrap() > v["bits_per_key"].as_f64().unwrap());
    // memory budget: never over it
    let m = plan_json(&["--items", "100000", "--memory", "64KiB", "--kind", "bloom"]);
    assert!(m["bytes"].as_u64().unwrap() <= 65536);
    // every kind without --kind: one JSON object per line
    let out = amq()
        .args(["plan", "--items", "1000", "--fpr", "0.01", "--json"])
        .output()
        .unwrap();
    let kinds: Vec<String> = json_lines(&out.stdout)
        .iter()
        .map(|v| v["kind"].to_string())
        .collect();
    assert_eq!(
        kinds,
        [
            r#""bloom""#,
            r#""blocked-bloom""#,
            r#""cuckoo""#,
            r#""split-block-bloom""#
        ]
    );
    // cuckoo cannot reach 10⁻⁶ with 16-bit fingerprints: left out, with a note
    amq()
        .args(["plan", "--items", "1000", "--fpr", "1e-6", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("cuckoo").not())
        .stderr(predicate::str::contains("cuckoo: not planned"));
    // human table
    amq()
        .args(["plan", "--items", "1000", "--fpr", "0.01"])
        .assert()
        .success()
        .stdout(predicate::str::contains("blocked-bloom"));
}

#[test]
fn plan_errors_exit_2() {
    for args in [
        vec!["plan", "--items", "10", "--fpr", "1.5"],
        vec!["plan", "--items", "0", "--fpr", "0.01"],
        vec!["plan", "--items", "10"],
        vec!["plan", "--items", "10", "--bits", "0"],
        vec!["plan", "--items", "10", "--bits", "100", "--hashes", "0"],
        vec!["plan", "--items", "ten", "--fpr", "0.1"],
        vec!["plan", "--items", "10", "--memory", "12 parsecs"],
    ] {
        amq()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("error:"))
            .stderr(predicate::str::contains("panicked").not());
    }
}

fn build(dir: &Dir, name: &str, input: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.path(name);
    amq()
        .arg("build")
        .args(extra)
        .arg("-o")
        .arg(&out)
        .arg(input)
        .assert()
        .success();
    out
}

#[test]
fn build_query_info_round_trip_both_kinds() {
    let dir = Dir::new();
    let members = dir.write("members.txt", words("m", 5000));
    let others = dir.write("others.txt", words("o", 20000));
    for kind in ["bloom", "blocked-bloom"] {
        let f = build(
            &dir,
            &format!("{kind}.amq"),
            &members,
            &["--kind", kind, "--fpr", "0.01"],
        );
        // every member is selected
        amq()
            .arg("query")
            .arg("--count")
            .arg(&f)
            .arg(&members)
            .assert()
            .code(0)
            .stdout("5000\n");
        // non-members: about 1% selected
        let out = amq()
            .arg("query")
            .arg("--count")
            .arg(&f)
            .arg(&others)
            .output()
            .unwrap();
        let hits: f64 = String::from_utf8(out.stdout)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(
            hits / 20000.0 < 0.01 + 3.0 * (0.01f64 * 0.99 / 20000.0).sqrt(),
            "{kind}: {hits}"
        );
        // --invert selects the definitely absent ones
        let out = amq()
            .arg("query")
            .args(["--invert", "--count"])
            .arg(&f)
            .arg(&others)
            .output()
            .unwrap();
        let absent: f64 = String::from_utf8(out.stdout)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(absent + hits, 20000.0);
        // info
        let v = info(&f);
        assert_eq!(v["kind"], kind);
        assert_eq!(v["items_inserted"], 5000);
        let est = v["estimated_items"].as_f64().unwrap();
        assert!((est / 5000.0 - 1.0).abs() < 0.05, "{est}");
        for key in [
            "m_bits",
            "k",
            "seed",
            "fill_ratio",
            "estimated_fpr",
            "bytes",
        ] {
            assert!(!v[key].is_null(), "info lacks {key}");
        }
        amq()
            .arg("info")
            .arg(&f)
            .assert()
            .success()
            .stdout(predicate::str::contains("fill ratio"));
    }
}

#[test]
fn build_counts_distinct_items_and_reports() {
    let dir = Dir::new();
    let input = dir.write("dups.txt", b"a\nb\na\nc\nb\n");
    let out = dir.path("d.amq");
    let v = success_json(
        amq()
            .args(["build", "--fpr", "0.01", "--json", "-o"])
            .arg(&out)
            .arg(&input),
    );
    assert_eq!(v["items_inserted"], 3);
    assert!(v["expected_fpr"].as_f64().unwrap() <= 0.01);
    // text summary goes to stderr
    amq()
        .args(["build", "--fpr", "0.01", "-o"])
        .arg(dir.path("e.amq"))
        .arg(&input)
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains("3 items"));
}

#[test]
fn stdin_lines_crlf_empty_items_and_hex() {
    let dir = Dir::new();
    let f = dir.path("s.amq");
    amq()
        .args(["build", "--bits", "4096", "--hashes", "4", "-o"])
        .arg(&f)
        .arg("-")
        .write_stdin(&b"alpha\r\n\nbeta\n\xff\xfe\n"[..])
        .assert()
        .success();
    // "alpha" (CRLF stripped), the empty item, and raw non-UTF-8 bytes are all members
    amq()
        .arg("contains")
        .arg(&f)
        .args(["alpha", "", "beta"])
        .assert()
        .code(0);
    amq()
        .arg("contains")
        .args(["--hex"])
        .arg(&f)
        .args(["0xfffe", ""])
        .assert()
        .code(0);
    amq()
        .arg("query")
        .arg(&f)
        .write_stdin("alpha\ngamma\n")
        .assert()
        .code(0)
        .stdout("alpha\n");
    // hex input: 0x optional, an empty line is zero bytes
    let g = dir.path("h.amq");
    amq()
        .args(["build", "--hex", "--fpr", "0.001", "-o"])
        .arg(&g)
        .write_stdin("0xdeadbeef\nCAFE\n\n")
        .assert()
        .success();
    amq()
        .args(["contains", "--hex"])
        .arg(&g)
        .args(["deadbeef", "0xcafe", ""])
        .assert()
        .code(0);
    amq()
        .args(["query", "--hex", "--json"])
        .arg(&g)
        .write_stdin("deadbeef\n")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(r#""maybe":true"#));
    amq()
        .args(["build", "--hex", "--fpr", "0.01", "-o"])
        .arg(dir.path("x.amq"))
        .write_stdin("not hex\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid hex"));
}

#[test]
fn contains_and_query_exit_statuses() {
    let dir = Dir::new();
    let members = dir.write("m.txt", words("m", 100));
    let f = build(&dir, "f.amq", &members, &["--fpr", "0.0001"]);
    amq()
        .arg("contains")
        .arg(&f)
        .args(["m1", "m2"])
        .assert()
        .code(0)
        .stdout("maybe\tm1\nmaybe\tm2\n");
    amq()
        .arg("contains")
        .arg(&f)
        .args(["m1", "definitely-not-here"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("no\tdefinitely-not-here"));
    amq()
        .args(["contains", "--json"])
        .arg(&f)
        .arg("m5")
        .assert()
        .code(0)
        .stdout("{\"item\":\"m5\",\"maybe\":true}\n");
    // query: 1 when nothing is selected
    amq()
        .arg("query")
        .arg(&f)
        .write_stdin("x1\nx2\n")
        .assert()
        .code(1)
        .stdout("");
    amq()
        .args(["query", "--invert"])
        .arg(&f)
        .write_stdin("x1\nm3\n")
        .assert()
        .code(0)
        .stdout("x1\n");
    amq()
        .args(["query", "--json"])
        .arg(&f)
        .write_stdin("m3\nzz\n")
        .assert()
        .code(0)
        .stdout("{\"item\":\"m3\",\"maybe\":true}\n{\"item\":\"zz\",\"maybe\":false}\n");
    amq()
        .args(["query", "--count", "--json"])
        .arg(&f)
        .write_stdin("m3\nzz\n")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("\"count\":1"));
}

#[test]
fn merge_is_the_union() {
    let dir = Dir::new();
    let shape = ["--bits", "20000", "--hashes", "5", "--seed", "3"];
    let (a, a_in) =
        common::assert_merge_is_union(&dir, |d, name, input| build(d, name, input, &shape));
    // different shapes are refused, and the output is not written
    let c = build(
        &dir,
        "c.amq",
        &a_in,
        &["--bits", "20000", "--hashes", "5", "--seed", "4"],
    );
    let bad = dir.path("bad.amq");
    amq()
        .arg("merge")
        .arg(&a)
        .arg(&c)
        .arg("-o")
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("seed"));
    assert!(!bad.exists());
    let d = build(
        &dir,
        "d.amq",
        &a_in,
        &[
            "--kind",
            "blocked-bloom",
            "--bits",
            "20000",
            "--hashes",
            "5",
            "--seed",
            "3",
        ],
    );
    amq()
        .arg("merge")
        .arg(&a)
        .arg(&d)
        .arg("-o")
        .arg(&bad)
        .assert()
        .code(2);
}

#[test]
fn bad_files_and_flags_exit_2_without_panicking() {
    let dir = Dir::new();
    let members = dir.write("m.txt", words("m", 50));
    let f = build(&dir, "f.amq", &members, &["--fpr", "0.01"]);
    let good = std::fs::read(&f).unwrap();
    let truncated = dir.write("t.amq", &good[..good.len() - 9]);
    let mut flipped = good.clone();
    let last = flipped.len() - 20;
    flipped[last] ^= 1;
    let flipped = dir.write("x.amq", &flipped);
    let text = dir.write("not.amq", b"hello, world\n");
    let empty = dir.write("empty.amq", b"");
    for (path, msg) in [
        (&truncated, "truncated"),
        (&flipped, "checksum"),
        (&text, "not an .amq file"),
        (&empty, "truncated"),
    ] {
        for cmd in ["info", "contains", "query"] {
            let mut c = amq();
            c.arg(cmd).arg(path);
            if cmd == "contains" {
                c.arg("x");
            }
            c.write_stdin("x\n")
                .assert()
                .code(2)
                .stderr(predicate::str::starts_with("error:"))
                .stderr(predicate::str::contains(msg))
                .stderr(predicate::str::contains("panicked").not());
        }
    }
    amq()
        .arg("info")
        .arg(dir.path("missing.amq"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot open"));
    amq()
        .args(["build", "--fpr", "0.01"])
        .arg(&members)
        .assert()
        .code(2); // no -o
    amq()
        .args(["build", "--fpr", "2", "-o"])
        .arg(dir.path("y.amq"))
        .arg(&members)
        .assert()
        .code(2);
    amq()
        .args(["build", "--kind", "nope", "--fpr", "0.1", "-o"])
        .arg(dir.path("y.amq"))
        .arg(&members)
        .assert()
        .code(2);
    amq().arg("frobnicate").assert().code(2);
    amq()
        .args(["build", "--fpr", "0.01", "-o"])
        .arg(dir.path("z.amq"))
        .arg(dir.path("missing.txt"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot open"));
}

#[test]
fn help_has_examples() {
    // every command's --help, walked from `amq --help` (DESIGN: an example for each command)
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    let mut seen = 0;
    while let Some(path) = todo.pop() {
        let out = amq().args(&path).arg("--help").output().unwrap();
        assert!(out.status.success(), "{path:?}");
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(
            help.contains("Example"),
            "amq {} --help has no example",
            path.join(" ")
        );
        seen += 1;
        let mut in_commands = false;
        for line in help.lines() {
            if !line.starts_with(' ') {
                in_commands = line == "Commands:";
            } else if in_commands && line.len() > 2 && !line[2..].starts_with(' ') {
                let name = line.split_whitespace().next().unwrap();
                if name != "help" {
                    let mut sub = path.clone();
                    sub.push(name.to_string());
                    todo.push(sub);
                }
            }
        }
    }
    assert!(seen > 70, "walked {seen} commands");
}

/// A file of the first index scheme (a classic filter's four parameter words): read, queried
/// by that scheme, and `amq info` says so on stderr; a new file says nothing.
#[test]
fn info_notes_a_file_of_the_first_index_scheme() {
    let dir = Dir::new();
    // the bits of "apple" under scheme 1 in a 100-bit, k = 3 filter of seed 7
    let h = amq::hash::hash128("apple", 7);
    let mut words = [0u64; 2];
    for i in amq::hash::bloom_indices_with(h, 100, 3, amq::hash::Indexing::Unit) {
        words[(i / 64) as usize] |= 1 << (i % 64);
    }
    let payload: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let old = amq::wire::encode(amq::wire::Kind::Bloom, &[100, 3, 7, 1], &payload);
    let path = dir.write("old.amq", old);
    amq()
        .arg("info")
        .arg(&path)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "derives its indices by index scheme 1",
        ));
    amq()
        .args(["contains"])
        .arg(&path)
        .arg("apple")
        .assert()
        .success();
    let new = dir.path("new.amq");
    amq()
        .args(["build", "--bits", "100", "--hashes", "3", "-o"])
        .arg(&new)
        .write_stdin("apple\n")
        .assert()
        .success();
    amq().arg("info").arg(&new).assert().success().stderr("");
}
