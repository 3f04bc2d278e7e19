//! Files: concurrent read-modify-write loses nothing, rewrites never clobber or leak, and
//! outputs that are not regular files are written into or refused (issue 10, classes 1, 2, 7).
//!
//! `AMQ_TEST_BIN=/path/to/amq` runs these tests against another build of the binary (how the
//! fixes were shown to be needed: the old binary fails them).

mod common;

use assert_cmd::Command;
use common::{assert_one_error, bin, finish, info, names_in};
use std::fs;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn amq() -> Command {
    Command::new(bin())
}

/// `amq ARGS` in `dir`, its answers into a pipe that the test reads, or closes, when it likes.
fn spawn_in(dir: &Path, args: &[&str]) -> Child {
    std::process::Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn spawn(args: &[&str], stdin: Option<&str>) -> Child {
    let mut c = std::process::Command::new(bin());
    c.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        std::io::Write::write_all(&mut input, text.as_bytes()).unwrap();
    }
    drop(input);
    child
}

/// A cuckoo filter of 300,000 items (0.6 MB) in `dir`, the items 1..=300000.
fn cuckoo(dir: &Path) -> PathBuf {
    let items: String = (1..=300_000).map(|i| format!("{i}\n")).collect();
    let path = dir.join("c.amq");
    amq()
        .args(["build", "--kind", "cuckoo", "--fpr", "0.001", "-o"])
        .arg(&path)
        .arg("-")
        .write_stdin(items)
        .assert()
        .success();
    path
}

#[test]
fn concurrent_removes_lose_no_removal() {
    let dir = tempfile::tempdir().unwrap();
    let path = cuckoo(dir.path());
    let pristine = fs::read(&path).unwrap();
    let p = path.to_str().unwrap();
    let start = Instant::now();
    for round in 0..12 {
        fs::write(&path, &pristine).unwrap();
        let a = spawn(&["remove", p, "17"], None);
        let b = spawn(&["remove", p, "18"], None);
        for out in [a, b].map(|c| finish(c, Duration::from_secs(20))) {
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(String::from_utf8_lossy(&out.stdout).starts_with("removed\t"));
        }
        assert_eq!(
            info(&path)["items_inserted"],
            299_998,
            "round {round}: a removal was lost"
        );
        if start.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    assert_eq!(names_in(dir.path()), ["c.amq"]);
}

#[test]
fn concurrent_window_inserts_get_distinct_positions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.amq");
    let p = path.to_str().unwrap();
    amq()
        .args(["window", "new", "--preset", "neptune", "-o", p])
        .assert()
        .success();
    let pristine = fs::read(&path).unwrap();
    let start = Instant::now();
    for round in 0..12 {
        fs::write(&path, &pristine).unwrap();
        let a = spawn(&["window", "insert", p, "-"], Some("utxo-a\n"));
        let b = spawn(&["window", "insert", p, "-"], Some("utxo-b\n"));
        let mut positions: Vec<String> = [a, b]
            .map(|c| finish(c, Duration::from_secs(20)))
            .iter()
            .map(|out| {
                assert!(out.status.success());
                let line = String::from_utf8_lossy(&out.stdout).into_owned();
                line.split('\t').next().unwrap().to_string()
            })
            .collect();
        positions.sort();
        assert_eq!(positions, ["0", "1"], "round {round}");
        assert_eq!(info(&path)["next_position"], 2, "round {round}");
        if start.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
}

#[test]
fn a_planted_symlink_at_a_guessable_temporary_name_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let path = cuckoo(dir.path());
    let victim = dir.path().join("victim.txt");
    fs::write(&victim, "precious\n").unwrap();
    // the old rewrite wrote `.c.amq.tmp<PID>`: plant a link at every PID the next runs may get
    let last: u32 = fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(1);
    for pid in last..last + 400 {
        let _ = std::os::unix::fs::symlink(&victim, dir.path().join(format!(".c.amq.tmp{pid}")));
    }
    for item in ["5", "6", "7"] {
        amq().arg("remove").arg(&path).arg(item).assert().success();
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(fs::symlink_metadata(&path).unwrap().file_type().is_file());
    assert_eq!(info(&path)["items_inserted"], 299_997);
}

#[test]
fn a_rewrite_keeps_the_permissions_and_the_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let path = cuckoo(dir.path());
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    amq().arg("remove").arg(&path).arg("1").assert().success();
    let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600, "a 0600 filter stays 0600");
    // through a link: the target is updated and the link stays a link
    let link = dir.path().join("link.amq");
    std::os::unix::fs::symlink("c.amq", &link).unwrap();
    amq().arg("remove").arg(&link).arg("2").assert().success();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(info(&path)["items_inserted"], 299_998);
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
        0o600
    );
    // `-o` through a link to a file that does not exist yet creates the target
    let dangling = dir.path().join("new-link.amq");
    std::os::unix::fs::symlink("made.amq", &dangling).unwrap();
    amq()
        .args(["build", "--fpr", "0.01", "-o"])
        .arg(&dangling)
        .arg("-")
        .write_stdin("a\nb\n")
        .assert()
        .success();
    assert!(fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(dir.path().join("made.amq").is_file());
    assert_eq!(
        names_in(dir.path()),
        ["c.amq", "link.amq", "made.amq", "new-link.amq"]
    );
    // a read-only file is refused, as `cp` and `>` refuse it, and left as it was
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let before = fs::read(&path).unwrap();
    for out in [
        amq().arg("remove").arg(&path).arg("3").output().unwrap(),
        build_to(&path),
    ] {
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("the file is read-only"), "{err}");
    }
    assert_eq!(fs::read(&path).unwrap(), before);
}

