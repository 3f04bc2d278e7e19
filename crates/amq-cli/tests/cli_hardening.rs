//! Hostile inputs (issue 10): no hang, no abort, no wrong answer without a word.
//!
//! `AMQ_TEST_BIN=/path/to/amq` runs these tests against another build of the binary (how the
//! fixes were shown to be needed: the old binary fails them).

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    match std::env::var_os("AMQ_TEST_BIN") {
        Some(p) => PathBuf::from(p),
        None => assert_cmd::cargo::cargo_bin("amq"),
    }
}

fn amq() -> Command {
    let mut c = Command::new(bin());
    c.timeout(Duration::from_secs(60));
    c
}

/// `amq` with its address space limited to `kib` KiB (`ulimit -v`), so that a command that
/// holds much more than it should fails the way it would on a small machine.
fn amq_limited(kib: u64) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(bin())
        .timeout(Duration::from_secs(60));
    c
}

/// One error line, `error: ...`, and exit status 2.
fn assert_one_error(out: &std::process::Output, contains: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(contains), "{err:?} lacks {contains:?}");
}

const BLOCK_HASH: &str = "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943";

/// 10 MB of short hex items: 3.3 million one-byte items ("00" to "ff").
fn short_items(dir: &Path) -> PathBuf {
    let text: String = (0..3_333_333u64)
        .map(|i| format!("{:02x}\n", (i * 2_654_435_761) % 256))
        .collect();
    let path = dir.join("short.hex");
    std::fs::write(&path, text).unwrap();
    path
}

/// 10 MB of distinct 4-byte hex items: 1.1 million.
fn distinct_items(dir: &Path) -> PathBuf {
    let text: String = (0..1_111_111u32)
        .map(|i| format!("{:08x}\n", i.wrapping_mul(2_654_435_761)))
        .collect();
    let path = dir.join("distinct.hex");
    std::fs::write(&path, text).unwrap();
    path
}

/// Class 4: with 100 MB of address space, the GCS commands stream 10 MB of input (they used
/// to hold a `Vec` per line, 1.4 GB for 50 MB, and abort with "memory allocation failed").
#[test]
fn gcs_commands_stream_their_input_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let short = short_items(dir.path());
    let distinct = distinct_items(dir.path());
    let start = Instant::now();
    let gcs = amq_limited(100_000)
        .args(["btc", "gcs", "--block-hash", BLOCK_HASH])
        .arg(&short)
        .output()
        .unwrap();
    assert!(
        gcs.status.success(),
        "{}",
        String::from_utf8_lossy(&gcs.stderr)
    );
    // the same filter as from the 256 distinct items once each (a set)
    let once: String = (0..256).map(|i| format!("{i:02x}\n")).collect();
    let expected = amq()
        .args(["btc", "gcs", "--block-hash", BLOCK_HASH, "-"])
        .write_stdin(once)
        .output()
        .unwrap();
    assert_eq!(gcs.stdout, expected.stdout);
    let build = amq_limited(100_000)
        .args(["cashu", "build", "--timestamp", "1"])
        .arg(&short)
        .output()
        .unwrap();
    assert!(build.status.success());
    let response: serde_json::Value = serde_json::from_slice(&build.stdout).unwrap();
    assert_eq!(response["n"], 3_333_333);
    // a filter of the first 1,000 distinct items, matched against all 1.1 million
    let head: String = std::fs::read_to_string(&distinct)
        .unwrap()
        .lines()
        .take(1000)
        .map(|l| format!("{l}\n"))
        .collect();
    let filter = dir.path().join("filter.json");
    let made = amq()
        .args(["cashu", "build", "--timestamp", "1", "-"])
        .write_stdin(head)
        .output()
        .unwrap();
    std::fs::write(&filter, made.stdout).unwrap();
    let matched = amq_limited(100_000)
        .args(["cashu", "match", "--filter"])
        .arg(&filter)
        .arg(&distinct)
        .output()
        .unwrap();
    assert_eq!(
        matched.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&matched.stderr)
    );
    let lines: Vec<&[u8]> = matched.stdout.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 1_111_112);
    let first: serde_json::Value = serde_json::from_slice(lines[0]).unwrap();
    assert_eq!(first["match"], true);
    assert!(start.elapsed() < Duration::from_secs(120));
}

/// Class 4: huge windows are an error, not an abort on `vec![0; n]`.
#[test]
fn huge_structures_are_refused_not_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.amq");
    let window = amq_limited(200_000)
        .args([
            "window",
            "new",
            "--window",
            "68719476736",
            "--chunk",
            "64",
            "--batch",
            "1",
            "--hashes",
            "3",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_one_error(&window, "cannot allocate 8589934592 bytes for the window");
    let aging = amq_limited(200_000)
        .args([
            "aging",
            "new",
            "--window",
            "10000000000",
            "--fpr",
            "0.01",
            "-o",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_one_error(&aging, "cannot allocate");
    assert!(!out.exists());
}
