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

/// The smallest cuckoo filter is two buckets of 4 slots: capacity 8 is taken by `CF.RESERVE`
/// and `CF.INSERT`, 7 refused with RedisBloom's string. Written against cf.rs:69 (`2 *
/// SLOTS_PER_BUCKET` made `2 + SLOTS_PER_BUCKET`: 6 and 7 taken), missed.
#[test]
fn cf_capacity_is_at_least_two_buckets() {
    let s = Server::start(&[]);
    let mut c = s.con();
    let refused = "Capacity must be at least (BucketSize * 2)";
    assert_eq!(fails(&mut c, "CF.RESERVE k 7"), refused);
    assert_eq!(fails(&mut c, "CF.RESERVE k 6"), refused);
    assert_eq!(fails(&mut c, "CF.INSERT k CAPACITY 7 ITEMS a"), refused);
    assert_eq!(int(&ok(&mut c, "EXISTS k")), 0);
    assert_eq!(ok(&mut c, "CF.RESERVE k 8"), Value::Okay);
    assert_eq!(ints(&ok(&mut c, "CF.INSERT k2 CAPACITY 8 ITEMS a")), [1]);
}

/// `CF.INSERT`'s options in any order, and options with no `ITEMS` after them a wrong number
/// of arguments, not a crash. Written against cf.rs:197 (`i < args.len()` made `<=`: the
/// options read past the last argument, a panic the module turns into its internal error)
/// cf.rs:206 (`i += 2` made `i *= 2` after `CAPACITY`: an option after it skipped or read as
/// another) and cf.rs:217 (the guard `at < args.len()` made `true`: `ITEMS` with no item
/// after it taken), missed; cf.rs:202 (`<` made `<=`: capacity 8 refused) fails
/// `cf_capacity_is_at_least_two_buckets`.
#[test]
fn cf_insert_reads_its_options_and_needs_items() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "CF.RESERVE e 100");
    assert_eq!(
        ints(&ok(&mut c, "CF.INSERT e NOCREATE CAPACITY 100 ITEMS a")),
        [1]
    );
    assert_eq!(
        ints(&ok(&mut c, "CF.INSERTNX e NOCREATE CAPACITY 100 ITEMS a b")),
        [0, 1]
    );
    assert_eq!(int(&ok(&mut c, "CF.COUNT e a")), 1);
    for command in [
        "CF.INSERT k CAPACITY 100 NOCREATE",
        "CF.INSERTNX k NOCREATE CAPACITY 100",
        "CF.INSERT k NOCREATE NOCREATE",
        "CF.INSERT e NOCREATE ITEMS",
        "CF.INSERTNX k CAPACITY 100 ITEMS",
    ] {
        let e = fails(&mut c, command);
        assert!(
            e.starts_with("ERR wrong number of arguments"),
            "{command}: {e}"
        );
    }
}

/// A `CF.INSERT` of items the filter holds already adds a copy of each (RedisBloom's
/// `CF.INSERT` replies 1 for every copy it adds), so it goes to the AOF like any other write:
/// after a restart that replays the AOF the counts and bytes are the same. Written against
/// cf.rs:239 (`||` made `&&`, or the `!` of `!nx` deleted: an insert of copies only was not
/// replicated), missed.
#[test]
fn a_cf_insert_of_copies_replays_from_the_aof() {
    let mut s = Server::start(&["--appendonly", "yes"]);
    let mut c = s.con();
    ok(&mut c, "CF.RESERVE d 100");
    ok(&mut c, "CF.ADD d a");
    assert_eq!(ints(&ok(&mut c, "CF.INSERT d ITEMS a a")), [1, 1]);
    assert_eq!(int(&ok(&mut c, "CF.COUNT d a")), 3);
    let before = dump(&mut c, "d");
    s.restart();
    let mut c = s.con();
    assert_eq!(int(&ok(&mut c, "CF.COUNT d a")), 3);
    assert_eq!(dump(&mut c, "d"), before);
}

/// `CF.INFO` of a cuckoo filter that does not grow (`AMQ.RESERVE key cuckoo`, or a restored
/// `.amq` file): its buckets (as `AMQ.INFO` counts them), one filter, expansion 0 and the
/// library's kicks. Written against cf.rs:362 (its match arm deleted: 0 buckets and 0
/// kicks), missed.
#[test]
fn cf_info_of_a_cuckoo_filter_that_does_not_grow() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "AMQ.RESERVE k cuckoo ITEMS 1000");
    ok(&mut c, "CF.ADD k a");
    let buckets = int(&field(&ok(&mut c, "AMQ.INFO k"), "buckets"));
    assert!(buckets > 0);
    let info = ok(&mut c, "CF.INFO k");
    let want = [
        ("Number of buckets", buckets),
        ("Number of filters", 1),
        ("Number of items inserted", 1),
        ("Number of items deleted", 0),
        ("Bucket size", 4),
        ("Expansion rate", 0),
        ("Max iterations", 500),
    ];
    for (name, v) in want {
        assert_eq!(int(&field(&info, name)), v, "{name}");
    }
}
