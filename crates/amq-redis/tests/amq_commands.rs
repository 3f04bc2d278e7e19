//! `AMQ.*` against a live `redis-server`: the planner, every `.amq` kind created, filled and
//! asked, per-item expiry in seconds, the refusing delete, union, and `.amq` bytes in and
//! out byte for byte (the chunked dumps: amq_chunks.rs).

mod common;

use amq::math::{Spec, Target};
use amq::window::WindowParams;
use amq::AnyFilter;
use common::*;
use redis::Value;

/// A filter of each kind, built with the library as `amq build` builds it, with items.
fn offline_filters() -> Vec<(AnyFilter, &'static str)> {
    let specs = [
        Spec::Bloom {
            items: 1000,
            target: Target::Fpr(0.01),
            k: None,
        },
        Spec::BlockedBloom {
            items: 1000,
            target: Target::Fpr(0.01),
            k: None,
        },
        Spec::Cuckoo {
            items: 1000,
            target: Target::Fpr(0.01),
        },
        Spec::SlidingWindowBloom {
            params: WindowParams {
                window_bits: 4096,
                chunk_bits: 512,
                batch: 4,
                k: 3,
            },
        },
        Spec::AgingBloom {
            window: Some(1000),
            window_seconds: None,
            items_per_generation: None,
            generations: 4,
            fpr: 0.01,
        },
        Spec::NegativeCache {
            l: 10,
            b: 32,
            ways: 4,
            ttl: None,
        },
        Spec::ScalableBloom {
            items: 100,
            fpr: 0.01,
            expansion: 2,
            tightening: 0.5,
            nonscaling: false,
        },
        Spec::ExpandableCuckoo {
            items: 100,
            fpr: 0.01,
            expansion: 2,
            tightening: 0.5,
            max_kicks: 20,
        },
    ];
    let families = ["BF", "BF", "CF", "", "", "", "BF", "CF"];
    specs
        .iter()
        .zip(families)
        .map(|(spec, family)| {
            let mut f = AnyFilter::new(spec, 7).unwrap();
            for i in 0..300u32 {
                f.insert(format!("item{i}").as_bytes()).unwrap();
            }
            (f, family)
        })
        .collect()
}

/// Every kind restores from its `.amq` bytes, dumps back the same bytes, answers `AMQ.EXISTS`
/// (and `BF.EXISTS`/`CF.EXISTS` for its family), and refuses corrupt bytes.
#[test]
fn restore_and_dump_every_kind_byte_for_byte() {
    let s = Server::start(&[]);
    let mut c = s.con();
    for (i, (f, family)) in offline_filters().into_iter().enumerate() {
        let key = format!("k{i}");
        let bytes = f.to_bytes();
        let restore = |c: &mut _, extra: &[&[u8]]| {
            let mut a: Vec<&[u8]> = vec![b"AMQ.RESTORE", key.as_bytes(), &bytes];
            a.extend_from_slice(extra);
            call(c, &a)
        };
        assert_eq!(restore(&mut c, &[]), Ok(Value::Okay), "{:?}", f.kind());
        let dumped = bytes_of(&ok(&mut c, &format!("AMQ.DUMP {key}")));
        assert_eq!(dumped, bytes, "{:?} dumps back byte for byte", f.kind());
        assert_eq!(
            restore(&mut c, &[]),
            Err("BUSYKEY Target key name already exists.".into())
        );
        assert_eq!(restore(&mut c, &[b"REPLACE"]), Ok(Value::Okay));
        let info = ok(&mut c, &format!("AMQ.INFO {key}"));
        assert_eq!(
            field(&info, "kind"),
            Value::BulkString(f.kind().name().into())
        );
        if let Some(scheme) = f.indexing() {
            assert_eq!(
                int(&field(&info, "index_scheme")),
                i64::from(u8::from(scheme)),
                "{:?}",
                f.kind()
            );
        }
        match f {
            AnyFilter::SlidingWindowBloom(_) => {
                let v = ok(&mut c, &format!("AMQ.EXISTS {key} POSITION 0 item0"));
                assert_eq!(ints(&v), [1]);
                assert!(cmd(&mut c, &format!("AMQ.EXISTS {key} item0")).is_err());
            }
            _ => assert_eq!(
                ints(&ok(&mut c, &format!("AMQ.EXISTS {key} item0 item299"))),
                [1, 1]
            ),
        }
        if !family.is_empty() {
            assert_eq!(
                int(&ok(&mut c, &format!("{family}.EXISTS {key} item42"))),
                1
            );
        }
        let mut bad = bytes.clone();
        let at = bad.len() / 2;
        bad[at] ^= 0x10;
        let e = call(&mut c, &[b"AMQ.RESTORE", b"bad", &bad]).unwrap_err();
        assert!(e.starts_with("ERR checksum mismatch"), "{e}");
        let e = call(&mut c, &[b"AMQ.RESTORE", b"bad", &bytes[..bytes.len() - 9]]).unwrap_err();
        assert!(e.starts_with("ERR "), "{e}");
    }
    assert_eq!(int(&ok(&mut c, "EXISTS bad")), 0);
    assert_eq!(fails(&mut c, "AMQ.DUMP missing"), "ERR not found");
    assert_eq!(fails(&mut c, "AMQ.INFO missing"), "ERR not found");
}

