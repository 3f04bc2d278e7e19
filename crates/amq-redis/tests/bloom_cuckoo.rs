//! `BF.*` and `CF.*` against a live `redis-server`: every command, RedisBloom's replies and
//! every error string, RESP2 and RESP3, and what `COMMAND INFO` says of each command.

mod common;

use common::*;
use redis::Value;

#[test]
fn bf_commands_reply_as_redisbloom_does() {
    let s = Server::start(&[]);
    let mut c = s.con();
    assert_eq!(ok(&mut c, "BF.RESERVE bf 0.01 1000"), Value::Okay);
    assert_eq!(int(&ok(&mut c, "BF.ADD bf a")), 1);
    assert_eq!(int(&ok(&mut c, "BF.ADD bf a")), 0);
    assert_eq!(ints(&ok(&mut c, "BF.MADD bf a b c")), [0, 1, 1]);
    assert_eq!(int(&ok(&mut c, "BF.EXISTS bf b")), 1);
    assert_eq!(int(&ok(&mut c, "BF.EXISTS bf zz")), 0);
    assert_eq!(int(&ok(&mut c, "BF.EXISTS missing a")), 0);
    assert_eq!(ints(&ok(&mut c, "BF.MEXISTS bf a zz")), [1, 0]);
    assert_eq!(ints(&ok(&mut c, "BF.MEXISTS missing a b")), [0, 0]);
    assert_eq!(int(&ok(&mut c, "BF.CARD bf")), 3);
    assert_eq!(int(&ok(&mut c, "BF.CARD missing")), 0);
    let info = ok(&mut c, "BF.INFO bf");
    let names: Vec<String> = pairs(&info).into_iter().map(|p| p.0).collect();
    assert_eq!(
        names,
        [
            "Capacity",
            "Size",
            "Number of filters",
            "Number of items inserted",
            "Expansion rate"
        ]
    );
    assert_eq!(int(&field(&info, "Capacity")), 1000);
    assert_eq!(int(&field(&info, "Number of filters")), 1);
    assert_eq!(int(&field(&info, "Number of items inserted")), 3);
    assert_eq!(int(&field(&info, "Expansion rate")), 2);
    let size = int(&field(&info, "Size"));
    let usage = int(&ok(&mut c, "MEMORY USAGE bf"));
    assert!(
        size > 1200 && size <= usage,
        "size {size}, MEMORY USAGE {usage}"
    );
    assert_eq!(ints(&ok(&mut c, "BF.INFO bf CAPACITY")), [1000]);
    assert_eq!(ints(&ok(&mut c, "BF.INFO bf size")), [size]);
    assert_eq!(ints(&ok(&mut c, "BF.INFO bf FILTERS")), [1]);
    assert_eq!(ints(&ok(&mut c, "BF.INFO bf ITEMS")), [3]);
    assert_eq!(ints(&ok(&mut c, "BF.INFO bf EXPANSION")), [2]);
    assert_eq!(
        fails(&mut c, "BF.INFO bf nope"),
        "Invalid information value"
    );
    assert_eq!(
        ok(&mut c, "TYPE bf"),
        Value::SimpleString("amqfilter".into())
    );

    // BF.INSERT creates with its options, or refuses without NOCREATE's key
    assert_eq!(
        ints(&ok(
            &mut c,
            "BF.INSERT new CAPACITY 50 ERROR 0.001 EXPANSION 4 ITEMS a b a"
        )),
        [1, 1, 0]
    );
    assert_eq!(ints(&ok(&mut c, "BF.INFO new CAPACITY")), [50]);
    assert_eq!(ints(&ok(&mut c, "BF.INFO new EXPANSION")), [4]);
    assert_eq!(ints(&ok(&mut c, "BF.INSERT new NOCREATE ITEMS c")), [1]);
    // BF.ADD creates RedisBloom's default filter: 100 items at 1%, expansion 2
    ok(&mut c, "BF.ADD dflt x");
    assert_eq!(ints(&ok(&mut c, "BF.INFO dflt CAPACITY")), [100]);
}

