//! `amq query` as grep is used: answers come as the input does (not only once 1,024 items or
//! the end have arrived), and an input error comes after the answers to the lines before it.

mod common;

use common::{amq, Dir};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn filter(dir: &Dir) -> std::path::PathBuf {
    let path = dir.path("w.amq");
    amq()
        .args(["build", "--fpr", "0.01", "-o"])
        .arg(&path)
        .write_stdin("color\nflavor\n")
        .assert()
        .success();
    path
}

#[test]
fn answers_come_while_the_input_is_still_open() {
    let dir = Dir::new();
    let path = filter(&dir);
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("amq"))
        .arg("query")
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            tx.send(line.unwrap()).unwrap();
        }
    });
    // one line, the input left open: its answer arrives without more input
    stdin.write_all(b"color\n").unwrap();
    stdin.flush().unwrap();
    let first = rx.recv_timeout(Duration::from_secs(10));
    assert_eq!(first.as_deref(), Ok("color"));
    stdin.write_all(b"colour\nflavor\n").unwrap();
    drop(stdin);
    let rest: Vec<String> = rx.iter().collect();
    assert_eq!(rest, ["flavor"]);
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_bad_line_comes_after_the_answers_before_it() {
    let dir = Dir::new();
    let path = filter(&dir);
    amq()
        .args(["query", "--hex"])
        .arg(&path)
        .write_stdin("636f6c6f72\n666c61766f72\nzz\n")
        .assert()
        .code(2)
        .stdout("636f6c6f72\n666c61766f72\n")
        .stderr(predicates::str::contains("-:3: invalid hex"));
}
