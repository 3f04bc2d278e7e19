//! `amq serve` as a real process on a loopback port: restart keeps everything, kill -9
//! loses nothing acknowledged, exports are what `amq build` writes, and the Cashu response
//! is what `amq cashu build` prints.

mod common;

use common::server::{all_found, http, items, Server, AMQ};
use serde_json::{json, Value};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[test]
fn a_restart_reopens_every_filter_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let words = dir.path().join("words.txt");
    std::fs::write(&words, items("word", 0..5000).join("\n") + "\n").unwrap();
    let preload = format!("words={}", words.display());
    let s = Server::start(&data, &["--preload", &preload]);
    let (status, _) = s.json(
        "PUT",
        "/api/v1/filters/big",
        Some(&json!({"kind": "bloom", "items": 100000, "fpr": 0.001, "seed": 5})),
    );
    assert_eq!(status, 201);
    let all = items("item", 0..100_000);
    let start = Instant::now();
    for chunk in all.chunks(10_000) {
        let (status, v) = s.json(
            "POST",
            "/api/v1/filters/big/items",
            Some(&json!({"items": chunk})),
        );
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["added"].as_array().unwrap().len(), chunk.len());
    }
    eprintln!("10^5 durable adds in {:?}", start.elapsed());
    assert!(all_found(&s, "big", &all));
    s.json(
        "PUT",
        "/api/v1/filters/c",
        Some(&json!({"kind": "cuckoo", "items": 1000, "fpr": 0.001})),
    );
    s.json(
        "POST",
        "/api/v1/filters/c/items",
        Some(&json!({"items": ["x", "y"]})),
    );
    assert_eq!(s.json("DELETE", "/api/v1/filters/c/items/x", None).0, 200);
    let (_, big) = s.call("GET", "/api/v1/filters/big/export", None).unwrap();
    let (_, list) = s.json("GET", "/api/v1/filters", None);

    // byte-identical to what `amq build` writes for the same items, size and seed
    let file = dir.path().join("items.txt");
    std::fs::write(&file, all.join("\n") + "\n").unwrap();
    let built = dir.path().join("big.amq");
    let out = Command::new(AMQ)
        .args([
            "build", "--fpr", "0.001", "--items", "100000", "--seed", "5", "-o",
        ])
        .arg(&built)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(big, std::fs::read(&built).unwrap());
    // and the preloaded word list is what `amq build --fpr 0.001` makes of the file
    let built = dir.path().join("words.amq");
    assert!(Command::new(AMQ)
        .args(["build", "--fpr", "0.001", "-o"])
        .arg(&built)
        .arg(&words)
        .status()
        .unwrap()
        .success());
    assert_eq!(
        s.call("GET", "/api/v1/filters/words/export", None)
            .unwrap()
            .1,
        std::fs::read(&built).unwrap()
    );

    s.stop();
    let s = Server::start(&data, &[]);
    assert_eq!(s.json("GET", "/api/v1/filters", None).1, list);
    assert!(all_found(&s, "big", &all));
    assert_eq!(
        s.call("GET", "/api/v1/filters/big/export", None).unwrap().1,
        big
    );
    assert_eq!(
        s.json("GET", "/api/v1/filters/c/contains/x", None).1["maybe"],
        false
    );
    assert_eq!(
        s.json("GET", "/api/v1/filters/c/contains/y", None).1["maybe"],
        true
    );
    s.kill9();
}

#[test]
fn the_cashu_response_is_what_amq_cashu_build_prints() {
    let dir = tempfile::tempdir().unwrap();
    let s = Server::start(&dir.path().join("data"), &[]);
    let ys: Vec<String> = (0..500u32)
        .map(|i| format!("02{:064x}", u64::from(i) * 0x9e37_79b9))
        .collect();
    assert_eq!(
        s.json("PUT", "/api/v1/cashu/00ad268c4d1f5826", Some(&json!({})))
            .0,
        201
    );
    assert_eq!(
        s.json(
            "POST",
            "/api/v1/cashu/00ad268c4d1f5826/spent",
            Some(&json!({"items_hex": ys}))
        )
        .0,
        200
    );
    let (status, body) = s
        .call("GET", "/v1/filter/spent/00ad268c4d1f5826", None)
        .unwrap();
    assert_eq!(status, 200);
    let t = serde_json::from_slice::<Value>(&body).unwrap()["timestamp"]
        .as_u64()
        .unwrap();
    let file = dir.path().join("ys.txt");
    std::fs::write(&file, ys.join("\n")).unwrap();
    let out = Command::new(AMQ)
        .args(["cashu", "build", "--timestamp", &t.to_string()])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, [body.as_slice(), b"\n"].concat());
}