#[test]
fn bf_errors_are_redisbloom_strings() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "BF.RESERVE bf 0.01 100");
    ok(&mut c, "SET str x");
    ok(&mut c, "CF.RESERVE cf 100");
    let cases = [
        ("BF.RESERVE k abc 100", "ERR bad error rate"),
        ("BF.RESERVE k 1 100", "ERR (0 < error rate range < 1) "),
        ("BF.RESERVE k 0 100", "ERR (0 < error rate range < 1) "),
        ("BF.RESERVE k 0.01 abc", "ERR bad capacity"),
        (
            "BF.RESERVE k 0.01 0",
            "ERR (capacity should be larger than 0)",
        ),
        ("BF.RESERVE k 0.01 100 EXPANSION", "ERR no expansion"),
        ("BF.RESERVE k 0.01 100 EXPANSION x", "ERR bad expansion"),
        (
            "BF.RESERVE k 0.01 100 EXPANSION 0",
            "ERR expansion should be greater or equal to 1",
        ),
        (
            "BF.RESERVE k 0.01 100 EXPANSION 4294967296",
            "ERR EXPANSION must be at most 4294967295",
        ),
        (
            "BF.RESERVE k 0.01 100 NONSCALING EXPANSION 2",
            "Nonscaling filters cannot expand",
        ),
        ("BF.RESERVE bf 0.01 100", "ERR item exists"),
        ("BF.INSERT missing NOCREATE ITEMS a", "ERR not found"),
        ("BF.INSERT k ERROR big ITEMS a", "Bad error rate"),
        ("BF.INSERT k CAPACITY x ITEMS a", "Bad capacity"),
        ("BF.INSERT k EXPANSION x ITEMS a", "Bad expansion"),
        ("BF.INSERT k FOO ITEMS a", "Unknown argument received"),
        ("BF.INSERT k EXPANSION 0 ITEMS a", "Bad argument received"),
        ("BF.INSERT k ERROR 2 ITEMS a", "Bad argument received"),
        ("BF.INSERT k CAPACITY 0 ITEMS a", "Bad argument received"),
        ("BF.INFO missing", "ERR not found"),
        ("BF.SCANDUMP missing 0", "ERR not found"),
        ("BF.SCANDUMP bf x", "Second argument must be numeric"),
        (
            "BF.LOADCHUNK bf x data",
            "ERR Second argument must be numeric",
        ),
        ("BF.LOADCHUNK missing 5 data", "ERR not found"),
        ("BF.LOADCHUNK bf 1 data", "ERR item exists"),
    ];
    for (command, error) in cases {
        assert_eq!(fails(&mut c, command), error, "{command}");
    }
    let wrongtype = "WRONGTYPE Operation against a key holding the wrong kind of value";
    for command in [
        "BF.RESERVE str 0.01 100",
        "BF.ADD str a",
        "BF.MADD cf a",
        "BF.EXISTS str a",
        "BF.MEXISTS cf a",
        "BF.INFO cf",
        "BF.CARD str",
        "BF.CARD cf",
        "BF.SCANDUMP cf 0",
        // creating over the other family's filter (RedisBloom: another type)
        "BF.RESERVE cf 0.01 100",
        "BF.LOADCHUNK cf 1 data",
        "BF.LOADCHUNK cf 2 data",
    ] {
        assert_eq!(fails(&mut c, command), wrongtype, "{command}");
    }
    for command in [
        "BF.ADD bf",
        "BF.EXISTS bf a b",
        "BF.INSERT k ITEMS",
        "BF.CARD",
        "BF.RESERVE k",
    ] {
        assert!(
            fails(&mut c, command).starts_with("ERR wrong number of arguments"),
            "{command}"
        );
    }
    assert!(fails(&mut c, "BF.INSERT k NOCREATE ITEMS").starts_with("ERR wrong number"));
}