fn bytes_of(v: &Value) -> Vec<u8> {
    bytes(v)
}

#[test]
fn plan_and_reserve_every_kind() {
    let s = Server::start(&[]);
    let mut c = s.con();
    let p = ok(&mut c, "AMQ.PLAN bloom ITEMS 1000000 ERROR 0.01");
    assert_eq!(field(&p, "k"), Value::Int(7));
    assert_eq!(field(&p, "kind"), Value::BulkString(b"bloom".to_vec()));
    let bpk = number(&field(&p, "bits_per_key"));
    assert!(bpk > 9.5 && bpk < 9.6, "{bpk}");
    let p = ok(&mut c, "AMQ.PLAN scalable-bloom ITEMS 1000 ERROR 0.01");
    assert!(number(&field(&p, "fpr_bound")) <= 0.01);
    assert_eq!(number(&field(&p, "first_link_fpr")), 0.005);
    // an error reply is ASCII: the library's ε, ≥ and ≈ are spelled out, where each char's
    // low byte went out before (ε as 0xB5)
    let e = fails(&mut c, "AMQ.PLAN cuckoo ITEMS 1000 ERROR 0.00001");
    assert!(e.ends_with("(fpr >= 8/65536 ~ 1.22e-4)"), "{e}");
    let reserves = [
        "AMQ.RESERVE b bloom ITEMS 1000 ERROR 0.001 K 5",
        "AMQ.RESERVE bb blocked-bloom ITEMS 1000 MEMORY 4096",
        "AMQ.RESERVE c cuckoo ITEMS 1000",
        "AMQ.RESERVE w sliding-window-bloom WINDOWBITS 4096 CHUNKBITS 512 BATCH 4 K 3",
        "AMQ.RESERVE a aging-bloom WINDOW 1000 ERROR 0.01",
        "AMQ.RESERVE t aging-bloom TTL 3600 ITEMS 1000 ERROR 0.01 GENERATIONS 4",
        "AMQ.RESERVE n negative-cache L 10 B 32 WAYS 4",
        "AMQ.RESERVE s scalable-bloom ITEMS 100 NONSCALING",
        "AMQ.RESERVE e expandable-cuckoo ITEMS 100 EXPANSION 0 SEED 18446744073709551615",
        "AMQ.RESERVE sb split-block-bloom ITEMS 1000 ERROR 0.01",
        "AMQ.RESERVE tc ttl-cuckoo ITEMS 1000 ERROR 0.001 TICK 60 TTL 3600",
        "AMQ.RESERVE m sliding-window-cuckoo EPOCHITEMS 100 ERROR 0.001",
    ];
    for r in reserves {
        assert_eq!(ok(&mut c, r), Value::Okay, "{r}");
    }
    assert_eq!(int(&field(&ok(&mut c, "AMQ.INFO b"), "k")), 5);
    // a seed of 2^63 and above (parsed as such, replied as its digits: RESP integers are
    // signed)
    let seed = field(&ok(&mut c, "AMQ.INFO e"), "seed");
    assert_eq!(bytes(&seed), b"18446744073709551615");
    for (key, kind) in [
        ("sb", "split-block-bloom"),
        ("tc", "ttl-cuckoo"),
        ("m", "sliding-window-cuckoo"),
    ] {
        let kind = Value::BulkString(kind.as_bytes().to_vec());
        assert_eq!(field(&ok(&mut c, &format!("AMQ.INFO {key}")), "kind"), kind);
    }
    assert_eq!(
        fails(&mut c, "AMQ.RESERVE b bloom ITEMS 10"),
        "ERR item exists"
    );
    let errors = [
        ("AMQ.PLAN bloomier ITEMS 10", "ERR unknown filter kind"),
        ("AMQ.PLAN bloom", "ERR ITEMS is required"),
        ("AMQ.PLAN bloom ITEMS 10 ERROR 2", "ERR invalid fpr"),
        ("AMQ.PLAN bloom ITEMS 10 COLOUR red", "ERR syntax error"),
        ("AMQ.PLAN negative-cache B 8", "ERR L is required"),
        ("AMQ.PLAN aging-bloom ERROR 0.01", "ERR invalid window"),
        ("AMQ.PLAN cuckoo ITEMS 10 K 3", "ERR invalid k"),
        ("AMQ.PLAN ttl-cuckoo ITEMS 10", "ERR TICK is required"),
        (
            "AMQ.PLAN sliding-window-cuckoo",
            "ERR EPOCHITEMS is required",
        ),
        (
            "AMQ.PLAN bloom ITEMS -1",
            "ERR ITEMS needs a non-negative integer",
        ),
        // two sizing targets: the first is not silently dropped
        (
            "AMQ.RESERVE both bloom ITEMS 1000 ERROR 0.01 BITS 1000",
            "ERR ERROR, BITS and MEMORY each size the filter: give one of them, once",
        ),
        (
            "AMQ.PLAN bloom ITEMS 1000 MEMORY 4096 ERROR 0.01",
            "ERR ERROR, BITS and MEMORY each size",
        ),
        (
            "AMQ.PLAN bloom ITEMS 1000 BITS 10 BITS 20",
            "ERR ERROR, BITS and MEMORY",
        ),
    ];
    for (command, prefix) in errors {
        let e = fails(&mut c, command);
        assert!(e.starts_with(prefix), "{command}: {e}");
    }
    // absurd sizes are planned or refused at once, and never allocated
    let huge = "4611686018427387904";
    let _ = cmd(
        &mut c,
        &format!("AMQ.PLAN scalable-bloom ITEMS {huge} ERROR 1e-12"),
    );
    let e = fails(&mut c, &format!("BF.RESERVE huge 0.000000000001 {huge}"));
    assert!(e.starts_with("ERR "), "{e}");
    let e = fails(
        &mut c,
        &format!("AMQ.RESERVE huge aging-bloom WINDOW {huge}"),
    );
    assert!(e.starts_with("ERR "), "{e}");
    assert_eq!(int(&ok(&mut c, "EXISTS huge")), 0);
}

