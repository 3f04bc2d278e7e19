//! The examples of the README, docs/server.md and docs/forgetting-cuckoo.md are the binary's
//! output to the digit (issue 10, class 6).
//!
//! A fenced block right after a line `<!-- readme-test -->` is run: each `$ ` line (with `\`
//! continuations) is a shell command, run with `sh` in a fresh directory per block with the
//! built `amq` first on `PATH`, and the lines up to the next `$ ` are what it prints, stdout
//! and stderr together. A `$ cat FILE` of a file the block has not made shows its contents:
//! the file is written from them first, so a block can give its own inputs.
//!
//! After `<!-- readme-test serve -->` the block talks to an `amq serve` started fresh for the
//! document (its own data directory, a loopback port the server picks) and shared by its
//! serve blocks in order: `localhost:8080` in a command is that server's address, and a
//! `date: ` header line matches any date. After `<!-- readme-test serve-start -->` the block
//! is one `amq serve` command (or `cargo run ... -p amq-cli -- serve`) and the lines it prints
//! at start: the document's server is started with its options instead (its `--data` in a
//! fresh directory, on a port it picks), and its lines are compared with the address, the data
//! directory and the seconds a preload took masked; a later start block replaces the server
//! (a fresh data directory) for the serve blocks after it. In a serve block, the number after
//! `"timestamp":` or `"start":` (the clock's, in Cashu responses) matches any number.
//!
//! After `<!-- readme-test in DIR -->` (DIR from the workspace root) a plain block runs in a
//! fresh copy of DIR's files: the example inputs the document points its reader to. After
//! `<!-- readme-test with NAME=DIR -->` its commands see the shell variable NAME set to DIR
//! (the document's `V=tests/vectors/ethereum`). A command that only sets a shell variable
//! (`NAME=...`) and shows no output is run again before each later command of its block.
//! After `<!-- readme-test makes DIR -->` the block's commands write files into DIR (the `amq
//! sim` plots): each file they write must be, byte for byte, the one the workspace holds at
//! that path, the file the document shows.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const MARKER: &str = "<!-- readme-test -->";
const SERVE_MARKER: &str = "<!-- readme-test serve -->";
const START_MARKER: &str = "<!-- readme-test serve-start -->";
/// `<!-- readme-test in DIR -->`: a plain block with DIR's files as its inputs.
const INPUTS_MARKER: (&str, &str) = ("<!-- readme-test in ", " -->");
/// `<!-- readme-test with NAME=DIR -->`: a plain block with the variable NAME set to DIR.
const WITH_MARKER: (&str, &str) = ("<!-- readme-test with ", " -->");
/// `<!-- readme-test makes DIR -->`: a plain block that writes the workspace's files in DIR.
const MAKES_MARKER: (&str, &str) = ("<!-- readme-test makes ", " -->");

/// What a plain block has before its first command.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Setup {
    /// A copy of this directory's files (from the workspace root).
    In(String),
    /// The shell variable (name, directory from the workspace root).
    With(String, String),
    /// The directory (from the workspace root) whose files the block writes again.
    Makes(String),
}
/// The documents whose marked blocks are run, from the workspace root.
const DOCUMENTS: [&str; 3] = ["README.md", "docs/server.md", "docs/forgetting-cuckoo.md"];

/// One command of a block and what it prints.
#[derive(Debug)]
struct Step {
    line: usize,
    command: String,
    output: Vec<String>,
}

/// How a marked block runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Each command in a fresh directory.
    Plain,
    /// Against the document's server.
    Serve,
    /// Starts the document's server.
    Start,
}

/// A marked block: the line of its fence, how it runs, its setup, its steps.
#[derive(Debug)]
struct Block {
    fence: usize,
    mode: Mode,
    setup: Option<Setup>,
    steps: Vec<Step>,
}