#[test]
fn bf_full_and_growth_limits() {
    let s = Server::start(&[]);
    let mut c = s.con();
    // a filter that does not scale: the array stops at the first refused item
    ok(&mut c, "BF.RESERVE n 0.01 3 NONSCALING");
    let v = ok(&mut c, "BF.MADD n a b c d e");
    let Value::Array(items) = &v else {
        panic!("{v:?}")
    };
    assert_eq!(items.len(), 4);
    assert_eq!(ints(&Value::Array(items[..3].to_vec())), [1, 1, 1]);
    assert_eq!(
        nested_error(&items[3]).as_deref(),
        Some("ERR non scaling filter is full")
    );
    assert_eq!(
        fails(&mut c, "BF.ADD n z"),
        "ERR non scaling filter is full"
    );
    assert_eq!(int(&ok(&mut c, "BF.ADD n a")), 0, "held items still answer");
    assert_eq!(
        ok(&mut c, "BF.INFO n EXPANSION"),
        Value::Array(vec![Value::Nil])
    );
    // a chain grows to its most links, then refuses new items
    ok(&mut c, "BF.RESERVE m 0.5 1 EXPANSION 1 TIGHTENING 0.9");
    let mut refused = None;
    for i in 0..2000 {
        if let Err(e) = cmd(&mut c, &format!("BF.ADD m item{i}")) {
            refused = Some(e);
            break;
        }
    }
    assert_eq!(refused.as_deref(), Some("Maximum expansions reached"));
    assert_eq!(ints(&ok(&mut c, "BF.INFO m FILTERS")), [64]);
    // the memory limit (a memory setting: units as Redis's own take them): no new filter
    // over it, no new link over it
    ok(&mut c, "CONFIG SET amq.max-filter-bytes 1gb");
    let v = ok(&mut c, "CONFIG GET amq.max-filter-bytes");
    assert_eq!(bytes(&field(&v, "amq.max-filter-bytes")), b"1073741824");
    ok(&mut c, "CONFIG SET amq.max-filter-bytes 8kb");
    let e = fails(&mut c, "BF.RESERVE big 0.01 100000");
    assert!(e.starts_with("ERR the filter would take"), "{e}");
    ok(&mut c, "BF.RESERVE g 0.01 1000");
    let items: Vec<String> = (0..5000).map(|i| format!("x{i}")).collect();
    let mut args: Vec<&[u8]> = vec![b"BF.MADD", b"g"];
    args.extend(items.iter().map(|s| s.as_bytes()));
    let Value::Array(r) = call(&mut c, &args).unwrap() else {
        panic!()
    };
    assert_eq!(
        nested_error(r.last().unwrap()).as_deref(),
        Some("ERR the filter would go over amq.max-filter-bytes")
    );
    assert!(int(&ok(&mut c, "MEMORY USAGE g")) < 8192 + 1024);
}

