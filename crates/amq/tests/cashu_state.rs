//! Cashu compact state filters (cashubtc/nuts PR #433): every published vector of both
//! revisions (tests/vectors/cashu-state), properties of blocks and epochs, a measured ε, and
//! the mint-side sequence under an injected clock.
#![cfg(feature = "cashu-state")]

use amq::clock::ManualClock;
use amq::formats::cashu_state::{
    capacity, epoch_position, expected_fill, fpr_at_fill, smallest_b, width_of, Block, BlockStore,
    Element, Epoch, FiltersInfo, Kind, MemoryStore, OpenHeader, Paging, SealedBlock, Sequence,
    SequenceConfig, Served, SnapshotRecord, StoredSequence, Words, MAX_B, MIN_B,
};
use amq::Error;
use base64::Engine as _;
use proptest::prelude::*;
use serde_json::Value;
use std::cell::Cell;
use std::rc::Rc;

// ------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/vectors/cashu-state"
);

fn json(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/{name}")).unwrap()).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn e32(v: &Value) -> [u8; 32] {
    unhex(v.as_str().unwrap()).try_into().unwrap()
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(u).collect()
}

fn elements(v: &Value) -> Vec<[u8; 32]> {
    v.as_array().unwrap().iter().map(e32).collect()
}

/// E of a vector entry with `kind`, `id_hex`, `state`.
fn element_of(v: &Value) -> [u8; 32] {
    let kind = Kind::parse(s(&v["kind"])).unwrap();
    let id = unhex(s(&v["id_hex"]));
    Element::parse(kind, &id, s(&v["state"])).unwrap().hash()
}

fn block_of(b: u8, elements: &[[u8; 32]]) -> Block {
    let mut block = Block::new(b).unwrap();
    for e in elements {
        block.insert(&Words::from_element(e));
    }
    block
}

fn b64(bytes: &[u8]) -> [String; 2] {
    [
        base64::engine::general_purpose::URL_SAFE.encode(bytes),
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes),
    ]
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| s(x).to_string())
        .collect()
}

// ------------------------------------------------------------------------------------------
// Provenance: the extracted JSON holds only values of the copied texts
// ------------------------------------------------------------------------------------------

fn hex_strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(x) if x.len() >= 8 && x.bytes().all(|c| c.is_ascii_hexdigit()) => out.push(x),
        Value::Array(a) => a.iter().for_each(|x| hex_strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| hex_strings(x, out)),
        _ => {}
    }
}

#[test]
fn extracted_vectors_come_from_the_copied_texts() {
    for (name, dir) in [
        ("revision-a.json", "revision-a-gcs-epochs"),
        ("revision-b.json", "revision-b-bloom-blocks"),
    ] {
        let text: String = ["XX.md", "XX-tests.md"]
            .iter()
            .map(|f| std::fs::read_to_string(format!("{DIR}/{dir}/{f}")).unwrap())
            .collect::<String>();
        // the bitmap in XX.md is wrapped over several lines
        let joined: String = text.split_whitespace().collect();
        let v = json(name);
        let mut found = Vec::new();
        hex_strings(&v, &mut found);
        assert!(found.len() > 40, "{name}: {} hex values", found.len());
        for h in found {
            let as_text = String::from_utf8(unhex(h)).unwrap_or_default();
            assert!(
                text.contains(h)
                    || joined.contains(h)
                    || (!as_text.is_empty() && text.contains(&as_text)),
                "{name}: {h} is not in the source texts"
            );
        }
    }
}

// ------------------------------------------------------------------------------------------
// Elements (both revisions)
// ------------------------------------------------------------------------------------------

#[test]
fn elements_of_both_revisions() {
    for name in ["revision-a.json", "revision-b.json"] {
        let v = json(name);
        let list = v["elements"].as_array().unwrap();
        assert_eq!(list.len(), if name == "revision-a.json" { 13 } else { 18 });
        for entry in list {
            assert_eq!(
                hex::encode(element_of(entry)),
                s(&entry["e"]),
                "{name} {}",
                entry["name"]
            );
        }
    }
    // the uppercase quote id gives a different element (no case folding)
    let a = json("revision-a.json");
    let els = a["elements"].as_array().unwrap();
    assert_ne!(els[8]["e"], els[12]["e"]);
}

#[test]
fn preimages_of_revision_a_and_cases_1_to_3_of_revision_b() {
    let a = json("revision-a.json");
    let b = json("revision-b.json");
    let cases = &b["cases"];
    let all = a["preimages"]
        .as_array()
        .unwrap()
        .iter()
        .chain(["1", "2", "3"].iter().map(|c| &cases[*c]));
    for (i, v) in all.enumerate() {
        let state = match v.get("state_hex") {
            Some(h) => String::from_utf8(unhex(s(h))).unwrap(),
            None => s(&v["state"]).to_string(),
        };
        let id = unhex(s(&v["id_hex"]));
        let kind = Kind::parse(s(&v["kind"])).unwrap();
        let e = Element::parse(kind, &id, &state).unwrap();
        assert_eq!(hex::encode(e.preimage()), s(&v["preimage"]), "preimage {i}");
        assert_eq!(hex::encode(e.hash()), s(&v["e"]), "E {i}");
    }
}

#[test]
fn unknown_kinds_and_states_are_errors() {
    let y = [2u8; 33];
    assert!(matches!(
        Kind::parse("proof"),
        Err(Error::Parse { what: "kind", .. })
    ));
    assert!("Proof_State".parse::<Kind>().is_err());
    for (kind, state) in [
        (Kind::ProofState, "spent"),
        (Kind::ProofState, "PAID"),
        (Kind::ProofState, ""),
        (Kind::MeltQuote, "SPENT"),
        (Kind::MintQuote, "PAID"),
        (Kind::BlindSignature, "SPENT"),
    ] {
        let id: &[u8] = if matches!(kind, Kind::ProofState | Kind::BlindSignature) {
            &y
        } else {
            b"q"
        };
        assert!(
            matches!(
                Element::parse(kind, id, state),
                Err(Error::Parse { what: "state", .. })
            ),
            "{kind} {state:?}"
        );
    }
    // ids: a point is 33 bytes starting with 02 or 03; a quote id is UTF-8
    assert!(Element::parse(Kind::ProofState, &[2; 32], "SPENT").is_err());
    assert!(Element::parse(Kind::BlindSignature, &[4; 33], "").is_err());
    assert!(Element::parse(Kind::MeltQuote, &[0xff], "PAID").is_err());
    assert!(Element::parse(Kind::MeltQuote, b"", "PAID").is_ok());
    for kind in Kind::ALL {
        assert_eq!(Kind::parse(kind.name()).unwrap(), kind);
        assert_eq!(
            serde_json::to_string(&kind).unwrap(),
            format!("\"{}\"", kind.name())
        );
    }
}

