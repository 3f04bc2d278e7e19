//! The engine's persistence and replication hold every filter bit for bit: `DEBUG RELOAD`
//! (RDB save and load), a restart with `appendonly yes` (with the RDB preamble, and with the
//! module's own AOF rewrite), and a replica after a full sync and after commands.

mod common;

use common::*;
use redis::{Connection, Value};
use std::time::{Duration, Instant};

/// Writes filters of every family and kind, a load in progress included; returns their keys.
fn fill(c: &mut Connection) -> Vec<&'static str> {
    let items: Vec<String> = (0..500).map(|i| format!("i{i}")).collect();
    let items = items.join(" ");
    ok(c, "BF.RESERVE bf 0.01 100");
    ok(c, &format!("BF.MADD bf {items}"));
    ok(c, "BF.RESERVE bfn 0.001 1000 NONSCALING");
    ok(c, &format!("BF.INSERT bfi CAPACITY 50 ITEMS {items}"));
    ok(c, "CF.RESERVE cf 64 EXPANSION 2");
    ok(c, &format!("CF.INSERT cf ITEMS {items}"));
    ok(c, "CF.DEL cf i7");
    ok(c, "AMQ.RESERVE bb blocked-bloom ITEMS 1000");
    ok(c, &format!("AMQ.ADD bb {items}"));
    ok(c, "AMQ.RESERVE ag aging-bloom TTL 60 ITEMS 1000");
    ok(c, &format!("AMQ.ADD ag {items}"));
    ok(c, "AMQ.RESERVE ng negative-cache L 8 B 16 WAYS 2 TTL 600");
    ok(c, &format!("AMQ.ADD ng {items}"));
    ok(
        c,
        "AMQ.RESERVE w sliding-window-bloom WINDOWBITS 4096 CHUNKBITS 512 BATCH 4 K 3",
    );
    ok(c, &format!("AMQ.ADD w {items}"));
    ok(
        c,
        "AMQ.RESERVE rl sliding-window-cuckoo EPOCHITEMS 100 ERROR 0.001",
    );
    ok(c, &format!("AMQ.ADD rl {items}"));
    assert_eq!(int(&ok(c, "AMQ.DEL rl EPOCH 1 i150")), 1);
    // an epoch opened by one registration and closed early: the closed epoch is compacted
    ok(c, "AMQ.ADD rl late");
    assert!(matches!(ok(c, "AMQ.CLOSE rl"), Value::Int(_)));
    ok(
        c,
        "AMQ.RESERVE tc ttl-cuckoo ITEMS 1000 ERROR 0.001 TICK 60 TTL 3600",
    );
    ok(c, &format!("AMQ.ADD tc {items}"));
    ok(c, "AMQ.RESERVE sb split-block-bloom ITEMS 1000");
    ok(c, &format!("AMQ.ADD sb {items}"));
    // a load in progress: the header only
    let v = ok(c, "BF.SCANDUMP bf 0");
    let Value::Array(p) = v else { panic!() };
    assert_eq!(
        call(c, &[b"BF.LOADCHUNK", b"half", b"1", &bytes(&p[1])]),
        Ok(Value::Okay)
    );
    vec![
        "bf", "bfn", "bfi", "cf", "bb", "ag", "ng", "w", "rl", "tc", "sb",
    ]
}

/// The `.amq` bytes of every key.
fn dumps(c: &mut Connection, keys: &[&str]) -> Vec<Vec<u8>> {
    keys.iter()
        .map(|k| bytes(&ok(c, &format!("AMQ.DUMP {k}"))))
        .collect()
}

fn assert_loading(c: &mut Connection) {
    let e = fails(c, "BF.EXISTS half x");
    assert!(e.starts_with("ERR the filter is still being loaded"), "{e}");
}

#[test]
fn debug_reload_keeps_every_bit() {
    let s = Server::start(&[]);
    let mut c = s.con();
    let keys = fill(&mut c);
    let before = dumps(&mut c, &keys);
    let usage = int(&ok(&mut c, "MEMORY USAGE bb"));
    assert_eq!(ok(&mut c, "DEBUG RELOAD"), Value::Okay);
    assert_eq!(dumps(&mut c, &keys), before);
    assert_eq!(int(&ok(&mut c, "MEMORY USAGE bb")), usage);
    assert_eq!(
        int(&ok(&mut c, "BF.CARD bf")),
        int(&ok(&mut c, "BF.CARD bf"))
    );
    assert_loading(&mut c);
    // COPY gives an independent filter
    ok(&mut c, "COPY bf bf2");
    ok(&mut c, "BF.ADD bf2 only-in-the-copy");
    assert_eq!(int(&ok(&mut c, "BF.EXISTS bf only-in-the-copy")), 0);
}