/// 20 rounds: clients add items while the server is killed with SIGKILL at a varying moment;
/// after each restart every item whose add got a 2xx is found, in the filter and in the
/// Cashu keyset's spent filter; at the end, every acknowledged state change is in the served
/// open block of its compact state filter sequence.
#[test]
fn kill_9_loses_no_acknowledged_item() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    const ARGS: [&str; 6] = [
        "--cashu-refresh",
        "0",
        "--state-filter",
        "proof_state:20",
        "--state-open-interval",
        "1",
    ];
    let s = Server::start(&data, &ARGS);
    assert_eq!(
        s.json(
            "PUT",
            "/api/v1/filters/f",
            Some(&json!({"kind": "bloom", "items": 1000000, "fpr": 0.0001}))
        )
        .0,
        201
    );
    assert_eq!(s.json("PUT", "/api/v1/cashu/k", Some(&json!({}))).0, 201);
    s.kill9();
    let acked: Arc<Mutex<Vec<String>>> = Arc::default();
    let acked_ys: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
    let acked_states: Arc<Mutex<Vec<[u8; 32]>>> = Arc::default();
    let started = Instant::now();
    for round in 0..20u64 {
        let s = Server::start(&data, &ARGS);
        // everything acknowledged before the last kill is there
        let want = acked.lock().unwrap().clone();
        assert!(
            all_found(&s, "f", &want),
            "round {round}: an acknowledged item is missing"
        );
        let ys = acked_ys.lock().unwrap().clone();
        let (status, body) = s.call("GET", "/v1/filter/spent/k", None).unwrap();
        assert_eq!(status, 200);
        let resp: amq::formats::cashu::GetFilterResponse = serde_json::from_slice(&body).unwrap();
        // a change can be on disk with its reply lost to the kill: at least, not exactly
        assert!(resp.n as usize >= ys.len(), "round {round}");
        let gcs = resp
            .into_filter(amq::formats::cashu::CashuHash::default())
            .unwrap();
        assert!(ys.iter().all(|y| gcs.contains(y).unwrap()), "round {round}");

        let mut clients = Vec::new();
        for c in 0..3u64 {
            let (addr, acked, acked_ys) = (s.addr.clone(), acked.clone(), acked_ys.clone());
            let acked_states = acked_states.clone();
            clients.push(std::thread::spawn(move || {
                for b in 0u64.. {
                    let batch = items(&format!("r{round}c{c}b{b}"), 0..200);
                    let body = serde_json::to_vec(&json!({"items": batch})).unwrap();
                    match http(&addr, "POST", "/api/v1/filters/f/items", &body) {
                        Ok((200, _)) => acked.lock().unwrap().extend(batch),
                        _ => return,
                    }
                    let y = vec![2, round as u8, c as u8, (b >> 8) as u8, b as u8];
                    let body =
                        serde_json::to_vec(&json!({"items_hex": [hex::encode(&y)]})).unwrap();
                    match http(&addr, "POST", "/api/v1/cashu/k/spent", &body) {
                        Ok((200, _)) => acked_ys.lock().unwrap().push(y.clone()),
                        _ => return,
                    }
                    let mut point = vec![2u8; 33];
                    point[28..].copy_from_slice(&y);
                    let change = json!({"kind": "proof_state", "id_hex": hex::encode(&point), "state": "SPENT"});
                    let e = amq::formats::cashu_state::Element::parse(amq::formats::cashu_state::Kind::ProofState, &point, "SPENT").unwrap().hash();
                    match http(&addr, "POST", "/api/v1/cashu/state", &serde_json::to_vec(&change).unwrap()) {
                        Ok((200, _)) => acked_states.lock().unwrap().push(e),
                        _ => return,
                    }
                }
            }));
        }
        std::thread::sleep(Duration::from_millis(40 + (round * 37) % 200));
        s.kill9();
        for c in clients {
            c.join().unwrap();
        }
    }
    let s = Server::start(&data, &ARGS);
    let want = acked.lock().unwrap().clone();
    assert!(all_found(&s, "f", &want));
    // the open block is served as of the last 1-second boundary: wait for one
    std::thread::sleep(Duration::from_millis(1100));
    let (_, info) = s.json("GET", "/v1/filters/info/proof_state", None);
    let height = info["blocks"].as_array().unwrap().len() - 1;
    let (status, bytes) = s
        .call(
            "GET",
            &format!("/v1/filters/blocks/proof_state/{height}"),
            None,
        )
        .unwrap();
    assert_eq!((status, height), (200, 0));
    let block = amq::formats::cashu_state::Block::from_bytes(bytes).unwrap();
    let states = acked_states.lock().unwrap().clone();
    assert!(
        states.iter().all(|e| block.contains_element(e)),
        "an acknowledged state change is missing"
    );
    eprintln!(
        "20 kill -9 rounds, {} items, {} Ys and {} state changes acknowledged, all found, in {:?}",
        want.len(),
        acked_ys.lock().unwrap().len(),
        states.len(),
        started.elapsed()
    );
    assert!(
        want.len() > 1000,
        "the clients got too little through: {}",
        want.len()
    );
}

