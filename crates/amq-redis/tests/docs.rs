//! The sessions of docs/redis.md and the README's Redis quick start are what `redis-server`
//! with the module answers, as `redis-cli` prints them in a terminal.
//!
//! A fenced block right after a line `<!-- redis-test -->` is run against one server (started
//! for the document, on a free loopback port): a `127.0.0.1:6379> COMMAND` line is run as
//! `redis-cli COMMAND`, and a `$ ` line with `sh` in a directory shared by the document's
//! blocks, with the `amq` command line on `PATH`; the lines up to the next command are what
//! it prints. `redis-cli` is pointed at the test's server (in place of any `-p PORT` the line
//! gives) and given `--no-raw` (a terminal's formatting) unless the line asks for `--raw`. The
//! lines that build the module and start the session (`$ cargo build ...`,
//! `$ redis-server ...`, `$ redis-cli` alone) are the test's own build and server and are
//! skipped. Each document gets its own server.

mod common;

use common::Server;
use std::path::{Path, PathBuf};
use std::process::Command;

const MARKER: &str = "<!-- redis-test -->";
/// The documents whose marked sessions are run, from the workspace root.
const DOCUMENTS: [&str; 2] = ["docs/redis.md", "README.md"];
const PROMPT: &str = "127.0.0.1:6379> ";

/// One command of a session and what it prints.
#[derive(Debug, PartialEq)]
struct Step {
    line: usize,
    /// The shell command (a prompt line becomes `redis-cli COMMAND`).
    command: String,
    output: Vec<String>,
}

/// The steps of the marked blocks of document `name`, in order.
fn marked_steps(name: &str, doc: &str) -> Vec<Step> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut steps: Vec<Step> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != MARKER {
            i += 1;
            continue;
        }
        assert!(
            lines.get(i + 1).is_some_and(|l| l.starts_with("```")),
            "{name}:{}: {MARKER} must come right before a fenced block",
            i + 1
        );
        let mut j = i + 2;
        let mut skipping = false;
        while j < lines.len() && !lines[j].starts_with("```") {
            let line = lines[j];
            let command = line
                .strip_prefix(PROMPT)
                .map(|c| format!("redis-cli {c}"))
                .or_else(|| line.strip_prefix("$ ").map(str::to_string));
            match command {
                Some(c)
                    if c.starts_with("redis-server ")
                        || c.starts_with("cargo build ")
                        || c == "redis-cli" =>
                {
                    skipping = true
                }
                Some(command) => {
                    skipping = false;
                    steps.push(Step {
                        line: j + 1,
                        command,
                        output: Vec::new(),
                    });
                }
                None if skipping || line.trim().is_empty() => {}
                None => steps
                    .last_mut()
                    .unwrap_or_else(|| panic!("{name}:{}: output before any command", j + 1))
                    .output
                    .push(line.to_string()),
            }
            j += 1;
        }
        i = j;
    }
    steps
}

/// `redis-cli` in `command` pointed at `port` (its own `-p PORT` dropped), with a terminal's
/// formatting unless `--raw`.
fn pointed(command: &str, port: u16) -> String {
    let flags = if command.contains("--raw") {
        format!("redis-cli -p {port}")
    } else {
        format!("redis-cli -p {port} --no-raw")
    };
    let mut words: Vec<&str> = Vec::new();
    let mut rest = command.split(' ');
    while let Some(w) = rest.next() {
        if w == "-p" && words.last() == Some(&"redis-cli") {
            rest.next();
        } else {
            words.push(w);
        }
    }
    words.join(" ").replace("redis-cli", &flags)
}

/// The `amq` command line of this build (`target/<profile>/amq`, beside `deps/`).
fn amq_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .to_path_buf();
    assert!(
        dir.join("amq").exists(),
        "{} is missing: build it with `cargo build -p amq-cli` (a workspace test run does)",
        dir.join("amq").display()
    );
    dir
}

#[test]
fn redis_md_sessions_are_what_the_module_answers() {
    let search = format!(
        "{}:{}",
        amq_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for name in DOCUMENTS {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(name);
        let steps = marked_steps(name, &std::fs::read_to_string(path).unwrap());
        assert!(
            steps.len() >= 2,
            "{name}: too few marked commands: {steps:?}"
        );
        eprintln!("{name}: {} commands", steps.len());
        let server = Server::start(&[]);
        let dir = tempfile::tempdir().unwrap();
        for step in &steps {
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "exec 2>&1\n{}",
                    pointed(&step.command, server.port)
                ))
                .current_dir(dir.path())
                .env("PATH", &search)
                .output()
                .unwrap();
            let mut got: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect();
            while got.last().is_some_and(|l| l.is_empty()) {
                got.pop();
            }
            if got != step.output {
                failures.push(format!(
                    "{name}:{}: `{}`\n--- {name}\n{}\n--- redis-server\n{}",
                    step.line,
                    step.command,
                    step.output.join("\n"),
                    got.join("\n")
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_session_parser_reads_prompts_shell_lines_and_skips_the_start() {
    let doc = "<!-- redis-test -->\n```\n$ cargo build --release -p amq-redis\n$ redis-server --loadmodule x.so &\n$ redis-cli\n\
               127.0.0.1:6379> BF.ADD k a\n(integer) 1\n\n$ redis-cli --raw GET k | head\nv\n```\n\
               ```\n127.0.0.1:6379> NOT MARKED\n```\n";
    let steps = marked_steps("t", doc);
    assert_eq!(
        steps,
        [
            Step {
                line: 6,
                command: "redis-cli BF.ADD k a".into(),
                output: vec!["(integer) 1".into()]
            },
            Step {
                line: 9,
                command: "redis-cli --raw GET k | head".into(),
                output: vec!["v".into()]
            },
        ]
    );
    assert_eq!(
        pointed("redis-cli -3 BF.EXISTS k a", 7000),
        "redis-cli -p 7000 --no-raw -3 BF.EXISTS k a"
    );
    assert_eq!(
        pointed("redis-cli -p 6380 BF.MADD users a", 7000),
        "redis-cli -p 7000 --no-raw BF.MADD users a"
    );
    assert_eq!(
        pointed("redis-cli --raw AMQ.DUMP k", 7000),
        "redis-cli -p 7000 --raw AMQ.DUMP k"
    );
}