fn build_to(output: &Path) -> std::process::Output {
    amq()
        .args(["build", "--fpr", "0.01", "--seed", "3", "-o"])
        .arg(output)
        .arg("-")
        .write_stdin("a\nb\nc\n")
        .output()
        .unwrap()
}

#[test]
fn outputs_that_are_not_regular_files_are_written_into_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.amq");
    assert!(build_to(&file).status.success());
    let expected = fs::read(&file).unwrap();
    // `-o -`: the filter on stdout
    let out = build_to(Path::new("-"));
    assert!(out.status.success());
    assert_eq!(out.stdout, expected);
    assert!(!Path::new("-").exists());
    // a FIFO is written into, and stays a FIFO
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    let out = build_to(&fifo);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(reader.join().unwrap(), expected);
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    // /dev/null is a character device: written into, never replaced
    assert!(build_to(Path::new("/dev/null")).status.success());
    assert!(fs::symlink_metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    // a directory is refused with one line, and nothing is left beside it
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    assert_one_error(&build_to(&sub), "directory");
    assert!(sub.is_dir());
    assert_eq!(names_in(dir.path()), ["f.amq", "pipe", "sub"]);
}

/// A small tmpfs mounted for one test (needs root and a system that allows it), unmounted on
/// drop.
struct SmallFs(PathBuf);

impl SmallFs {
    fn mount(at: &Path, size: &str) -> Option<SmallFs> {
        fs::create_dir_all(at).ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .ok()?
            .success();
        ok.then(|| SmallFs(at.to_path_buf()))
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// A full disk while a filter is rewritten: the filter is intact and no temporary file is
/// left. On a real full tmpfs where one can be mounted, else with an injected write error.
#[test]
fn a_full_disk_leaves_the_filter_intact_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    // AMQ_TEST_NO_TMPFS=1 tries the injected error where a tmpfs could be mounted
    let small = match std::env::var_os("AMQ_TEST_NO_TMPFS") {
        Some(_) => None,
        None => SmallFs::mount(&mnt, "1m"),
    };
    let (work, env): (PathBuf, Option<(&str, &str)>) = match &small {
        Some(fs) => {
            eprintln!("disk full: a 1 MiB tmpfs at {}", fs.0.display());
            (fs.0.clone(), None)
        }
        None => {
            eprintln!("disk full: tmpfs not available, AMQ_TEST_WRITE_FAILS_AFTER injected");
            let work = dir.path().join("work");
            fs::create_dir(&work).unwrap();
            (work, Some(("AMQ_TEST_WRITE_FAILS_AFTER", "4096")))
        }
    };
    let path = cuckoo(&work);
    let before = fs::read(&path).unwrap();
    if small.is_some() {
        // fill the rest of the file system, so the 0.6 MB rewrite cannot fit
        let free = 1 << 20usize;
        let mut filler = fs::File::create(work.join("filler")).unwrap();
        let chunk = vec![0u8; 4096];
        for _ in 0..free / 4096 {
            if std::io::Write::write_all(&mut filler, &chunk).is_err() {
                break;
            }
        }
        let _ = filler.sync_all();
    }
    let mut cmd = amq();
    cmd.arg("remove").arg(&path).arg("9");
    if let Some((k, v)) = env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert_one_error(&out, "No space left on device");
    // "removed 9" would be false: nothing was saved
    assert!(
        out.stdout.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(fs::read(&path).unwrap(), before, "the filter is intact");
    let mut left = names_in(&work);
    left.retain(|n| n != "filler");
    assert_eq!(left, ["c.amq"], "no temporary file is left");
}

/// A reader that closes the pipe early (`amq remove … | head -1`) cannot stop an update: the
/// file is written before the answers are printed, for `remove` and `rln register`, whose
/// answers (20,000 lines) are more than a pipe holds.
#[test]
fn a_closed_stdout_does_not_stop_an_update() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    cuckoo(work);
    let items: String = (1..=20_000).map(|i| format!("{i}\n")).collect();
    fs::write(work.join("items.txt"), &items).unwrap();
    amq()
        .args([
            "rln",
            "new",
            "--epoch-items",
            "100000",
            "--fpr",
            "0.001",
            "-o",
            "r.amq",
        ])
        .current_dir(work)
        .assert()
        .success();
    for args in [
        &["remove", "c.amq", "--file", "items.txt"][..],
        &["rln", "register", "r.amq", "items.txt"][..],
    ] {
        let mut child = spawn_in(work, args);
        // close the pipe unread, as `head -c 0` does
        drop(child.stdout.take());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}");
    }
    let info = |file: &str| {
        let out = amq()
            .args(["info", "--json", file])
            .current_dir(work)
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    assert_eq!(info("c.amq")["items_inserted"], 300_000 - 20_000);
    assert_eq!(info("r.amq")["members"], 20_000);
}

/// A file size limit (`ulimit -f`) is an error like a full disk: "File too large", exit 2, no
/// temporary file, the old file intact; not SIGXFSZ, which would kill the process mid-write.
#[test]
fn a_file_size_limit_is_an_error_not_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let path = cuckoo(work);
    let before = fs::read(&path).unwrap();
    let items: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    fs::write(work.join("items.txt"), items).unwrap();
    // 8 blocks of 512 bytes: the new files are far larger
    for args in [
        "build --fpr 0.01 -o new.amq items.txt",
        "build --kind cuckoo --fpr 0.001 -o c.amq items.txt",
        "remove c.amq 9",
    ] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -f 8 && exec \"$0\" {args}"))
            .arg(assert_cmd::cargo::cargo_bin("amq"))
            .current_dir(work)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args}: {:?} {err}", out.status);
        assert!(err.contains("File too large"), "{args}: {err}");
        assert_eq!(names_in(work), ["c.amq", "items.txt"], "{args}");
        assert_eq!(fs::read(&path).unwrap(), before, "{args}");
    }
}

