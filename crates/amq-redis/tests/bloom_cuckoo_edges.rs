//! `BF.*` and `CF.*` where the other tests let mutants of `src/commands/bf.rs` and
//! `src/commands/cf.rs` through (cargo-mutants, `CONTRIBUTING.md`): the filter each option
//! creates, compared byte for byte with the one `AMQ.RESERVE` creates from the same
//! parameters, what a write refused part-way leaves in the AOF, and the arity bounds the
//! commands check themselves. Each test names the mutants it was written against.

mod common;

use common::*;
use redis::{Connection, Value};

/// The `.amq` bytes of `key`.
fn dump(c: &mut Connection, key: &str) -> Vec<u8> {
    bytes(&ok(c, &format!("AMQ.DUMP {key}")))
}

/// `BF.RESERVE` and `BF.INSERT` create the scalable Bloom filter that `AMQ.RESERVE
/// scalable-bloom` creates from the same capacity n, ε, expansion, tightening and
/// `NONSCALING`: the same `.amq` bytes, whatever the options' order. Written against
/// bf.rs:112 (the `fpr` field of `reserve`'s `Create` deleted: every filter at the default
/// 1%), bf.rs:123 and bf.rs:129 (`i += 2` made `i *= 2` after `EXPANSION` or `TIGHTENING`: the
/// option after it skipped), each missed.
#[test]
fn bf_reserve_and_insert_create_what_amq_reserve_creates() {
    let s = Server::start(&[]);
    let mut c = s.con();
    let cases = [
        (
            "BF.RESERVE a 0.001 1000 EXPANSION 4 TIGHTENING 0.7",
            "scalable-bloom ITEMS 1000 ERROR 0.001 EXPANSION 4 TIGHTENING 0.7",
        ),
        (
            "BF.RESERVE b 0.02 300 TIGHTENING 0.6 EXPANSION 3",
            "scalable-bloom ITEMS 300 ERROR 0.02 EXPANSION 3 TIGHTENING 0.6",
        ),
        (
            "BF.RESERVE c 0.05 50 TIGHTENING 0.8 NONSCALING",
            "scalable-bloom ITEMS 50 ERROR 0.05 TIGHTENING 0.8 NONSCALING",
        ),
        (
            "BF.INSERT d CAPACITY 200 ERROR 0.002 EXPANSION 3 TIGHTENING 0.8 ITEMS x",
            "scalable-bloom ITEMS 200 ERROR 0.002 EXPANSION 3 TIGHTENING 0.8",
        ),
        (
            "BF.INSERT e TIGHTENING 0.6 NONSCALING ERROR 0.03 CAPACITY 40 ITEMS x",
            "scalable-bloom ITEMS 40 ERROR 0.03 TIGHTENING 0.6 NONSCALING",
        ),
    ];
    for (bf, amq) in cases {
        ok(&mut c, bf);
        let key = bf.split(' ').nth(1).unwrap();
        let twin = format!("{key}-twin");
        ok(&mut c, &format!("AMQ.RESERVE {twin} {amq}"));
        if bf.starts_with("BF.INSERT") {
            ok(&mut c, &format!("AMQ.ADD {twin} x"));
        }
        assert_eq!(dump(&mut c, key), dump(&mut c, &twin), "{bf}");
    }
}

