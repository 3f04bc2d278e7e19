//! `amq ttl` (the TTL cuckoo filter) and `amq rln` (the sliding-window cuckoo filter), with
//! exit statuses, `amq info` on both kinds, and small runs of `amq sim ttl` and `amq sim rln`.

mod common;

use common::{amq, info, json, json_lines, stdout_of, success_json, words, Dir};
use predicates::prelude::*;

#[test]
fn ttl_items_live_between_ttl_minus_tick_and_ttl() {
    let dir = Dir::new();
    let f = dir.path("c.amq");
    amq()
        .args([
            "ttl", "new", "--items", "1000", "--fpr", "0.001", "--tick", "60",
        ])
        .args(["--max-ttl", "3600", "-o"])
        .arg(&f)
        .assert()
        .success()
        .stderr(predicate::str::contains("13 + 7 bits"));
    amq()
        .args(["ttl", "insert", "--now", "1700000000", "--ttl", "300"])
        .arg(&f)
        .arg("-")
        .write_stdin("example.com\nexample.org\n")
        .assert()
        .success()
        .stderr(predicate::str::contains("live until 1700000280"));
    // found up to 1700000279 (⌊1700000300/60⌋·60 = 1700000280), gone from then on
    amq()
        .args(["ttl", "contains", "--now", "1700000279"])
        .arg(&f)
        .args(["example.com", "example.org"])
        .assert()
        .code(0)
        .stdout("maybe\texample.com\nmaybe\texample.org\n");
    amq()
        .args(["ttl", "contains", "--now", "1700000280"])
        .arg(&f)
        .arg("example.com")
        .assert()
        .code(1)
        .stdout("no\texample.com\n");
    // without --ttl: the filter's default TTL, its --max-ttl (3600 s: live until the tick
    // that holds 1700003600)
    amq()
        .args(["ttl", "insert", "--now", "1700000000"])
        .arg(&f)
        .arg("-")
        .write_stdin("default.example\n")
        .assert()
        .success()
        .stderr(predicate::str::contains("live until 1700003580"));
    // the same through `amq contains` and `amq info`, which read every kind
    amq()
        .args(["contains"])
        .arg(&f)
        .arg("example.com")
        .assert()
        .code(1); // the system clock is long past 1700000280
    let out = amq()
        .args(["info", "--json", "--now", "1700000100"])
        .arg(&f)
        .output()
        .unwrap();
    let v = json(&out.stdout);
    assert_eq!(v["kind"], "ttl-cuckoo");
    assert_eq!(
        (v["live_entries"].as_u64(), v["items_inserted"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(
        (v["tick"].as_u64(), v["max_ttl"].as_u64()),
        (Some(60), Some(7680))
    );
    // remove: exit 1 if any item was not live, the others are removed
    amq()
        .args(["ttl", "remove", "--now", "1700000100"])
        .arg(&f)
        .args(["example.org", "example.net"])
        .assert()
        .code(1)
        .stdout("removed\texample.org\nabsent\texample.net\n");
    let v = success_json(
        amq()
            .args(["ttl", "info", "--json", "--now", "1700000100"])
            .arg(&f),
    );
    assert_eq!(v["live_entries"], 2); // example.com, default.example
    let v = success_json(
        amq()
            .args(["ttl", "info", "--json", "--now", "1700000280"])
            .arg(&f),
    );
    assert_eq!(
        (v["live_entries"].as_u64(), v["expired_entries"].as_u64()),
        (Some(1), Some(1)) // default.example lives on
    );
}

#[test]
fn ttl_errors_exit_2_with_one_line() {
    let dir = Dir::new();
    let f = dir.path("c.amq");
    amq()
        .args([
            "ttl", "new", "--items", "100", "--fpr", "0.01", "--tick", "10",
        ])
        .args(["--stamp-bits", "3", "-o"])
        .arg(&f)
        .assert()
        .success();
    // a TTL beyond tick · 2^s
    amq()
        .args(["ttl", "insert", "--now", "0", "--ttl", "81"])
        .arg(&f)
        .write_stdin("a\n")
        .assert()
        .code(2)
        .stderr(
            predicate::str::starts_with("error: ").and(predicate::str::contains("longest TTL")),
        );
    // a full table: nothing is written
    let before = std::fs::read(&f).unwrap();
    amq()
        .args(["ttl", "insert", "--now", "0", "--ttl", "80"])
        .arg(&f)
        .write_stdin(words("x", 1000))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("full").and(predicate::str::contains("nothing was written")),
        );
    assert_eq!(std::fs::read(&f).unwrap(), before);
    amq()
        .args([
            "ttl", "new", "--items", "100", "--fpr", "0.01", "--tick", "0", "-o",
        ])
        .arg(dir.path("z.amq"))
        .assert()
        .code(2);
    let junk = dir.write("junk.amq", b"not a filter");
    amq().args(["ttl", "info"]).arg(&junk).assert().code(2);
}

#[test]
fn rln_registers_by_epoch_slashes_and_exports() {
    let dir = Dir::new();
    let f = dir.path("m.amq");
    amq()
        .args(["rln", "new", "--epoch-items", "3", "--fpr", "0.001", "-o"])
        .arg(&f)
        .assert()
        .success();
    amq()
        .args(["rln", "register"])
        .arg(&f)
        .arg("-")
        .write_stdin("alice\nbob\ncarol\ndave\n")
        .assert()
        .success()
        .stdout("0\talice\n0\tbob\n0\tcarol\n1\tdave\n");
    amq()
        .args(["rln", "contains", "--epoch", "0"])
        .arg(&f)
        .args(["alice", "bob"])
        .assert()
        .code(0);
    amq()
        .args(["rln", "contains", "--epoch", "0"])
        .arg(&f)
        .arg("dave")
        .assert()
        .code(1)
        .stdout("no\tdave\n");
    // slash: exit 1 when an item is definitely absent; nothing changes for it
    amq()
        .args(["rln", "slash", "--epoch", "0"])
        .arg(&f)
        .args(["bob", "erin"])
        .assert()
        .code(1)
        .stdout("slashed\tbob\nabsent\terin\n");
    let before = std::fs::read(&f).unwrap();
    amq()
        .args(["rln", "slash", "--epoch", "0", "--json"])
        .arg(&f)
        .arg("bob")
        .assert()
        .code(1)
        .stdout("{\"epoch\":0,\"item\":\"bob\",\"slashed\":false}\n");
    assert_eq!(std::fs::read(&f).unwrap(), before);
    let v = info(&f);
    assert_eq!(v["kind"], "sliding-window-cuckoo");
    assert_eq!(
        (v["members"].as_u64(), v["epochs"].as_u64()),
        (Some(3), Some(2))
    );
    let out = amq()
        .args(["rln", "info", "--json", "--epochs"])
        .arg(&f)
        .output()
        .unwrap();
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 3);
    assert_eq!(
        (lines[1]["members"].as_u64(), lines[2]["open"].as_bool()),
        (Some(2), Some(true))
    );
    // a light client: epoch by epoch, the same bytes
    let light = dir.path("light.amq");
    amq()
        .args(["rln", "new", "--epoch-items", "3", "--fpr", "0.001", "-o"])
        .arg(&light)
        .assert()
        .success();
    for e in ["0", "1"] {
        let part = dir.path(&format!("e{e}.amq"));
        amq()
            .args(["rln", "export-epoch", "--epoch", e, "-o"])
            .arg(&part)
            .arg(&f)
            .assert()
            .success();
        amq()
            .args(["rln", "apply-epoch"])
            .arg(&light)
            .arg(&part)
            .assert()
            .success();
    }
    assert_eq!(std::fs::read(&light).unwrap(), std::fs::read(&f).unwrap());
    // a query without an epoch is refused with a clear message
    amq()
        .arg("contains")
        .arg(&f)
        .arg("alice")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("amq rln contains --epoch E"));
    amq()
        .arg("remove")
        .arg(&f)
        .arg("alice")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("amq rln slash --epoch E"));
    assert_eq!(std::fs::read(&light).unwrap(), std::fs::read(&f).unwrap());
    amq()
        .args(["rln", "export-epoch", "--epoch", "7", "-o"])
        .arg(dir.path("e7.amq"))
        .arg(&f)
        .assert()
        .code(2);
    // close: epoch 1 (dave alone) ends early; closing again changes nothing
    amq()
        .args(["rln", "close", "--json"])
        .arg(&f)
        .assert()
        .success()
        .stdout("{\"closed\":1,\"next_epoch\":2}\n");
    let closed = std::fs::read(&f).unwrap();
    amq()
        .args(["rln", "close"])
        .arg(&f)
        .assert()
        .success()
        .stdout("no epoch was open; the next registration opens epoch 2\n");
    assert_eq!(std::fs::read(&f).unwrap(), closed);
    amq()
        .args(["rln", "register"])
        .arg(&f)
        .arg("-")
        .write_stdin("erin\n")
        .assert()
        .success()
        .stdout("2\terin\n");
    amq()
        .args(["rln", "contains", "--epoch", "1"])
        .arg(&f)
        .arg("dave")
        .assert()
        .code(0);
}

