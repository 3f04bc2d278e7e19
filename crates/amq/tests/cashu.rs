//! The Cashu GCS filter against the published vectors (tests/vectors/cashu-gcs), and the
//! GetFilterResponse JSON.
#![cfg(feature = "cashu")]

use amq::formats::cashu::{
    bulk_all_negative, CashuFilter, CashuHash, GetFilterResponse, DEFAULT_M, DEFAULT_P,
};
use amq::gcs::hash_to_range;
use base64::Engine as _;
use serde_json::Value;

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/cashu-gcs/nuts-pr261-gcs-vector.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn hex_list(v: &Value) -> Vec<Vec<u8>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| unhex(s.as_str().unwrap()))
        .collect()
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn b64(s: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

#[test]
fn all_three_published_filters() {
    let v = vectors();
    let items = hex_list(&v["items_hex"]);
    assert_eq!(items.len(), 10);
    assert_eq!(v["p"], 19);
    assert_eq!(v["m"], 784_931);
    let cases = [
        (CashuHash::Murmur3X86_32x2, &v["filter_base64"]),
        (
            CashuHash::Murmur3X64_128,
            &v["hash128_variant"]["filter_base64"],
        ),
        (
            CashuHash::SipHash24 { key: [0; 16] },
            &v["siphash_variant"]["filter_base64"],
        ),
    ];
    for (hash, expected) in cases {
        let expected = b64(expected.as_str().unwrap());
        let filter = CashuFilter::build(&items, hash, DEFAULT_P, DEFAULT_M).unwrap();
        assert_eq!(filter.content(), &expected[..], "{}", hash.name());
        // read back from the published bytes: every item matches
        let received = CashuFilter::from_content(10, 19, 784_931, expected, hash).unwrap();
        received.gcs().validate().unwrap();
        assert!(received.match_many(&items).unwrap().iter().all(|&m| m));
        // the published non-members do not
        let non = hex_list(&v["non_members_hex"]);
        assert_eq!(received.match_many(&non).unwrap(), vec![false; non.len()]);
    }
    assert_eq!(
        v["siphash_variant"]["key_hex"],
        "00000000000000000000000000000000"
    );
}

#[test]
fn hash_to_range_cases() {
    let v = vectors();
    for (case, hash) in [
        (&v["hash_to_range_case"], CashuHash::Murmur3X86_32x2),
        (
            &v["hash128_variant"]["hash_to_range_case"],
            CashuHash::Murmur3X64_128,
        ),
    ] {
        let item = unhex(case["item_hex"].as_str().unwrap());
        let f = case["f"].as_u64().unwrap();
        assert_eq!(
            hash_to_range(hash.hash(&item), f),
            case["expected"].as_u64().unwrap()
        );
    }
}

#[test]
fn empty_set() {
    let v = vectors();
    assert_eq!(v["empty_set"]["filter_base64"], "");
    let filter =
        CashuFilter::build(Vec::<Vec<u8>>::new(), CashuHash::default(), 19, 784_931).unwrap();
    assert!(filter.content().is_empty());
    assert_eq!(filter.match_many(&[&b"anything"[..]]).unwrap(), [false]);
    let json = serde_json::to_string(&filter.to_response(5)).unwrap();
    assert_eq!(
        json,
        r#"{"n":0,"p":19,"m":784931,"content":"","timestamp":5}"#
    );
}

#[test]
fn duplicates_are_kept() {
    let items = [&b"a"[..], b"a", b"b"];
    let filter = CashuFilter::build(items, CashuHash::default(), 19, 784_931).unwrap();
    assert_eq!(filter.n(), 3);
    let values = filter.gcs().decode().unwrap();
    assert_eq!(
        values.iter().filter(|&&v| v == values[0]).count()
            + values.iter().filter(|&&v| v == values[2]).count(),
        3
    );
}

#[test]
fn response_json_reads_and_writes() {
    let v = vectors();
    let content = v["filter_base64"].as_str().unwrap();
    // content as an array, null p and m
    let json = format!(
        r#"{{"n": 10, "p": null, "m": null, "content": ["{content}"], "timestamp": 1700000000}}"#
    );
    let r: GetFilterResponse = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (r.n, r.p, r.m, r.timestamp),
        (10, 19, 784_931, 1_700_000_000)
    );
    // written with one string and explicit p, m; read back the same
    let out = serde_json::to_value(&r).unwrap();
    assert_eq!(out["content"], content);
    assert_eq!(out["p"], 19);
    let again: GetFilterResponse = serde_json::from_value(out).unwrap();
    assert_eq!(again, r);
    // missing p and m, content split in two strings, no padding
    let (a, b) = content.split_at(12);
    let json = format!(r#"{{"n": 10, "content": ["{a}", "{b}"], "timestamp": 1}}"#);
    let split: GetFilterResponse = serde_json::from_str(&json).unwrap();
    assert_eq!(split.content, r.content);
    let filter = split.into_filter(CashuHash::Murmur3X86_32x2).unwrap();
    assert!(filter
        .match_many(&hex_list(&v["items_hex"]))
        .unwrap()
        .iter()
        .all(|&m| m));
}

#[test]
fn unbounded_responses_are_refused() {
    for (json, why) in [
        (
            r#"{"n": 4294967296, "content": "", "timestamp": 0}"#,
            "invalid n",
        ),
        (
            r#"{"n": 1, "m": 4294967296, "content": "AAAA", "timestamp": 0}"#,
            "invalid m",
        ),
        (
            r#"{"n": 1, "m": 0, "content": "AAAA", "timestamp": 0}"#,
            "invalid m",
        ),
        (
            r#"{"n": 1, "p": 64, "content": "AAAAAAAAAAAA", "timestamp": 0}"#,
            "invalid p",
        ),
        (
            r#"{"n": 1, "p": 300, "content": "AAAA", "timestamp": 0}"#,
            "invalid p",
        ),
        // 1,000,000 items need at least 2.5 MB; the content holds 3 bytes
        (
            r#"{"n": 1000000, "content": "AAAA", "timestamp": 0}"#,
            "n (each item needs",
        ),
        (
            r#"{"n": 2, "content": "AAAA", "timestamp": 0}"#,
            "n (each item needs",
        ),
        (r#"{"n": 1, "content": "!!!!", "timestamp": 0}"#, "base64"),
        (
            r#"{"n": -1, "content": "", "timestamp": 0}"#,
            "expected u64",
        ),
        (r#"{"n": 1, "content": 5, "timestamp": 0}"#, "base64 string"),
        (r#"{"n": 1, "content": "AAAA"}"#, "timestamp"),
        // the five values in order, not as an object: no mint sends that
        (
            r#"[1, 19, 784931, "AAAA", 0]"#,
            "expected an object with n, content",
        ),
        (r#"5"#, "expected an object with n, content"),
    ] {
        let err = serde_json::from_str::<GetFilterResponse>(json).unwrap_err();
        assert!(
            err.to_string().contains(why),
            "{json}: error {err} does not mention {why}"
        );
    }
}

#[test]
fn bulk_table() {
    // the draft's table for M = 784931
    for (x, expected) in [
        (1, "0.999998726"),
        (10, "0.999987260"),
        (300, "0.999617874"),
        (5000, "0.993650255"),
    ] {
        assert_eq!(format!("{:.9}", bulk_all_negative(784_931, x)), expected);
    }
}

/// A response whose n does not match its content's codes is refused: a smaller n would leave
/// the last codes unread (their notes "definitely unspent"), a larger one ends inside a code.
#[test]
fn a_response_whose_n_does_not_match_its_content_is_refused() {
    let spent: Vec<Vec<u8>> = (0u32..1000).map(|i| i.to_le_bytes().to_vec()).collect();
    let filter =
        CashuFilter::build(&spent, CashuHash::Murmur3X86_32x2, DEFAULT_P, DEFAULT_M).unwrap();
    let content = base64::engine::general_purpose::STANDARD.encode(filter.content());
    let json =
        |n: u64, content: &str| format!(r#"{{"n": {n}, "content": "{content}", "timestamp": 0}}"#);
    let response: GetFilterResponse = serde_json::from_str(&json(1000, &content)).unwrap();
    let read = response.into_filter(CashuHash::Murmur3X86_32x2).unwrap();
    assert!(read.match_many(&spent).unwrap().iter().all(|&m| m));
    for (n, content, why) in [
        (999, content.clone(), "bytes after the last code"),
        // half: F halves, so the codes soon pass it
        (500, content.clone(), "a decoded value reaches F"),
        (1001, content.clone(), "truncated"),
        // a whole zero byte more than the codes need
        (
            1000,
            base64::engine::general_purpose::STANDARD
                .encode([filter.content(), &[0u8][..]].concat()),
            "1 bytes after the last code",
        ),
    ] {
        let err = serde_json::from_str::<GetFilterResponse>(&json(n, &content)).unwrap_err();
        assert!(err.to_string().contains(why), "n = {n}: {err}");
    }
}

/// A response whose content holds exactly the N·(P+1) bits its N codes need at the least is
/// read (three codes of quotient 0 and a 7-bit remainder in three bytes); one code more is
/// refused before any decoding.
#[test]
fn content_of_exactly_the_bits_n_needs_is_read() {
    let r: GetFilterResponse =
        serde_json::from_str(r#"{"n": 3, "p": 7, "content": "AAAA", "timestamp": 0}"#).unwrap();
    assert_eq!((r.n, r.p, &r.content[..]), (3, 7, &[0u8, 0, 0][..]));
    let f = r.into_filter(CashuHash::default()).unwrap();
    assert_eq!(f.gcs().decode().unwrap(), [0, 0, 0]);
    let err = serde_json::from_str::<GetFilterResponse>(
        r#"{"n": 4, "p": 7, "content": "AAAA", "timestamp": 0}"#,
    )
    .unwrap_err();
    assert!(err.to_string().contains("n (each item needs"), "{err}");
}

/// A target given twice is refused wherever its hash sorts among the others (first, last or
/// between), and distinct targets are answered in their order.
#[test]
fn repeated_targets_are_refused_wherever_they_sort() {
    let items: Vec<Vec<u8>> = (0u8..8).map(|i| vec![i; 3]).collect();
    let filter = CashuFilter::build(&items[..4], CashuHash::default(), 19, 784_931).unwrap();
    let answers = filter.match_many(&items).unwrap();
    assert_eq!(answers[..4], [true; 4]);
    for (i, item) in items.iter().enumerate() {
        assert_eq!(answers[i], filter.contains(item).unwrap(), "target {i}");
        let mut targets = items.clone();
        targets.push(item.clone());
        let err = filter.match_many(&targets).unwrap_err();
        assert!(
            matches!(
                err,
                amq::Error::InvalidParameter {
                    name: "targets",
                    ..
                }
            ),
            "target {i} twice: {err}"
        );
    }
}
