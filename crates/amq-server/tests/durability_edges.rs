//! Durability at the edges, against the mutants of the server's durability core
//! (`engine/committer.rs`, `engine/record.rs`, `store/redb.rs`) that the other tests let
//! through; each test names its mutant. In-process, over a store whose commits wait at a
//! gate ([`Gated`]) so that the changes sent meanwhile share the next commit (each test checks
//! the commit count): several changes to one filter or keyset in one commit, a failed commit,
//! when a log is folded. Against a real server process: an I/O error, a store at a relative
//! path, a damaged one-phase commit rolled back.

mod common;

use amq::formats::cashu::CashuHash;
use amq::math::{Spec, Target};
use amq::AnyFilter;
use amq_server::engine::keys;
use amq_server::engine::record::Items;
use amq_server::engine::{KeysetSettings, SetKind};
use amq_server::store::{RedbStore, Store};
use amq_server::{app, ApiError, AppState, Limits};
use axum::http::Method;
use common::call;
use common::gated::{bloom, in_one_commit, items, Change, Gated, DISK_FULL};
use common::server::{Options, Server};
use serde_json::json;
use std::sync::atomic::Ordering;
use std::sync::Arc;

#[test]
#[ignore = "the server process the other tests start (tests/common/server.rs)"]
fn server_process() {
    common::server::serve();
}

/// Inserts `of` into filter `name` (no byte limit).
fn insert(state: &AppState, name: &'static str, of: &'static [&'static str]) -> Change<()> {
    let state = state.clone();
    Box::pin(async move {
        state
            .engine()
            .insert(name, items(of), u64::MAX)
            .await
            .map(drop)
            .unwrap_or_else(|e| panic!("{of:?}: {}", e.message))
    })
}

/// Three inserts into one filter carried by one commit each get a log record of their own:
/// a store reopened after they were acknowledged holds all three, with the filter's change
/// count and every item. Written against `committer.rs:237 += -> *=` in `plan` (the batch's
/// sequence numbers stop advancing, so each record of the commit overwrites the one before
/// under the same key and the reopened filter misses the earlier adds of the batch), which
/// the other tests let through: they reopen only stores written one change per commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_to_one_filter_in_one_commit_all_survive_a_reopen() {
    let store = Arc::new(Gated::default());
    let state = AppState::new(store.clone(), Limits::default(), None).unwrap();
    state
        .engine()
        .create_filter("g", bloom(), false)
        .await
        .unwrap();
    in_one_commit(
        &store,
        insert(&state, "g", &["held"]),
        vec![
            insert(&state, "g", &["first", "also first"]),
            insert(&state, "g", &["second"]),
            insert(&state, "g", &["third"]),
        ],
    )
    .await;
    let all = ["held", "first", "also first", "second", "third"];
    // the log: one record per change, numbered on from the held one's
    let log_prefix = [keys::filter_prefix("g"), b"l/".to_vec()].concat();
    let logged = store.scan(&log_prefix).unwrap().len();
    assert_eq!(logged, 4, "one record per acknowledged change");
    drop(state);
    let reopened = app(AppState::new(store.clone(), Limits::default(), None).unwrap());
    let info = call(&reopened, Method::GET, "/api/v1/filters/g", None).await;
    assert_eq!(info.json()["items_inserted"], all.len(), "{}", info.json());
    let r = call(
        &reopened,
        Method::POST,
        "/api/v1/filters/g/contains",
        Some(json!({ "items": all })),
    )
    .await;
    assert_eq!(
        r.json()["maybe"],
        json!([true, true, true, true, true]),
        "{}",
        r.json()
    );
}