#[test]
fn memory_usage_is_the_filter_size() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "BF.RESERVE big 0.01 1000000 NONSCALING");
    let planned = int(&field(
        &ok(
            &mut c,
            "AMQ.PLAN scalable-bloom ITEMS 1000000 ERROR 0.01 NONSCALING",
        ),
        "bytes",
    ));
    let usage = int(&ok(&mut c, "MEMORY USAGE big"));
    assert!(
        usage >= planned && usage < planned + 1024,
        "{usage} vs {planned}"
    );
}

#[test]
fn a_restart_with_the_aof_keeps_every_bit() {
    // with the RDB preamble (Redis's default): the base file is RDB, then commands
    let mut s = Server::start(&["--appendonly", "yes"]);
    let mut c = s.con();
    let keys = fill(&mut c);
    let before = dumps(&mut c, &keys);
    s.restart();
    let mut c = s.con();
    assert_eq!(dumps(&mut c, &keys), before);
    assert_loading(&mut c);
    drop(s);

    // without it: BGREWRITEAOF writes AMQ.LOADCHUNK commands, replayed on start, with a
    // memory limit below some filters' size from the start on (the replay is not held to it)
    let mut s = Server::start(&[
        "--appendonly",
        "yes",
        "--aof-use-rdb-preamble",
        "no",
        "--amq.max-filter-bytes",
        "4096",
    ]);
    let mut c = s.con();
    ok(&mut c, "CONFIG SET amq.max-filter-bytes 1073741824");
    let keys = fill(&mut c);
    assert!(int(&ok(&mut c, "MEMORY USAGE ag")) > 4096);
    ok(&mut c, "BGREWRITEAOF");
    wait_for(&mut c, "INFO persistence", "aof_rewrite_in_progress:0");
    wait_for(&mut c, "INFO persistence", "aof_rewrite_scheduled:0");
    ok(&mut c, "BF.ADD bf after-the-rewrite");
    ok(&mut c, "AMQ.ADD ag after-the-rewrite");
    let before = dumps(&mut c, &keys);
    let aof = std::fs::read_dir(s.dir.path().join("appendonlydir"))
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .any(|b| b.windows(13).any(|w| w == b"AMQ.LOADCHUNK"));
    assert!(aof, "the rewritten AOF holds AMQ.LOADCHUNK commands");
    s.restart();
    let mut c = s.con();
    assert_eq!(dumps(&mut c, &keys), before);
    assert_eq!(int(&ok(&mut c, "BF.EXISTS bf after-the-rewrite")), 1);
    assert_loading(&mut c);
}