/// The mode and setup a marker line gives, if it is one.
fn marker(line: &str) -> Option<(Mode, Option<Setup>)> {
    let within = |(head, tail): (&str, &str)| {
        let rest = line.trim().strip_prefix(head)?.strip_suffix(tail)?;
        Some(rest.trim().to_owned())
    };
    match line.trim() {
        MARKER => Some((Mode::Plain, None)),
        SERVE_MARKER => Some((Mode::Serve, None)),
        START_MARKER => Some((Mode::Start, None)),
        _ => {
            let setup = if let Some(dir) = within(INPUTS_MARKER) {
                Setup::In(dir)
            } else if let Some(dir) = within(MAKES_MARKER) {
                Setup::Makes(dir)
            } else {
                let with = within(WITH_MARKER)?;
                let (name, dir) = with.split_once('=')?;
                Setup::With(name.to_owned(), dir.to_owned())
            };
            Some((Mode::Plain, Some(setup)))
        }
    }
}

/// `true` for a command that only sets a shell variable: `NAME=...`.
fn sets_variable(command: &str) -> bool {
    command.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The marked blocks of a document (`name` for the messages).
fn marked_blocks(name: &str, readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some((mode, setup)) = marker(lines[i]) else {
            i += 1;
            continue;
        };
        let fence = i + 1;
        assert!(
            lines.get(fence).is_some_and(|l| l.starts_with("```")),
            "{name}:{}: {MARKER} must come right before a fenced block",
            i + 1
        );
        let mut steps: Vec<Step> = Vec::new();
        let mut j = fence + 1;
        while j < lines.len() && !lines[j].starts_with("```") {
            let line = lines[j];
            if let Some(cmd) = line.strip_prefix("$ ") {
                let mut command = cmd.to_string();
                while command.ends_with('\\') && j + 1 < lines.len() {
                    command.pop();
                    j += 1;
                    command.push(' ');
                    command.push_str(lines[j].trim_start());
                }
                steps.push(Step {
                    line: j + 1,
                    command,
                    output: Vec::new(),
                });
            } else {
                let step = steps
                    .last_mut()
                    .unwrap_or_else(|| panic!("{name}:{}: output before any `$ ` command", j + 1));
                step.output.push(line.to_string());
            }
            j += 1;
        }
        // a blank line between a command's output and the next command is layout
        for step in &mut steps {
            while step.output.last().is_some_and(|l| l.trim().is_empty()) {
                step.output.pop();
            }
        }
        blocks.push(Block {
            fence: fence + 1,
            mode,
            setup,
            steps,
        });
        i = j;
    }
    blocks
}