/// Adds `of` to keyset `id`'s spent set.
fn spend(state: &AppState, id: &'static str, of: &'static [&'static str]) -> Change<usize> {
    let state = state.clone();
    Box::pin(async move {
        state
            .engine()
            .keyset_items(id, SetKind::Spent, items(of))
            .await
            .unwrap_or_else(|e| panic!("{of:?}: {}", e.message))
    })
}

/// Every item of a keyset's spent and issued sets.
fn keyset_items(state: &AppState, id: &str) -> Vec<Vec<u8>> {
    let keyset = state.engine().keyset(id).expect("the keyset");
    let sets = keyset.sets.read().unwrap();
    sets.iter()
        .flat_map(|s| s.iter().map(<[u8]>::to_vec))
        .collect()
}

/// Three batches of spent items for one Cashu keyset carried by one commit each get a log
/// record of their own: a store reopened after they were acknowledged holds every item, and
/// the keyset's next batch is numbered after them. Written against `committer.rs:280 += ->
/// *=` in `plan` (the keyset's sequence number stops advancing within a commit, so the
/// batch's records overwrite each other and the reopened keyset misses items), which the
/// other tests let through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_of_one_keyset_in_one_commit_all_survive_a_reopen() {
    let store = Arc::new(Gated::default());
    let state = AppState::new(store.clone(), Limits::default(), None).unwrap();
    let settings = KeysetSettings {
        hash: CashuHash::default(),
        p: 19,
        m: 784_931,
    };
    state.engine().create_keyset("k", settings).await.unwrap();
    let (held, batched) = in_one_commit(
        &store,
        spend(&state, "k", &["held"]),
        vec![
            spend(&state, "k", &["first", "also first"]),
            spend(&state, "k", &["second"]),
            spend(&state, "k", &["third"]),
        ],
    )
    .await;
    // the answers: how many items each batch added
    assert_eq!((held, batched), (1, vec![2, 1, 1]));
    let all: Vec<Vec<u8>> = ["held", "first", "also first", "second", "third"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    assert_eq!(keyset_items(&state, "k"), all, "as served");
    drop(state);
    let reopened = AppState::new(store.clone(), Limits::default(), None).unwrap();
    assert_eq!(keyset_items(&reopened, "k"), all, "as reopened");
    // the next batch follows the four in the log: a third opening replays all five batches
    spend(&reopened, "k", &["after"]).await;
    drop(reopened);
    let again = AppState::new(store.clone(), Limits::default(), None).unwrap();
    assert_eq!(keyset_items(&again, "k").len(), all.len() + 1);
}

/// A change's answer: its status and message (`200` and nothing if it was made).
type Answer = (u16, String);

fn answer(r: Result<(), ApiError>) -> Answer {
    r.map_or_else(
        |e| (e.status.as_u16(), e.message),
        |()| (200, String::new()),
    )
}

/// Creates filter `name` (a Bloom filter; not replacing one).
fn create(state: &AppState, name: &'static str) -> Change<Answer> {
    let state = state.clone();
    Box::pin(async move { answer(state.engine().create_filter(name, bloom(), false).await) })
}

/// Inserts `of` into filter `name`, answered as an [`Answer`].
fn try_insert(state: &AppState, name: &'static str, of: &'static [&'static str]) -> Change<Answer> {
    let state = state.clone();
    Box::pin(async move {
        answer(
            state
                .engine()
                .insert(name, items(of), u64::MAX)
                .await
                .map(drop),
        )
    })
}

/// A commit the store refuses answers every change it carried with a 503 that names the
/// store's error, and nothing of it is served; a change refused on its own in the same
/// commit (creating a filter that exists) keeps its own answer, a 409. Written against
/// `committer.rs:385 Step::fail_with -> ()` (the answers of a failed commit are dropped, so
/// every request gets "the committer has stopped", the conflict included), which the other
/// tests let through: they check only the 503 of a failed commit of one change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_commit_answers_each_change_with_its_own_error() {
    let store = Arc::new(Gated::default());
    let state = AppState::new(store.clone(), Limits::default(), None).unwrap();
    assert_eq!(create(&state, "g").await, (200, String::new()));
    store.failing.store(true, Ordering::SeqCst);
    let (held, batched) = in_one_commit(
        &store,
        try_insert(&state, "g", &["held"]),
        vec![
            try_insert(&state, "g", &["batched"]),
            create(&state, "g"),
            create(&state, "new"),
        ],
    )
    .await;
    let storage = |(status, message): &Answer| *status == 503 && message.contains(DISK_FULL);
    assert!(storage(&held), "{held:?}");
    assert!(storage(&batched[0]), "{:?}", batched[0]);
    assert_eq!(batched[1].0, 409, "{:?}", batched[1]);
    assert!(batched[1].1.contains("exists"), "{:?}", batched[1]);
    assert!(storage(&batched[2]), "{:?}", batched[2]);
    // nothing of the failed commits is served, and the store works again once the disk does
    store.failing.store(false, Ordering::SeqCst);
    let app = app(state.clone());
    let r = call(
        &app,
        Method::POST,
        "/api/v1/filters/g/contains",
        Some(json!({"items": ["held", "batched"]})),
    )
    .await;
    assert_eq!(r.json()["maybe"], json!([false, false]), "{}", r.json());
    assert_eq!(state.engine().filter("new").map(drop), None);
    assert_eq!(create(&state, "new").await, (200, String::new()));
}

/// The records of filter `name`'s log, and the sequence number its snapshot starts from.
fn log_and_snapshot(store: &dyn Store, name: &str) -> (usize, u64) {
    let log_prefix = [keys::filter_prefix(name), b"l/".to_vec()].concat();
    let logged = store.scan(&log_prefix).unwrap().len();
    let snapshot = store
        .get(&keys::snapshot_key(name))
        .unwrap()
        .expect("a snapshot");
    (logged, keys::decode_snapshot(&snapshot).unwrap().0)
}

/// A filter's log is folded into a new snapshot only once it holds more bytes than the
/// filter and at least 4 MiB (the design's "when a log outgrows its filter"): two inserts of
/// one 3,000-byte item each into a 120 KB Bloom filter stay two log records after the
/// snapshot the filter was created with. Written against `committer.rs:324 + -> *` in
/// `apply` (the log's size is taken as the size before times the record's, 9 MB after the
/// second record, so the whole filter is rewritten after a few kilobytes of changes), which
/// the other tests let through: they check only that a log of 6 MB is folded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_smaller_than_its_filter_and_4_mib_is_not_folded() {
    let store = Arc::new(Gated::default());
    let state = AppState::new(store.clone(), Limits::default(), None).unwrap();
    let spec = Spec::Bloom {
        items: 100_000,
        target: Target::Fpr(0.01),
        k: None,
    };
    let filter = AnyFilter::new(&spec, 7).unwrap();
    let size = filter.size_bytes();
    assert!(size > 100_000, "{size} bytes");
    state
        .engine()
        .create_filter("big", filter, false)
        .await
        .unwrap();
    for fill in [b'a', b'b'] {
        let mut items = Items::new();
        items.push(&[fill; 3000]);
        state.engine().insert("big", items, u64::MAX).await.unwrap();
    }
    // a snapshot due is committed before the next job's answer: this change is that job
    assert_eq!(create(&state, "next").await, (200, String::new()));
    assert_eq!(log_and_snapshot(store.as_ref(), "big"), (2, 0));
}