/// A `BF.INSERT` that creates its filter and is refused part-way (a filter that does not
/// scale is full; a chain's next link would go over `amq.max-filter-bytes`) goes to the AOF
/// as the insert of the items added, with the options the filter was created with: after a
/// restart that replays the AOF the filter has the same bytes. Written against bf.rs:65
/// (`Create::insert_args` made `vec![]`: the replay creates a default filter) and bf.rs:74
/// (`Create::options` made `vec![]`: the replay's filter scales, with the default expansion
/// and tightening), both missed.
#[test]
fn a_bf_insert_refused_part_way_replays_from_the_aof_to_the_same_bytes() {
    let mut s = Server::start(&["--appendonly", "yes"]);
    let mut c = s.con();
    let v = ok(
        &mut c,
        "BF.INSERT n CAPACITY 3 ERROR 0.001 NONSCALING TIGHTENING 0.6 ITEMS a b c d e",
    );
    let Value::Array(r) = &v else { panic!("{v:?}") };
    assert_eq!(r.len(), 4, "{v:?}");
    assert_eq!(
        nested_error(&r[3]).as_deref(),
        Some("ERR non scaling filter is full")
    );
    // an existing filter: the items added go as `NOCREATE`
    ok(&mut c, "BF.RESERVE x 0.01 3 NONSCALING");
    let v = ok(&mut c, "BF.MADD x a b c d");
    let Value::Array(r) = &v else { panic!("{v:?}") };
    assert_eq!(r.len(), 4, "{v:?}");
    // room for the first link only (the limit is at least 4096 bytes)
    let plan = ok(
        &mut c,
        "AMQ.PLAN scalable-bloom ITEMS 4000 ERROR 0.005 EXPANSION 3 TIGHTENING 0.7",
    );
    let first = int(&field(&plan, "bytes"));
    ok(&mut c, &format!("CONFIG SET amq.max-filter-bytes {first}"));
    let items: Vec<String> = (0..5000).map(|i| format!("i{i}")).collect();
    let v = ok(
        &mut c,
        &format!(
            "BF.INSERT g CAPACITY 4000 ERROR 0.005 EXPANSION 3 TIGHTENING 0.7 ITEMS {}",
            items.join(" ")
        ),
    );
    let Value::Array(r) = &v else { panic!("{v:?}") };
    assert!(r.len() > 4000 && r.len() < 5000, "{}", r.len());
    assert_eq!(
        nested_error(r.last().unwrap()).as_deref(),
        Some("ERR the filter would go over amq.max-filter-bytes")
    );
    let keys = ["n", "x", "g"];
    let before: Vec<_> = keys.iter().map(|k| dump(&mut c, k)).collect();
    s.restart();
    let mut c = s.con();
    let after: Vec<_> = keys.iter().map(|k| dump(&mut c, k)).collect();
    assert_eq!(after, before);
}

/// `BF.RESERVE` takes at most 8 arguments (its name included): a ninth is a wrong number of
/// arguments, not read as one more option. Written against bf.rs:99 (`||` made `&&` in the
/// arity check: the ninth argument was read, and these commands succeeded), missed.
#[test]
fn bf_reserve_refuses_a_ninth_argument() {
    let s = Server::start(&[]);
    let mut c = s.con();
    for command in [
        "BF.RESERVE k 0.01 100 TIGHTENING 0.5 TIGHTENING 0.5 NONSCALING",
        "BF.RESERVE k 0.01 100 NONSCALING NONSCALING NONSCALING NONSCALING NONSCALING",
    ] {
        let e = fails(&mut c, command);
        assert!(
            e.starts_with("ERR wrong number of arguments"),
            "{command}: {e}"
        );
    }
    assert_eq!(int(&ok(&mut c, "EXISTS k")), 0);
    // eight are taken
    ok(
        &mut c,
        "BF.RESERVE k 0.01 100 TIGHTENING 0.5 NONSCALING NONSCALING",
    );
}

/// `BF.INSERT`'s own arity checks: its shortest form (`BF.INSERT key ITEMS item`, four
/// arguments) inserts, and options with no `ITEMS` after them are a wrong number of
/// arguments, not a crash. Written against bf.rs:179 (`<` made `==` or `<=`: the shortest
/// form refused) and bf.rs:186 (`i < args.len()` made `<=`: the options read past the last
/// argument, a panic the module turns into its internal error), all missed.
#[test]
fn bf_insert_takes_its_shortest_form_and_needs_items() {
    let s = Server::start(&[]);
    let mut c = s.con();
    assert_eq!(ints(&ok(&mut c, "BF.INSERT k ITEMS a")), [1]);
    assert_eq!(ints(&ok(&mut c, "BF.MEXISTS k a b")), [1, 0]);
    for command in [
        "BF.INSERT k CAPACITY 100 NOCREATE",
        "BF.INSERT k NONSCALING",
        "BF.INSERT k ERROR 0.01",
    ] {
        let e = fails(&mut c, command);
        assert!(
            e.starts_with("ERR wrong number of arguments"),
            "{command}: {e}"
        );
    }
}

