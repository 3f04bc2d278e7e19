//! Hostile inputs (issue 10): no hang, no abort, no wrong answer without a word.
//!
//! `AMQ_TEST_BIN=/path/to/amq` runs these tests against another build of the binary (how the
//! fixes were shown to be needed: the old binary fails them).

mod common;

use assert_cmd::Command;
use common::{amq_limited, assert_one_error, bin};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn amq() -> Command {
    let mut c = Command::new(bin());
    c.timeout(Duration::from_secs(60));
    c
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

/// Class 5: the contract reads a box of exactly its size; a longer or shorter one is an error.
#[test]
fn algorand_check_refuses_a_box_of_another_size() {
    let dir = tempfile::tempdir().unwrap();
    // mint two names into the seed contract's 4096-byte box
    let replay = amq()
        .args(["algorand", "replay", "--max-supply", "10", "-"])
        .write_stdin("The GOAT\nBAYC1\n")
        .output()
        .unwrap();
    let last = String::from_utf8_lossy(&replay.stdout)
        .lines()
        .last()
        .unwrap()
        .to_string();
    let v: serde_json::Value = serde_json::from_str(&last).unwrap();
    use base64::Engine as _;
    let box_bytes = base64::engine::general_purpose::STANDARD
        .decode(v["box_base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(box_bytes.len(), 4096);
    let path = dir.path().join("box.bin");
    std::fs::write(&path, &box_bytes).unwrap();
    amq()
        .args(["algorand", "check", "--format", "raw", "--box"])
        .arg(&path)
        .arg("The GOAT")
        .assert()
        .code(1)
        .stdout("taken\tThe GOAT\n");
    // the same box with a newline appended (as an editor or `echo` leaves it)
    let mut longer = box_bytes.clone();
    longer.push(b'\n');
    std::fs::write(&path, &longer).unwrap();
    for format in ["raw", "auto"] {
        let out = amq()
            .args(["algorand", "check", "--format", format, "--box"])
            .arg(&path)
            .arg("The GOAT")
            .output()
            .unwrap();
        assert_one_error(&out, "4097 bytes");
        assert!(out.stdout.is_empty());
    }
    // another size is read when it is said
    std::fs::write(&path, &box_bytes[..1024]).unwrap();
    amq()
        .args([
            "algorand",
            "check",
            "--format",
            "raw",
            "--box-bytes",
            "1024",
            "--box",
        ])
        .arg(&path)
        .arg("The GOAT")
        .assert()
        .code(predicates::ord::lt(2));
}

/// Class 5: more distinct items than planned is said, with the rate the filter has now.
#[test]
fn build_warns_when_more_items_go_in_than_planned() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.amq");
    let items: String = (0..1000).map(|i| format!("item-{i}\n")).collect();
    let run = amq()
        .args(["build", "--fpr", "0.01", "--items", "1", "--json", "-o"])
        .arg(&out)
        .arg("-")
        .write_stdin(items.clone())
        .output()
        .unwrap();
    assert!(run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.starts_with("warning: "), "{err}");
    assert!(err.contains("more than the 1 planned"), "{err}");
    let summary: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let expected = summary["expected_fpr"].as_f64().unwrap();
    assert!(expected > 0.99, "{summary}");
    // the same input within the plan: no warning
    let run = amq()
        .args(["build", "--fpr", "0.01", "--items", "1000", "-o"])
        .arg(&out)
        .arg("-")
        .write_stdin(items)
        .output()
        .unwrap();
    assert!(run.status.success());
    assert!(!String::from_utf8_lossy(&run.stderr).contains("warning"));
    // n = 0 is refused, as amq plan refuses it
    for kind in ["bloom", "cuckoo"] {
        let run = amq()
            .args([
                "build", "--kind", kind, "--fpr", "0.01", "--items", "0", "-o",
            ])
            .arg(&out)
            .arg("-")
            .write_stdin("a\n")
            .output()
            .unwrap();
        assert_one_error(&run, "at least 1");
    }
}

/// Class 5: sizes that overflow 64 bits are errors, never a wrapped small number.
#[test]
fn overflowing_parameters_are_errors() {
    // (without --kind the kinds that cannot are left out: cuckoo plans its largest table)
    let max = u64::MAX.to_string();
    let out = amq()
        .args(["plan", "--items", "10", "--bits", &max, "--kind", "bloom"])
        .output()
        .unwrap();
    assert_one_error(
        &out,
        "bloom: invalid m: the filter would need more than 2^63 bits",
    );
    assert!(out.stdout.is_empty(), "nothing on stdout before the error");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("a.amq");
    let out = amq()
        .args([
            "aging",
            "new",
            "--window-seconds",
            "18446744073709551615",
            "--items-per-generation",
            "10",
            "--fpr",
            "0.01",
            "-o",
        ])
        .arg(&f)
        .output()
        .unwrap();
    assert_one_error(&out, "window");
    let out = amq()
        .args([
            "algorand",
            "plan",
            "--supply",
            "100",
            "--fpr",
            "0.01",
            "--box-name-len",
            "18446744073709551615",
        ])
        .output()
        .unwrap();
    assert_one_error(&out, "box name");
}

/// Class 5: a time far behind the filter's newest generation is refused, not taken as "now"
/// (one insert with a time in the future used to stop every later expiry).
#[test]
fn an_aging_filter_refuses_a_clock_gone_backwards() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("hour.amq");
    let f = f.to_str().unwrap();
    amq()
        .args([
            "aging",
            "new",
            "--window-seconds",
            "3600",
            "--generations",
            "4",
            "--items-per-generation",
            "1000",
            "--fpr",
            "0.01",
            "-o",
            f,
        ])
        .assert()
        .success();
    let t0 = 1_700_000_000u64;
    let insert = |now: u64, item: &str| {
        amq()
            .args(["aging", "insert", f, "--now", &now.to_string(), "-"])
            .write_stdin(format!("{item}\n"))
            .output()
            .unwrap()
    };
    assert!(insert(t0, "a").status.success());
    // a clock a little behind (less than one interval Δ = 1200 s) is taken as the newest time
    assert!(insert(t0 - 600, "b").status.success());
    // one insert from the far future ...
    assert!(insert(t0 + 1_000_000_000, "c").status.success());
    // ... and an insert at the right time again is refused, rather than never expiring "c"
    let out = insert(t0 + 10, "d");
    assert_one_error(&out, "backwards");
    let out = amq()
        .args(["aging", "contains", f, "--now", &(t0 + 20).to_string(), "c"])
        .output()
        .unwrap();
    assert_one_error(&out, "backwards");
}

/// Class 5: the line ending is `\n` or `\r\n`, also on a last line without `\n`.
#[test]
fn a_last_line_ending_in_cr_loses_it() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f.amq");
    for input in ["alpha\r\nbeta\r\n", "alpha\r\nbeta\r", "alpha\nbeta"] {
        amq()
            .args(["build", "--bits", "4096", "--hashes", "3", "-o"])
            .arg(&f)
            .arg("-")
            .write_stdin(input)
            .assert()
            .success();
        amq()
            .arg("contains")
            .arg(&f)
            .args(["alpha", "beta"])
            .assert()
            .success();
        amq().arg("contains").arg(&f).arg("beta\r").assert().code(1);
    }
}

