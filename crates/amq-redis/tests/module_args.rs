//! The module's load arguments (`--loadmodule libamq_redis.so NAME VALUE ...`), against a
//! real `redis-server`: taken as `CONFIG SET` takes them, and a bad one stops the load with
//! the reason in the log.

mod common;

use common::*;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn max_filter_bytes_takes_units_as_config_set_does() {
    let s = Server::start(&["max-filter-bytes", "1GB"]);
    let mut c = s.con();
    let v = ok(&mut c, "CONFIG GET amq.max-filter-bytes");
    assert_eq!(bytes(&field(&v, "amq.max-filter-bytes")), b"1073741824");
    let s = Server::start(&["max-filter-bytes", "8192"]);
    let mut c = s.con();
    let e = fails(&mut c, "BF.RESERVE big 0.01 100000");
    assert!(e.starts_with("ERR the filter would take"), "{e}");
}

#[test]
fn a_bad_argument_stops_the_load_and_says_why() {
    for (args, says) in [
        (
            &["max-filter-bytes", "100"][..],
            "argument must be between 4096 and",
        ),
        (
            &["max-filter-bytes", "lots"][..],
            "module argument max-filter-bytes lots",
        ),
        (&["max-filter-bytes"][..], "max-filter-bytes needs a value"),
        (
            &["ERROR_RATE", "0.01"][..],
            "\"ERROR_RATE\" is RedisBloom's module argument",
        ),
        (
            &["colour", "red"][..],
            "\"colour\" is not a module argument of amq",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("redis.log");
        let mut server = Command::new("redis-server")
            .args([
                "--port",
                &free_port(false).to_string(),
                "--bind",
                "127.0.0.1",
            ])
            .args(["--save", "", "--appendonly", "no", "--logfile"])
            .arg(&log)
            .arg("--loadmodule")
            .arg(module())
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server runs (scripts/test-redis installs it)");
        let mut status = None;
        for _ in 0..500 {
            status = server.try_wait().unwrap();
            if status.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let Some(status) = status else {
            server.kill().unwrap();
            panic!("{args:?}: redis-server kept running");
        };
        assert!(!status.success(), "{args:?}");
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.contains(says), "{args:?}: {text}");
        assert!(text.contains("the module is not loaded") || text.contains("needs a value"));
    }
}
