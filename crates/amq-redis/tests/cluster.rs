//! A cluster of three masters on loopback (`redis-cli --cluster create`), every node with the
//! module: 100 filters spread over the slots, 10⁵ items added through a cluster client and
//! every one read back. A node asked for a key it does not own answers `MOVED` (the client,
//! not the module, follows it), and a command over keys of two slots is refused by the key
//! specs (`CROSSSLOT`).

mod common;

use common::*;
use redis::cluster::{cluster_pipe, ClusterClient};
use redis::Value;
use std::process::Command;
use std::time::{Duration, Instant};

const FILTERS: usize = 100;
const ITEMS: usize = 100_000;

#[test]
fn three_masters_hold_100_filters_and_every_item() {
    let ports: Vec<u16> = (0..3).map(|_| free_port(true)).collect();
    let nodes: Vec<Server> = ports
        .iter()
        .map(|&p| {
            Server::start_on(
                p,
                &[
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    "5000",
                ],
            )
        })
        .collect();
    let addresses: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    let out = Command::new("redis-cli")
        .args(["--cluster", "create"])
        .args(&addresses)
        .args(["--cluster-replicas", "0", "--cluster-yes"])
        .output()
        .expect("redis-cli (redis-tools) must be installed: scripts/test-redis installs it");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    for n in &nodes {
        let start = Instant::now();
        let mut c = n.con();
        loop {
            let Value::BulkString(info) = ok(&mut c, "CLUSTER INFO") else {
                panic!()
            };
            if String::from_utf8_lossy(&info).contains("cluster_state:ok") {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the cluster did not form"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    let client = ClusterClient::new(
        addresses
            .iter()
            .map(|a| format!("redis://{a}/"))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let mut con = client.get_connection().unwrap();
    // half Bloom, half cuckoo filters, keys spread over the slots
    let key = |f: usize| format!("filter:{f}");
    let mut pipe = cluster_pipe();
    for f in 0..FILTERS {
        if f.is_multiple_of(2) {
            pipe.cmd("BF.RESERVE")
                .arg(key(f))
                .arg(0.01)
                .arg(ITEMS / FILTERS);
        } else {
            pipe.cmd("CF.RESERVE").arg(key(f)).arg(ITEMS / FILTERS);
        }
    }
    let _: Vec<Value> = pipe.query(&mut con).unwrap();
    for chunk in (0..ITEMS).collect::<Vec<_>>().chunks(10_000) {
        let mut pipe = cluster_pipe();
        for &i in chunk {
            let f = i % FILTERS;
            let add = if f.is_multiple_of(2) {
                "BF.ADD"
            } else {
                "CF.ADD"
            };
            pipe.cmd(add).arg(key(f)).arg(format!("item-{i}"));
        }
        let _: Vec<Value> = pipe.query(&mut con).unwrap();
    }
    let mut found = 0;
    for chunk in (0..ITEMS).collect::<Vec<_>>().chunks(10_000) {
        let mut pipe = cluster_pipe();
        for &i in chunk {
            let f = i % FILTERS;
            let exists = if f.is_multiple_of(2) {
                "BF.EXISTS"
            } else {
                "CF.EXISTS"
            };
            pipe.cmd(exists).arg(key(f)).arg(format!("item-{i}"));
        }
        let answers: Vec<i64> = pipe.query(&mut con).unwrap();
        found += answers.iter().filter(|&&a| a == 1).count();
    }
    assert_eq!(found, ITEMS, "every item is read back");

    // the filters are spread over all three masters
    let held: Vec<i64> = nodes
        .iter()
        .map(|n| int(&ok(&mut n.con(), "DBSIZE")))
        .collect();
    assert_eq!(held.iter().sum::<i64>(), FILTERS as i64);
    assert!(held.iter().all(|&h| h > 10), "{held:?}");

    // a node that does not own a key answers MOVED; the cluster client follows it
    let mut plain = nodes[0].con();
    let (mut moved, mut owned) = (None, None);
    for f in 0..FILTERS {
        match cmd(&mut plain, &format!("BF.CARD {}", key(f & !1))) {
            Err(e) if e.starts_with("MOVED") => moved = moved.or(Some(f & !1)),
            Ok(_) => owned = owned.or(Some(f & !1)),
            Err(e) => panic!("{e}"),
        }
    }
    let (moved, owned) = (moved.unwrap(), owned.unwrap());
    let card: i64 = redis::cmd("BF.CARD")
        .arg(key(moved))
        .query(&mut con)
        .unwrap();
    // items added: a few of the 1000 were false positives of the filter when they came
    let per = (ITEMS / FILTERS) as i64;
    assert!(card <= per && card > per - 20, "{card}");
    // keys of two slots in one command: refused through the key specs
    let other = (0..FILTERS).step_by(2).find(|&f| f != owned).unwrap();
    let e = fails(
        &mut plain,
        &format!("AMQ.MERGE {} {}", key(owned), key(other)),
    );
    assert!(e.starts_with("CROSSSLOT") || e.starts_with("MOVED"), "{e}");
    let e = fails(
        &mut plain,
        &format!("AMQ.MERGE {} {}", key(owned), key(owned + 200)),
    );
    assert!(e.starts_with("CROSSSLOT"), "{e}");
}
