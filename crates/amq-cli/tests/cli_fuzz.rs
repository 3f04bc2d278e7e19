//! A standing guard (issue 10, class 7): every command, driven with random argument vectors
//! and random or corrupted inputs, exits 0, 1 or 2, never panics or dies of a signal, says an
//! error in one `error: ...` line, and finishes in bounded time and memory.
//!
//! The commands and their flags are read from `amq ... --help`, so new commands are covered
//! without a change here. Each run has 768 MiB of address space (`ulimit -v`), 64 MiB of file
//! size (`ulimit -f`: a write past it must be an error, not SIGXFSZ) and 20 seconds.
//!
//! `AMQ_FUZZ_SEED` and `AMQ_FUZZ_RUNS` (default 1 and 250) choose the cases; a failure prints
//! the seed, the case number and the command line. `AMQ_TEST_BIN` runs another build.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    match std::env::var_os("AMQ_TEST_BIN") {
        Some(p) => PathBuf::from(p),
        None => assert_cmd::cargo::cargo_bin("amq"),
    }
}

/// SplitMix64: a small seeded generator, so a failing case can be run again.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// A command's flags (name, value name or None for a switch, possible values), positionals,
/// and the flags its usage line names (required ones, or one of a required group).
#[derive(Debug, Default, Clone)]
struct Spec {
    flags: Vec<(String, Option<String>, Vec<String>)>,
    positionals: Vec<String>,
    usage: String,
}