// ------------------------------------------------------------------------------------------
// Revision A
// ------------------------------------------------------------------------------------------

#[test]
fn revision_a_filter_encoding() {
    let v = json("revision-a.json");
    let f = &v["filter"];
    let p = u(&f["p"]) as u8;
    let es = elements(&f["elements"]);
    let n = u(&f["n"]);
    for (e, pos) in es.iter().zip(u64s(&f["positions"])) {
        assert_eq!(epoch_position(e, n, p).unwrap(), pos);
    }
    let built = Epoch::build(es.iter().copied(), p).unwrap();
    assert_eq!(hex::encode(built.as_bytes()), s(&f["data"]));
    // 19 bytes = 152 bits: 5 codes of 29 bits, 7 bits of padding
    assert_eq!(built.as_bytes().len() * 8, 5 * 29 + 7);
    let data = unhex(s(&f["data"]));
    let decoded = Epoch::decode(&data[..], p).unwrap();
    assert_eq!(decoded.n(), n);
    assert_eq!(decoded.positions().unwrap(), u64s(&f["sorted"]));
    decoded.validate().unwrap();
    for e in &es {
        assert!(decoded.contains(e).unwrap());
    }
    // duplicates are removed before N is counted
    let twice = Epoch::build(es.iter().chain(&es).copied(), p).unwrap();
    assert_eq!(twice.as_bytes(), built.as_bytes());
}

#[test]
fn revision_a_single_and_empty_filters() {
    let v = json("revision-a.json");
    let one = &v["single"];
    let p = u(&one["p"]) as u8;
    let e = element_of(one);
    assert_eq!(epoch_position(&e, 1, p).unwrap(), u(&one["pos"]));
    assert_eq!(u(&one["delta"]), u(&one["pos"]));
    assert_eq!(u(&one["pos"]) >> p, u(&one["quotient"]));
    assert_eq!(
        format!("{:028b}", u(&one["pos"])),
        s(&one["remainder_bits"])
    );
    let built = Epoch::build([e], p).unwrap();
    assert_eq!(hex::encode(built.as_bytes()), s(&one["data"]));
    assert_eq!(
        Epoch::decode(built.as_bytes(), p).unwrap().n(),
        u(&one["n"])
    );

    let empty = &v["empty"];
    let built = Epoch::build([], 28).unwrap();
    assert_eq!(hex::encode(built.as_bytes()), s(&empty["data"]));
    let decoded = Epoch::decode(&[][..], 28).unwrap();
    assert_eq!(decoded.n(), u(&empty["n"]));
    assert!(!decoded.contains(&e).unwrap());
    assert_eq!(decoded.match_many(&[e]).unwrap(), [false]);
    decoded.validate().unwrap();
}

#[test]
fn revision_a_matching() {
    let v = json("revision-a.json");
    let m = &v["matching"];
    let e = element_of(m);
    assert_eq!(hex::encode(e), s(&m["e"]));
    let filter = Epoch::decode(unhex(s(&v["filter"]["data"])), u(&m["p"]) as u8).unwrap();
    assert_eq!(filter.n(), u(&m["n"]));
    assert_eq!(filter.position(&e), u(&m["pos"]));
    assert_eq!(filter.contains(&e).unwrap(), m["match"].as_bool().unwrap());
    let mut candidates = elements(&v["filter"]["elements"]);
    candidates.push(e);
    assert_eq!(
        filter.match_many(&candidates).unwrap(),
        [true, true, true, true, true, false]
    );
}

#[test]
fn revision_a_paging_and_the_spec_example() {
    let v = json("revision-a.json");
    let pg = &v["paging"];
    let (epoch, start) = (u(&pg["epoch"]), u(&pg["earliest_start"]));
    let pages = Paging::new(u(&pg["page_size"])).unwrap();
    let filters = u(&pg["filters"]);
    assert_eq!(
        pages.current(filters),
        (u(&pg["current_page"]), u(&pg["current_page_count"]))
    );
    assert_eq!(start + filters * epoch, u(&pg["latest_end"]));
    let p0 = pages.filters(0);
    assert_eq!(p0.end - p0.start, u(&pg["page_0"]["filters"]));
    assert_eq!(start + p0.start * epoch, u(&pg["page_0"]["start"]));
    assert_eq!(start + p0.end * epoch, u(&pg["page_0"]["end"]));
    assert_eq!(
        start + pages.filters(174).end * epoch,
        u(&pg["page_174"]["end"])
    );
    assert_eq!(u(&pg["page_175"]["filters"]), pages.current(filters).1);
    assert!(176 > pages.current(filters).0 && u(&pg["page_176"]["error"]) == 40002);
    assert!(Paging::new(0).is_err());

    // XX.md's page: the five-element filter, then an empty epoch, contiguous
    let ex = v["spec_example"]["filters"].as_array().unwrap();
    assert_eq!(ex[0]["data"], v["filter"]["data"]);
    assert_eq!(ex[0]["end"], ex[1]["start"]);
    assert_eq!(Epoch::decode(unhex(s(&ex[1]["data"])), 28).unwrap().n(), 0);
}

#[test]
fn revision_a_p_bounds_and_validation() {
    let e = [7u8; 32];
    assert!(Epoch::build([e], 6).is_err());
    assert!(Epoch::decode(&[0u8; 4][..], 6).is_err());
    assert!(Epoch::build([e], 32).is_err());
    for p in [7, 24, 28, 31] {
        let built = Epoch::build([e, [9; 32], [1; 32]], p).unwrap();
        let d = Epoch::decode(built.as_bytes(), p).unwrap();
        assert_eq!(d.n(), 3, "p = {p}");
        d.validate().unwrap();
    }
    let built = Epoch::build([e, [9; 32]], 28).unwrap();
    // a trailing zero byte is shorter than a code: N stays 2, but it is not canonical
    let mut longer = built.as_bytes().to_vec();
    longer.push(0);
    let d = Epoch::decode(&longer[..], 28).unwrap();
    assert_eq!(d.n(), 2);
    assert!(d.validate().is_err());
    // a set padding bit
    let mut padded = built.as_bytes().to_vec();
    *padded.last_mut().unwrap() |= 1;
    assert!(Epoch::decode(&padded[..], 28).unwrap().validate().is_err());
    // a code that starts but does not end
    assert!(matches!(
        Epoch::decode(&[0xff; 5][..], 28),
        Err(Error::Truncated { .. })
    ));
}