fn amq_dir() -> PathBuf {
    assert_cmd::cargo::cargo_bin("amq")
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `$ cat FILE` (an optional `# comment` after it).
fn shown_file(command: &str) -> Option<&str> {
    let rest = command.strip_prefix("cat ")?;
    let rest = rest.split(" #").next()?.trim();
    (!rest.contains(char::is_whitespace) && !rest.is_empty()).then_some(rest)
}

/// A running `amq serve` for a document's serve blocks, killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    /// Starts `amq serve` with `options` (and `--data dir/data`) on a port of its choosing;
    /// returns it and the first `lines` lines it printed, stdout and stderr in the order a
    /// terminal shows them (at least up to the address; waiting at most 30 s for each).
    fn start(dir: &Path, options: &[String], lines: usize) -> (Server, Vec<String>) {
        let mut child = Command::new("sh")
            .args(["-c", "exec \"$0\" \"$@\" 2>&1"])
            .arg(amq_dir().join("amq"))
            .arg("serve")
            .args(options)
            .args(["--listen", "127.0.0.1:0", "--data"])
            .arg(dir.join("data"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("amq serve starts");
        // a thread drains the pipe for the server's life: a closed pipe would fail its prints
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut printed = Vec::new();
        let mut addr = None;
        while addr.is_none() || printed.len() < lines {
            let Ok(line) = rx.recv_timeout(std::time::Duration::from_secs(30)) else {
                let _ = child.kill();
                panic!("amq serve {options:?} printed only {printed:?}");
            };
            if addr.is_none() && line.contains("listening on http://") {
                addr = line
                    .split("http://")
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                    .map(str::to_owned);
            }
            printed.push(line);
        }
        let server = Server {
            child,
            addr: addr.expect("an address"),
        };
        (server, printed)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A start block's one command as `amq serve`'s options, without `--data` and `--listen`
/// (the harness gives its own).
fn serve_options(command: &str) -> Option<Vec<String>> {
    let rest = command
        .strip_prefix("amq serve")
        .or_else(|| command.split_once(" -p amq-cli -- serve").map(|(_, r)| r))?;
    let mut words = rest.split_whitespace();
    let mut options = Vec::new();
    while let Some(w) = words.next() {
        if w == "--data" || w == "--listen" {
            words.next();
        } else {
            options.push(w.to_owned());
        }
    }
    Some(options)
}

/// A start line with what differs from run to run written as the document writes it: the
/// address, the data directory, the seconds a preload took.
fn start_line(line: &str, addr: &str, data: &Path) -> String {
    let line = line
        .replace(addr, "127.0.0.1:8080")
        .replace(&data.display().to_string(), "./amq-data");
    match line.rsplit_once(" in ") {
        Some((head, secs))
            if secs
                .strip_suffix(" s")
                .is_some_and(|n| n.parse::<f64>().is_ok()) =>
        {
            format!("{head} in _ s")
        }
        _ => line,
    }
}

/// Starts the document's server as a start block says, and compares what it prints.
fn start_block(name: &str, block: &Block, dir: &Path) -> (Server, Vec<String>) {
    let [step] = &block.steps[..] else {
        panic!(
            "{name}:{}: a serve-start block holds one command",
            block.fence
        );
    };
    let options = serve_options(&step.command).unwrap_or_else(|| {
        panic!(
            "{name}:{}: not an amq serve command: {}",
            step.line, step.command
        )
    });
    let (server, printed) = Server::start(dir, &options, step.output.len());
    let data = dir.join("data");
    let got: Vec<String> = printed
        .iter()
        .map(|l| start_line(l, &server.addr, &data))
        .collect();
    let shown: Vec<String> = step
        .output
        .iter()
        .map(|l| start_line(l, "127.0.0.1:8080", Path::new("./amq-data")))
        .collect();
    let failures = if got == shown {
        Vec::new()
    } else {
        vec![mismatch(name, block.fence, step, &shown, &got)]
    };
    (server, failures)
}

/// The failure message of a step whose output is not what the document shows.
fn mismatch(name: &str, fence: usize, step: &Step, shown: &[String], got: &[String]) -> String {
    format!(
        "{name}:{} (block at line {fence}): `{}`\n--- {name}\n{}\n--- amq\n{}",
        step.line,
        step.command,
        shown.join("\n"),
        got.join("\n")
    )
}

/// The workspace root, where the documents and their input directories are.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A line of output as the document shows it: `date: ` headers match any date.
fn same_line(shown: &str, got: &str) -> bool {
    shown == got || (shown.starts_with("date: ") && got.starts_with("date: "))
}

/// `line` with the number after each `"timestamp":` and `"start":` written `_`: the server's
/// clock in its Cashu responses.
fn clock_masked(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = ["\"timestamp\":", "\"start\":"]
        .iter()
        .filter_map(|key| rest.find(key).map(|i| i + key.len()))
        .min()
    {
        out.push_str(&rest[..at]);
        let digits = rest[at..].len()
            - rest[at..]
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        if digits > 0 {
            out.push('_');
        }
        rest = &rest[at + digits..];
    }
    out.push_str(rest);
    out
}

fn run_block(name: &str, block: &Block, server: Option<&Server>) -> Vec<String> {
    let (fence, steps) = (block.fence, &block.steps);
    let dir = tempfile::tempdir().unwrap();
    let root = root();
    // shell variables the block's later commands see
    let mut prelude = String::new();
    match &block.setup {
        Some(Setup::In(inputs)) => {
            let from = root.join(inputs);
            let entries = std::fs::read_dir(&from)
                .unwrap_or_else(|e| panic!("{name}:{fence}: inputs {}: {e}", from.display()));
            for entry in entries {
                let entry = entry.unwrap();
                std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
            }
        }
        Some(Setup::With(var, to)) => {
            let to = root.join(to).canonicalize().unwrap();
            prelude = format!("{var}='{}'\n", to.display());
        }
        Some(Setup::Makes(_)) | None => {}
    }
    let path = format!(
        "{}:{}",
        amq_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for step in steps {
        if let Some(file) = shown_file(&step.command) {
            let at = dir.path().join(file);
            if !at.exists() {
                let mut text = step.output.join("\n");
                text.push('\n');
                std::fs::write(&at, text).unwrap();
            }
        }
        let command = match server {
            Some(s) => step.command.replace("localhost:8080", &s.addr),
            None => step.command.clone(),
        };
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("exec 2>&1\n{prelude}{command}"))
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        // (HTTP headers end in CR LF, and with a blank line)
        let mut got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.trim_end_matches('\r').to_string())
            .collect();
        while got.last().is_some_and(|l| l.is_empty()) {
            got.pop();
        }
        let same = got.len() == step.output.len()
            && step.output.iter().zip(&got).all(|(s, g)| match server {
                Some(_) => same_line(&clock_masked(s), &clock_masked(g)),
                None => same_line(s, g),
            });
        if !same {
            failures.push(mismatch(name, fence, step, &step.output, &got));
        }
        if sets_variable(&step.command) && step.output.is_empty() {
            prelude.push_str(&step.command);
            prelude.push('\n');
        }
    }
    if let Some(Setup::Makes(made)) = &block.setup {
        failures.extend(made_files(name, fence, dir.path(), made));
    }
    failures
}

/// The files a block wrote into `made` (under `dir`) that are not the workspace's files at
/// the same path, byte for byte; a failure too if it wrote none.
fn made_files(name: &str, fence: usize, dir: &Path, made: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join(made)) else {
        return vec![format!(
            "{name}:{fence}: the block wrote nothing into {made}"
        )];
    };
    let mut failures = Vec::new();
    let mut wrote = 0;
    for entry in entries {
        let entry = entry.unwrap();
        wrote += 1;
        let shown = root().join(made).join(entry.file_name());
        let file = format!("{made}/{}", entry.file_name().to_string_lossy());
        match std::fs::read(&shown) {
            Ok(bytes) if bytes == std::fs::read(entry.path()).unwrap() => {}
            Ok(_) => failures.push(format!(
                "{name}:{fence}: the block wrote {file} unlike the workspace's"
            )),
            Err(e) => failures.push(format!(
                "{name}:{fence}: the block wrote {file}, which the workspace lacks ({e})"
            )),
        }
    }
    if wrote == 0 {
        failures.push(format!(
            "{name}:{fence}: the block wrote nothing into {made}"
        ));
    }
    failures
}

#[test]
fn readme_examples_match_the_binary() {
    let mut failures = Vec::new();
    for name in DOCUMENTS {
        let path = root().join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let blocks = marked_blocks(name, &text);
        assert!(!blocks.is_empty(), "no block in {name} is marked {MARKER}");
        let commands: usize = blocks.iter().map(|b| b.steps.len()).sum();
        eprintln!(
            "{name}: {} marked blocks, {commands} commands",
            blocks.len()
        );
        let data = tempfile::tempdir().unwrap();
        let mut datas = Vec::new();
        let mut server = None;
        for block in &blocks {
            match block.mode {
                Mode::Start => {
                    // a later start block replaces the server, with a fresh data directory
                    drop(server.take());
                    let data = tempfile::tempdir().unwrap();
                    let (s, failed) = start_block(name, block, data.path());
                    datas.push(data);
                    server = Some(s);
                    failures.extend(failed);
                }
                Mode::Serve => {
                    if server.is_none() {
                        server = Some(Server::start(data.path(), &[], 1).0);
                    }
                    failures.extend(run_block(name, block, server.as_ref()));
                }
                Mode::Plain => failures.extend(run_block(name, block, None)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_block_parser_reads_commands_outputs_and_continuations() {
    let text = "x\n<!-- readme-test -->\n```console\n$ echo a \\\n    b\na b\n\n$ true\n```\n\
                <!-- readme-test serve -->\n```console\n$ true\n```\n\
                <!-- readme-test serve-start -->\n```console\n$ amq serve\n```\n";
    let blocks = marked_blocks("t", text);
    let modes: Vec<Mode> = blocks.iter().map(|b| b.mode).collect();
    assert_eq!(modes, [Mode::Plain, Mode::Serve, Mode::Start]);
    let steps = &blocks[0].steps;
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].command, "echo a  b");
    assert_eq!(steps[0].output, ["a b"]);
    assert!(steps[1].output.is_empty());
    assert_eq!(
        shown_file("cat core-items.hex      # the items"),
        Some("core-items.hex")
    );
    assert_eq!(shown_file("cat a b"), None);
    assert!(same_line(
        "date: Mon, 23 Nov 2026",
        "date: Tue, 24 Nov 2026"
    ));
    assert!(!same_line("etag: \"1\"", "etag: \"2\""));
    assert_eq!(
        clock_masked(r#"{"n":2,"content":"AOp9","timestamp":1795458233}"#),
        r#"{"n":2,"content":"AOp9","timestamp":_}"#
    );
    assert_eq!(
        clock_masked(r#"[{"start":17,"end":null},{"start":18,"end":19}]"#),
        r#"[{"start":_,"end":null},{"start":_,"end":19}]"#
    );
    assert_eq!(clock_masked(r#"{"n":7}"#), r#"{"n":7}"#);
    assert_eq!(
        marker("<!-- readme-test in docs/examples/bip158 -->"),
        Some((
            Mode::Plain,
            Some(Setup::In("docs/examples/bip158".to_owned()))
        ))
    );
    assert_eq!(marker("<!-- readme-test -->"), Some((Mode::Plain, None)));
    assert_eq!(
        marker("<!-- readme-test with V=tests/vectors/ethereum -->"),
        Some((
            Mode::Plain,
            Some(Setup::With(
                "V".to_owned(),
                "tests/vectors/ethereum".to_owned()
            ))
        ))
    );
    assert_eq!(
        marker("<!-- readme-test makes docs/sim -->"),
        Some((Mode::Plain, Some(Setup::Makes("docs/sim".to_owned()))))
    );
    assert!(sets_variable("BLOOM=$(jq -r .x f.json)"));
    assert!(!sets_variable("amq eth bloom --json=x"));
    assert!(!sets_variable("echo a=b"));
    assert_eq!(marker("<!-- not a test -->"), None);
    assert_eq!(
        serve_options("cargo run --release -q -p amq-cli -- serve --data ./d --preload w=f"),
        Some(vec!["--preload".to_owned(), "w=f".to_owned()])
    );
    assert_eq!(serve_options("amq build x"), None);
    let data = Path::new("/tmp/x/data");
    assert_eq!(
        start_line(
            "amq serve: preloaded w: 3 items into a bloom filter (ε 1e-3) in 0.17 s",
            "127.0.0.1:4242",
            data
        ),
        "amq serve: preloaded w: 3 items into a bloom filter (ε 1e-3) in _ s"
    );
    assert_eq!(
        start_line(
            "amq serve: listening on http://127.0.0.1:4242 (data in /tmp/x/data)",
            "127.0.0.1:4242",
            data
        ),
        "amq serve: listening on http://127.0.0.1:8080 (data in ./amq-data)"
    );
}