#[test]
fn cf_commands_reply_as_redisbloom_does() {
    let s = Server::start(&[]);
    let mut c = s.con();
    assert_eq!(ok(&mut c, "CF.RESERVE c 1000"), Value::Okay);
    assert_eq!(int(&ok(&mut c, "CF.ADD c a")), 1);
    assert_eq!(int(&ok(&mut c, "CF.ADD c a")), 1);
    assert_eq!(int(&ok(&mut c, "CF.COUNT c a")), 2);
    assert_eq!(int(&ok(&mut c, "CF.COUNT missing a")), 0);
    assert_eq!(int(&ok(&mut c, "CF.ADDNX c a")), 0);
    assert_eq!(int(&ok(&mut c, "CF.ADDNX c b")), 1);
    assert_eq!(int(&ok(&mut c, "CF.EXISTS c a")), 1);
    assert_eq!(int(&ok(&mut c, "CF.EXISTS missing a")), 0);
    assert_eq!(ints(&ok(&mut c, "CF.MEXISTS c a b zz")), [1, 1, 0]);
    assert_eq!(int(&ok(&mut c, "CF.DEL c a")), 1);
    assert_eq!(int(&ok(&mut c, "CF.COUNT c a")), 1);
    // amq refuses to delete what it says is definitely absent (RedisBloom replies 0)
    let e = fails(&mut c, "CF.DEL c zz");
    assert!(
        e.starts_with("ERR not deleted: the item is definitely absent"),
        "{e}"
    );
    assert_eq!(int(&ok(&mut c, "CF.COUNT c a")), 1);
    let info = ok(&mut c, "CF.INFO c");
    let names: Vec<String> = pairs(&info).into_iter().map(|p| p.0).collect();
    assert_eq!(
        names,
        [
            "Size",
            "Number of buckets",
            "Number of filters",
            "Number of items inserted",
            "Number of items deleted",
            "Bucket size",
            "Expansion rate",
            "Max iterations"
        ]
    );
    let want = [
        ("Number of filters", 1),
        ("Number of items inserted", 2),
        ("Number of items deleted", 1),
        ("Bucket size", 4),
        ("Expansion rate", 1),
        ("Max iterations", 20),
    ];
    for (name, v) in want {
        assert_eq!(int(&field(&info, name)), v, "{name}");
    }
    assert_eq!(
        ints(&ok(&mut c, "CF.INSERT c2 CAPACITY 100 ITEMS x y x")),
        [1, 1, 1]
    );
    assert_eq!(ints(&ok(&mut c, "CF.INSERTNX c2 ITEMS x z")), [0, 1]);
    assert_eq!(ints(&ok(&mut c, "CF.INSERT c2 NOCREATE ITEMS w")), [1]);
    ok(&mut c, "CF.RESERVE full 8 EXPANSION 0");
    let many: Vec<String> = (0..60).map(|i| i.to_string()).collect();
    let v = ok(&mut c, &format!("CF.INSERT full ITEMS {}", many.join(" ")));
    let r = ints(&v);
    assert!(r.contains(&-1) && r.contains(&1), "{r:?}");
    assert_eq!(fails(&mut c, "CF.ADD full another"), "Filter is full");
    // a growing chain stops where its bound would break (6 links at the default 1%)
    ok(&mut c, "CF.RESERVE g 8 EXPANSION 1");
    let mut refused = None;
    for i in 0..500 {
        if let Err(e) = cmd(&mut c, &format!("CF.ADD g i{i}")) {
            refused = Some(e);
            break;
        }
    }
    assert_eq!(refused.as_deref(), Some("Maximum expansions reached"));
    assert_eq!(
        int(&field(&ok(&mut c, "CF.INFO g"), "Number of filters")),
        6
    );
}