// ------------------------------------------------------------------------------------------
// Revision B: cases 1 to 7
// ------------------------------------------------------------------------------------------

#[test]
fn revision_b_single_element_cases() {
    let v = json("revision-b.json");
    for c in ["1", "2", "3"] {
        let case = &v["cases"][c];
        let e = e32(&case["e"]);
        let words = Words::from_element(&e);
        let listed: Vec<u32> = strs(&case["words"])
            .iter()
            .map(|w| u32::from_str_radix(w, 16).unwrap())
            .collect();
        assert_eq!(words.as_array()[..], listed[..], "case {c} words");
        let be: Vec<String> = words
            .as_array()
            .iter()
            .map(|w| format!("{w:08x}"))
            .collect();
        assert_eq!(be[..8].concat(), s(&case["d0"]), "case {c} d0");
        assert_eq!(be[8..].concat(), s(&case["d1"]), "case {c} d1");
        let b = u(&case["b"]) as u8;
        let positions = words.positions(b).unwrap();
        assert_eq!(
            positions.iter().map(|&p| u64::from(p)).collect::<Vec<_>>(),
            u64s(&case["positions"])
        );
        let mut distinct = positions.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len() as u64, u(&case["distinct"]));
        let block = block_of(b, &[e]);
        assert_eq!(block.popcount(), u(&case["popcount"]));
        assert_eq!(block.bit_len(), u(&case["bits"]));
        assert_eq!(hex::encode(block.as_bytes()), s(&case["hex"]), "case {c}");
        assert_eq!(b64(block.as_bytes()).to_vec(), strs(&case["base64"]));
        assert!(block.contains(&words));
    }
}

#[test]
fn revision_b_case_4_several_elements_and_a_non_member() {
    let v = json("revision-b.json");
    let c = &v["cases"]["4"];
    let es = elements(&c["elements"]);
    // the five SPENT elements of the first section
    let firsts: Vec<[u8; 32]> = v["elements"].as_array().unwrap()[..5]
        .iter()
        .map(|x| e32(&x["e"]))
        .collect();
    assert_eq!(es, firsts);
    assert_eq!(es.len() as u64, u(&c["count"]));
    let b = u(&c["b"]) as u8;
    let block = block_of(b, &es);
    assert_eq!(block.popcount(), u(&c["popcount"]));
    assert_eq!(block.bit_len(), u(&c["bits"]));
    assert_eq!(hex::encode(block.as_bytes()), s(&c["hex"]));
    assert_eq!(b64(block.as_bytes()).to_vec(), strs(&c["base64"]));
    assert!(es.iter().all(|e| block.contains_element(e)));
    assert_eq!(capacity(b).unwrap(), u(&c["capacity_b10"]));

    let nm = &c["non_member"];
    let y = unhex(s(&v["cases"]["1"]["id_hex"]));
    let ys: Vec<String> = strs(&nm["y"]);
    assert!(hex::encode(&y).starts_with(&ys[0]) && hex::encode(&y).ends_with(&ys[1]));
    let e = Element::parse(Kind::ProofState, &y, s(&nm["state"]))
        .unwrap()
        .hash();
    assert_eq!(hex::encode(e), s(&nm["e"]));
    let words = Words::from_element(&e);
    let positions = words.positions(b).unwrap();
    assert_eq!(
        positions.iter().map(|&p| u64::from(p)).collect::<Vec<_>>(),
        u64s(&nm["positions"])
    );
    let p0 = positions[0];
    assert_eq!(u64::from(p0), u(&nm["p_0"]));
    assert_eq!(u64::from(p0 >> 3), u(&nm["byte"]));
    assert_eq!(u64::from(0x80u32 >> (p0 & 7)), u(&nm["mask"]));
    assert_eq!(u64::from(block.get(p0)), u(&nm["bit"]));
    // the test ends on its first probe
    assert_eq!(block.first_clear(&words), Some(0));
    assert!(!block.contains(&words));
}

#[test]
fn revision_b_case_5_collisions() {
    let v = json("revision-b.json");
    let c = &v["cases"]["5"];
    let e = e32(&c["e"]);
    assert_eq!(c["e"], v["cases"]["1"]["e"]);
    let words = Words::from_element(&e);
    let b = u(&c["b"]) as u8;
    let pos = words.positions(b).unwrap();
    assert_eq!(
        pos.iter().map(|&p| u64::from(p)).collect::<Vec<_>>(),
        u64s(&c["positions"])
    );
    for pair in c["colliding_words"].as_array().unwrap() {
        let [i, j, p] = u64s(pair)[..] else {
            panic!("{pair}")
        };
        assert_eq!(u64::from(pos[i as usize]), p);
        assert_eq!(u64::from(pos[j as usize]), p);
    }
    let distinct = |b: u8| {
        let mut p = words.positions(b).unwrap().to_vec();
        p.sort_unstable();
        p.dedup();
        p.len() as u64
    };
    assert_eq!(distinct(b), u(&c["distinct"]));
    for (w, d) in c["distinct_at"].as_object().unwrap() {
        assert_eq!(distinct(w.parse().unwrap()), u(d), "b = {w}");
    }
    // one insertion, counted once, fills a b = 5 block (capacity 1)
    assert_eq!(u(&c["count"]), 1);
    assert_eq!(capacity(b).unwrap(), 1);
    let block = block_of(b, &[e]);
    assert_eq!(block.popcount(), u(&c["popcount"]));
    assert_eq!(block.bit_len(), u(&c["bits"]));
    assert_eq!(hex::encode(block.as_bytes()), s(&c["hex"]));
    assert_eq!(b64(block.as_bytes()).to_vec(), strs(&c["base64"]));
}

