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
//! `date: ` header line matches any date.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};

const MARKER: &str = "<!-- readme-test -->";
const SERVE_MARKER: &str = "<!-- readme-test serve -->";
/// The documents whose marked blocks are run, from the workspace root.
const DOCUMENTS: [&str; 3] = ["README.md", "docs/server.md", "docs/forgetting-cuckoo.md"];

/// One command of a block and what it prints.
#[derive(Debug)]
struct Step {
    line: usize,
    command: String,
    output: Vec<String>,
}

/// A marked block: the line of its fence, whether it runs against a server, its steps.
#[derive(Debug)]
struct Block {
    fence: usize,
    serve: bool,
    steps: Vec<Step>,
}

/// The marked blocks of a document (`name` for the messages).
fn marked_blocks(name: &str, readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let serve = lines[i].trim() == SERVE_MARKER;
        if lines[i].trim() != MARKER && !serve {
            i += 1;
            continue;
        }
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
            serve,
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
    /// Kept open: the server may print more, and a closed pipe would fail its writes.
    _stdout: BufReader<ChildStdout>,
}

impl Server {
    /// Starts `amq serve` on a port of its choosing, with its data in `dir/data`.
    fn start(dir: &Path) -> Server {
        let mut child = Command::new(amq_dir().join("amq"))
            .args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(dir.join("data"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("amq serve starts");
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        stdout.read_line(&mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_owned();
        Server {
            child,
            addr,
            _stdout: stdout,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A line of output as the document shows it: `date: ` headers match any date.
fn same_line(shown: &str, got: &str) -> bool {
    shown == got || (shown.starts_with("date: ") && got.starts_with("date: "))
}

fn run_block(name: &str, block: &Block, server: Option<&Server>) -> Vec<String> {
    let (fence, steps) = (block.fence, &block.steps);
    let dir = tempfile::tempdir().unwrap();
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
            .arg(format!("exec 2>&1\n{command}"))
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
            && step.output.iter().zip(&got).all(|(s, g)| same_line(s, g));
        if !same {
            failures.push(format!(
                "{name}:{} (block at line {fence}): `{}`\n--- {name}\n{}\n--- amq\n{}",
                step.line,
                step.command,
                step.output.join("\n"),
                got.join("\n")
            ));
        }
    }
    failures
}

#[test]
fn readme_examples_match_the_binary() {
    let mut failures = Vec::new();
    for name in DOCUMENTS {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let blocks = marked_blocks(name, &text);
        assert!(!blocks.is_empty(), "no block in {name} is marked {MARKER}");
        let commands: usize = blocks.iter().map(|b| b.steps.len()).sum();
        eprintln!(
            "{name}: {} marked blocks, {commands} commands",
            blocks.len()
        );
        let data = tempfile::tempdir().unwrap();
        let mut server = None;
        for block in &blocks {
            if block.serve && server.is_none() {
                server = Some(Server::start(data.path()));
            }
            let on = if block.serve { server.as_ref() } else { None };
            failures.extend(run_block(name, block, on));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_block_parser_reads_commands_outputs_and_continuations() {
    let text = "x\n<!-- readme-test -->\n```console\n$ echo a \\\n    b\na b\n\n$ true\n```\n\
                <!-- readme-test serve -->\n```console\n$ true\n```\n";
    let blocks = marked_blocks("t", text);
    assert_eq!(blocks.len(), 2);
    assert!(!blocks[0].serve && blocks[1].serve);
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
}