#[test]
fn add_exists_and_delete_on_every_kind() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "AMQ.RESERVE bb blocked-bloom ITEMS 1000");
    assert_eq!(ints(&ok(&mut c, "AMQ.ADD bb x y x")), [1, 1, 0]);
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS bb x zz")), [1, 0]);
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS missing x")), [0]);
    assert_eq!(
        int(&ok(&mut c, "BF.EXISTS bb y")),
        1,
        "BF.* answers for a blocked filter"
    );
    let wrongtype = "WRONGTYPE Operation against a key holding the wrong kind of value";
    assert_eq!(fails(&mut c, "CF.EXISTS bb y"), wrongtype);
    assert!(fails(&mut c, "AMQ.DEL bb x")
        .starts_with("ERR a blocked-bloom filter does not support deletion"));
    assert_eq!(fails(&mut c, "AMQ.ADD missing x"), "ERR not found");

    // the sliding window gives positions, and answers for an item at its position
    ok(
        &mut c,
        "AMQ.RESERVE w sliding-window-bloom WINDOWBITS 4096 CHUNKBITS 512 BATCH 4 K 3",
    );
    assert_eq!(ints(&ok(&mut c, "AMQ.ADD w a b")), [0, 1]);
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS w POSITION 1 b")), [1]);
    assert!(fails(&mut c, "AMQ.EXISTS w b").contains("position"));

    // the negative cache: "definitely present", and a delete of what it holds
    ok(&mut c, "AMQ.RESERVE n negative-cache L 10 B 32 WAYS 4");
    assert_eq!(ints(&ok(&mut c, "AMQ.ADD n x")), [1]);
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS n x y")), [1, 0]);
    assert_eq!(int(&ok(&mut c, "AMQ.DEL n x")), 1);
    let e = fails(&mut c, "AMQ.DEL n x");
    assert!(
        e.starts_with("ERR not deleted: the item is definitely absent"),
        "{e}"
    );

    // per-item expiry in seconds: an aging filter forgets an item a TTL (at most g/(g−1)
    // TTLs) after it was added; AMQ.ADDAT moves its clock as AMQ.ADD replicates
    ok(
        &mut c,
        "AMQ.RESERVE t aging-bloom TTL 3600 ITEMS 1000 ERROR 0.01",
    );
    assert_eq!(ints(&ok(&mut c, "AMQ.ADD t old")), [1]);
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS t old")), [1]);
    let later = now() + 2 * 3600;
    ok(&mut c, &format!("AMQ.ADDAT t {later} new"));
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS t old new")), [0, 1]);
    assert!(fails(&mut c, "AMQ.ADDAT t soon x").starts_with("ERR the time must be"));

    // the sliding-window cuckoo filter: AMQ.ADD replies each member's epoch, AMQ.EXISTS and
    // AMQ.DEL (a slash) take it
    ok(
        &mut c,
        "AMQ.RESERVE m sliding-window-cuckoo EPOCHITEMS 2 ERROR 0.001",
    );
    assert_eq!(ints(&ok(&mut c, "AMQ.ADD m alice bob carol")), [0, 0, 1]);
    assert_eq!(
        ints(&ok(&mut c, "AMQ.EXISTS m EPOCH 0 alice bob carol")),
        [1, 1, 0]
    );
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS m EPOCH 1 carol")), [1]);
    let e = fails(&mut c, "AMQ.EXISTS m alice");
    assert!(e.ends_with("use AMQ.EXISTS key EPOCH e item"), "{e}");
    let e = fails(&mut c, "AMQ.DEL m bob");
    assert!(e.ends_with("use AMQ.DEL key EPOCH e item"), "{e}");
    assert_eq!(int(&ok(&mut c, "AMQ.DEL m EPOCH 0 bob")), 1);
    assert!(fails(&mut c, "AMQ.DEL m EPOCH 0 bob").starts_with("ERR not deleted"));
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS m EPOCH 0 alice bob")), [1, 0]);
    assert!(fails(&mut c, "AMQ.EXISTS m EPOCH zero alice").starts_with("ERR EPOCH needs"));
    let e = fails(&mut c, "AMQ.DEL w EPOCH 0 a");
    assert!(e.contains("does not support an epoch"), "{e}");
    // AMQ.CLOSE ends carol's epoch 1 early; again, none is open; dave goes to epoch 2
    assert_eq!(int(&ok(&mut c, "AMQ.CLOSE m")), 1);
    assert_eq!(ok(&mut c, "AMQ.CLOSE m"), Value::Nil);
    assert_eq!(ints(&ok(&mut c, "AMQ.ADD m dave")), [2]);
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS m EPOCH 1 carol dave")), [1, 0]);
    let e = fails(&mut c, "AMQ.CLOSE w");
    assert!(e.contains("only a sliding-window cuckoo"), "{e}");
    assert!(fails(&mut c, "AMQ.CLOSE nope").starts_with("ERR not found"));
    // POSITION and EPOCH are items to the kinds that do not take them
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS bb EPOCH 0 x")), [0, 0, 1]);
    let e = fails(&mut c, "AMQ.EXISTS w a");
    assert!(e.ends_with("use AMQ.EXISTS key POSITION p item"), "{e}");

    // a TTL cuckoo filter: items live for the TTL given at AMQ.RESERVE, then are gone
    ok(
        &mut c,
        "AMQ.RESERVE tc ttl-cuckoo ITEMS 1000 ERROR 0.001 TICK 60 TTL 3600",
    );
    assert_eq!(ints(&ok(&mut c, "AMQ.ADD tc old")), [1]);
    let later = now() + 2 * 3600;
    ok(&mut c, &format!("AMQ.ADDAT tc {later} new"));
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS tc old new")), [0, 1]);
    assert_eq!(int(&ok(&mut c, "AMQ.DEL tc new")), 1);
    // a query reads the server's clock, not the time of the last write: an item added two
    // hours ago with a one-hour TTL is gone now
    ok(
        &mut c,
        "AMQ.RESERVE tc2 ttl-cuckoo ITEMS 1000 ERROR 0.001 TICK 60 TTL 3600",
    );
    let earlier = now() - 2 * 3600;
    ok(&mut c, &format!("AMQ.ADDAT tc2 {earlier} gone"));
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS tc2 gone")), [0]);

    // the cuckoo kinds delete through AMQ.DEL too
    ok(&mut c, "CF.ADD cf x");
    assert_eq!(int(&ok(&mut c, "AMQ.DEL cf x")), 1);
    assert!(fails(&mut c, "AMQ.DEL cf x").starts_with("ERR not deleted"));
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A sliding-window Bloom filter grows only when an item slides its window (a chunk of
/// `CHUNKBITS` bits archived, counted at its largest with its overhead in memory): under a
/// limit of exactly its window it takes the items of its window's batch and refuses the one
/// that slides it.
#[test]
fn a_sliding_window_takes_items_up_to_the_limit() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "CONFIG SET amq.max-filter-bytes 4096");
    ok(
        &mut c,
        "AMQ.RESERVE w sliding-window-bloom WINDOWBITS 32768 CHUNKBITS 512 BATCH 4 K 3",
    );
    assert_eq!(ints(&ok(&mut c, "AMQ.ADD w a b c d")), [0, 1, 2, 3]);
    let e = fails(&mut c, "AMQ.ADD w e");
    assert_eq!(
        e,
        "ERR the filter would take 4232 bytes, over amq.max-filter-bytes (4096)"
    );
    ok(&mut c, "CONFIG SET amq.max-filter-bytes 4232");
    assert_eq!(ints(&ok(&mut c, "AMQ.ADD w e")), [4]);
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS w POSITION 0 a")), [1]);
}