#[test]
fn revision_b_case_6_nesting() {
    let v = json("revision-b.json");
    let c = &v["cases"]["6"];
    let words = Words::from_element(&e32(&c["e"]));
    let at = |b: u8| -> Vec<u64> {
        words
            .positions(b)
            .unwrap()
            .iter()
            .map(|&p| u64::from(p))
            .collect()
    };
    assert_eq!(at(22), u64s(&c["positions_22"]));
    assert_eq!(at(10), u64s(&c["positions_10"]));
    let shifted: Vec<u64> = at(22).iter().map(|p| p >> 12).collect();
    assert_eq!(shifted, u64s(&c["shifted_22_to_10"]));
    assert_eq!(shifted, at(10));
    for (i, w) in c["words"].as_object().unwrap() {
        let i: usize = i.parse().unwrap();
        assert_eq!(words.as_array()[i], u32::from_str_radix(s(w), 16).unwrap());
    }
    assert_eq!(at(22)[0], u(&c["p_0_at_22"]));
    assert_eq!(
        u64::from(words.as_array()[0] >> (32 - 22)),
        u(&c["p_0_at_22"])
    );
}

#[test]
fn revision_b_case_7_fold() {
    let v = json("revision-b.json");
    let c = &v["cases"]["7"];
    let es = elements(&v["cases"]["4"]["elements"]);
    let (from, to) = (u(&c["from_b"]) as u8, u(&c["to_b"]) as u8);
    let folded = block_of(from, &es).fold(to).unwrap();
    assert_eq!(folded.b(), to);
    assert_eq!(folded.popcount(), u(&c["popcount"]));
    assert_eq!(folded.bit_len(), u(&c["bits"]));
    assert_eq!(hex::encode(folded.as_bytes()), s(&c["hex"]));
    assert_eq!(b64(folded.as_bytes()).to_vec(), strs(&c["base64"]));
    assert_eq!(
        folded == block_of(to, &es),
        c["fold_equals_direct"].as_bool().unwrap()
    );
    assert_eq!(
        es.iter().all(|e| folded.contains_element(e)),
        c["all_match"].as_bool().unwrap()
    );
    // folding to b itself copies; widening and b below 5 are refused
    let block = block_of(from, &es);
    assert_eq!(block.fold(from).unwrap(), block);
    assert!(block.fold(from + 1).is_err());
    assert!(block.fold(4).is_err());
}

// ------------------------------------------------------------------------------------------
// Revision B: capacity, sizing, saturation, scanning
// ------------------------------------------------------------------------------------------

#[test]
fn revision_b_capacity_and_right_sizing() {
    let v = json("revision-b.json");
    for row in v["capacity"].as_array().unwrap() {
        let b = u(&row["b"]) as u8;
        assert_eq!(capacity(b).unwrap(), u(&row["capacity"]), "b = {b}");
        assert_eq!(
            Block::new(b).unwrap().as_bytes().len() as u64,
            u(&row["bytes"])
        );
        assert_eq!(width_of(u(&row["bytes"]) as usize), Some(b));
    }
    for row in v["right_size"].as_array().unwrap() {
        let count = u(&row["count"]);
        let b = smallest_b(count).unwrap();
        assert_eq!(u64::from(b), u(&row["b"]), "count {count}");
        assert_eq!(1u64 << (b - 3), u(&row["bytes"]));
    }
    // 2.89 bytes an insertion from b = 12 up; 4 at b = 5, 2.91 at b = 8
    let per =
        |b: u8| ((1u64 << (b - 3)) as f64 / capacity(b).unwrap() as f64 * 100.0).round() / 100.0;
    let bpi = &v["bytes_per_insertion"];
    for b in u(&bpi["from_b"]) as u8..=MAX_B {
        assert_eq!(per(b), bpi["value"].as_f64().unwrap(), "b = {b}");
    }
    assert_eq!(per(5), bpi["at_b5"].as_f64().unwrap());
    assert_eq!(per(8), bpi["at_b8"].as_f64().unwrap());
    // the bounds
    assert!(capacity(MIN_B - 1).is_err() && capacity(MAX_B + 1).is_err());
    assert_eq!(smallest_b(capacity(MAX_B).unwrap() + 1), None);
    for b in MIN_B..MAX_B {
        assert!(capacity(b).unwrap() < capacity(b + 1).unwrap());
        assert_eq!(smallest_b(capacity(b).unwrap()), Some(b));
    }
}

#[test]
fn revision_b_sizing_each_kind() {
    let v = json("revision-b.json");
    for row in v["sizing"].as_array().unwrap() {
        let (kind, per_day, b) = (s(&row["kind"]), u(&row["per_day"]), u(&row["b"]) as u8);
        // every row is consistent in itself: bitmap size and rotation
        assert_eq!(1u64 << (b - 3), u(&row["bytes"]), "{kind}");
        let days = capacity(b).unwrap() as f64 / per_day as f64;
        assert_eq!(
            (days * 10.0).round() / 10.0,
            row["rotation_days"].as_f64().unwrap()
        );
        // the rule: the smallest b whose capacity holds a day. The mint_quote row breaks it
        // upstream (b = 18 where the rule gives 17, capacity 5678 ≥ 5000): the rule wins.
        let rule = smallest_b(per_day).unwrap();
        if kind == "mint_quote" {
            assert_eq!((rule, b), (17, 18));
            assert!(capacity(17).unwrap() >= per_day);
        } else {
            assert_eq!(rule, b, "{kind}");
        }
    }
}

#[test]
fn revision_b_saturation_and_scanning() {
    let v = json("revision-b.json");
    let sat = &v["saturation"];
    let b = u(&sat["b"]) as u8;
    for row in sat["rows"].as_array().unwrap() {
        let count = u(&row["count"]);
        let f = expected_fill(b, count).unwrap();
        let printed = row["fill"].as_f64().unwrap();
        assert_eq!((f * 1e4).round() / 1e4, printed, "count {count}");
        let shown = row["one_in"].as_f64().unwrap();
        let fmt = |inv: f64| -> f64 {
            if shown >= 1e6 {
                format!("{inv:.1e}").parse().unwrap()
            } else {
                inv.round()
            }
        };
        // the "1 in" column follows the exact fill or the fill as printed (the capacity row)
        assert!(
            fmt(1.0 / fpr_at_fill(f)) == shown || fmt(1.0 / fpr_at_fill(printed)) == shown,
            "count {count}: 1 in {}",
            1.0 / fpr_at_fill(f)
        );
    }
    assert_eq!(fpr_at_fill(0.5), 2f64.powi(-16));
    for row in v["or_blocks"].as_array().unwrap() {
        let k = u(&row["blocks"]) as i32;
        let f = 1.0 - 0.5f64.powi(k);
        assert_eq!((f * 1e4).round() / 1e4, row["fill"].as_f64().unwrap());
        assert_eq!((1.0 / fpr_at_fill(f)).round() as u64, u(&row["one_in"]));
    }
    let sc = &v["scanning"];
    let blocks = u(&sc["blocks"]) as f64;
    assert_eq!(s(&sc["fpr"]), "2^-16");
    let p = fpr_at_fill(0.5);
    for row in sc["issuance"].as_array().unwrap() {
        let x = u(&row["candidates"]) as f64 * blocks * p;
        assert_eq!((x * 10.0).round() / 10.0, row["expected"].as_f64().unwrap());
    }
    for row in sc["live_spent"].as_array().unwrap() {
        let x = u(&row["proofs"]) as f64 * blocks * p;
        assert_eq!((x * 10.0).round() / 10.0, row["expected"].as_f64().unwrap());
    }
}

