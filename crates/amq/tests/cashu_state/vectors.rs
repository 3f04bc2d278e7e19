use super::*;

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

/// The quote IDs of both revisions' vectors are UUIDv7s, as a mint that publishes filters must
/// generate them, and pass `check_quote_id`, upper case included (it is hashed as returned).
/// Other forms and versions of a UUID, and text that is none, are refused by name.
#[test]
fn the_vectors_quote_ids_are_uuid_v7_and_others_are_refused() {
    use amq::formats::cashu_state::check_quote_id;
    let mut ids = Vec::new();
    for name in ["revision-a.json", "revision-b.json"] {
        let v = json(name);
        for entry in v["elements"].as_array().unwrap() {
            if s(&entry["kind"]).ends_with("_quote") {
                ids.push(hex::decode(s(&entry["id_hex"])).unwrap());
            }
        }
    }
    assert!(ids.len() >= 6, "{} quote ids", ids.len());
    for id in &ids {
        assert_eq!(
            check_quote_id(id),
            Ok(()),
            "{}",
            String::from_utf8_lossy(id)
        );
    }
    for (id, why) in [
        ("550e8400-e29b-41d4-a716-446655440000", "version 4"),
        ("019e6d5a-2347-7000-cafa-051ae571f334", "variant"),
        ("019e6d5a-2347-7000-8afa-051ae571f33g", "not a UUID"),
        ("019e6d5a234770008afa051ae571f334", "32 bytes"),
        ("{019e6d5a-2347-7000-8afa-051ae571f334}", "38 bytes"),
        ("q1", "2 bytes"),
    ] {
        let e = check_quote_id(id.as_bytes()).unwrap_err().to_string();
        assert!(e.contains(why), "{id}: {e}");
    }
    assert!(check_quote_id(&[0xff; 36])
        .unwrap_err()
        .to_string()
        .contains("UTF-8"));
}