#[test]
fn merge_unions_filters_of_one_shape_and_refuses_others() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "AMQ.RESERVE {m}a scalable-bloom ITEMS 100");
    ok(&mut c, "AMQ.RESERVE {m}b scalable-bloom ITEMS 100");
    let a: Vec<String> = (0..30).map(|i| format!("a{i}")).collect();
    let b: Vec<String> = (0..30).map(|i| format!("b{i}")).collect();
    ok(&mut c, &format!("BF.MADD {{m}}a {}", a.join(" ")));
    ok(&mut c, &format!("BF.MADD {{m}}b {}", b.join(" ")));
    assert_eq!(ok(&mut c, "AMQ.MERGE {m}a {m}b"), Value::Okay);
    let all = format!("BF.MEXISTS {{m}}a {} {}", a.join(" "), b.join(" "));
    assert!(ints(&ok(&mut c, &all)).iter().all(|&x| x == 1));
    assert_eq!(ok(&mut c, "AMQ.MERGE {m}new {m}b {m}a"), Value::Okay);
    let all = all.replace("{m}a ", "{m}new ");
    assert!(ints(&ok(&mut c, &all)).iter().all(|&x| x == 1));
    // 60 + 90 items would not fit the first link, planned for 100: its rate would not hold
    let e = fails(&mut c, "AMQ.MERGE {m}a {m}new");
    assert_eq!(
        e,
        "ERR filter is full (150 items, capacity 100); nothing was added"
    );
    ok(&mut c, "AMQ.RESERVE {m}other scalable-bloom ITEMS 20");
    let e = fails(&mut c, "AMQ.MERGE {m}a {m}other");
    assert!(e.starts_with("ERR filters differ in capacity"), "{e}");
    ok(&mut c, "CF.RESERVE {m}cf 100");
    assert!(fails(&mut c, "AMQ.MERGE {m}a {m}cf").starts_with("ERR wrong filter kind"));
    assert_eq!(fails(&mut c, "AMQ.MERGE {m}a {m}missing"), "ERR not found");
    // a key named twice, or the destination named as a source, would merge a filter with
    // itself: a cuckoo filter would hold each fingerprint twice
    ok(&mut c, "CF.RESERVE {m}cf2 100");
    ok(&mut c, "CF.ADD {m}cf2 x");
    for twice in ["{m}cf2 {m}cf {m}cf", "{m}cf {m}cf2 {m}cf", "{m}cf2 {m}cf2"] {
        let e = fails(&mut c, &format!("AMQ.MERGE {twice}"));
        assert!(
            e.contains("is given twice: a filter cannot be merged with itself"),
            "{e}"
        );
    }
    let e = fails(&mut c, "AMQ.MERGE {m}new2 {m}b {m}b");
    assert_eq!(
        e,
        r#"ERR "{m}b" is given twice: a filter cannot be merged with itself"#
    );
    assert_eq!(ok(&mut c, "CF.COUNT {m}cf2 x"), Value::Int(1));
    assert_eq!(ok(&mut c, "EXISTS {m}new2"), Value::Int(0));
    assert_eq!(ok(&mut c, "AMQ.MERGE {m}cf2 {m}cf"), Value::Okay);
    assert_eq!(ok(&mut c, "CF.COUNT {m}cf2 x"), Value::Int(1));
}

