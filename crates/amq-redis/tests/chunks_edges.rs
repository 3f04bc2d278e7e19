//! The chunked dumps (`*.SCANDUMP`, `*.LOADCHUNK`) and the values behind them where the other
//! tests let mutants of `src/stored.rs` and `src/commands/chunks.rs` through (cargo-mutants,
//! `CONTRIBUTING.md`). Each test names the mutants it was written against.

mod common;

use common::*;
use redis::{Connection, Value};

/// Walks `key` with `BF.SCANDUMP` from iterator `it` to its end.
fn walk(c: &mut Connection, key: &str, mut it: i64) {
    loop {
        let v = ok(c, &format!("BF.SCANDUMP {key} {it}"));
        let Value::Array(p) = v else { panic!("{v:?}") };
        it = int(&p[0]);
        if it == 0 {
            return;
        }
    }
}

/// A `*.SCANDUMP` walk holds the filter's `.amq` bytes from iterator 0 to its end, and
/// `MEMORY USAGE` counts them: at least the dump's length more while the walk is under way,
/// back to what it was once the walk (every walk begun) has ended. Written against
/// stored.rs:68 (`Walks::end` made `()`: the bytes kept after the walk) and stored.rs:76
/// (`Walks::memory` made 0 or 1: the bytes not counted), stored.rs:122 (`+ cached` made
/// `- cached`), missed.
#[test]
fn memory_usage_counts_the_bytes_of_a_walk_under_way() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "BF.RESERVE bf 0.01 10000");
    ok(&mut c, "BF.MADD bf a b c");
    let amq = bytes(&ok(&mut c, "AMQ.DUMP bf")).len() as i64;
    let usage = |c: &mut Connection| int(&ok(c, "MEMORY USAGE bf"));
    let idle = usage(&mut c);
    ok(&mut c, "BF.SCANDUMP bf 0");
    let walking = usage(&mut c);
    assert!(
        walking >= idle + amq,
        "{walking} while walking, {idle} idle, {amq} bytes"
    );
    // a second walk shares the bytes, and its end keeps them for the first
    walk(&mut c, "bf", 0);
    assert_eq!(usage(&mut c), walking);
    walk(&mut c, "bf", 1);
    assert_eq!(usage(&mut c), idle);
}

/// A load whose last chunk completes bytes that do not decode is refused with the reason, and
/// the key is deleted. Written against stored.rs:163 (`Refused`'s `Display` made to write
/// nothing: the reply said only "; the key was deleted"), missed.
#[test]
fn a_load_of_bytes_that_do_not_decode_says_why() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "BF.RESERVE bf 0.01 100");
    let total = bytes(&ok(&mut c, "AMQ.DUMP bf")).len();
    let v = ok(&mut c, "BF.SCANDUMP bf 0");
    let Value::Array(p) = v else { panic!("{v:?}") };
    let header = bytes(&p[1]);
    let r = call(&mut c, &[b"BF.LOADCHUNK", b"copy", b"1", &header]);
    assert_eq!(r, Ok(Value::Okay));
    let it = (total + 1).to_string();
    let e = call(
        &mut c,
        &[b"BF.LOADCHUNK", b"copy", it.as_bytes(), &vec![0; total]],
    )
    .unwrap_err();
    assert!(e.starts_with("ERR received bad data ("), "{e}");
    assert!(e.ends_with("); the key was deleted"), "{e}");
    assert_eq!(int(&ok(&mut c, "EXISTS copy")), 0);
}

/// A chunk that is not the next one is refused and the load goes on: the key stays, still
/// loading, and the right chunk then completes it. Written against chunks.rs:120 (the guard
/// `bytes.len() as u64 >= *total` made `true`: any refused chunk deleted the key), missed.
#[test]
fn a_chunk_out_of_order_is_refused_and_the_load_goes_on() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "BF.MADD bf a b c");
    let amq = bytes(&ok(&mut c, "AMQ.DUMP bf"));
    let v = ok(&mut c, "BF.SCANDUMP bf 0");
    let Value::Array(p) = v else { panic!("{v:?}") };
    let r = call(&mut c, &[b"BF.LOADCHUNK", b"copy", b"1", &bytes(&p[1])]);
    assert_eq!(r, Ok(Value::Okay));
    // the chunk at byte 1, not 0
    let it = (amq.len() + 2).to_string();
    let e = call(&mut c, &[b"BF.LOADCHUNK", b"copy", it.as_bytes(), &amq]).unwrap_err();
    assert!(
        e.starts_with("ERR invalid offset - expected the chunk at byte 0"),
        "{e}"
    );
    let e = fails(&mut c, "BF.EXISTS copy a");
    assert!(e.starts_with("ERR the filter is still being loaded"), "{e}");
    let it = (amq.len() + 1).to_string();
    let r = call(&mut c, &[b"BF.LOADCHUNK", b"copy", it.as_bytes(), &amq]);
    assert_eq!(r, Ok(Value::Okay));
    assert_eq!(bytes(&ok(&mut c, "AMQ.DUMP copy")), amq);
}

/// `*.SCANDUMP` of a missing key is `ERR not found` whatever its iterator, except for `CF.*`,
/// which refuses an iterator that is not an integer first (RedisBloom's order). Written
/// against chunks.rs:33 (`family == Family::Cuckoo` made `!=`: the two orders swapped),
/// missed.
#[test]
fn scandump_of_a_missing_key_with_a_bad_iterator() {
    let s = Server::start(&[]);
    let mut c = s.con();
    assert_eq!(fails(&mut c, "BF.SCANDUMP missing x"), "ERR not found");
    assert_eq!(fails(&mut c, "AMQ.SCANDUMP missing x"), "ERR not found");
    assert_eq!(fails(&mut c, "CF.SCANDUMP missing x"), "Invalid position");
}
