//! `amq btc filter|gcs|match` against every block of bitcoin/bips `bip-0158/testnet-19.json`,
//! with exit statuses.

mod common;

use common::{amq, json, json_lines, lines, vector, Dir};
use predicates::prelude::*;
use serde_json::Value;

fn rows() -> Vec<Value> {
    vector("bip158/testnet-19.json").as_array().unwrap()[1..].to_vec()
}

#[test]
fn filter_reproduces_every_block() {
    let dir = Dir::new();
    for row in rows() {
        let height = row[0].as_u64().unwrap();
        let block = dir.write(&format!("{height}.hex"), row[2].as_str().unwrap());
        let scripts = lines(
            row[3]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap()),
        );
        let prev = dir.write(&format!("{height}.prev"), scripts);
        let out = amq()
            .args(["btc", "filter", "--json", "--block"])
            .arg(&block)
            .arg("--prev-scripts")
            .arg(&prev)
            .args(["--prev-header", row[4].as_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{height}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = json(&out.stdout);
        assert_eq!(v["block_hash"], row[1], "{height}");
        assert_eq!(v["filter"], row[5], "{height}");
        assert_eq!(v["header"], row[6], "{height}");
        // binary block bytes work too, and the text output names both
        let raw = hex::decode(row[2].as_str().unwrap()).unwrap();
        let bin = dir.write(&format!("{height}.bin"), raw);
        amq()
            .args(["btc", "filter", "--block"])
            .arg(&bin)
            .arg("--prev-scripts")
            .arg(&prev)
            .args(["--prev-header", row[4].as_str().unwrap()])
            .assert()
            .success()
            .stdout(
                predicate::str::contains(format!("filter      {}\n", row[5].as_str().unwrap()))
                    .and(predicate::str::contains(format!(
                        "header      {}\n",
                        row[6].as_str().unwrap()
                    ))),
            );
    }
}

#[test]
fn filter_checks_its_inputs() {
    let rows = rows();
    let dir = Dir::new();
    // block 49291 spends 8 scripts: giving none is an error
    let row = rows.iter().find(|r| r[0] == 49291).unwrap();
    let block = dir.write("b.hex", row[2].as_str().unwrap());
    amq()
        .args(["btc", "filter", "--block"])
        .arg(&block)
        .args(["--prev-scripts", "/dev/null"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("8 inputs"));
    dir.write("b.hex", "00ff");
    amq()
        .args(["btc", "filter", "--block"])
        .arg(&block)
        .args(["--prev-scripts", "/dev/null"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a valid block"));
}

#[test]
fn gcs_and_match_from_raw_elements() {
    // block 926485: the 17 elements (9 distinct) of its basic filter
    let rows = rows();
    let row = rows.iter().find(|r| r[0] == 926485).unwrap();
    let block: bitcoin::Block =
        bitcoin::consensus::deserialize(&hex::decode(row[2].as_str().unwrap()).unwrap()).unwrap();
    let mut elements: Vec<String> = block
        .txdata
        .iter()
        .flat_map(|tx| tx.output.iter())
        .map(|o| o.script_pubkey.as_bytes())
        .filter(|s| !s.is_empty() && s[0] != 0x6a)
        .map(hex::encode)
        .collect();
    elements.extend(
        row[3]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string()),
    );
    let input = lines(&elements);
    let hash = row[1].as_str().unwrap();
    amq()
        .args(["btc", "gcs", "--block-hash", hash, "-"])
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(format!("{}\n", row[5].as_str().unwrap()));
    // every element matches: exit 0, one JSON line each
    let out = amq()
        .args([
            "btc",
            "match",
            "--block-hash",
            hash,
            "--filter",
            row[5].as_str().unwrap(),
            "-",
        ])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let rows_out = json_lines(&out.stdout);
    assert_eq!(rows_out.len(), elements.len());
    assert!(rows_out.iter().all(|r| r["match"] == true));
    assert_eq!(rows_out[0]["element"], elements[0].as_str());
    // a script not in the block: exit 1
    amq()
        .args([
            "btc",
            "match",
            "--block-hash",
            hash,
            "--filter",
            row[5].as_str().unwrap(),
            "-",
        ])
        .write_stdin("0014000102030405060708090a0b0c0d0e0f10111213\n")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(r#""match":false"#));
    // other P and M round-trip through gcs and match
    let out = amq()
        .args([
            "btc",
            "gcs",
            "--block-hash",
            hash,
            "--p",
            "10",
            "--m",
            "1024",
            "-",
        ])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    let filter = String::from_utf8(out.stdout).unwrap();
    amq()
        .args([
            "btc",
            "match",
            "--block-hash",
            hash,
            "--p",
            "10",
            "--m",
            "1024",
            "--filter",
            filter.trim(),
            "-",
        ])
        .write_stdin(input)
        .assert()
        .success();
}

#[test]
fn bad_filters_and_hashes_exit_2() {
    let hash = "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943";
    for (args, why) in [
        (vec!["--block-hash", hash, "--filter", "05ff"], "truncated"),
        (
            vec!["--block-hash", hash, "--filter", "fd0100"],
            "non-minimal",
        ),
        (
            vec!["--block-hash", "00", "--filter", "019dfca8"],
            "32 bytes",
        ),
        (vec!["--block-hash", hash, "--filter", "zz"], "invalid hex"),
        (
            vec!["--block-hash", hash, "--filter", "019dfca8", "--p", "40"],
            "invalid p",
        ),
    ] {
        amq()
            .args(["btc", "match"])
            .args(&args)
            .arg("-")
            .write_stdin("51\n")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(why));
    }
    // the genesis filter answers for its one script
    amq()
        .args(["btc", "match", "--block-hash", hash, "--filter", "019dfca8", "-"])
        .write_stdin("4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac\n")
        .assert()
        .success();
}

#[test]
fn match_reads_a_large_filter_from_a_file() {
    // 60,000 elements: a 157 KB filter, 315 KB of hex, past Linux's 128 KiB for one argument
    let hash = "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943";
    let elements = lines((0..60_000u32).map(|i| format!("0014{:08x}", i)));
    let dir = Dir::new();
    let out = amq()
        .args(["btc", "gcs", "--block-hash", hash, "-"])
        .write_stdin(elements.clone())
        .output()
        .unwrap();
    assert!(out.status.success());
    let hex = String::from_utf8(out.stdout).unwrap();
    assert!(hex.len() > 300_000, "{}", hex.len());
    let json = serde_json::json!({"filter": hex.trim(), "header": "00".repeat(32)});
    let bytes = ::hex::decode(hex.trim()).unwrap();
    assert_eq!(bytes[..3], [0xfd, 0x60, 0xea]); // CompactSize 60,000
    let files = [
        dir.write("filter.json", json.to_string()),
        dir.write("filter.hex", &hex),
        dir.write("filter.bin", &bytes),
    ];
    for file in &files {
        let out = amq()
            .args(["btc", "match", "--block-hash", hash, "--filter-file"])
            .arg(file)
            .arg("-")
            .write_stdin(elements.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", file.display());
        let answers = json_lines(&out.stdout);
        assert_eq!(answers.len(), 60_000);
        assert!(answers.iter().all(|r| r["match"] == true));
        // the filter from stdin, the elements from a file
        let elements_file = dir.write("elements.txt", "0014ffffffff\n");
        amq()
            .args(["btc", "match", "--block-hash", hash, "--filter-file", "-"])
            .arg(&elements_file)
            .pipe_stdin(file)
            .unwrap()
            .assert()
            .code(1)
            .stdout("{\"element\":\"0014ffffffff\",\"match\":false}\n");
    }
    // the same hex as an argument does not get past the kernel
    let too_long = amq()
        .args([
            "btc",
            "match",
            "--block-hash",
            hash,
            "--filter",
            hex.trim(),
            "-",
        ])
        .write_stdin("51\n")
        .output();
    assert!(too_long.is_err(), "{too_long:?}");
    // errors name the file
    let bad = dir.write("bad.json", r#"{"header": "00"}"#);
    let cut = dir.write("cut.hex", &hex[..1000]);
    for (file, why) in [
        (
            &bad,
            "bad.json: not getblockfilter's JSON (an object with \"filter\")",
        ),
        (&cut, "cut.hex: truncated input"),
    ] {
        amq()
            .args(["btc", "match", "--block-hash", hash, "--filter-file"])
            .arg(file)
            .arg("-")
            .write_stdin("0014ffffffff\n")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(why));
    }
    amq()
        .args(["btc", "match", "--block-hash", hash, "--filter-file", "-"])
        .write_stdin("00\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot both be read from stdin"));
    amq()
        .args(["btc", "match", "--block-hash", hash, "-"])
        .write_stdin("00\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--filter <HEX>|--filter-file <PATH>",
        ));
}