#[test]
fn cf_errors_are_redisbloom_strings() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "CF.RESERVE c 100");
    ok(&mut c, "SET str x");
    ok(&mut c, "BF.RESERVE bf 0.01 100");
    let cases = [
        ("CF.RESERVE k str", "Bad capacity"),
        (
            "CF.RESERVE k 4",
            "Capacity must be at least (BucketSize * 2)",
        ),
        ("CF.RESERVE k 10 BUCKETSIZE x", "Couldn't parse BUCKETSIZE"),
        (
            "CF.RESERVE k 10 BUCKETSIZE 0",
            "BUCKETSIZE parameter needs to be a positive integer",
        ),
        (
            "CF.RESERVE k 10 BUCKETSIZE 2",
            "ERR BUCKETSIZE must be 4: amq's cuckoo filter has 4 slots per bucket",
        ),
        (
            "CF.RESERVE k 10 MAXITERATIONS x",
            "Couldn't parse MAXITERATIONS",
        ),
        (
            "CF.RESERVE k 10 MAXITERATIONS 0",
            "MAXITERATIONS parameter needs to be a positive integer",
        ),
        ("CF.RESERVE k 10 EXPANSION x", "Couldn't parse EXPANSION"),
        (
            "CF.RESERVE k 10 EXPANSION -1",
            "EXPANSION parameter needs to be a non-negative integer",
        ),
        (
            "CF.RESERVE k 10 EXPANSION 4294967296",
            "ERR EXPANSION must be at most 4294967295",
        ),
        ("CF.RESERVE k 10 FOO 1", "Unknown argument received"),
        ("CF.RESERVE c 100", "ERR item exists"),
        ("CF.INSERT missing NOCREATE ITEMS a", "ERR not found"),
        ("CF.INSERT c FOO ITEMS a", "Unknown argument received"),
        ("CF.INSERT c CAPACITY x ITEMS a", "Bad capacity"),
        (
            "CF.INSERT k CAPACITY 3 ITEMS a",
            "Capacity must be at least (BucketSize * 2)",
        ),
        ("CF.DEL missing a", "Not found"),
        ("CF.INFO missing", "ERR not found"),
        ("CF.SCANDUMP c x", "Invalid position"),
        ("CF.LOADCHUNK c 0 x", "Invalid position"),
        ("CF.LOADCHUNK c x x", "Invalid position"),
        ("CF.LOADCHUNK c 1 x", "ERR item exists"),
        ("CF.SCANDUMP missing 0", "ERR not found"),
    ];
    for (command, error) in cases {
        assert_eq!(fails(&mut c, command), error, "{command}");
    }
    let wrongtype = "WRONGTYPE Operation against a key holding the wrong kind of value";
    for command in [
        "CF.RESERVE str 100",
        "CF.ADD bf a",
        "CF.EXISTS str a",
        "CF.MEXISTS bf a",
        "CF.COUNT bf a",
        "CF.DEL bf a",
        "CF.INFO bf",
        "CF.RESERVE bf 100",
        "CF.LOADCHUNK bf 1 x",
        "CF.LOADCHUNK bf 9 x",
    ] {
        assert_eq!(fails(&mut c, command), wrongtype, "{command}");
    }
    for command in [
        "CF.RESERVE k 10 BUCKETSIZE",
        "CF.ADD c",
        "CF.INSERT c ITEMS",
        "CF.DEL c",
    ] {
        assert!(
            fails(&mut c, command).starts_with("ERR wrong number"),
            "{command}"
        );
    }
}

#[test]
fn resp3_replies_are_booleans_and_maps() {
    let s = Server::start(&[]);
    let mut c = s.con3();
    assert_eq!(ok(&mut c, "BF.ADD b x"), Value::Boolean(true));
    assert_eq!(ok(&mut c, "BF.ADD b x"), Value::Boolean(false));
    assert_eq!(ok(&mut c, "BF.EXISTS b x"), Value::Boolean(true));
    assert_eq!(ok(&mut c, "BF.EXISTS missing x"), Value::Boolean(false));
    let bools = |v: Vec<bool>| Value::Array(v.into_iter().map(Value::Boolean).collect());
    assert_eq!(ok(&mut c, "BF.MADD b y x"), bools(vec![true, false]));
    assert_eq!(
        ok(&mut c, "BF.INSERT b ITEMS z x"),
        bools(vec![true, false])
    );
    assert_eq!(ok(&mut c, "BF.MEXISTS b y q"), bools(vec![true, false]));
    assert_eq!(ok(&mut c, "BF.CARD b"), Value::Int(3));
    let info = ok(&mut c, "BF.INFO b");
    assert!(matches!(info, Value::Map(_)), "{info:?}");
    assert_eq!(field(&info, "Number of items inserted"), Value::Int(3));
    ok(&mut c, "BF.RESERVE n 0.01 10 NONSCALING");
    assert_eq!(
        field(&ok(&mut c, "BF.INFO n"), "Expansion rate"),
        Value::Nil
    );

    assert_eq!(ok(&mut c, "CF.ADD c x"), Value::Boolean(true));
    assert_eq!(ok(&mut c, "CF.ADDNX c x"), Value::Boolean(false));
    assert_eq!(ok(&mut c, "CF.INSERT c ITEMS y"), bools(vec![true]));
    assert_eq!(
        ok(&mut c, "CF.INSERTNX c ITEMS y z"),
        Value::Array(vec![Value::Int(0), Value::Int(1)])
    );
    assert_eq!(ok(&mut c, "CF.EXISTS c x"), Value::Boolean(true));
    assert_eq!(ok(&mut c, "CF.MEXISTS c x q"), bools(vec![true, false]));
    assert_eq!(ok(&mut c, "CF.DEL c x"), Value::Boolean(true));
    assert_eq!(ok(&mut c, "CF.COUNT c y"), Value::Int(1));
    assert!(matches!(ok(&mut c, "CF.INFO c"), Value::Map(_)));
    let amq = ok(&mut c, "AMQ.INFO b");
    assert!(matches!(field(&amq, "estimated_fpr"), Value::Double(_)));
    assert_eq!(field(&amq, "scaling"), Value::Boolean(true));
    assert!(matches!(
        ok(&mut c, "AMQ.PLAN bloom ITEMS 100"),
        Value::Map(_)
    ));
}