#[test]
fn sim_ttl_and_rln_track_their_formulas() {
    let dir = Dir::new();
    let v = success_json(
        amq()
            .args([
                "sim", "ttl", "--items", "20000", "--fpr", "0.01", "--ttl", "100",
            ])
            .args([
                "--tick",
                "10",
                "--points",
                "6",
                "--queries",
                "40000",
                "--json",
                "--out",
            ])
            .arg(dir.root()),
    );
    for r in std::fs::read_to_string(v["csv"].as_str().unwrap())
        .unwrap()
        .lines()
        .skip(1)
    {
        let c: Vec<f64> = r.split(',').map(|x| x.parse().unwrap()).collect();
        let (got, want) = (c[6], c[7]);
        assert!(
            (got - want).abs() <= 4.0 * (want / 40_000.0).sqrt() + 1e-4,
            "{r}"
        );
    }
    // the expiry curve: every item found before ttl − tick, none after ttl but false positives
    assert_eq!(v["found_before_ttl_minus_tick"], 1.0);
    assert!(v["found_after_ttl"].as_f64().unwrap() < 0.03);
    assert!(v["expiry_max_deviation"].as_f64().unwrap() < 0.03);
    let svg = std::fs::read_to_string(v["expiry_svg"].as_str().unwrap()).unwrap();
    assert!(svg.starts_with("<svg"));
    // n/ttl = 1.67 inserts a second: item i at second ⌊i·ttl/n⌋ keeps n live, where rounding
    // the rate up to 2 had filled the filter planned for n
    let small = success_json(
        amq()
            .args([
                "sim", "ttl", "--items", "1000", "--ttl", "600", "--tick", "60",
            ])
            .args(["--points", "3", "--queries", "10000", "--json", "--out"])
            .arg(dir.root()),
    );
    assert_eq!(small["inserts_per_second"], 1.67);
    assert_eq!(small["found_before_ttl_minus_tick"], 1.0);
    let out = amq()
        .args([
            "sim",
            "rln",
            "--members",
            "60000",
            "--epoch-items",
            "3874",
            "--fpr",
            "0.01",
        ])
        .args([
            "--slash-rate",
            "0.5",
            "--points",
            "5",
            "--queries",
            "40000",
            "--json",
            "--out",
        ])
        .arg(dir.root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert_eq!(v["missed"], 0);
    assert!(v["max_fpr"].as_f64().unwrap() <= 0.01 + 4.0 * (0.01f64 / 40_000.0).sqrt());
    assert_eq!(v["bytes_per_member"], v["bytes_per_member_plan"]);
    let csv = std::fs::read_to_string(v["csv"].as_str().unwrap()).unwrap();
    assert!(stdout_of(&out).contains("rln-n60000-b3874-slash0.5"));
    assert_eq!(csv.lines().count(), 6);
}