/// `CF.RESERVE`, `CF.INSERT` and `CF.ADD` create the expandable cuckoo filter that
/// `AMQ.RESERVE expandable-cuckoo` creates from the same capacity n, ε, expansion,
/// tightening and kicks (RedisBloom's `MAXITERATIONS`; its defaults: expansion 1, 20 kicks,
/// 1024 items): the same `.amq` bytes, whatever the options' order.
#[test]
fn cf_reserve_insert_and_add_create_what_amq_reserve_creates() {
    let s = Server::start(&[]);
    let mut c = s.con();
    let cases = [
        (
            "CF.RESERVE a 1000 MAXITERATIONS 50 EXPANSION 3 ERROR 0.001 TIGHTENING 0.7",
            "ITEMS 1000 ERROR 0.001 EXPANSION 3 TIGHTENING 0.7 MAXITERATIONS 50",
        ),
        (
            "CF.RESERVE b 100 TIGHTENING 0.6 ERROR 0.02 BUCKETSIZE 4 EXPANSION 0",
            "ITEMS 100 ERROR 0.02 EXPANSION 0 TIGHTENING 0.6 MAXITERATIONS 20",
        ),
        (
            "CF.RESERVE b2 64 EXPANSION 2",
            "ITEMS 64 ERROR 0.01 EXPANSION 2 TIGHTENING 0.5 MAXITERATIONS 20",
        ),
        (
            "CF.INSERT d CAPACITY 200 ITEMS x",
            "ITEMS 200 ERROR 0.01 EXPANSION 1 TIGHTENING 0.5 MAXITERATIONS 20",
        ),
        (
            "CF.INSERTNX d2 CAPACITY 300 ITEMS x",
            "ITEMS 300 ERROR 0.01 EXPANSION 1 TIGHTENING 0.5 MAXITERATIONS 20",
        ),
        (
            "CF.ADD e x",
            "ITEMS 1024 ERROR 0.01 EXPANSION 1 TIGHTENING 0.5 MAXITERATIONS 20",
        ),
        (
            "CF.ADDNX e2 x",
            "ITEMS 1024 ERROR 0.01 EXPANSION 1 TIGHTENING 0.5 MAXITERATIONS 20",
        ),
    ];
    for (cf, amq) in cases {
        ok(&mut c, cf);
        let key = cf.split(' ').nth(1).unwrap();
        let twin = format!("{key}-twin");
        ok(
            &mut c,
            &format!("AMQ.RESERVE {twin} expandable-cuckoo {amq}"),
        );
        if !cf.starts_with("CF.RESERVE") {
            ok(&mut c, &format!("AMQ.ADD {twin} x"));
        }
        assert_eq!(dump(&mut c, key), dump(&mut c, &twin), "{cf}");
    }
}

/// `BF.INSERT`'s bounds are inclusive where RedisBloom's are: capacity n 1, expansion 1 and
/// expansion 2^32 − 1 (the library's 32-bit growth factor) create a filter; 2^32 and 0 are
/// refused. Written against bf.rs:217 (`capacity < 1` and `expansion < 1` made `<= 1`,
/// `expansion > u32::MAX` made `==` or `>=`), missed.
#[test]
fn bf_insert_takes_its_bounds() {
    let s = Server::start(&[]);
    let mut c = s.con();
    assert_eq!(ints(&ok(&mut c, "BF.INSERT n1 CAPACITY 1 ITEMS a")), [1]);
    assert_eq!(ints(&ok(&mut c, "BF.INFO n1 CAPACITY")), [1]);
    assert_eq!(ints(&ok(&mut c, "BF.INSERT s1 EXPANSION 1 ITEMS a")), [1]);
    assert_eq!(ints(&ok(&mut c, "BF.INFO s1 EXPANSION")), [1]);
    let most = "BF.INSERT smax EXPANSION 4294967295 ITEMS a";
    assert_eq!(ints(&ok(&mut c, most)), [1]);
    assert_eq!(ints(&ok(&mut c, "BF.INFO smax EXPANSION")), [4_294_967_295]);
    for command in [
        "BF.INSERT k EXPANSION 4294967296 ITEMS a",
        "BF.INSERT k EXPANSION 8589934593 ITEMS a",
        "BF.INSERT k EXPANSION 0 ITEMS a",
        "BF.INSERT k CAPACITY 0 ITEMS a",
    ] {
        assert_eq!(fails(&mut c, command), "Bad argument received", "{command}");
    }
    assert_eq!(int(&ok(&mut c, "EXISTS k")), 0);
}