/// `AMQ.ADD` refuses in one wording per cause for every kind, whether the refused item is the
/// first (an error reply) or a later one (the array's last element); before, a full cuckoo
/// filter said `Filter is full` for the one and `ERR non scaling filter is full` for the other.
#[test]
fn amq_add_says_full_in_one_wording() {
    let s = Server::start(&[]);
    let mut c = s.con();
    let full = "ERR the filter is full and does not grow";
    ok(&mut c, "CF.RESERVE cf 8 EXPANSION 0");
    ok(&mut c, "BF.RESERVE bf 0.01 3 NONSCALING");
    for key in ["cf", "bf"] {
        let items: Vec<String> = (0..100).map(|i| format!("{key}{i}")).collect();
        let v = ok(&mut c, &format!("AMQ.ADD {key} {}", items.join(" ")));
        let Value::Array(replies) = &v else {
            panic!("{v:?}")
        };
        assert!(
            replies.len() > 3 && replies.len() < 100,
            "{key}: {}",
            replies.len()
        );
        assert_eq!(
            nested_error(&replies[replies.len() - 1]).as_deref(),
            Some(full)
        );
        let mut refused = None;
        for i in 0..100 {
            if let Err(e) = cmd(&mut c, &format!("AMQ.ADD {key} more{i}")) {
                refused = Some(e);
                break;
            }
        }
        assert_eq!(refused.as_deref(), Some(full), "{key}");
    }
    ok(&mut c, "BF.RESERVE m 0.5 1 EXPANSION 1 TIGHTENING 0.9");
    let items: Vec<String> = (0..2000).map(|i| format!("m{i}")).collect();
    let v = ok(&mut c, &format!("AMQ.ADD m {}", items.join(" ")));
    let Value::Array(replies) = &v else {
        panic!("{v:?}")
    };
    let last = nested_error(&replies[replies.len() - 1]).unwrap();
    assert!(
        last.starts_with("ERR the filter is full: its chain may not add"),
        "{last}"
    );
}
