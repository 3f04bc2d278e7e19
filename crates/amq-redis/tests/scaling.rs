//! Filters that grow, through Redis: 10× the initial capacity goes in, every item is found,
//! and the false positives counted on fresh items stay within the stated compound ε (within
//! 3 binomial σ) and within 4σ of the rate `AMQ.INFO` estimates from the filter's state.
//! Deterministic: seed 0 and fixed item names.

mod common;

use amq::math::binomial_sigma;
use common::*;
use redis::{Connection, Value};

const CAPACITY: usize = 1_000;
const QUERIES: usize = 200_000;

/// Sends `command key item...` for `items` in batches; the replies, flattened.
fn batched(c: &mut Connection, command: &str, key: &str, items: &[String]) -> Vec<Value> {
    let mut out = Vec::with_capacity(items.len());
    for batch in items.chunks(5_000) {
        let mut args: Vec<&[u8]> = vec![command.as_bytes(), key.as_bytes()];
        args.extend(batch.iter().map(|s| s.as_bytes()));
        if command.ends_with("INSERT") {
            args.insert(2, b"ITEMS");
        }
        match call(c, &args).unwrap() {
            Value::Array(v) => out.extend(v),
            other => panic!("{other:?}"),
        }
    }
    out
}

fn truthy(v: &Value) -> bool {
    matches!(v, Value::Int(1) | Value::Boolean(true))
}

fn check(c: &mut Connection, family: &str, key: &str) {
    let items: Vec<String> = (0..10 * CAPACITY).map(|i| format!("member-{i}")).collect();
    let add = if family == "BF" {
        "BF.MADD"
    } else {
        "CF.INSERT"
    };
    let added = batched(c, add, key, &items);
    assert!(
        added.iter().all(|v| !matches!(v, Value::ServerError(_))),
        "{added:?}"
    );
    let found = batched(c, &format!("{family}.MEXISTS"), key, &items);
    assert!(found.iter().all(truthy), "every item is found");
    let fresh: Vec<String> = (0..QUERIES).map(|i| format!("stranger-{i}")).collect();
    let hits = batched(c, &format!("{family}.MEXISTS"), key, &fresh)
        .iter()
        .filter(|v| truthy(v))
        .count();
    let measured = hits as f64 / QUERIES as f64;
    let info = ok(c, &format!("AMQ.INFO {key}"));
    let bound = number(&field(&info, "fpr_bound"));
    let estimate = number(&field(&info, "estimated_fpr"));
    let links = int(&field(&info, "links"));
    assert!(links >= 3, "{key}: {links} links");
    assert!(
        bound <= 0.01,
        "{key}: the stated bound {bound} is within the asked ε"
    );
    assert!(
        measured <= bound + 3.0 * binomial_sigma(bound, QUERIES as u64),
        "{key}: measured {measured} over the bound {bound}"
    );
    let sigma = binomial_sigma(estimate, QUERIES as u64);
    assert!(
        (measured - estimate).abs() <= 4.0 * sigma,
        "{key}: measured {measured}, estimated {estimate} ± {sigma}"
    );
}

#[test]
fn a_scalable_bloom_filter_at_ten_times_its_capacity_keeps_its_bound() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(&mut c, &format!("BF.RESERVE sbf 0.01 {CAPACITY}"));
    check(&mut c, "BF", "sbf");
    assert_eq!(ints(&ok(&mut c, "BF.INFO sbf FILTERS")), [4]);
}

#[test]
fn an_expandable_cuckoo_filter_at_ten_times_its_capacity_keeps_its_bound() {
    let s = Server::start(&[]);
    let mut c = s.con();
    ok(
        &mut c,
        &format!("CF.RESERVE scf {CAPACITY} EXPANSION 2 ERROR 0.01"),
    );
    check(&mut c, "CF", "scf");
}