#[test]
fn listen_takes_a_host_name() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut cmd = Command::new(AMQ);
    cmd.args(["serve", "--listen", "localhost:0", "--data"])
        .arg(&data);
    let s = Server::spawn(cmd);
    assert!(s.addr.starts_with("127.0.0.1:"), "{}", s.addr);
    let (status, v) = s.json("GET", "/api/v1/filters", None);
    assert_eq!(status, 200, "{v}");
    s.stop();
    let out = Command::new(AMQ)
        .args(["serve", "--listen", "localhost", "--data"])
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"localhost\" is not IP:PORT or HOST:PORT"),
        "{err}"
    );
}

/// `--workers N` runs N worker threads, as `/metrics` reports them (`amq_workers`), more
/// than the CPUs included; without it, one per CPU; 0 is refused before anything starts.
#[test]
fn workers_sets_the_runtimes_threads() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let workers = |s: &Server| {
        let (status, body) = s.call("GET", "/metrics", None).unwrap();
        assert_eq!(status, 200);
        let text = String::from_utf8(body).unwrap();
        let line = text.lines().find(|l| l.starts_with("amq_workers "));
        line.unwrap_or_else(|| panic!("no amq_workers in {text}"))
            .trim_start_matches("amq_workers ")
            .parse::<usize>()
            .unwrap()
    };
    let cpus = std::thread::available_parallelism().unwrap().get();
    for (args, expected) in [
        (&["--workers", "1"][..], 1),
        (&["--workers", "5"], 5),
        (&[], cpus),
    ] {
        let s = Server::start(&data, args);
        assert_eq!(workers(&s), expected, "{args:?}");
        let (status, v) = s.json("GET", "/api/v1/filters", None);
        assert_eq!(status, 200, "{v}");
        s.stop();
    }
    let out = Command::new(AMQ)
        .args(["serve", "--workers", "0", "--data"])
        .arg(dir.path().join("never"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--workers"), "{err}");
    assert!(!dir.path().join("never").exists());
}

/// A start that fails on its command line (a preload file that is missing, an address in
/// use) leaves the data directory as it was: not created, and no filter replaced.
#[test]
fn a_failed_start_leaves_the_data_directory_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let words = dir.path().join("words.txt");
    std::fs::write(&words, items("word", 0..1000).join("\n") + "\n").unwrap();
    let other = dir.path().join("other.txt");
    std::fs::write(&other, items("other", 0..1000).join("\n") + "\n").unwrap();
    let serve = |data: &std::path::Path, listen: &str, preloads: &[String]| {
        let mut cmd = Command::new(AMQ);
        cmd.args(["serve", "--listen", listen, "--data"]).arg(data);
        for p in preloads {
            cmd.args(["--preload", p]);
        }
        cmd.output().unwrap()
    };

    // a second preload file is missing: the first is not stored, nothing is created
    let fresh = dir.path().join("fresh");
    let missing = dir.path().join("missing.txt");
    let out = serve(
        &fresh,
        "127.0.0.1:0",
        &[
            format!("words={}", words.display()),
            format!("gone={}", missing.display()),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("missing.txt"), "{stderr}");
    assert!(!fresh.exists(), "{stderr}");

    // a store holding `words`; a start that would replace it with `other` cannot listen
    let data = dir.path().join("data");
    let s = Server::start(&data, &["--preload", &format!("words={}", words.display())]);
    let before = s.call("GET", "/api/v1/filters/words/export", None).unwrap();
    assert_eq!(before.0, 200);
    let taken = s.addr.clone();
    let out = serve(&data, &taken, &[format!("words={}", other.display())]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("cannot listen"), "{stderr}");
    s.stop();

    // and a missing second file with an existing store: `words` is not replaced either
    let out = serve(
        &data,
        "127.0.0.1:0",
        &[
            format!("words={}", other.display()),
            format!("gone={}", missing.display()),
        ],
    );
    assert!(!out.status.success());
    let s = Server::start(&data, &[]);
    let after = s.call("GET", "/api/v1/filters/words/export", None).unwrap();
    assert_eq!(after, before);
    assert_eq!(s.json("GET", "/api/v1/filters/gone", None).0, 404);
    s.stop();
}

/// A state-filter kind served again after a run that did not serve it: `amq serve` refuses to
/// start (its sequence missed the events of the gap, and going on would present that time as
/// covered), names `--state-filter-restart`, and records nothing; with the flag,
/// the kind begins anew at height 0 while the other kind keeps its blocks.
#[test]
fn a_state_filter_kind_served_again_restarts_or_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let both = [
        "--state-filter",
        "proof_state:10",
        "--state-filter",
        "mint_quote:10",
    ];
    let quote = |i: u32| {
        let id = format!("019e6d5a-2347-7000-8afa-{i:012x}");
        json!({"kind": "mint_quote", "id_hex": hex::encode(id)})
    };
    let s = Server::start(&data, &both);
    let (status, v) = s.json("POST", "/api/v1/cashu/state", Some(&quote(0)));
    assert_eq!(
        (status, &v["inserted"][0]["height"]),
        (200, &json!(0)),
        "{v}"
    );
    s.stop();
    let s = Server::start(&data, &both[..2]);
    assert_eq!(s.json("GET", "/v1/filters/info/mint_quote", None).0, 400);
    s.stop();

    // refused, twice: the first refusal recorded nothing (redb's own start-up commit aside);
    // a start that is not refused is killed after 30 s and fails the test
    for _ in 0..2 {
        let mut child = Command::new(AMQ)
            .args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(&data)
            .args(both)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(30) {
                child.kill().unwrap();
                panic!("amq serve started with a kind the last run did not serve");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(
            stderr.contains("--state-filter-restart mint_quote"),
            "{stderr}"
        );
    }

    let mut restart = both.to_vec();
    restart.extend(["--state-filter-restart", "mint_quote"]);
    let s = Server::start(&data, &restart);
    let (_, v) = s.json("GET", "/v1/filters/info/mint_quote", None);
    assert_eq!(v["blocks"].as_array().map(Vec::len), Some(1), "{v}");
    let (_, v) = s.json("POST", "/api/v1/cashu/state", Some(&quote(1)));
    assert_eq!(
        v["inserted"][0],
        json!({"kind": "mint_quote", "height": 0, "count": 1, "sealed": false})
    );
    s.stop();
    // served throughout from now on: the next start needs no flag
    let s = Server::start(&data, &both);
    assert_eq!(s.json("GET", "/v1/filters/info/mint_quote", None).0, 200);
    s.stop();
}

/// SIGTERM sent the moment the server says it is listening stops it cleanly (exit 0, "amq
/// serve: stopped"), every time: the handler must be in place before the line is printed.
/// It was installed only when the shutdown future was first polled, after the line, so a
/// supervisor that stopped the server at once could kill it outright (status "signal 15",
/// the logs not folded); `workers_sets_the_runtimes_threads`, which starts and stops servers
/// quickly, failed now and then on it. 40 starts, each stopped as soon as its line is read.
#[test]
fn sigterm_right_after_the_listening_line_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    for round in 0..40 {
        let mut cmd = Command::new(AMQ);
        cmd.args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(&data);
        let s = Server::spawn_capturing(cmd);
        let (status, stderr) = s.terminate();
        assert!(status.success(), "round {round}: {status:?}: {stderr}");
        assert!(
            stderr.contains("amq serve: stopped;"),
            "round {round}: {stderr}"
        );
    }
}