/// An update that changes nothing (`amq remove` or `amq ttl remove` of absent items) releases
/// the file's lock before it prints: a reader that is slow to read its answers does not hold
/// up the next writer.
#[test]
fn an_update_that_changes_nothing_does_not_hold_the_lock_while_it_prints() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let run = |args: &[&str]| {
        amq().args(args).current_dir(work).assert().success();
    };
    // empty filters: no item is found, so no remove changes anything
    run(&[
        "build",
        "--kind",
        "cuckoo",
        "--items",
        "1000",
        "--fpr",
        "0.01",
        "-o",
        "e.amq",
        "/dev/null",
    ]);
    run(&[
        "ttl", "new", "--items", "1000", "--fpr", "0.01", "--tick", "60", "-o", "t.amq",
    ]);
    // answers well beyond a pipe's 64 KiB buffer, so the print blocks until they are read
    let absent: Vec<String> = (0..20_000).map(|i| format!("absent-item-{i}")).collect();
    fs::write(work.join("absent.txt"), absent.join("\n") + "\n").unwrap();
    let removes: [Vec<&str>; 2] = [
        vec!["remove", "e.amq", "--file", "absent.txt"],
        [
            &["ttl", "remove", "t.amq"][..],
            &absent.iter().map(String::as_str).collect::<Vec<_>>(),
        ]
        .concat(),
    ];
    for (args, file) in removes.iter().zip(["e.amq", "t.amq"]) {
        let mut slow = spawn_in(work, args);
        // while its answers sit unread, another writer of the same file gets through
        std::thread::sleep(Duration::from_millis(500));
        let start = Instant::now();
        let mut other = spawn_in(work, &["remove", file, "x"]);
        let finished = loop {
            if let Some(status) = other.try_wait().unwrap() {
                break Some(status);
            }
            if start.elapsed() > Duration::from_secs(20) {
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // now read the slow one's answers, so that it ends either way
        let mut answers = String::new();
        std::io::Read::read_to_string(&mut slow.stdout.take().unwrap(), &mut answers).unwrap();
        // exit 1: not every item was removed
        assert_eq!(slow.wait().unwrap().code(), Some(1), "{args:?}");
        assert_eq!(answers.lines().count(), 20_000, "{args:?}");
        if finished.is_none() {
            other.wait().unwrap();
        }
        assert!(
            finished.is_some(),
            "{file}: the second writer waited for the lock"
        );
    }
}