/// `COMMAND INFO` reports each command's arity, flags and key positions.
#[test]
fn command_info_has_arities_flags_and_keys() {
    let s = Server::start(&[]);
    let mut c = s.con();
    let table: [(&str, i64, &str, i64, i64); 37] = [
        ("bf.reserve", -4, "write", 1, 1),
        ("bf.add", 3, "write", 1, 1),
        ("bf.madd", -3, "write", 1, 1),
        ("bf.insert", -4, "write", 1, 1),
        ("bf.exists", 3, "readonly", 1, 1),
        ("bf.mexists", -3, "readonly", 1, 1),
        ("bf.info", -2, "readonly", 1, 1),
        ("bf.card", 2, "readonly", 1, 1),
        ("bf.scandump", 3, "readonly", 1, 1),
        ("bf.loadchunk", 4, "write", 1, 1),
        ("cf.reserve", -3, "write", 1, 1),
        ("cf.add", 3, "write", 1, 1),
        ("cf.addnx", 3, "write", 1, 1),
        ("cf.insert", -4, "write", 1, 1),
        ("cf.insertnx", -4, "write", 1, 1),
        ("cf.exists", 3, "readonly", 1, 1),
        ("cf.mexists", -3, "readonly", 1, 1),
        ("cf.count", 3, "readonly", 1, 1),
        ("cf.del", 3, "write", 1, 1),
        ("cf.info", 2, "readonly", 1, 1),
        ("cf.scandump", 3, "readonly", 1, 1),
        ("cf.loadchunk", 4, "write", 1, 1),
        ("amq.plan", -2, "readonly", 0, 0),
        ("amq.reserve", -3, "write", 1, 1),
        ("amq.add", -3, "write", 1, 1),
        ("amq.addat", -4, "write", 1, 1),
        ("amq.exists", -3, "readonly", 1, 1),
        ("amq.del", -3, "write", 1, 1),
        ("amq.delat", 4, "write", 1, 1),
        ("amq.close", 2, "write", 1, 1),
        ("amq.merge", -3, "write", 1, -1),
        ("amq.dump", 2, "readonly", 1, 1),
        ("amq.restore", -3, "write", 1, 1),
        ("amq.info", 2, "readonly", 1, 1),
        ("amq.scandump", 3, "readonly", 1, 1),
        ("amq.loadchunk", 4, "write", 1, 1),
        ("bf.add", 3, "denyoom", 1, 1),
    ];
    for (name, arity, flag, first, last) in table {
        let v = ok(&mut c, &format!("COMMAND INFO {name}"));
        let Value::Array(outer) = v else { panic!() };
        let Value::Array(info) = &outer[0] else {
            panic!("{name} is unknown")
        };
        assert_eq!(int(&info[1]), arity, "{name} arity");
        let Value::Array(flags) = &info[2] else {
            panic!()
        };
        assert!(
            flags.contains(&Value::SimpleString(flag.into())),
            "{name}: {flags:?}"
        );
        assert_eq!((int(&info[3]), int(&info[4])), (first, last), "{name} keys");
        let Value::Array(specs) = &info[8] else {
            panic!()
        };
        assert_eq!(
            specs.len(),
            if name == "amq.merge" {
                2
            } else {
                first as usize
            },
            "{name}"
        );
    }
    // the arity is Redis's check too
    assert!(fails(&mut c, "BF.ADD k").starts_with("ERR wrong number of arguments for 'bf.add'"));
}
