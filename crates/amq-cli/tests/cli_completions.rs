//! `amq completions`: the bash script completes commands, subcommands, options and option
//! values when bash runs it; the other shells' scripts name every command; a closed pipe is
//! not an error.

mod common;

use common::{amq, Dir};
use std::io::Read;
use std::process::{Command, Stdio};

/// The words bash offers for the command line `words` (the last one being completed), with
/// `amq completions bash` loaded the way bash-completion loads it.
fn bash_completes(script: &std::path::Path, words: &[&str]) -> Vec<String> {
    let line = words.join(" ");
    let driver = format!(
        r#"source "$1"
COMP_WORDS=({words})
COMP_CWORD={cword}
COMP_LINE="{line}"
COMP_POINT=${{#COMP_LINE}}
_amq amq "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        words = words
            .iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" "),
        cword = words.len() - 1,
    );
    let out = Command::new("bash")
        .args(["-c", &driver, "driver"])
        .arg(script)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_commands_subcommands_options_and_values() {
    let dir = Dir::new();
    let out = amq().args(["completions", "bash"]).output().unwrap();
    assert!(out.status.success());
    let script = dir.write("amq.bash", &out.stdout);

    let commands = bash_completes(&script, &["amq", ""]);
    for c in [
        "plan",
        "build",
        "query",
        "eth",
        "btc",
        "cashu",
        "serve",
        "completions",
    ] {
        assert!(commands.iter().any(|w| w == c), "{c} not in {commands:?}");
    }
    assert_eq!(bash_completes(&script, &["amq", "et"]), ["eth"]);
    let eth = bash_completes(&script, &["amq", "eth", ""]);
    for c in ["bloom", "contains", "verify", "scan"] {
        assert!(eth.iter().any(|w| w == c), "{c} not in {eth:?}");
    }
    assert_eq!(
        bash_completes(&script, &["amq", "build", "--ki"]),
        ["--kind"]
    );
    let kinds = bash_completes(&script, &["amq", "build", "--kind", ""]);
    for k in ["bloom", "blocked-bloom", "split-block-bloom", "cuckoo"] {
        assert!(kinds.iter().any(|w| w == k), "{k} not in {kinds:?}");
    }
}

#[test]
fn every_shell_gets_a_script_naming_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = amq().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for c in ["plan", "build", "eth", "cashu", "serve", "completions"] {
            assert!(script.contains(c), "{shell}: {c} missing");
        }
    }
    amq()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "possible values: bash, elvish, fish",
        ));
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    // the bash script is larger than a pipe's buffer, so the writer meets the closed end
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("amq"))
        .args(["completions", "bash"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(first.starts_with(b"_amq()"));
    assert!(out.status.success(), "{:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
