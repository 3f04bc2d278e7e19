//! Edges of the file safety and input handling that `cli_files.rs` and `cli_hardening.rs`
//! cover, found by mutation testing `fsio.rs`, `input.rs` and `cmd/build.rs`: a writer that
//! waited on the lock of a file that was then replaced or removed, the mode and owner a
//! rewrite keeps, an output the user may neither read nor write, an output that is a socket,
//! how a line that is not hex is quoted, inputs that must be read twice, and how `build` sizes
//! a filter and when it warns. Each test runs the real binary in a temporary folder and checks
//! its answers and the files left.
#![cfg(unix)]

mod common;

use common::{amq, assert_one_error, finish, info, names_in, words, Dir};
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long any wait of these tests may take before it fails.
const LIMIT: Duration = Duration::from_secs(20);

/// Polls `done` every 5 ms until it holds; fails, naming `what`, after [`LIMIT`].
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < LIMIT, "waited too long for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `amq ARGS` in `dir`, its write of the new file paused `pause_ms` once the bytes are in the
/// temporary file (`AMQ_TEST_WRITE_PAUSE_MS`, debug builds), while it holds the lock.
fn spawn_paused(dir: &Path, args: &[&str], pause_ms: u64) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("amq"))
        .args(args)
        .current_dir(dir)
        .env("AMQ_TEST_WRITE_PAUSE_MS", pause_ms.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Asserts that `out` is a success, showing its stderr if not.
fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether process `pid` has a file descriptor open on `path` (Linux's `/proc/PID/fd`).
fn holds_open(pid: u32, path: &Path) -> bool {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.filter_map(|e| fs::read_link(e.ok()?.path()).ok())
        .any(|target| target == path)
}

/// The temporary files beside `name` in `dir`: `.NAME.`, six random characters, `.tmp`.
fn temporaries(dir: &Path, name: &str) -> Vec<String> {
    let prefix = format!(".{name}.");
    names_in(dir)
        .into_iter()
        .filter(|n| n.starts_with(&prefix) && n.ends_with(".tmp"))
        .collect()
}

/// Whether the tests run as root (`/proc/self` belongs to the user a process runs as).
fn as_root() -> bool {
    fs::metadata("/proc/self").unwrap().uid() == 0
}

/// A cuckoo filter of the items 1 to 1000 at `c.amq` in `dir`.
fn cuckoo(dir: &Dir) -> PathBuf {
    let path = dir.path("c.amq");
    amq()
        .args(["build", "--kind", "cuckoo", "--fpr", "0.01", "-o"])
        .arg(&path)
        .arg("-")
        .write_stdin(common::lines(1..=1000))
        .assert()
        .success();
    path
}

/// A rewrite keeps the replaced file's permission bits, here 0640 (a new temporary file is
/// 0600, so 0600 would not tell), and, where the system allows it (as root), its owner, here
/// `nobody` (65534). Written against the mutants that skip `keep_owner_and_mode` (the mode
/// became 0600) and that call `fchown` only when the owner is already the same (`!=` made
/// `==`: the file became root's).
#[test]
fn a_rewrite_keeps_the_mode_and_the_owner() {
    let dir = Dir::new();
    let path = cuckoo(&dir);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    if as_root() {
        std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
    }
    let owner = |m: &fs::Metadata| (m.uid(), m.gid());
    let before = owner(&fs::metadata(&path).unwrap());
    amq().arg("remove").arg(&path).arg("1").assert().success();
    let after = fs::metadata(&path).unwrap();
    assert_eq!(after.permissions().mode() & 0o7777, 0o640);
    assert_eq!(owner(&after), before);
    assert_eq!(info(&path)["items_inserted"], 999);
    assert_eq!(names_in(dir.root()), ["c.amq"]);
}

/// The lock is on the file, and a replaced file is a new one: a writer (B) that waited on the
/// old file must, once it holds that lock, lock the new file at the path instead, or a third
/// writer (C), who locks the new file, runs beside it and one removal is lost. A holds the
/// lock while B opens the file; C starts while B is in its paused write. All three removals
/// must land: 997 of 1000 items. Written against the mutants that skip the check that the
/// path still names the locked file (`same_file` always true, in `lock_existing` and in
/// `same_file` itself).
#[test]
fn a_writer_that_waited_on_a_replaced_file_locks_the_new_one() {
    let dir = Dir::new();
    let path = fs::canonicalize(cuckoo(&dir)).unwrap();
    let work = dir.root();
    let mut a = spawn_paused(work, &["remove", "c.amq", "1"], 2_000);
    wait_until("A's temporary file", || {
        !temporaries(work, "c.amq").is_empty()
    });
    let mut b = spawn_paused(work, &["remove", "c.amq", "2"], 2_000);
    wait_until("B to open the file A holds locked", || {
        holds_open(b.id(), &path)
    });
    assert!(
        a.try_wait().unwrap().is_none(),
        "A ended before B opened the old file: the test proves nothing"
    );
    assert_success(&finish(a, LIMIT), "A");
    // B takes the lock and writes; its temporary file is there while its write is paused
    wait_until("B's temporary file", || {
        !temporaries(work, "c.amq").is_empty() || b.try_wait().unwrap().is_some()
    });
    assert!(b.try_wait().unwrap().is_none(), "B ended before its pause");
    let c = spawn_paused(work, &["remove", "c.amq", "3"], 0);
    assert_success(&finish(c, LIMIT), "C");
    assert_success(&finish(b, LIMIT), "B");
    assert_eq!(info(&path)["items_inserted"], 997, "a removal was lost");
    assert_eq!(names_in(work), ["c.amq"]);
}

/// A file removed while a writer waits for its lock is no file: `build -o` then creates the
/// output as it would have had the file never been there. The test holds the lock itself,
/// removes the file once the writer has opened it, then lets go; the output must be the same
/// bytes as the same build into a fresh path. Written against the mutants of
/// `lock_existing`'s second `NotFound` guard (`false`, and `==` made `!=`), which turn the
/// missing file into the error "cannot open".
#[test]
fn a_file_removed_while_a_writer_waits_is_created_anew() {
    let dir = Dir::new();
    let work = dir.root();
    let path = fs::canonicalize(cuckoo(&dir)).unwrap();
    fs::write(dir.path("items.txt"), words("x", 50)).unwrap();
    let build = ["build", "--fpr", "0.01", "--seed", "7", "-o"];
    amq()
        .args(build)
        .args(["ref.amq", "items.txt"])
        .current_dir(work)
        .assert()
        .success();
    let held = fs::File::open(&path).unwrap();
    held.lock().unwrap();
    let writer = spawn_paused(work, &[&build[..], &["c.amq", "items.txt"]].concat(), 0);
    wait_until("the writer to open the locked file", || {
        holds_open(writer.id(), &path)
    });
    fs::remove_file(&path).unwrap();
    drop(held);
    assert_success(&finish(writer, LIMIT), "build -o c.amq");
    assert_eq!(
        fs::read(&path).unwrap(),
        fs::read(dir.path("ref.amq")).unwrap()
    );
    assert_eq!(names_in(work), ["c.amq", "items.txt", "ref.amq"]);
}

/// An output file the user may neither read nor write is refused, as `cp` refuses it, and
/// left as it was, even though the folder would let a rename replace it: `build -o` cannot
/// open it to take the lock, and that error is the answer. Root may open any file, so as root
/// the build runs as `nobody` (`setpriv`) on a root-owned 0600 file in a folder open to all;
/// another user gets a 0000 file of its own. Written against the mutant that takes any error
/// opening the file (`lock_existing`'s first guard `true`) as "no file yet", which replaced it.
#[test]
fn an_output_the_user_may_not_open_is_refused_and_left_as_it_was() {
    let dir = Dir::new();
    let work = dir.root();
    let path = cuckoo(&dir);
    let before = fs::read(&path).unwrap();
    fs::write(dir.path("items.txt"), words("x", 50)).unwrap();
    let mut cmd = if as_root() {
        // `nobody` needs the binary, the folder and the items; not the filter
        let bin = dir.path("amq");
        fs::copy(assert_cmd::cargo::cargo_bin("amq"), &bin).unwrap();
        fs::set_permissions(work, fs::Permissions::from_mode(0o777)).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
        Command::new(assert_cmd::cargo::cargo_bin("amq"))
    };
    let out = cmd
        .args(["build", "--fpr", "0.01", "-o", "c.amq", "items.txt"])
        .current_dir(work)
        .output()
        .unwrap();
    let err = assert_one_error(&out, "Permission denied");
    assert!(err.contains("c.amq"), "{err}");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(fs::read(&path).unwrap(), before, "the file was replaced");
    let mut left = names_in(work);
    left.retain(|n| n != "amq");
    assert_eq!(left, ["c.amq", "items.txt"]);
}

/// A socket is neither a file to replace nor a device to write into: `-o SOCKET` is refused
/// with the reason, it is not a regular file, and the socket stays. Written against the
/// mutant that takes every file type as a character device or FIFO
/// (`is_char_device_or_fifo` always `true`), which opened the socket and failed with "No such
/// device or address", a reason that does not say what is wrong.
#[test]
fn a_socket_output_is_refused_as_not_a_regular_file() {
    let dir = Dir::new();
    let sock = dir.path("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let out = amq()
        .args(["build", "--fpr", "0.01", "-o"])
        .arg(&sock)
        .arg("-")
        .write_stdin("a\nb\n")
        .output()
        .unwrap();
    let err = assert_one_error(&out, "not a regular file");
    assert!(err.contains(&*sock.to_string_lossy()), "{err}");
    assert!(fs::symlink_metadata(&sock).unwrap().file_type().is_socket());
    assert_eq!(names_in(dir.root()), ["sock"]);
}

/// An item that is not hex under `--hex` is an error that names the input and the line and
/// quotes the text: whole up to 40 characters, else its first 40 characters then `...`, cut
/// between characters (`é` is two bytes). Written against the mutants of `shorten`: an empty
/// or fixed text, and the comparison with 40 made `==`, `<` or `>=` (40 characters got `...`,
/// or a longer text came whole).
#[test]
fn a_line_that_is_not_hex_is_quoted_whole_or_cut_at_40_characters() {
    let forty = "z".repeat(40);
    let accents = "é".repeat(50);
    let cut = format!("{}...", "é".repeat(40));
    for (text, shown) in [("zz", "zz"), (&*forty, &*forty), (&*accents, &*cut)] {
        let out = amq()
            .args(["build", "--hex", "--fpr", "0.01", "-o", "-"])
            .write_stdin(format!("00\n0xab\n{text}\n"))
            .timeout(LIMIT)
            .output()
            .unwrap();
        let err = assert_one_error(&out, "invalid hex");
        assert!(
            err.starts_with(&format!("error: -:3: invalid hex \"{shown}\"")),
            "{text}: {err}"
        );
        assert!(out.stdout.is_empty(), "no filter after an error");
    }
}

const BLOCK_HASH: &str = "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943";

/// The BIP158 filter of `elements` (hex lines) under [`BLOCK_HASH`], as `amq btc gcs` prints it.
fn gcs_of(elements: &str) -> String {
    let out = amq()
        .args(["btc", "gcs", "--block-hash", BLOCK_HASH, "-"])
        .write_stdin(elements)
        .output()
        .unwrap();
    assert_success(&out, "btc gcs");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// `amq btc match` against `filter` under [`BLOCK_HASH`], stopped after [`LIMIT`]; its input
/// files follow.
fn btc_match(filter: &str) -> assert_cmd::Command {
    let mut cmd = amq();
    cmd.args([
        "btc",
        "match",
        "--block-hash",
        BLOCK_HASH,
        "--filter",
        filter,
    ])
    .timeout(LIMIT);
    cmd
}

/// `amq btc match` of the filter of `ELEMENTS` against the same elements: one line per element,
/// each a match (an element put in a filter is always found), exit 0.
fn assert_each_element_matches(out: &Output, elements: &[&str]) {
    assert_success(out, "btc match");
    let rows = common::json_lines(&out.stdout);
    let got: Vec<(&str, bool)> = rows
        .iter()
        .map(|r| {
            (
                r["element"].as_str().unwrap(),
                r["match"].as_bool().unwrap(),
            )
        })
        .collect();
    let want: Vec<(&str, bool)> = elements.iter().map(|&e| (e, true)).collect();
    assert_eq!(got, want);
}

/// `btc match` reads its elements twice (once to find them, once to print each answer), so an
/// input that can be read only once is first copied: a named pipe given as a file, and stdin
/// given as `-` even when the folder has a regular file named `-`. Both must give one answer
/// per element. Written against the mutants of `Rereadable::open`'s test of a regular file:
/// `&&` made `||` (the pipe was opened again and the second read waited for ever) and `!=`
/// made `==` (stdin, taken for the file `-`, was read again at its end: no answers).
#[test]
fn inputs_read_twice_are_copied_unless_they_are_regular_files() {
    let elements = ["aa01", "bb0202", "cc030303"];
    let text = common::lines(elements);
    let filter = gcs_of(&text);
    let dir = Dir::new();
    let fifo = dir.path("elements.pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let writer = {
        let (fifo, text) = (fifo.clone(), text.clone());
        std::thread::spawn(move || fs::write(fifo, text).unwrap())
    };
    let out = btc_match(&filter).arg(&fifo).output().unwrap();
    let start = Instant::now();
    while !writer.is_finished() && start.elapsed() < LIMIT {
        std::thread::sleep(Duration::from_millis(5));
    }
    if !writer.is_finished() {
        // amq never opened the pipe: open it, so that the writer ends
        let _ = fs::read(&fifo);
    }
    writer.join().unwrap();
    assert_each_element_matches(&out, &elements);
    // a file named `-` beside: `-` is still stdin
    fs::write(dir.path("-"), "dd04\n").unwrap();
    let out = btc_match(&filter)
        .arg("-")
        .current_dir(dir.root())
        .write_stdin(text)
        .output()
        .unwrap();
    assert_each_element_matches(&out, &elements);
}

/// `build --bits M` without `--hashes` or `--items` counts the distinct items first, so k is
/// the best for the real n: the integer nearest (m / n) ln 2, 14 for m = 1024 and n = 50.
/// Written against the mutant of `build`'s streaming test (`&&` made `||`), which streamed
/// the items into a filter sized for n = 1 and chose k for that.
#[test]
fn build_with_bits_alone_chooses_k_for_the_counted_items() {
    let dir = Dir::new();
    let f = dir.path("f.amq");
    amq()
        .args(["build", "--bits", "1024", "-o"])
        .arg(&f)
        .arg("-")
        .write_stdin(words("item-", 50))
        .assert()
        .success();
    let best_k = (1024.0 / 50.0 * std::f64::consts::LN_2).round();
    assert_eq!(best_k, 14.0);
    let v = info(&f);
    assert_eq!(
        (v["m_bits"].as_u64(), v["k"].as_f64()),
        (Some(1024), Some(best_k))
    );
    assert_eq!(v["items_inserted"], 50);
}

/// `build --items N` warns only when more than N distinct items went in: exactly N (three
/// items, each setting new bits in a filter of 29 bits) is the plan, with no warning. Written
/// against the mutant that warned at N too (`new > planned` made `>=`).
#[test]
fn build_with_exactly_the_planned_items_does_not_warn() {
    let dir = Dir::new();
    let out = amq()
        .args(["build", "--fpr", "0.01", "--items", "3", "--json", "-o"])
        .arg(dir.path("f.amq"))
        .arg("-")
        .write_stdin("a\nb\nc\n")
        .output()
        .unwrap();
    assert_success(&out, "build");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let summary = common::json(&out.stdout);
    assert_eq!(summary["items_inserted"], 3);
    assert_eq!(summary["items_planned"], 3);
}
