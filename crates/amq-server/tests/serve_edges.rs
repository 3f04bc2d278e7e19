//! `amq serve` at its edges, against the mutants of `serve.rs`, `config.rs`, `lib.rs`,
//! `store/mod.rs` and `state/mod.rs` that the other tests let through; each test names its
//! mutant. A real server process where the start or the stop is what is checked, else
//! in-process.

mod common;

use amq::clock::ManualClock;
use amq::formats::cashu_state::Kind;
use amq_server::store::{MemoryStore, Write};
use amq_server::Preload;
use common::server::{Options, Server};
use common::state::{get_block, open, settings, T0};
use serde_json::json;
use std::sync::Arc;

#[test]
#[ignore = "the server process the other tests start (tests/common/server.rs)"]
fn server_process() {
    common::server::serve();
}

/// A server listening on loopback without a write token warns of nothing: its stderr, up to
/// its clean stop, holds no warning. Written against `serve.rs:67`, `&& -> ||` and the `!`
/// before `is_loopback()` deleted (the warning that writes are open beyond loopback printed
/// for a loopback server), which the other tests let through: they read the stderr only
/// for the stop's line.
#[test]
fn a_server_on_loopback_warns_of_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&dir.path().join("data"), Options::default());
    let printed = s.stop();
    assert!(printed.contains("amq serve: stopped;"), "{printed}");
    assert!(!printed.contains("warning"), "{printed}");
}

/// A preload's ε is a number strictly between 0 and 1: `:0` and `:1` are refused with the
/// rule, the values just inside are taken. Written against `config.rs:84`, `> -> >=` and
/// `< -> <=` (ε = 0 or ε = 1 accepted, to fail later, when the filter is planned), which the
/// other tests let through: they refuse only ε = 2.
#[test]
fn a_preloads_fpr_is_strictly_between_0_and_1() {
    for bad in ["w=f.txt:bloom:0", "w=f.txt:bloom:1", "w=f.txt:cuckoo:0.0"] {
        let err = bad.parse::<Preload>().expect_err(bad);
        assert!(err.contains("FPR is a number in (0, 1)"), "{bad}: {err}");
    }
    for (good, fpr) in [("w=f.txt:bloom:1e-9", 1e-9), ("w=f.txt::0.999", 0.999)] {
        let p: Preload = good.parse().unwrap_or_else(|e| panic!("{good}: {e}"));
        assert_eq!((p.name.as_str(), p.fpr), ("w", fpr), "{good}");
    }
}

/// A write carries the bytes of its key and value, or of its range's two ends; a write of
/// none is empty. Written against `store/mod.rs:40 Write::len -> 0` and `-> 1`, `:41` and
/// `:42 + -> -` and `+ -> *`, and `:48 Write::is_empty -> true`, `-> false` and `== -> !=`,
/// which the other tests let through: the server sizes its group commits by the records it
/// gathers, not by these.
#[test]
fn a_write_carries_its_keys_and_values_bytes() {
    let put = Write::Put(b"f/names/s".to_vec(), vec![7; 100]);
    assert_eq!((put.len(), put.is_empty()), (109, false));
    let range = Write::DeleteRange(b"f/a/".to_vec(), vec![0xff; 40]);
    assert_eq!((range.len(), range.is_empty()), (44, false));
    let one = Write::delete(b"c/009a1f293253e41e/m");
    assert_eq!((one.len(), one.is_empty()), (41, false));
    for none in [
        Write::Put(vec![], vec![]),
        Write::DeleteRange(vec![], vec![]),
    ] {
        assert_eq!((none.len(), none.is_empty()), (0, true), "{none:?}");
    }
}

/// A word list preloaded at the start is served under its name: a filter of the kind asked
/// for, holding each of the file's n lines (a line's `\r\n` or `\n` dropped), stored, so that
/// a restart without the preload serves it as it was. Written against `serve.rs:162
/// store_preload -> Ok(())` (the word list built and dropped: no filter of that name), which
/// the other tests of this crate let through: none preloads (the CLI's `tests/serve.rs` does).
#[test]
fn a_preloaded_word_list_is_served_under_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let file = dir.path().join("words.txt");
    let words: Vec<String> = (0..300).map(|i| format!("word-{i}")).collect();
    std::fs::write(&file, words.join("\r\n") + "\n").unwrap();
    let preload = format!("words={}:cuckoo:0.01", file.display());
    let options = Options {
        preload: Some(&preload),
        ..Options::default()
    };
    let s = Server::start(&data, options);
    let check = |s: &Server| {
        let (status, info) = s.json("GET", "/api/v1/filters/words", None);
        assert_eq!(status, 200, "{info}");
        assert_eq!(
            (info["kind"].as_str(), info["items_inserted"].as_u64()),
            (Some("cuckoo"), Some(300)),
            "{info}"
        );
        let (status, v) = s.json(
            "POST",
            "/api/v1/filters/words/contains",
            Some(&json!({ "items": words })),
        );
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["maybe"], json!(vec![true; 300]));
    };
    check(&s);
    let printed = s.stop();
    assert!(
        printed.contains("amq serve: preloaded words: 300 items from"),
        "{printed}"
    );
    let s = Server::start(&data, Options::default());
    check(&s);
    s.stop();
}

/// The open block is served with the `Cache-Control` max-age of the refresh interval the
/// server was opened with (120 s here), a sealed block as immutable. Written against
/// `lib.rs:126 AppState::settings -> Box::leak(Box::new(Default::default()))` (the default
/// settings' interval, 60 s, served instead), which the other tests let through: they open
/// the state filters with the default interval.
#[tokio::test]
async fn the_open_block_is_cached_for_the_configured_interval() {
    let clock = ManualClock::new(T0);
    let mut s = settings(&[(Kind::ProofState, 10)], false, &clock);
    s.state_filters.open_interval = Some(120);
    let app = open(Arc::new(MemoryStore::new()), s);
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["cache-control"], "public, max-age=120");
    clock.advance(3600); // block 0 seals on its timeout
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
}
