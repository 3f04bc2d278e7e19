//! The chunked dumps of `AMQ.*`, `BF.*` and `CF.*` against a live `redis-server`: a walk
//! moves a filter whole, and a walk over a filter written meanwhile is refused.

mod common;

use common::*;
use redis::Value;

/// A filter walked with `*.SCANDUMP` and loaded with `*.LOADCHUNK` elsewhere is the same
/// filter: a 20 MB Bloom filter (two data chunks), a cuckoo filter, an aging filter.
#[test]
fn scandump_and_loadchunk_move_filters_in_chunks() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "BF.RESERVE big 0.01 16000000");
    ok(&mut c, "BF.MADD big a b c");
    ok(&mut c, "CF.RESERVE cf 1000");
    ok(&mut c, "CF.ADD cf a");
    ok(&mut c, "AMQ.RESERVE ag aging-bloom WINDOW 100");
    ok(&mut c, "AMQ.ADD ag a");
    for (family, key) in [("BF", "big"), ("CF", "cf"), ("AMQ", "ag")] {
        let mut chunks = Vec::new();
        let mut it = 0;
        loop {
            let v = ok(&mut c, &format!("{family}.SCANDUMP {key} {it}"));
            let Value::Array(p) = v else { panic!() };
            it = int(&p[0]);
            if it == 0 {
                let end = if family == "CF" {
                    Value::Nil
                } else {
                    Value::BulkString(vec![])
                };
                assert_eq!(p[1], end);
                break;
            }
            chunks.push((it, bytes(&p[1])));
        }
        if key == "big" {
            assert_eq!(chunks.len(), 3, "a header and two 16 MiB chunks");
        }
        let copy = format!("{key}-copy");
        for (i, (it, data)) in chunks.iter().enumerate() {
            let it = it.to_string();
            let r = call(
                &mut c,
                &[
                    format!("{family}.LOADCHUNK").as_bytes(),
                    copy.as_bytes(),
                    it.as_bytes(),
                    data,
                ],
            );
            assert_eq!(r, Ok(Value::Okay), "{family} chunk {i}");
            if i + 1 < chunks.len() {
                let e = fails(&mut c, &format!("AMQ.EXISTS {copy} a"));
                assert!(e.starts_with("ERR the filter is still being loaded"), "{e}");
            }
        }
        let original = bytes(&ok(&mut c, &format!("AMQ.DUMP {key}")));
        assert_eq!(bytes(&ok(&mut c, &format!("AMQ.DUMP {copy}"))), original);
        assert_eq!(ints(&ok(&mut c, &format!("AMQ.EXISTS {copy} a"))), [1]);
    }
    // a chunk out of order, a header of another family, a header that is not amq's
    let (_, header) = {
        let v = ok(&mut c, "CF.SCANDUMP cf 0");
        let Value::Array(p) = v else { panic!() };
        (int(&p[0]), bytes(&p[1]))
    };
    let e = call(&mut c, &[b"BF.LOADCHUNK", b"x", b"1", &header]).unwrap_err();
    assert!(
        e.starts_with("ERR received bad data (the dump holds a filter of kind expandable-cuckoo"),
        "{e}"
    );
    let e = call(&mut c, &[b"CF.LOADCHUNK", b"y", b"1", b"RedisBloom header"]).unwrap_err();
    assert_eq!(e, "ERR received bad data (not an amq dump header)");
    ok_call(&mut c, &[b"CF.LOADCHUNK", b"y", b"1", &header]);
    let e = call(&mut c, &[b"CF.LOADCHUNK", b"y", b"99", b"abcd"]).unwrap_err();
    assert!(e.starts_with("ERR invalid offset"), "{e}");
}

/// A walk goes on over the bytes it began with, or not at all: two walks under way share
/// them until both end, and a write between two steps refuses the next step (before, the
/// walk went on over the new bytes, and the chunks loaded did not make a filter).
#[test]
fn a_scandump_walk_over_a_changed_filter_is_refused() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "BF.RESERVE big 0.01 16000000");
    ok(&mut c, "BF.ADD big a");
    let step = |c: &mut redis::Connection, it: i64| -> Result<(i64, Vec<u8>), String> {
        let Value::Array(p) = call(c, &[b"BF.SCANDUMP", b"big", it.to_string().as_bytes()])? else {
            panic!("not an array")
        };
        Ok((int(&p[0]), bytes(&p[1])))
    };
    let walk = |c: &mut redis::Connection, mut it: i64| {
        let mut chunks = Vec::new();
        while it != 0 {
            let (next, data) = step(c, it).unwrap();
            if next != 0 {
                chunks.push(data);
            }
            it = next;
        }
        chunks.concat()
    };
    let (one, _) = step(&mut c, 0).unwrap();
    let (two, _) = step(&mut c, 0).unwrap();
    let whole = walk(&mut c, one);
    assert_eq!(
        walk(&mut c, two),
        whole,
        "the second walk outlives the first's end"
    );
    assert_eq!(whole, bytes(&ok(&mut c, "AMQ.DUMP big")));

    let (it, _) = step(&mut c, 0).unwrap();
    let (it, _) = step(&mut c, it).unwrap();
    ok(&mut c, "BF.ADD big b");
    let gone = "ERR the filter changed since SCANDUMP began with iterator 0, or no walk is \
                under way: begin again with iterator 0";
    assert_eq!(step(&mut c, it).unwrap_err(), gone);
    // a step of no walk under way (a restart forgets walks too)
    assert_eq!(step(&mut c, 1).unwrap_err(), gone);
    let (it, _) = step(&mut c, 0).unwrap();
    assert_eq!(walk(&mut c, it), bytes(&ok(&mut c, "AMQ.DUMP big")));
}

fn ok_call(c: &mut redis::Connection, args: &[&[u8]]) {
    assert_eq!(call(c, args), Ok(Value::Okay));
}