/// Adds `items` to filter `b` of a server process; the status and the answer.
fn add(s: &Server, items: &[String]) -> (u16, serde_json::Value) {
    s.json(
        "POST",
        "/api/v1/filters/b/items",
        Some(&json!({ "items": items })),
    )
}

/// A write the disk refuses (the file may not grow: `ulimit -f` at the store's size, as a
/// full disk does) is a 503 that names the I/O error, and the writes after it go through:
/// the store is reopened at its last commit, and after a SIGKILL and a restart it holds
/// every acknowledged add and nothing of the refused one. Written against `redb.rs:219
/// RedbStore::reopen -> Ok(())` (the database is not reopened, redb refuses every later
/// transaction with "Previous I/O error" until the server restarts), which the other tests
/// let through: none of them makes the disk fail under a real store.
#[test]
fn after_an_io_error_the_store_is_reopened_and_writes_go_through() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let s = Server::start(&data, Options::default());
    let spec = json!({"kind": "bloom", "items": 1000, "fpr": 1e-9});
    assert_eq!(s.json("PUT", "/api/v1/filters/b", Some(&spec)).0, 201);
    assert_eq!(add(&s, &["before".into()]).0, 200);
    s.kill();
    let size = std::fs::metadata(data.join("amq.redb")).unwrap().len();
    let options = Options {
        max_file_blocks: Some(size.div_ceil(512)),
        ..Options::default()
    };
    let s = Server::start(&data, options);
    // 4 MB of items: more than the file has free, so the commit must grow it
    let big: Vec<String> = (0..4000)
        .map(|i| format!("{i}:{}", "x".repeat(1000)))
        .collect();
    let (status, v) = add(&s, &big);
    assert_eq!(status, 503, "{v}");
    assert!(v["error"].as_str().unwrap().contains("I/O error"), "{v}");
    for item in ["after", "and after"] {
        let (status, v) = add(&s, &[item.into()]);
        assert_eq!(status, 200, "{item}: {v}");
    }
    assert!(s
        .stderr()
        .contains("the store was reopened at its last commit"));
    s.kill();
    let s = Server::start(&data, Options::default());
    let (status, v) = s.json(
        "POST",
        "/api/v1/filters/b/contains",
        Some(&json!({"items": ["before", "after", "and after", big[0], big[3999]]})),
    );
    assert_eq!(
        (status, &v["maybe"]),
        (200, &json!([true, true, true, false, false])),
        "{v}"
    );
}