/// Class 6: an argument error is one line, `error: ...`, with the `--help` to read.
#[test]
fn argument_errors_are_one_line() {
    for (args, says) in [
        (&["plan", "--foo"][..], "unexpected argument '--foo'"),
        (&["plan", "--itemz", "5"][..], "similar argument exists"),
        (
            &["plan", "--items", "x", "--fpr", "0.1"][..],
            "invalid value 'x'",
        ),
        (
            &["window", "new", "--preset", "x"][..],
            "see 'amq window new --help'",
        ),
        (&["window"][..], "subcommand is missing"),
        (&[][..], "see 'amq --help'"),
        (
            &["build", "--fpr", "2", "-o", "x.amq"][..],
            "strictly between 0 and 1",
        ),
        (&["remove"][..], "required arguments"),
    ] {
        let out = amq().args(args).output().unwrap();
        assert_one_error(&out, says);
        assert!(out.stdout.is_empty());
    }
    // an argument that is not UTF-8 (a Latin-1 file name) is a usage error, not a panic
    use std::os::unix::ffi::OsStrExt;
    let latin1 = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    for args in [vec![std::ffi::OsStr::new("build"), latin1], vec![latin1]] {
        let out = amq().args(args).output().unwrap();
        assert_one_error(&out, "");
        assert!(out.stdout.is_empty());
    }
    amq().arg("--version").assert().success();
    amq().args(["plan", "--help"]).assert().success();
}