/// Reads the command tree from `--help`: (command path, its spec) for every leaf command.
fn command_tree() -> BTreeMap<Vec<String>, Spec> {
    let mut tree = BTreeMap::new();
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    while let Some(path) = todo.pop() {
        let out = Command::new(bin())
            .args(&path)
            .arg("--help")
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut section = "";
        let mut spec = Spec::default();
        let mut subcommands = Vec::new();
        for line in help.lines() {
            if let Some(u) = line.strip_prefix("Usage: ") {
                spec.usage = u.to_string();
            }
            if !line.starts_with(' ') && line.ends_with(':') {
                section = line;
                continue;
            }
            let t = line.trim_start();
            let indent = line.len() - t.len();
            match section {
                "Commands:" if indent == 2 => {
                    let name = t.split_whitespace().next().unwrap_or("");
                    // `serve` runs until it is stopped: it is tested as a real process on
                    // loopback (tests/serve.rs, crates/amq-server/tests), not by this harness
                    if name != "help" && name != "serve" && !name.is_empty() {
                        subcommands.push(name.to_string());
                    }
                }
                "Arguments:" if indent == 2 => {
                    let name = t.split_whitespace().next().unwrap_or("");
                    spec.positionals
                        .push(name.trim_matches(['<', '>', '[', ']', '.']).to_string());
                }
                "Options:" if t.starts_with('-') => {
                    let words: Vec<&str> = t.split_whitespace().collect();
                    let Some(i) = words.iter().position(|w| w.starts_with("--")) else {
                        continue;
                    };
                    let name = words[i].trim_end_matches(',').to_string();
                    if name == "--help" || name == "--version" {
                        continue;
                    }
                    let value = words
                        .get(i + 1)
                        .filter(|w| w.starts_with('<'))
                        .map(|w| w.trim_matches(['<', '>']).to_string());
                    let possible = t
                        .split("[possible values: ")
                        .nth(1)
                        .map(|s| {
                            s.trim_end_matches(']')
                                .split(", ")
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default();
                    spec.flags.push((name, value, possible));
                }
                _ => {}
            }
        }
        if subcommands.is_empty() {
            tree.insert(path, spec);
        } else {
            for s in subcommands {
                let mut p = path.clone();
                p.push(s);
                todo.push(p);
            }
        }
    }
    tree
}

/// The files the cases read and write, in a temporary directory.
struct Files {
    dir: tempfile::TempDir,
    inputs: Vec<String>,
}

fn run_amq(dir: &Path, args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

impl Files {
    fn new(rng: &mut Rng) -> Files {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let words: String = (0..300).map(|i| format!("item-{i}\n")).collect();
        let hexes: String = (0..300u32)
            .map(|i| format!("{:08x}\n", i.wrapping_mul(2_654_435_761)))
            .collect();
        std::fs::write(d.join("items.txt"), &words).unwrap();
        std::fs::write(d.join("items.hex"), &hexes).unwrap();
        let built: [(&str, &[&str]); 7] = [
            (
                "bloom.amq",
                &["build", "--fpr", "0.01", "-o", "bloom.amq", "items.txt"],
            ),
            (
                "blocked.amq",
                &[
                    "build",
                    "--kind",
                    "blocked-bloom",
                    "--fpr",
                    "0.01",
                    "-o",
                    "blocked.amq",
                    "items.txt",
                ],
            ),
            (
                "cuckoo.amq",
                &[
                    "build",
                    "--kind",
                    "cuckoo",
                    "--fpr",
                    "0.01",
                    "-o",
                    "cuckoo.amq",
                    "items.txt",
                ],
            ),
            (
                "window.amq",
                &[
                    "window",
                    "new",
                    "--window",
                    "4096",
                    "--chunk",
                    "256",
                    "--batch",
                    "4",
                    "--hashes",
                    "3",
                    "-o",
                    "window.amq",
                ],
            ),
            (
                "aging.amq",
                &[
                    "aging",
                    "new",
                    "--window-seconds",
                    "3600",
                    "--items-per-generation",
                    "100",
                    "--fpr",
                    "0.01",
                    "-o",
                    "aging.amq",
                ],
            ),
            (
                "negative.amq",
                &[
                    "negative",
                    "new",
                    "--l",
                    "8",
                    "--ttl",
                    "60",
                    "-o",
                    "negative.amq",
                ],
            ),
            (
                "cashu.json",
                &["cashu", "build", "--timestamp", "1", "items.hex"],
            ),
        ];
        let mut inputs: Vec<String> = vec!["items.txt".into(), "items.hex".into()];
        for (name, args) in built {
            let out = run_amq(d, args, b"");
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            if name.ends_with(".json") {
                std::fs::write(d.join(name), &out.stdout).unwrap();
            }
            inputs.push(name.into());
            // corrupted copies: a flipped byte, a truncation
            let bytes = std::fs::read(d.join(name)).unwrap();
            let mut flipped = bytes.clone();
            let at = rng.below(flipped.len());
            flipped[at] ^= 1 << rng.below(8);
            std::fs::write(d.join(format!("flipped-{name}")), flipped).unwrap();
            let cut = rng.below(bytes.len());
            std::fs::write(d.join(format!("cut-{name}")), &bytes[..cut]).unwrap();
            inputs.push(format!("flipped-{name}"));
            inputs.push(format!("cut-{name}"));
        }
        let noise: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
        std::fs::write(d.join("noise.bin"), noise).unwrap();
        std::fs::write(d.join("empty"), b"").unwrap();
        std::fs::create_dir(d.join("adir")).unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors");
        for v in [
            "ethereum/public-receipts.json",
            "ethereum/execution-apis-receipts.json",
            "cashu-gcs/nuts-pr261-gcs-vector.json",
            "algorand/avm-bit-ordering.json",
        ] {
            let name = v.replace('/', "-");
            std::fs::copy(repo.join(v), d.join(&name)).unwrap();
            inputs.push(name);
        }
        for extra in [
            "noise.bin",
            "empty",
            "adir",
            "missing.amq",
            "-",
            "/dev/null",
        ] {
            inputs.push(extra.into());
        }
        Files { dir, inputs }
    }
}

/// A value for a flag or positional, by its name.
fn value(rng: &mut Rng, name: &str, files: &Files, small: bool) -> String {
    const NUMBERS: [&str; 16] = [
        "0",
        "1",
        "2",
        "3",
        "7",
        "64",
        "1000",
        "65536",
        "1000000",
        "4294967296",
        "9007199254740993",
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "-1",
        "1e3",
    ];
    const RATES: [&str; 10] = [
        "0.01", "1%", "0.5", "1e-9", "1e-300", "0", "1", "2", "nan", "-0.1",
    ];
    const TEXT: [&str; 10] = [
        "x",
        "",
        "0x",
        "0xdeadbeef",
        "zz",
        "The GOAT",
        "item-7",
        "ff",
        "é",
        "0",
    ];
    let lower = name.to_ascii_lowercase();
    let file_like = [
        "filter",
        "file",
        "output",
        "block",
        "box",
        "response",
        "prev-scripts",
        "out",
    ]
    .iter()
    .any(|f| lower.contains(f))
        && !lower.contains("hex");
    if file_like {
        return rng.pick(&files.inputs).clone();
    }
    if small {
        return rng.pick(&["0", "1", "2", "5", "64", "200"]).to_string();
    }
    match rng.below(10) {
        0..=3 => rng.pick(&NUMBERS).to_string(),
        4..=5 => rng.pick(&RATES).to_string(),
        6 => format!("{:016x}", rng.next()),
        7 => "00".repeat(rng.below(40)),
        _ => rng.pick(&TEXT).to_string(),
    }
}

/// A random argument vector for one command, and its stdin.
fn case(
    rng: &mut Rng,
    path: &[String],
    spec: &Spec,
    files: &Files,
    out_dir: &str,
) -> (Vec<String>, Vec<u8>) {
    // `amq sim` does the work its numbers ask for (10^15 insertions take that long): keep them
    // small there
    let small = path.first().is_some_and(|c| c == "sim");
    let mut args: Vec<String> = path.to_vec();
    for (flag, val, possible) in &spec.flags {
        let named = spec
            .usage
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .any(|w| w == flag);
        if !rng.chance(if named { 85 } else { 30 }) {
            continue;
        }
        args.push(flag.clone());
        if let Some(name) = val {
            let v = if flag == "--out" || (flag == "--output" || flag == "-o") && rng.chance(70) {
                if flag == "--out" {
                    out_dir.to_string()
                } else {
                    format!("out-{}.amq", rng.below(3))
                }
            } else if !possible.is_empty() && rng.chance(90) {
                rng.pick(possible).clone()
            } else {
                value(rng, name, files, small)
            };
            args.push(v);
        }
    }
    for p in &spec.positionals {
        for _ in 0..1 + rng.below(3) {
            if rng.chance(85) {
                args.push(value(rng, p, files, small));
            }
        }
    }
    if rng.chance(10) && args.len() > path.len() {
        let at = path.len() + rng.below(args.len() - path.len());
        args.remove(at);
    }
    if rng.chance(5) {
        args.push(rng.pick(&["--bogus", "-z", "--", "--json"]).to_string());
    }
    let stdin: Vec<u8> = match rng.below(4) {
        0 => Vec::new(),
        1 => (0..rng.below(50))
            .flat_map(|i| format!("{i:02x}\n").into_bytes())
            .collect(),
        2 => (0..rng.below(50))
            .flat_map(|i| format!("line {i}\r\n").into_bytes())
            .collect(),
        _ => (0..rng.below(2000)).map(|_| rng.next() as u8).collect(),
    };
    (args, stdin)
}

/// What was wrong with one run, if anything.
fn check(out: &std::process::Output, took: Duration) -> Option<String> {
    let err = String::from_utf8_lossy(&out.stderr);
    let Some(code) = out.status.code() else {
        return Some(format!(
            "killed by a signal ({:?}); stderr: {err}",
            out.status
        ));
    };
    if took > Duration::from_secs(20) {
        return Some(format!("took {took:?}"));
    }
    if !(0..=2).contains(&code) {
        return Some(format!("exit status {code}"));
    }
    if err.contains("panicked") || err.contains("RUST_BACKTRACE") || err.contains("Usage:") {
        return Some(format!("stderr: {err}"));
    }
    let errors = err.lines().filter(|l| l.starts_with("error")).count();
    if code == 2 && (errors != 1 || !err.lines().last().is_some_and(|l| l.starts_with("error: "))) {
        return Some(format!(
            "exit 2 without exactly one final error line: {err}"
        ));
    }
    if code != 2 && errors != 0 {
        return Some(format!("exit {code} with an error line: {err}"));
    }
    None
}

/// Feeds the child its stdin and collects its output, killing it after `limit`.
fn finish(mut child: std::process::Child, stdin: Vec<u8>, limit: Duration) -> std::process::Output {
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    std::process::Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

#[test]
fn random_arguments_and_inputs_never_panic_hang_or_abort() {
    let seed: u64 = std::env::var("AMQ_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let runs: usize = std::env::var("AMQ_FUZZ_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(250);
    let mut rng = Rng(seed);
    let tree = command_tree();
    let commands: Vec<(&Vec<String>, &Spec)> = tree.iter().collect();
    assert!(
        commands.len() >= 30,
        "{} commands found in --help",
        commands.len()
    );
    let files = Files::new(&mut rng);
    let start = Instant::now();
    let mut failures = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for i in 0..runs {
        let (path, spec) = commands[i % commands.len()];
        seen.insert(path.clone());
        let (args, stdin) = case(&mut rng, path, spec, &files, "simout");
        let script = "ulimit -v 786432 && ulimit -f 131072 && exec \"$0\" \"$@\"";
        let t = Instant::now();
        let child = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(bin())
            .args(&args)
            .current_dir(files.dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = finish(child, stdin, Duration::from_secs(20));
        let took = t.elapsed();
        if let Some(what) = check(&out, took) {
            failures.push(format!(
                "seed {seed} case {i}: amq {}\n  {what}",
                args.join(" ")
            ));
        }
        if start.elapsed() > Duration::from_secs(240) {
            assert!(i >= 100, "only {i} cases in 240 s");
            break;
        }
    }
    eprintln!(
        "{} commands, {} cases in {:?}",
        seen.len(),
        runs,
        start.elapsed()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