/// A store named by a relative path of one component (`--data data`), created by the start,
/// opens: its parent directory is the working directory, fsync'd as `.` (the parent `""`
/// cannot be opened). After a SIGKILL, a restart the same way serves the acknowledged add, and
/// the store is `data/amq.redb` under the working directory. Written against the mutants of
/// `redb.rs:169` that sync the parent `""` (the match guard `!p.as_os_str().is_empty() ->
/// true`, and its `!` deleted): the start fails with "No such file or directory", which the
/// other tests let through: they all name the store by an absolute path.
#[test]
fn a_store_at_a_relative_path_of_one_component_opens_and_reopens() {
    let cwd = tempfile::tempdir().unwrap();
    let data = std::path::Path::new("data");
    let start = || {
        Server::try_start_in(Some(cwd.path()), data, Options::default())
            .unwrap_or_else(|e| panic!("the server did not start on --data data: {e}"))
    };
    let s = start();
    let spec = json!({"kind": "bloom", "items": 1000, "fpr": 1e-9});
    assert_eq!(s.json("PUT", "/api/v1/filters/b", Some(&spec)).0, 201);
    assert_eq!(add(&s, &["relative".into()]).0, 200);
    s.kill();
    assert!(cwd.path().join("data/amq.redb").is_file());
    let s = start();
    let (status, v) = s.json("GET", "/api/v1/filters/b/contains/relative", None);
    assert_eq!((status, &v["maybe"]), (200, &json!(true)), "{v}");
}

/// Names the store file for [`one_phase_writer`].
const ONE_PHASE_STORE: &str = "AMQ_TEST_ONE_PHASE_STORE";

/// The key [`one_phase_writer`] commits.
const ONE_PHASE_KEY: &[u8] = b"x/written by a one-phase commit";

/// Run by [`a_damaged_one_phase_commit_is_rolled_back_and_said`] in a process of its own:
/// one one-phase commit to the store file the environment names (as amq did before its
/// commits were two-phase), and an exit without closing the file, as a kill leaves it.
#[test]
#[ignore = "a process of its own for a_damaged_one_phase_commit_is_rolled_back_and_said"]
fn one_phase_writer() {
    let Some(path) = std::env::var_os(ONE_PHASE_STORE) else {
        return;
    };
    let db = redb::Database::create(path).unwrap();
    let tx = db.begin_write().unwrap();
    {
        let table = redb::TableDefinition::<&[u8], &[u8]>::new("amq");
        let mut table = tx.open_table(table).unwrap();
        table.insert(ONE_PHASE_KEY, &b"1"[..]).unwrap();
    }
    tx.commit().unwrap();
    std::process::exit(0);
}

/// The rollback warning of the store's repair: printed when redb rolls a latest commit that
/// does not verify back to the one before, and only then. A store stopped after a kill's
/// repair (two-phase commits, nothing rolled back) says nothing of it; a store whose latest
/// commit is one-phase (an older amq's) with a byte of its leaf flipped starts with the
/// commit before (every add the server acknowledged, not the damaged commit's key) and says
/// it once. Written against `redb.rs:65`, the repair callback's `(p - 0.3).abs() < 1e-9`
/// (`< -> ==` and `- -> +` never print it; `< -> >` and `- -> /` print it at the other
/// steps of a repair, at progress 0.0 after any kill), which the other tests let through:
/// none makes redb roll back.
#[test]
fn a_damaged_one_phase_commit_is_rolled_back_and_said() {
    let rolled_back = "the latest commit does not verify and is rolled back";
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let s = Server::start(&data, Options::default());
    let spec = json!({"kind": "bloom", "items": 1000, "fpr": 1e-9});
    assert_eq!(s.json("PUT", "/api/v1/filters/b", Some(&spec)).0, 201);
    assert_eq!(add(&s, &["acknowledged".into()]).0, 200);
    s.kill();
    // a repair after a kill, nothing rolled back
    let s = Server::start(&data, Options::default());
    assert_eq!(add(&s, &["after the kill".into()]).0, 200);
    let printed = s.stop();
    assert!(!printed.contains(rolled_back), "{printed}");
    let file = data.join("amq.redb");
    let printed = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "one_phase_writer",
            "--ignored",
            "--test-threads=1",
        ])
        .env(ONE_PHASE_STORE, &file)
        .output()
        .unwrap();
    assert!(printed.status.success(), "{printed:?}");
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes
        .windows(ONE_PHASE_KEY.len())
        .position(|w| w == ONE_PHASE_KEY)
        .expect("the commit's leaf");
    bytes[at] ^= 0x55;
    std::fs::write(&file, &bytes).unwrap();
    let s = Server::start(&data, Options::default());
    let (status, v) = s.json(
        "POST",
        "/api/v1/filters/b/contains",
        Some(&json!({"items": ["acknowledged", "after the kill"]})),
    );
    assert_eq!((status, &v["maybe"]), (200, &json!([true, true])), "{v}");
    let printed = s.stop();
    assert_eq!(printed.matches(rolled_back).count(), 1, "{printed}");
    let store = RedbStore::open(&data).unwrap();
    assert_eq!(store.get(ONE_PHASE_KEY).unwrap(), None, "rolled back");
}
