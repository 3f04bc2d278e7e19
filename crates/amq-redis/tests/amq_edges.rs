//! `AMQ.*` where the other tests let mutants of `src/commands/amq.rs` through (cargo-mutants,
//! `CONTRIBUTING.md`): what the AOF holds of a write to a kind that reads the clock, and
//! the errors of the commands' shortest forms. Each test names the mutants it was written
//! against.

mod common;

use common::*;
use redis::Connection;
use std::time::Duration;

/// The `.amq` bytes of `key`.
fn dump(c: &mut Connection, key: &str) -> Vec<u8> {
    bytes(&ok(c, &format!("AMQ.DUMP {key}")))
}

/// `AMQ.ADD` and `AMQ.DEL` on a TTL cuckoo filter stamp items with the server's clock; the
/// AOF holds them as `AMQ.ADDAT` and `AMQ.DELAT` with that time, so a replay seconds later
/// gives the same stamps, the same bytes. Written against amq.rs:103 (`Time::verbatim` made
/// `true`: the commands went to the AOF as they came, and the replay stamped the items with
/// its own, later, time), missed.
#[test]
fn a_replay_seconds_later_stamps_as_the_write_did() {
    let mut s = Server::start(&["--appendonly", "yes"]);
    let mut c = s.con();
    ok(
        &mut c,
        "AMQ.RESERVE tc ttl-cuckoo ITEMS 100 ERROR 0.01 TICK 1 TTL 3600",
    );
    ok(&mut c, "AMQ.ADD tc a b c");
    assert_eq!(int(&ok(&mut c, "AMQ.DEL tc b")), 1);
    let before = dump(&mut c, "tc");
    // a replay two ticks later
    std::thread::sleep(Duration::from_millis(2100));
    s.restart();
    let mut c = s.con();
    assert_eq!(dump(&mut c, "tc"), before);
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS tc a b c")), [1, 0, 1]);
}

/// `AMQ.RESERVE key kind` with no option is read: the reply is the option the kind needs,
/// not a wrong number of arguments. Written against amq.rs:39 (`args.len() < 3` made `== 3`
/// or `<= 3`), missed.
#[test]
fn amq_reserve_of_a_kind_alone_says_what_it_needs() {
    let s = Server::start(&[]);
    let mut c = s.con();
    let cases = [
        ("AMQ.RESERVE k bloom", "ERR ITEMS is required for this kind"),
        (
            "AMQ.RESERVE k negative-cache",
            "ERR L is required for a negative cache",
        ),
        ("AMQ.RESERVE k nosuchkind", "ERR unknown filter kind"),
    ];
    for (command, error) in cases {
        let e = fails(&mut c, command);
        assert!(e.starts_with(error), "{command}: {e}");
    }
    assert_eq!(int(&ok(&mut c, "EXISTS k")), 0);
}

/// `AMQ.EXISTS` on a sliding window reads `POSITION p` or `EPOCH e` only with an item after
/// it: without one, or with other words first, the items are asked for without a position
/// and the reply is the refusal that names the command to use. Written against amq.rs:191
/// (`||` made `&&`: `POSITION 0` with no item answered an empty array, three items read as a
/// position), missed.
#[test]
fn amq_exists_reads_a_position_only_before_an_item() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(
        &mut c,
        "AMQ.RESERVE w sliding-window-bloom WINDOWBITS 4096 CHUNKBITS 512 BATCH 4 K 3",
    );
    ok(&mut c, "AMQ.ADD w a b");
    ok(&mut c, "AMQ.RESERVE r sliding-window-cuckoo EPOCHITEMS 100");
    ok(&mut c, "AMQ.ADD r m");
    let cases = [
        (
            "AMQ.EXISTS w POSITION 0",
            "use AMQ.EXISTS key POSITION p item",
        ),
        ("AMQ.EXISTS w a b c", "use AMQ.EXISTS key POSITION p item"),
        ("AMQ.EXISTS r EPOCH 0", "use AMQ.EXISTS key EPOCH e item"),
        ("AMQ.EXISTS r x y z", "use AMQ.EXISTS key EPOCH e item"),
    ];
    for (command, hint) in cases {
        let e = fails(&mut c, command);
        assert!(
            e.starts_with("ERR a sliding-window") && e.ends_with(hint),
            "{command}: {e}"
        );
    }
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS w POSITION 0 a")), [1]);
    assert_eq!(ints(&ok(&mut c, "AMQ.EXISTS r EPOCH 0 m")), [1]);
}

