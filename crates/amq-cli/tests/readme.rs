//! The README's examples are the binary's output to the digit (issue 10, class 6).
//!
//! A fenced block right after a line `<!-- readme-test -->` is run: each `$ ` line (with `\`
//! continuations) is a shell command, run with `sh` in a fresh directory per block with the
//! built `amq` first on `PATH`, and the lines up to the next `$ ` are what it prints, stdout
//! and stderr together. A `$ cat FILE` of a file the block has not made shows its contents:
//! the file is written from them first, so a block can give its own inputs.

use std::path::{Path, PathBuf};
use std::process::Command;

const MARKER: &str = "<!-- readme-test -->";

/// One command of a block and what it prints.
#[derive(Debug)]
struct Step {
    line: usize,
    command: String,
    output: Vec<String>,
}

/// The marked blocks: (line of the fence, steps).
fn marked_blocks(readme: &str) -> Vec<(usize, Vec<Step>)> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != MARKER {
            i += 1;
            continue;
        }
        let fence = i + 1;
        assert!(
            lines.get(fence).is_some_and(|l| l.starts_with("```")),
            "README.md:{}: {MARKER} must come right before a fenced block",
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
                let step = steps.last_mut().unwrap_or_else(|| {
                    panic!("README.md:{}: output before any `$ ` command", j + 1)
                });
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
        blocks.push((fence + 1, steps));
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

fn run_block(fence: usize, steps: &[Step]) -> Vec<String> {
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
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("exec 2>&1\n{}", step.command))
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        if got != step.output {
            failures.push(format!(
                "README.md:{} (block at line {fence}): `{}`\n--- README\n{}\n--- amq\n{}",
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
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let blocks = marked_blocks(&readme);
    assert!(
        !blocks.is_empty(),
        "no block in README.md is marked {MARKER}"
    );
    let commands: usize = blocks.iter().map(|b| b.1.len()).sum();
    eprintln!(
        "README.md: {} marked blocks, {commands} commands",
        blocks.len()
    );
    let failures: Vec<String> = blocks
        .iter()
        .flat_map(|(fence, steps)| run_block(*fence, steps))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_block_parser_reads_commands_outputs_and_continuations() {
    let text = "x\n<!-- readme-test -->\n```console\n$ echo a \\\n    b\na b\n\n$ true\n```\n";
    let blocks = marked_blocks(text);
    assert_eq!(blocks.len(), 1);
    let steps = &blocks[0].1;
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].command, "echo a  b");
    assert_eq!(steps[0].output, ["a b"]);
    assert!(steps[1].output.is_empty());
    assert_eq!(
        shown_file("cat core-items.hex      # the items"),
        Some("core-items.hex")
    );
    assert_eq!(shown_file("cat a b"), None);
}