/// Class 6: rates too small for four decimals of a percentage print in scientific notation.
#[test]
fn tiny_rates_print_in_scientific_notation() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f.amq");
    let build = amq()
        .args(["build", "--fpr", "1e-9", "-o"])
        .arg(&f)
        .arg("-")
        .write_stdin("a\nb\nc\n")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&build.stderr);
    assert!(build.status.success());
    assert!(
        !err.contains("0.0000%") && err.contains("expected fpr 9."),
        "{err}"
    );
    let aging = amq()
        .args(["aging", "new", "--window", "1000", "--fpr", "1e-9", "-o"])
        .arg(&f)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&aging.stderr);
    assert!(!err.contains("0.0000%") && err.contains("e-10"), "{err}");
    // a rate of a percent or more keeps four decimals of a percentage
    let build = amq()
        .args(["build", "--fpr", "0.01", "-o"])
        .arg(&f)
        .arg("-")
        .write_stdin("a\nb\nc\n")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&build.stderr).contains('%'));
}

/// Class 6: JSON tells bytes from text: an item that is not UTF-8 has `item_hex` beside the
/// `0x` text, so it cannot be taken for the text "0x...".
#[test]
fn json_tells_bytes_from_text() {
    let dir = tempfile::tempdir().unwrap();
    let items = dir.path().join("items");
    std::fs::write(&items, b"\xff\xfe\n0xfffe\n").unwrap();
    let w = dir.path().join("w.amq");
    amq()
        .args(["window", "new", "--preset", "neptune", "-o"])
        .arg(&w)
        .assert()
        .success();
    let out = amq()
        .args(["window", "insert", "--json"])
        .arg(&w)
        .arg(&items)
        .output()
        .unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["item"], "0xfffe");
    assert_eq!(lines[0]["item_hex"], "fffe");
    assert_eq!(lines[1]["item"], "0xfffe");
    assert!(lines[1].get("item_hex").is_none());
    // remove --file: the bytes, not U+FFFD
    let c = dir.path().join("c.amq");
    amq()
        .args(["build", "--kind", "cuckoo", "--fpr", "0.01", "-o"])
        .arg(&c)
        .arg(&items)
        .assert()
        .success();
    let out = amq()
        .args(["remove", "--json"])
        .arg(&c)
        .arg("--file")
        .arg(&items)
        .output()
        .unwrap();
    let first: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["item"], "0xfffe");
    assert_eq!(first["item_hex"], "fffe");
    assert_eq!(first["removed"], true);
}

/// A command that changes a file in place prints its answers only once the file is saved; if
/// stdout then fails (a full disk: `/dev/full`), the change is made all the same, and the one
/// error line says so, so that a script does not run it again (a second `window insert` would
/// give the items second positions, a second `rln register` second registrations).
#[test]
fn a_failed_stdout_after_a_save_says_the_change_is_made() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // `amq ARGS < input > /dev/full`
    let to_full = |args: &[&std::ffi::OsStr], input: &str| {
        let stdin = dir.path().join("stdin.txt");
        std::fs::write(&stdin, input).unwrap();
        std::process::Command::new(bin())
            .args(args)
            .stdin(std::fs::File::open(&stdin).unwrap())
            .stdout(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            )
            .output()
            .unwrap()
    };
    let w = dir.path().join("w.amq");
    amq()
        .args([
            "window", "new", "--window", "512", "--chunk", "64", "--batch", "2",
        ])
        .args(["--hashes", "4", "-o"])
        .arg(&w)
        .assert()
        .success();
    let out = to_full(
        &[
            "window".as_ref(),
            "insert".as_ref(),
            w.as_os_str(),
            "-".as_ref(),
        ],
        "apple\nbanana\n",
    );
    assert_one_error(&out, "the file was saved with the change");
    amq()
        .args(["window", "contains", "--at", "1"])
        .arg(&w)
        .arg("banana")
        .assert()
        .code(0);

    let r = dir.path().join("r.amq");
    amq()
        .args(["rln", "new", "--epoch-items", "10", "--fpr", "0.001", "-o"])
        .arg(&r)
        .assert()
        .success();
    let out = to_full(
        &[
            "rln".as_ref(),
            "register".as_ref(),
            r.as_os_str(),
            "-".as_ref(),
        ],
        "alice\n",
    );
    assert_one_error(&out, "the file was saved with the change");

    let c = dir.path().join("c.amq");
    amq()
        .args(["build", "--kind", "cuckoo", "--fpr", "0.01", "-o"])
        .arg(&c)
        .arg("-")
        .write_stdin("alice\nbob\n")
        .assert()
        .success();
    let remove = [("remove".as_ref()), c.as_os_str(), "alice".as_ref()];
    assert_one_error(&to_full(&remove, ""), "the file was saved with the change");
    // nothing left to remove: nothing saved, and the error says the file is unchanged
    assert_one_error(&to_full(&remove, ""), "the file is unchanged");
}