/// Repeats `command` until its reply contains `want` (20 s at most).
fn wait_for(c: &mut Connection, command: &str, want: &str) {
    let start = Instant::now();
    loop {
        let v = ok(c, command);
        let text = match &v {
            Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
            Value::VerbatimString { text, .. } => text.clone(),
            other => format!("{other:?}"),
        };
        if text.contains(want) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{command}: no {want} in {text}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_replica_holds_the_same_bits() {
    let primary = Server::start(&[]);
    let replica = Server::start(&[]);
    let mut p = primary.con();
    let mut r = replica.con();
    // before the replica attaches: a full sync through the RDB
    ok(&mut p, "BF.MADD early a b c");
    ok(&mut p, "AMQ.RESERVE agx aging-bloom TTL 60 ITEMS 100");
    ok(&mut r, &format!("REPLICAOF 127.0.0.1 {}", primary.port));
    wait_for(&mut r, "INFO replication", "master_link_status:up");
    // after: the command stream (AMQ.ADD goes as AMQ.ADDAT with the primary's time), to a
    // replica whose memory limit is below some filters' size: it takes what the primary took
    ok(&mut r, "CONFIG SET amq.max-filter-bytes 4096");
    let keys = fill(&mut p);
    assert!(int(&ok(&mut p, "MEMORY USAGE ag")) > 4096);
    ok(&mut p, "AMQ.ADD agx late");
    ok(&mut p, "AMQ.DEL ng i499");
    ok(&mut p, "BF.RESERVE bfm 0.01 100");
    ok(&mut p, "AMQ.MERGE bfm bf");
    // writes the primary's limit stops part-way: the replica, with a higher limit, holds
    // only what the primary added
    ok(&mut r, "CONFIG SET amq.max-filter-bytes 1073741824");
    ok(&mut p, "CONFIG SET amq.max-filter-bytes 4096");
    let many: Vec<String> = (0..3000).map(|i| format!("m{i}")).collect();
    let many = many.join(" ");
    let refusals = |v: Value| {
        let Value::Array(a) = v else { panic!("{v:?}") };
        let (refused, added): (Vec<_>, Vec<_>) = a.iter().partition(|v| nested_error(v).is_some());
        assert!(!added.is_empty(), "some items are added");
        refused
            .iter()
            .filter_map(|v| nested_error(v))
            .collect::<Vec<_>>()
    };
    let too_big = "ERR the filter would go over amq.max-filter-bytes";
    assert_eq!(
        refusals(ok(&mut p, &format!("BF.MADD lim {many}"))),
        [too_big]
    );
    let refused = refusals(ok(
        &mut p,
        &format!("CF.INSERT clim CAPACITY 1000 ITEMS {many}"),
    ));
    assert!(refused.iter().all(|e| e == too_big) && !refused.is_empty());
    let acked = int(&ok(&mut p, "WAIT 1 20000"));
    assert_eq!(acked, 1);
    let mut all = keys.clone();
    all.extend(["early", "agx", "lim", "clim", "bfm"]);
    assert_eq!(dumps(&mut r, &all), dumps(&mut p, &all));
    assert_eq!(ints(&ok(&mut r, "BF.MEXISTS early a b c")), [1, 1, 1]);
    assert!(fails(&mut r, "BF.ADD early d").starts_with("READONLY"));
    assert_loading(&mut r);
}

/// `RESTORE` of a payload whose CRC is right but whose body is cut short or of the wrong
/// opcode is an error reply, not a crash: the module loads with Redis's
/// `HANDLE_IO_ERRORS` option (without it Redis aborts on the module's first short read).
/// Redis's CRC is skipped (`DEBUG SET-SKIP-CHECKSUM-VALIDATION`) rather than recomputed:
/// anyone may compute it, so a crafted payload reaches the module either way.
#[test]
fn restore_of_a_crafted_payload_is_an_error_not_a_crash() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "BF.RESERVE bf 0.01 100");
    let dump = bytes(&ok(&mut c, "DUMP bf"));
    // the value's type (module, 2) and the module type's 64-bit id: `07 81 <8 bytes>`, then
    // the module's opcodes; the dump ends with the RDB version (2 bytes) and the CRC (8)
    assert_eq!(&dump[..2], [7, 0x81]);
    let (head, version) = (&dump[..10], &dump[dump.len() - 10..dump.len() - 8]);
    ok(&mut c, "DEBUG SET-SKIP-CHECKSUM-VALIDATION 1");
    let bodies: [&[u8]; 3] = [
        &[5, 0x43, 0xe8, b'a', b'b', b'c', 0], // a string said to be 1,000 bytes, holding 3
        &[2, 5, 0],                            // an unsigned integer where a string belongs
        &[],                                   // nothing at all
    ];
    for body in bodies {
        let payload = [head, body, version, &[0; 8]].concat();
        let e = call(&mut c, &[b"RESTORE", b"crafted", b"0", &payload]).unwrap_err();
        assert!(e.contains("Bad data format"), "{e}");
        assert_eq!(ok(&mut c, "PING"), Value::SimpleString("PONG".into()));
    }
    assert!(!s.log().contains("Guru Meditation"), "{}", s.log());
    // the payload Redis made restores
    let restored = [b"RESTORE".as_slice(), b"copy", b"0", &dump];
    assert_eq!(call(&mut c, &restored), Ok(Value::Okay));
}

/// A client's `RESTORE` and `COPY` bring in a filter without a command of the module's: they
/// are held to `amq.max-filter-bytes` as `AMQ.RESTORE` is (a restart loads its RDB whatever
/// the limit: a `DEBUG RELOAD` keeps the filter over it).
#[test]
fn restore_and_copy_are_held_to_the_limit() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "BF.RESERVE big 0.0001 100000"); // about 234 kB
    let dump = bytes(&ok(&mut c, "DUMP big"));
    ok(&mut c, "CONFIG SET amq.max-filter-bytes 65536");
    let e = call(&mut c, &[b"RESTORE", b"again", b"0", &dump]).unwrap_err();
    assert!(e.contains("Bad data format"), "{e}");
    assert!(
        s.log()
            .contains("amq: RESTORE refused: the filter would take"),
        "{}",
        s.log()
    );
    let e = fails(&mut c, "COPY big twin");
    assert!(e.contains("failed to copy"), "{e}");
    assert_eq!(int(&ok(&mut c, "EXISTS again twin")), 0);
    ok(&mut c, "DEBUG RELOAD");
    assert_eq!(int(&ok(&mut c, "EXISTS big")), 1);
    // under the limit both go through
    ok(&mut c, "CONFIG SET amq.max-filter-bytes 1gb");
    assert_eq!(
        call(&mut c, &[b"RESTORE", b"again", b"0", &dump]),
        Ok(Value::Okay)
    );
    assert_eq!(int(&ok(&mut c, "COPY big twin")), 1);
    assert_eq!(bytes(&ok(&mut c, "DUMP twin")), dump);
}
