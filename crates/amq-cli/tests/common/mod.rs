//! What the CLI tests share: the binary, a temporary folder, item files, JSON output and the
//! golden vectors. Each test file takes it with `mod common;` and uses what it needs.

#![allow(dead_code)] // each test binary uses a different part of it

pub mod server;

use assert_cmd::Command;
use serde_json::Value;
use std::fmt::Display;
use std::path::{Path, PathBuf};

/// The `amq` binary built by this package.
pub fn amq() -> Command {
    Command::cargo_bin("amq").unwrap()
}

/// The binary under test: `AMQ_TEST_BIN` if set (to run a test file against another build,
/// as the tests written against mutants were checked), else this package's `amq`.
pub fn bin() -> PathBuf {
    match std::env::var_os("AMQ_TEST_BIN") {
        Some(p) => PathBuf::from(p),
        None => assert_cmd::cargo::cargo_bin("amq"),
    }
}

/// `amq` with its address space limited to `kib` KiB (`ulimit -v`), so that a command that
/// holds much more than it should fails the way it would on a small machine.
pub fn amq_limited(kib: u64) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(bin())
        .timeout(std::time::Duration::from_secs(60));
    c
}

/// A temporary folder, removed when dropped.
pub struct Dir(tempfile::TempDir);

impl Dir {
    /// A new, empty folder.
    pub fn new() -> Self {
        Dir(tempfile::tempdir().unwrap())
    }
    /// The folder itself.
    pub fn root(&self) -> &Path {
        self.0.path()
    }
    /// The path of `name` in the folder (not created).
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
    /// Writes `bytes` to `name` in the folder and returns its path.
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

/// Each item on its own line, each line ending in `\n`: an items file or stdin.
pub fn lines<T: Display>(items: impl IntoIterator<Item = T>) -> String {
    items.into_iter().map(|i| format!("{i}\n")).collect()
}

/// The lines `{prefix}0` to `{prefix}{n-1}`.
pub fn words(prefix: &str, n: usize) -> String {
    lines((0..n).map(|i| format!("{prefix}{i}")))
}

/// The JSON value in `bytes` (a command's stdout), or a panic that shows the text.
pub fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(bytes)))
}

/// One JSON value per line of `bytes` (a command's stdout); an empty line is an error.
pub fn json_lines(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(|l| json(l.as_bytes()))
        .collect()
}

/// Runs `cmd`, checks that it succeeded (showing its stderr if not) and returns the JSON
/// value it printed.
pub fn success_json(cmd: &mut Command) -> Value {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

/// A command's stdout as text.
pub fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The JSON file `tests/vectors/{path}` of the repository.
pub fn vector(path: &str) -> Value {
    let path = format!("{}/../../tests/vectors/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `amq info --json` of the filter file `f`.
pub fn info(f: &Path) -> Value {
    let out = amq().args(["info", "--json"]).arg(f).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

/// `amq merge a b` is the filter built from both item sets: builds `a.amq` (300 words "a"),
/// `b.amq` (300 words "b") and `ab.amq` (both) with `build(dir, name, input)`, merges a and b
/// and asserts the result is byte for byte `ab.amq`. Returns a's filter and items.
pub fn assert_merge_is_union(
    dir: &Dir,
    build: impl Fn(&Dir, &str, &Path) -> PathBuf,
) -> (PathBuf, PathBuf) {
    let a_in = dir.write("a.txt", words("a", 300));
    let b_in = dir.write("b.txt", words("b", 300));
    let both_in = dir.write("ab.txt", format!("{}{}", words("a", 300), words("b", 300)));
    let a = build(dir, "a.amq", &a_in);
    let b = build(dir, "b.amq", &b_in);
    let ab = build(dir, "ab.amq", &both_in);
    let merged = dir.path("merged.amq");
    amq()
        .arg("merge")
        .arg(&a)
        .arg(&b)
        .arg("-o")
        .arg(&merged)
        .assert()
        .success();
    assert_eq!(std::fs::read(&merged).unwrap(), std::fs::read(&ab).unwrap());
    (a, a_in)
}

/// The names in `dir`, sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Waits for `child`, at most `limit`, and returns its output; kills it (and fails) if it
/// takes longer.
pub fn finish(mut child: std::process::Child, limit: std::time::Duration) -> std::process::Output {
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("amq ran for more than {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.wait_with_output().unwrap()
}

/// Asserts that `out` is a refusal: exit status 2 and one line, `error: ...`, that contains
/// `contains`; returns that line.
pub fn assert_one_error(out: &std::process::Output, contains: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(contains), "{err:?} lacks {contains:?}");
    err
}
