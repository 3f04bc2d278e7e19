//! A signal that ends the CLI while it replaces a file: the file is as it was, no temporary
//! file is left, and the process dies of the signal (real processes; the debug build's
//! `AMQ_TEST_WRITE_PAUSE_MS` holds the write open for the signal to arrive).
#![cfg(unix)]

mod common;

use common::names_in;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `amq args…` in `dir` with its write paused for `pause_ms` (started by `sh` with
/// `trap '' SIGNAL` for each of `ignore` first), waits for its temporary file to appear,
/// sends it `signal`, and returns how it ended.
fn signal_mid_write(
    dir: &Path,
    args: &[&str],
    signal: i32,
    ignore: &[i32],
    pause_ms: u64,
) -> std::process::ExitStatus {
    let before = names_in(dir);
    let traps: String = ignore.iter().map(|s| format!("trap '' {s}; ")).collect();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("{traps}exec \"$0\" \"$@\""))
        .arg(assert_cmd::cargo::cargo_bin("amq"))
        .args(args)
        .current_dir(dir)
        .env("AMQ_TEST_WRITE_PAUSE_MS", pause_ms.to_string())
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        let now = names_in(dir);
        if now
            .iter()
            .any(|n| n.ends_with(".tmp") && !before.contains(n))
        {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no temporary file appeared: {now:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // the shell's kill: this workspace has no unsafe code outside the library's kernels
    let sent = Command::new("sh")
        .arg("-c")
        .arg(format!("kill -{signal} {}", child.id()))
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "the signal did not end the write"
    );
    status
}

#[test]
fn a_signal_mid_write_leaves_the_file_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    fs::write(work.join("items.txt"), common::words("w", 10_000)).unwrap();
    common::amq()
        .args([
            "build",
            "--kind",
            "cuckoo",
            "--fpr",
            "0.01",
            "-o",
            "c.amq",
            "items.txt",
        ])
        .current_dir(work)
        .assert()
        .success();
    let before = fs::read(work.join("c.amq")).unwrap();
    // SIGTERM, SIGINT, SIGHUP
    for signal in [15, 2, 1] {
        // a read-modify-write under the lock, and a new file
        for args in [
            &["remove", "c.amq", "w1"][..],
            &["build", "--fpr", "0.01", "-o", "new.amq", "items.txt"][..],
        ] {
            let status = signal_mid_write(work, args, signal, &[], 20_000);
            assert_eq!(status.signal(), Some(signal), "{args:?}: {status:?}");
            assert_eq!(
                names_in(work),
                ["c.amq", "items.txt"],
                "{args:?}, signal {signal}"
            );
            assert_eq!(fs::read(work.join("c.amq")).unwrap(), before);
        }
    }
    // signals the process was started ignoring (nohup, a script's background job) stay
    // ignored: the write lands
    let status = signal_mid_write(work, &["remove", "c.amq", "w2"], 1, &[1, 2], 500);
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert_ne!(fs::read(work.join("c.amq")).unwrap(), before);
    assert_eq!(names_in(work), ["c.amq", "items.txt"]);
    let status = signal_mid_write(work, &["remove", "c.amq", "w3"], 2, &[1, 2], 500);
    assert_eq!(status.code(), Some(0), "{status:?}");
    // without a signal the pause ends and the write lands
    common::amq()
        .args(["remove", "c.amq", "w1"])
        .current_dir(work)
        .env("AMQ_TEST_WRITE_PAUSE_MS", "10")
        .assert()
        .success();
    assert_ne!(fs::read(work.join("c.amq")).unwrap(), before);
    assert_eq!(names_in(work), ["c.amq", "items.txt"]);
}