#[test]
fn or_of_two_saturated_blocks_fills_three_quarters() {
    // "Two blocks with the same b can be merged with a bitwise OR ... fill 0.75": two blocks
    // sealed at capacity, of distinct elements, OR'd (b = 16, 4,542 insertions each).
    let b = 16;
    let cap = capacity(b).unwrap();
    let make = |seed: u64| {
        let es: Vec<[u8; 32]> = (0..cap).map(|i| sha_counter(seed, i)).collect();
        block_of(b, &es)
    };
    let (x, y) = (make(1), make(2));
    let or: Vec<u8> = x
        .as_bytes()
        .iter()
        .zip(y.as_bytes())
        .map(|(a, b)| a | b)
        .collect();
    let or = Block::from_bytes(or).unwrap();
    // each is near half full; the union near 0.75 (binomial spread of 2^16 bits: σ ≈ 0.002)
    assert!((x.fill() - 0.5).abs() < 0.01, "{}", x.fill());
    assert!((or.fill() - 0.75).abs() < 0.01, "{}", or.fill());
}

/// A stand-in element: 32 bytes from a counter (SplitMix64 words).
fn sha_counter(seed: u64, i: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (k, chunk) in out.chunks_mut(8).enumerate() {
        let mut z = seed
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(i * 4 + k as u64)
            .wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

#[test]
fn measured_fpr_is_fill_to_the_sixteenth() {
    // A fixed bitmap of fill f: a non-member's 16 positions are independent and uniform, so
    // it matches with probability f^16 exactly. Fill to about 0.75 (twice the capacity at
    // b = 12) so that f^16 ≈ 1%; 100,000 non-members; 3 binomial sigmas; fixed seed.
    let b = 12;
    let inserted: Vec<[u8; 32]> = (0..2 * capacity(b).unwrap())
        .map(|i| sha_counter(7, i))
        .collect();
    let block = block_of(b, &inserted);
    let p = block.fpr();
    assert!((0.005..0.02).contains(&p), "{p}");
    let n = 100_000u64;
    let hits = (0..n)
        .filter(|&i| block.contains_element(&sha_counter(8, i)))
        .count() as f64;
    let measured = hits / n as f64;
    let sigma = amq::math::binomial_sigma(p, n);
    assert!(
        (measured - p).abs() <= 3.0 * sigma,
        "measured {measured}, expected {p} ± {}",
        3.0 * sigma
    );
    // the count estimate from the popcount is near the insertions made
    let est = block.count_estimate().unwrap();
    assert!((est / inserted.len() as f64 - 1.0).abs() < 0.05, "{est}");
}

// ------------------------------------------------------------------------------------------
// Revision B: the info response, heights, the spec's example
// ------------------------------------------------------------------------------------------

#[test]
fn revision_b_sequence_summary() {
    let v = json("revision-b.json");
    let sum = &v["sequence_summary"];
    let proof: FiltersInfo = serde_json::from_value(sum["proof_state"].clone()).unwrap();
    let melt: FiltersInfo = serde_json::from_value(sum["melt_quote"].clone()).unwrap();
    for (info, raw) in [(&proof, &sum["proof_state"]), (&melt, &sum["melt_quote"])] {
        info.validate().unwrap();
        assert_eq!(&serde_json::to_value(info).unwrap(), raw);
        assert_eq!(info.open_height(), 3);
        assert!(info.is_sealed(2) && !info.is_sealed(3));
    }
    assert_eq!(proof.blocks[2].start, 1_737_284_757);
    assert_eq!(proof.blocks[2].end, Some(1_737_412_757));
    assert_eq!(proof.open_interval, Some(60));
    assert_eq!(melt.open_interval, None);
    let r = &sum["restore"];
    assert_eq!(proof.restore_height(u(&r["seed_time"])), u(&r["height"]));
    assert_eq!(proof.restore_height(0), 0);
    // the field order of the spec
    let text = serde_json::to_string(&melt).unwrap();
    assert!(text.starts_with(r#"{"b":12,"timeout":604800,"open_interval":null,"blocks":[{"start":1736790000,"end":1736945000}"#), "{text}");

    // broken rules are reported
    let mut bad = proof.clone();
    bad.blocks[1].start += 1;
    assert!(bad.validate().is_err());
    let mut bad = proof.clone();
    bad.blocks[3].end = Some(1_737_412_758);
    assert!(bad.validate().is_err());
    let mut bad = proof.clone();
    bad.blocks[1].end = None;
    assert!(bad.validate().is_err());
    let mut bad = proof.clone();
    bad.blocks.clear();
    assert!(bad.validate().is_err());
    let mut bad = proof.clone();
    bad.timeout = 3599;
    assert!(bad.validate().is_err());
    let mut bad = proof.clone();
    bad.b = 27;
    assert!(bad.validate().is_err());
}

#[test]
fn revision_b_heights_and_the_seal_boundary() {
    let v = json("revision-b.json");
    let sum = &v["sequence_summary"];
    let covered: Vec<(&str, FiltersInfo)> = ["proof_state", "melt_quote"]
        .into_iter()
        .map(|k| (k, serde_json::from_value(sum[k].clone()).unwrap()))
        .collect();
    for row in v["heights"].as_array().unwrap() {
        let path = s(&row["path"]);
        let code = u(&row["code"]);
        let parts: Vec<&str> = path.split('/').collect();
        let kind = Kind::parse(parts[4]).unwrap();
        let Some((_, info)) = covered.iter().find(|(k, _)| *k == kind.name()) else {
            assert_eq!(code, 40002, "{path}: a kind this mint does not cover");
            continue;
        };
        assert_eq!(parts[3], "blocks");
        let height: u64 = parts[5].parse().unwrap();
        assert_eq!(info.fetchable(height), code == 200, "{path}");
        if let Some(len) = row["bytes"].as_u64() {
            let b = width_of(len as usize);
            assert_eq!(
                b.is_none(),
                row["reject"].as_bool().unwrap(),
                "{path} {len}"
            );
            if let Some(b) = b {
                assert_eq!(b, info.b);
            }
            assert_eq!(
                Block::from_bytes(vec![0u8; len as usize]).is_err(),
                b.is_none()
            );
        }
    }
    assert_eq!(width_of(512), Some(12));
}

#[test]
fn revision_b_spec_example() {
    let v = json("revision-b.json");
    let ex = &v["spec_example"];
    assert_eq!(ex["block_hex"], v["cases"]["4"]["hex"]);
    let bytes = unhex(s(&ex["block_hex"]));
    let block = Block::from_bytes(&bytes[..]).unwrap();
    let info: FiltersInfo = serde_json::from_value(ex["info"].clone()).unwrap();
    info.validate().unwrap();
    assert_eq!(block.b(), info.b);
    assert_eq!(block.popcount(), u(&ex["popcount"]));
    assert!(info.fetchable(0) && info.fetchable(1) && !info.fetchable(2));
    assert_eq!(capacity(20).unwrap(), 45_426);
    assert_eq!(Block::new(20).unwrap().as_bytes().len(), 128 << 10);
}

// ------------------------------------------------------------------------------------------
// Properties
// ------------------------------------------------------------------------------------------

proptest! {
    #[test]
    fn folded_blocks_answer_every_inserted_element(
        b in MIN_B..=16u8,
        shrink in 0u8..=11,
        es in prop::collection::vec(any::<[u8; 32]>(), 0..40),
    ) {
        let to = b.saturating_sub(shrink).max(MIN_B);
        let block = block_of(b, &es);
        let folded = block.fold(to).unwrap();
        for e in &es {
            prop_assert!(block.contains_element(e));
            prop_assert!(folded.contains_element(e));
        }
        prop_assert_eq!(&folded, &block_of(to, &es));
        prop_assert!(folded.popcount() <= block.popcount());
    }

    #[test]
    fn positions_nest_for_every_smaller_width(e in any::<[u8; 32]>(), b in MIN_B..=MAX_B) {
        let words = Words::from_element(&e);
        let wide = words.positions(b).unwrap();
        for to in MIN_B..=b {
            let narrow = words.positions(to).unwrap();
            for i in 0..16 {
                prop_assert_eq!(narrow[i], wide[i] >> (b - to));
                prop_assert!(u64::from(wide[i]) < 1u64 << b);
            }
        }
    }

    #[test]
    fn epochs_round_trip(
        es in prop::collection::vec(any::<[u8; 32]>(), 0..60),
        repeat in 0usize..5,
        p in 7u8..=31,
    ) {
        let with_repeats = es.iter().chain(es.iter().take(repeat)).copied();
        let built = Epoch::build(with_repeats, p).unwrap();
        let mut distinct = es.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let d = Epoch::decode(built.as_bytes(), p).unwrap();
        prop_assert_eq!(d.n(), distinct.len() as u64);
        d.validate().unwrap();
        let positions = d.positions().unwrap();
        prop_assert!(positions.windows(2).all(|w| w[0] <= w[1]));
        prop_assert!(d.match_many(&es).unwrap().iter().all(|&m| m));
        for e in &es {
            prop_assert!(d.contains(e).unwrap());
            prop_assert!(positions.contains(&d.position(e)));
        }
    }

    #[test]
    fn decoders_never_panic(data in prop::collection::vec(any::<u8>(), 0..300), p in 0u8..40) {
        if let Ok(d) = Epoch::decode(&data[..], p) {
            let _ = d.contains(&[0x5a; 32]);
            let _ = d.match_many(&[[0; 32], [0xff; 32]]);
            if d.validate().is_ok() {
                // canonical data is what the encoder writes for its positions
                prop_assert_eq!(d.positions().unwrap().len() as u64, d.n());
            }
        }
        if let Ok(block) = Block::from_bytes(&data[..]) {
            let _ = block.contains_element(&[1; 32]);
            let _ = block.fold(MIN_B).unwrap();
            prop_assert!(block.fill() <= 1.0);
        }
        let text = String::from_utf8_lossy(&data);
        let _ = serde_json::from_str::<FiltersInfo>(&text).map(|i| i.validate());
        let _ = Kind::parse(&text).map(|k| Element::parse(k, &data, &text));
    }
}

// ------------------------------------------------------------------------------------------
// The mint-side sequence, under an injected clock
// ------------------------------------------------------------------------------------------

const T0: u64 = 1_700_000_000;
const HOUR: u64 = 3600;

fn config(kind: Kind, b: u8) -> SequenceConfig {
    SequenceConfig {
        timeout: HOUR,
        ..SequenceConfig::new(kind, b)
    }
}

fn sealed_bytes<S: BlockStore, C: amq::clock::Clock>(seq: &mut Sequence<S, C>, h: u64) -> Vec<u8>
where
    S::Error: std::fmt::Debug,
{
    match seq.block(h).unwrap() {
        Some(Served::Sealed(bytes)) => bytes,
        other => panic!("height {h}: {other:?}"),
    }
}

#[test]
fn sequence_seals_on_capacity() {
    let clock = ManualClock::new(T0);
    let mut seq = Sequence::open(
        config(Kind::ProofState, 8),
        MemoryStore::default(),
        clock.clone(),
    )
    .unwrap();
    let cap = capacity(8).unwrap(); // 11
    let es: Vec<[u8; 32]> = (0..cap).map(|i| sha_counter(1, i)).collect();
    for (i, e) in es.iter().enumerate() {
        clock.advance(1);
        let r = seq.insert(e).unwrap();
        assert_eq!(r.height, 0);
        assert_eq!(r.count, i as u64 + 1);
        assert!(r.count <= cap);
        assert_eq!(r.sealed, r.count == cap);
    }
    let info = seq.info().unwrap();
    info.validate().unwrap();
    assert_eq!(info.blocks.len(), 2);
    assert_eq!(info.blocks[0].start, T0);
    assert_eq!(info.blocks[0].end, Some(T0 + cap)); // the time of the filling insertion
    assert_eq!(info.blocks[1].start, T0 + cap);
    assert_eq!(seq.open_count(), 0);
    // sealed at capacity: not folded, the same bytes as the direct build
    assert_eq!(sealed_bytes(&mut seq, 0), block_of(8, &es).into_bytes());

    // repeats count: the same element `cap` times seals the next block too
    for _ in 0..cap {
        seq.insert(&es[0]).unwrap();
    }
    assert_eq!(seq.open_height(), 2);
    let one = sealed_bytes(&mut seq, 1);
    assert_eq!(one, block_of(8, &es[..1]).into_bytes());
}

#[test]
fn sequence_seals_on_timeout_folds_and_seals_empty_blocks() {
    let clock = ManualClock::new(T0);
    let mut seq = Sequence::open(
        config(Kind::MeltQuote, 12),
        MemoryStore::default(),
        clock.clone(),
    )
    .unwrap();
    let es: Vec<[u8; 32]> = (0..3).map(|i| sha_counter(2, i)).collect();
    for e in &es {
        seq.insert(e).unwrap();
    }
    clock.advance(HOUR - 1);
    assert_eq!(seq.info().unwrap().blocks.len(), 1);
    // three timeouts and a bit: the first block seals with its three, then two empty ones
    clock.advance(1 + 2 * HOUR + 17);
    let info = seq.info().unwrap();
    info.validate().unwrap();
    assert_eq!(info.blocks.len(), 4);
    for (h, block) in info.blocks.iter().enumerate() {
        assert_eq!(block.start, T0 + h as u64 * HOUR);
    }
    assert_eq!(info.b, 12);
    // folded to the smallest b that holds 3: b = 7, 16 bytes, equal to the direct build
    assert_eq!(smallest_b(3), Some(7));
    let first = sealed_bytes(&mut seq, 0);
    assert_eq!(first, block_of(7, &es).into_bytes());
    assert!(es
        .iter()
        .all(|e| Block::from_bytes(&first[..]).unwrap().contains_element(e)));
    // empty blocks seal, at b = 5
    for h in 1..3 {
        assert_eq!(sealed_bytes(&mut seq, h), vec![0u8; 4]);
    }
    assert!(seq.block(3).unwrap().is_none()); // no open interval: 40001
    assert!(seq.block(4).unwrap().is_none());

    // without folding, a timed-out block keeps its b
    let clock = ManualClock::new(T0);
    let cfg = SequenceConfig {
        fold: false,
        ..config(Kind::MeltQuote, 12)
    };
    let mut seq = Sequence::open(cfg, MemoryStore::default(), clock.clone()).unwrap();
    seq.insert(&es[0]).unwrap();
    clock.advance(HOUR);
    assert_eq!(
        sealed_bytes(&mut seq, 0),
        block_of(12, &es[..1]).into_bytes()
    );
}

#[test]
fn sequence_heights_are_contiguous_across_both_seals_and_b_changes() {
    let clock = ManualClock::new(T0);
    let mut seq = Sequence::open(
        config(Kind::BlindSignature, 6),
        MemoryStore::default(),
        clock.clone(),
    )
    .unwrap();
    let mut i = 0;
    for round in 0..30u64 {
        // bursts that fill blocks (capacity 2 at b = 6), pauses that time them out
        for _ in 0..round % 4 {
            clock.advance(7);
            seq.insert(&sha_counter(3, i)).unwrap();
            i += 1;
        }
        clock.advance(if round % 3 == 0 { HOUR } else { 100 });
        if round == 15 {
            seq.set_b(9).unwrap();
        }
    }
    let info = seq.info().unwrap();
    info.validate().unwrap();
    assert!(info.blocks.len() > 20, "{}", info.blocks.len());
    assert_eq!(info.b, 9);
    for w in info.blocks.windows(2) {
        assert_eq!(w[0].end, Some(w[1].start));
    }
    for h in 0..info.open_height() {
        let bytes = sealed_bytes(&mut seq, h);
        assert!(width_of(bytes.len()).is_some());
        // sealed blocks never change
        assert_eq!(sealed_bytes(&mut seq, h), bytes);
    }
    assert!(seq.set_b(27).is_err());
}

#[test]
fn sequence_serves_open_snapshots_with_etags() {
    let clock = ManualClock::new(T0);
    let cfg = SequenceConfig {
        open_interval: Some(60),
        ..config(Kind::ProofState, 10)
    };
    let mut seq = Sequence::open(cfg, MemoryStore::default(), clock.clone()).unwrap();
    let (e1, e2) = (sha_counter(4, 1), sha_counter(4, 2));
    let snap = |seq: &mut Sequence<MemoryStore, ManualClock>| match seq.block(0).unwrap() {
        Some(Served::Open(s)) => s.clone(),
        other => panic!("{other:?}"),
    };
    let empty = snap(&mut seq);
    assert_eq!(empty.count(), 0);
    assert_eq!(empty.taken_at(), T0);
    assert_eq!(empty.as_bytes().len(), 128);
    clock.advance(10);
    seq.insert(&e1).unwrap();
    // not shown before the next boundary
    clock.advance(49);
    let s = snap(&mut seq);
    assert_eq!((s.taken_at(), s.etag()), (T0, empty.etag()));
    assert!(!s.block().contains_element(&e1));
    assert!(seq.open_block().contains_element(&e1));
    // at the boundary it is
    clock.advance(1);
    let s1 = snap(&mut seq);
    assert_eq!(s1.taken_at(), T0 + 60);
    assert!(s1.block().contains_element(&e1));
    assert_ne!(s1.etag(), empty.etag());
    // an insertion at the boundary belongs to the next snapshot
    seq.insert(&e2).unwrap();
    assert!(!snap(&mut seq).block().contains_element(&e2));
    // a boundary with no new insertion: same bytes, same ETag
    clock.advance(60);
    let s2 = snap(&mut seq);
    assert!(s2.block().contains_element(&e2));
    clock.advance(60);
    let s3 = snap(&mut seq);
    assert_eq!(s3.taken_at(), T0 + 180);
    assert_eq!(s3.etag(), s2.etag());
    assert_eq!(s3.as_bytes(), s2.as_bytes());
    // the seal: height 0 is now sealed, height 1 open and empty
    clock.set(T0 + HOUR);
    assert!(matches!(seq.block(0).unwrap(), Some(Served::Sealed(_))));
    match seq.block(1).unwrap() {
        Some(Served::Open(s)) => {
            assert_eq!((s.height(), s.count(), s.taken_at()), (1, 0, T0 + HOUR));
            assert_eq!(s.block().popcount(), 0);
        }
        other => panic!("{other:?}"),
    }
    assert!(seq.block(2).unwrap().is_none());
}

#[test]
fn sequence_reopens_from_its_store() {
    let clock = ManualClock::new(T0);
    let cfg = SequenceConfig {
        open_interval: Some(60),
        ..config(Kind::ProofState, 8)
    };
    let mut seq = Sequence::open(cfg, MemoryStore::default(), clock.clone()).unwrap();
    for i in 0..14 {
        clock.advance(20);
        seq.insert(&sha_counter(5, i)).unwrap(); // seals once at 11
    }
    clock.advance(30);
    let info = seq.info().unwrap();
    let open_snapshot = match seq.block(1).unwrap() {
        Some(Served::Open(s)) => s.clone(),
        other => panic!("{other:?}"),
    };
    let count = seq.open_count();
    let live = seq.open_block().clone();
    let store = seq.into_store();

    let mut again = Sequence::open(cfg, store, clock.clone()).unwrap();
    assert_eq!(again.info().unwrap(), info);
    assert_eq!(again.open_count(), count);
    assert_eq!(again.open_block(), &live);
    match again.block(1).unwrap() {
        Some(Served::Open(s)) => assert_eq!(s, &open_snapshot),
        other => panic!("{other:?}"),
    }
    // and it goes on: the timeout of the open block counts from its start
    clock.set(info.blocks[1].start + HOUR);
    assert_eq!(again.info().unwrap().blocks.len(), 3);
}

/// A store that fails on demand, to check that nothing is served before it is durable.
#[derive(Debug, Default)]
struct Flaky {
    inner: MemoryStore,
    fail: Rc<Failures>,
}

#[derive(Debug, Default)]
struct Failures {
    append: Cell<bool>,
    seal: Cell<bool>,
    snapshot: Cell<bool>,
}

fn failed(what: &str) -> Error {
    Error::invalid("store", format!("{what} failed"))
}

impl BlockStore for Flaky {
    type Error = Error;
    fn load(&mut self, kind: Kind) -> Result<Option<StoredSequence>, Error> {
        self.inner.load(kind)
    }
    fn begin(&mut self, kind: Kind, open: &OpenHeader) -> Result<(), Error> {
        self.inner.begin(kind, open)
    }
    fn append(&mut self, kind: Kind, height: u64, e: &[u8; 32]) -> Result<(), Error> {
        if self.fail.append.get() {
            return Err(failed("append"));
        }
        self.inner.append(kind, height, e)
    }
    fn snapshot(&mut self, kind: Kind, height: u64, r: &SnapshotRecord) -> Result<(), Error> {
        if self.fail.snapshot.get() {
            return Err(failed("snapshot"));
        }
        self.inner.snapshot(kind, height, r)
    }
    fn seal(&mut self, kind: Kind, s: &SealedBlock<'_>, next: &OpenHeader) -> Result<(), Error> {
        if self.fail.seal.get() {
            return Err(failed("seal"));
        }
        self.inner.seal(kind, s, next)
    }
    fn sealed(&self, kind: Kind, height: u64) -> Result<Option<Vec<u8>>, Error> {
        self.inner.sealed(kind, height)
    }
}

#[test]
fn sequence_shows_nothing_the_store_did_not_commit() {
    let clock = ManualClock::new(T0);
    let cfg = SequenceConfig {
        open_interval: Some(60),
        ..config(Kind::ProofState, 8)
    };
    let fail = Rc::new(Failures::default());
    let store = Flaky {
        inner: MemoryStore::default(),
        fail: fail.clone(),
    };
    let mut seq = Sequence::open(cfg, store, clock.clone()).unwrap();
    let e = sha_counter(6, 1000);
    // a failed append: nothing counted, nothing set, nothing served
    fail.append.set(true);
    assert!(seq.insert(&e).is_err());
    assert_eq!(seq.open_count(), 0);
    assert!(!seq.open_block().contains_element(&e));
    clock.advance(60);
    match seq.block(0).unwrap() {
        Some(Served::Open(s)) => assert!(!s.block().contains_element(&e)),
        other => panic!("{other:?}"),
    }
    fail.append.set(false);
    // a failed snapshot refresh fails the insertion before it is made
    clock.advance(60);
    fail.snapshot.set(true);
    assert!(seq.insert(&e).is_err());
    assert_eq!(seq.open_count(), 0);
    fail.snapshot.set(false);
    // the insertion that fills the block is committed; its seal fails and is owed
    let cap = capacity(8).unwrap();
    for i in 0..cap - 1 {
        seq.insert(&sha_counter(6, i)).unwrap();
    }
    fail.seal.set(true);
    assert!(seq.insert(&e).is_err());
    assert_eq!(seq.open_count(), cap);
    assert_eq!(
        seq.info().unwrap_err().to_string(),
        "invalid store: seal failed"
    );
    fail.seal.set(false);
    clock.advance(500);
    let info = seq.info().unwrap();
    assert_eq!(info.blocks[0].end, Some(T0 + 120)); // the time of the filling insertion
    assert_eq!(seq.open_count(), 0);
    assert_eq!(sealed_bytes(&mut seq, 0).len(), 32);
}

#[test]
fn sequence_checks_kinds_config_and_time() {
    let clock = ManualClock::new(T0);
    let mut seq = Sequence::open(
        config(Kind::MintQuote, 10),
        MemoryStore::default(),
        clock.clone(),
    )
    .unwrap();
    let y = [2u8; 33];
    let wrong = Element::ProofState {
        y: &y,
        state: amq::formats::cashu_state::ProofState::Spent,
    };
    assert!(seq.insert_element(&wrong).is_err());
    let right = Element::MintQuote {
        quote_id: "019e6d5a-2347-7000-8afa-051ae571f334",
    };
    assert_eq!(seq.insert_element(&right).unwrap().count, 1);
    // a clock that goes back is held at the latest time
    clock.set(T0 - 10_000);
    assert_eq!(seq.insert_element(&right).unwrap().count, 2);
    assert_eq!(seq.info().unwrap().blocks[0].start, T0);
    // bad configs
    for cfg in [
        SequenceConfig {
            b: 4,
            ..config(Kind::MintQuote, 10)
        },
        SequenceConfig {
            timeout: 3599,
            ..config(Kind::MintQuote, 10)
        },
        SequenceConfig {
            open_interval: Some(0),
            ..config(Kind::MintQuote, 10)
        },
    ] {
        assert!(Sequence::open(cfg, MemoryStore::default(), clock.clone()).is_err());
    }
}