/// `AMQ.DEL key EPOCH e item` (five arguments) slashes a member; `AMQ.DEL` with four or five
/// arguments of another shape is a wrong number of arguments. Written against amq.rs:224
/// (`&&` made `||`: `EPOCH` with no item, or any five arguments, read as a slash), missed.
#[test]
fn amq_del_takes_an_epoch_only_in_its_five_argument_form() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "AMQ.RESERVE cf cuckoo ITEMS 100");
    ok(&mut c, "AMQ.ADD cf a");
    ok(&mut c, "AMQ.RESERVE r sliding-window-cuckoo EPOCHITEMS 100");
    ok(&mut c, "AMQ.ADD r m");
    for command in [
        "AMQ.DEL cf EPOCH 1",
        "AMQ.DEL cf a b c",
        "AMQ.DEL r EPOCH 0",
        "AMQ.DEL r 0 0 m",
    ] {
        let e = fails(&mut c, command);
        assert!(
            e.starts_with("ERR wrong number of arguments"),
            "{command}: {e}"
        );
    }
    assert_eq!(int(&ok(&mut c, "AMQ.DEL r EPOCH 0 m")), 1);
    assert_eq!(int(&ok(&mut c, "AMQ.DEL cf a")), 1);
}

/// `AMQ.RESTORE key bytes` takes `REPLACE` (in any case) as its one option: any other fourth
/// argument is a syntax error and the key keeps its filter. Written against amq.rs:376 (the
/// guard `is(&args[3], "REPLACE")` made `true`: any word replaced the key) and amq.rs:377
/// (that match arm deleted: a wrong number of arguments), missed. `REPLACE` may also come
/// before the bytes, as `redis-cli -x AMQ.RESTORE key REPLACE < f.amq` sends it; another word
/// there is a syntax error too.
#[test]
fn amq_restore_takes_replace_and_no_other_option() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, "BF.ADD a x");
    ok(&mut c, "BF.ADD b y");
    let (a, b) = (dump(&mut c, "a"), dump(&mut c, "b"));
    for word in [b"NOPE".as_slice(), b"REPLACEX"] {
        let r = call(&mut c, &[b"AMQ.RESTORE", b"a", &b, word]);
        assert_eq!(r, Err("ERR syntax error".into()));
    }
    assert_eq!(dump(&mut c, "a"), a);
    let r = call(&mut c, &[b"AMQ.RESTORE", b"a", &b, b"replace"]);
    assert_eq!(r, Ok(redis::Value::Okay));
    assert_eq!(dump(&mut c, "a"), b);
    let r = call(&mut c, &[b"AMQ.RESTORE", b"a", b"NOPE", &a]);
    assert_eq!(r, Err("ERR syntax error".into()));
    assert_eq!(dump(&mut c, "a"), b);
    let r = call(&mut c, &[b"AMQ.RESTORE", b"a", b"REPLACE", &a]);
    assert_eq!(r, Ok(redis::Value::Okay));
    assert_eq!(dump(&mut c, "a"), a);
}

/// `NONSCALING` takes no value: the option after it is read as one, wherever the flag is.
/// `AMQ.RESERVE` with it first makes the filter `BF.RESERVE ... NONSCALING` makes. Written
/// against spec.rs:129 (`i -= 1` made `+= 1`: the option after the flag skipped; made `/= 1`:
/// its value read as an option), missed.
#[test]
fn nonscaling_takes_no_value_wherever_it_is() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(
        &mut c,
        "AMQ.RESERVE a scalable-bloom NONSCALING ITEMS 300 NONSCALING ERROR 0.002",
    );
    ok(&mut c, "BF.RESERVE b 0.002 300 NONSCALING");
    assert_eq!(dump(&mut c, "a"), dump(&mut c, "b"));
    let plan = ok(
        &mut c,
        "AMQ.PLAN scalable-bloom NONSCALING ITEMS 300 ERROR 0.002",
    );
    assert_eq!(
        int(&field(&plan, "bytes")),
        int(&field(
            &ok(
                &mut c,
                "AMQ.PLAN scalable-bloom ITEMS 300 ERROR 0.002 NONSCALING"
            ),
            "bytes"
        ))
    );
}
