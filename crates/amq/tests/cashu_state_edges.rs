//! Edges of the Cashu compact state filters (cashubtc/nuts PR #433) that the vector tests in
//! `tests/cashu_state/` leave open, each found by a mutant of the library that those tests
//! did not catch.
#![cfg(feature = "cashu-state")]

use amq::clock::ManualClock;
use amq::formats::cashu_state::{
    capacity, Block, BlockInterval, BlockStore, Epoch, FiltersInfo, Kind, MemoryStore, OpenHeader,
    Paging, SealedBlock, Sequence, SequenceConfig, Served, Snapshot, SnapshotRecord, StateChange,
    StoredSequence, Words, MIN_TIMEOUT, RECOMMENDED_PAGE_SIZE,
};
use amq::Error;
use amq::Filter;
use serde_json::Value;

fn json(name: &str) -> Value {
    let path = format!(
        "{}/../../tests/vectors/cashu-state/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn revision_b() -> Value {
    json("revision-b.json")
}

fn e32(v: &Value) -> [u8; 32] {
    hex::decode(v.as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap()
}

fn u64s(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// The kind is written in URLs (`/v1/filters/info/{kind}`) and messages through `Display`,
/// spelt as the spec's table spells it (revision B, "Elements").
#[test]
fn kind_displays_as_the_spec_spells_it() {
    let spelt = ["proof_state", "mint_quote", "melt_quote", "blind_signature"];
    for (kind, name) in Kind::ALL.into_iter().zip(spelt) {
        assert_eq!(kind.to_string(), name);
        assert_eq!(
            format!("/v1/filters/info/{kind}"),
            format!("/v1/filters/info/{name}")
        );
    }
}

/// `Block::get` reads position p as the spec lays it out: bit `0x80 >> (p & 7)` of byte
/// `p >> 3`. Revision B's cases 1 (b = 8, 16 distinct positions) and 5 (b = 5, 13 distinct):
/// the published body has exactly the published positions set, and nothing past 2^b.
#[test]
fn get_reads_exactly_the_published_positions() {
    let v = revision_b();
    for case in ["1", "5"] {
        let c = &v["cases"][case];
        let b = c["b"].as_u64().unwrap() as u8;
        let bytes = hex::decode(c["hex"].as_str().unwrap()).unwrap();
        let block = Block::from_bytes(&bytes[..]).unwrap();
        assert_eq!(block.b(), b);
        let positions = u64s(&c["positions"]);
        for p in 0..1u32 << b {
            assert_eq!(
                block.get(p),
                positions.contains(&u64::from(p)),
                "case {case}, position {p}"
            );
        }
        // outside the bitmap nothing is set
        assert!(!block.get(1 << b) && !block.get(u32::MAX));
    }
}

/// The count estimate `−(2^b / 16) · ln(1 − X / 2^b)` is `None` when every bit is set (X =
/// 2^b: the logarithm diverges), and finite one bit short of that. By hand at b = 5 with 31 of
/// 32 bits set: `−2 · ln(1/32) = 2 · ln 32 = 10 · ln 2`.
#[test]
fn count_estimate_of_a_full_block_is_none() {
    for b in [5u8, 8, 12] {
        let full = Block::from_bytes(vec![0xff; 1 << (b - 3)]).unwrap();
        assert_eq!(full.popcount(), 1 << b);
        assert_eq!(full.count_estimate(), None, "b = {b}");
    }
    let almost = Block::from_bytes(vec![0xff, 0xff, 0xff, 0xfe]).unwrap();
    let n = almost.count_estimate().unwrap();
    assert!((n - 10.0 * std::f64::consts::LN_2).abs() < 1e-12, "{n}");
    assert_eq!(Block::new(5).unwrap().count_estimate(), Some(0.0));
}

/// A block answers through the crate's `Filter` trait as through its own `contains`: revision
/// B's case 1 (b = 8) holds its element's published words, and not the all-zero words, whose
/// 16 positions are all 0, a position the published body leaves clear.
#[test]
fn block_answers_through_the_filter_trait() {
    let c = &revision_b()["cases"]["1"];
    let words: Vec<u32> = c["words"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| u32::from_str_radix(w.as_str().unwrap(), 16).unwrap())
        .collect();
    let member = Words::from_array(words.try_into().unwrap());
    let absent = Words::from_array([0; 16]);
    assert!(!u64s(&c["positions"]).contains(&0));
    let bytes = hex::decode(c["hex"].as_str().unwrap()).unwrap();
    let block = Block::from_bytes(bytes).unwrap();
    assert!(Filter::contains(&block, &member));
    assert!(!Filter::contains(&block, &absent));
    assert!(block.contains(&member) && !block.contains(&absent));
}

/// An epoch's owned bytes (`into_bytes`) are its wire bytes, and it keeps the P it was built
/// or decoded with: revision A's five-element filter (P = 28, 19 bytes) and single-element
/// filter, and the same elements at P = 7 and P = 31, the ends of the range.
#[test]
fn epoch_into_bytes_and_p_are_the_wire_form() {
    let v = json("revision-a.json");
    let f = &v["filter"];
    let p = f["p"].as_u64().unwrap() as u8;
    let elements: Vec<[u8; 32]> = f["elements"].as_array().unwrap().iter().map(e32).collect();
    let built = Epoch::build(elements.iter().copied(), p).unwrap();
    assert_eq!(built.p(), p);
    let data = built.into_bytes();
    assert_eq!(hex::encode(&data), f["data"].as_str().unwrap());
    assert_eq!(Epoch::decode(&data[..], p).unwrap().p(), p);
    for p in [7u8, 31] {
        let epoch = Epoch::build(elements.iter().copied(), p).unwrap();
        assert_eq!(epoch.p(), p);
        assert_eq!(epoch.clone().into_bytes(), epoch.as_bytes());
        assert_eq!(Epoch::decode(epoch.as_bytes(), p).unwrap().p(), p);
    }
    let one = &v["single"];
    let data = hex::decode(one["data"].as_str().unwrap()).unwrap();
    assert_eq!(Epoch::decode(data.clone(), 28).unwrap().into_bytes(), data);
}

/// A page size is what it was made with: the recommended 50 (revision A, "Paging") and others.
#[test]
fn paging_keeps_its_page_size() {
    for size in [RECOMMENDED_PAGE_SIZE, 1, 7, u64::MAX] {
        let pages = Paging::new(size).unwrap();
        assert_eq!(pages.page_size(), size);
        assert_eq!(pages.filters(1), size..size.saturating_add(size));
    }
    assert_eq!(RECOMMENDED_PAGE_SIZE, 50);
}

/// The open block's snapshot tells its height and count. Open interval 60 s, timeout one hour
/// (`MIN_TIMEOUT`), from t0: two insertions at t0 + 10 show at the boundary t0 + 60 in height
/// 0 with count 2; the block seals at t0 + 3600 and its empty successor at t0 + 7200, so one
/// insertion at t0 + 7205 shows at t0 + 7260 in height 2 with count 1.
#[test]
fn snapshots_tell_their_height_and_count() {
    const T0: u64 = 1_000_000;
    let clock = ManualClock::new(T0);
    let config = SequenceConfig {
        timeout: MIN_TIMEOUT,
        open_interval: Some(60),
        ..SequenceConfig::new(Kind::ProofState, 10)
    };
    let mut seq = Sequence::open(config, MemoryStore::default(), clock.clone()).unwrap();
    fn open_snapshot(seq: &mut Sequence<MemoryStore, ManualClock>, height: u64) -> Snapshot {
        match seq.block(height).unwrap() {
            Some(Served::Open(s)) => s.clone(),
            other => panic!("height {height}: {other:?}"),
        }
    }
    clock.advance(10);
    seq.insert(&[1; 32]).unwrap();
    seq.insert(&[2; 32]).unwrap();
    clock.set(T0 + 60);
    let s = open_snapshot(&mut seq, 0);
    assert_eq!((s.height(), s.count(), s.taken_at()), (0, 2, T0 + 60));
    clock.set(T0 + 2 * MIN_TIMEOUT + 5);
    seq.insert(&[3; 32]).unwrap();
    assert_eq!(seq.open_height(), 2);
    clock.set(T0 + 2 * MIN_TIMEOUT + 60);
    let s = open_snapshot(&mut seq, 2);
    assert_eq!(
        (s.height(), s.count(), s.taken_at()),
        (2, 1, T0 + 2 * MIN_TIMEOUT + 60)
    );
    assert!(s.block().contains_element(&[3; 32]));
}

/// A store that loads a sequence written by hand, and keeps what is sealed after.
#[derive(Debug)]
struct Crafted {
    stored: Option<StoredSequence>,
    sealed: Vec<Vec<u8>>,
}

impl BlockStore for Crafted {
    type Error = Error;
    fn load(&mut self, _: Kind) -> Result<Option<StoredSequence>, Error> {
        Ok(self.stored.take())
    }
    fn begin(&mut self, _: Kind, _: &OpenHeader) -> Result<(), Error> {
        Ok(())
    }
    fn append(&mut self, _: Kind, _: u64, _: &[u8; 32]) -> Result<(), Error> {
        Ok(())
    }
    fn snapshot(&mut self, _: Kind, _: u64, _: &SnapshotRecord) -> Result<(), Error> {
        Ok(())
    }
    fn seal(&mut self, _: Kind, s: &SealedBlock<'_>, _: &OpenHeader) -> Result<(), Error> {
        assert_eq!(s.height, self.sealed.len() as u64);
        self.sealed.push(s.bytes.to_vec());
        Ok(())
    }
    fn sealed(&self, _: Kind, height: u64) -> Result<Option<Vec<u8>>, Error> {
        Ok(self.sealed.get(height as usize).cloned())
    }
}

/// A stored open block at b = 5 (capacity 1, `⌊32 · ln2 / 16⌋`) opened at t0 at `height`
/// after `sealed` sealed blocks, holding `elements`.
fn crafted(height: u64, sealed: u64, elements: Vec<[u8; 32]>) -> Crafted {
    const T0: u64 = 1_000_000;
    Crafted {
        stored: Some(StoredSequence {
            sealed: (0..sealed)
                .map(|i| BlockInterval {
                    start: T0 - (sealed - i) * MIN_TIMEOUT,
                    end: Some(T0 - (sealed - i - 1) * MIN_TIMEOUT),
                })
                .collect(),
            open: OpenHeader {
                height,
                start: T0,
                b: 5,
                timeout: MIN_TIMEOUT,
            },
            elements,
            snapshot: None,
        }),
        // the bodies of the blocks sealed before (not read here)
        sealed: vec![vec![0; 4]; sealed as usize],
    }
}

fn open_crafted(store: Crafted) -> Result<Sequence<Crafted, ManualClock>, Error> {
    let config = SequenceConfig {
        timeout: MIN_TIMEOUT,
        ..SequenceConfig::new(Kind::ProofState, 5)
    };
    Sequence::open(config, store, ManualClock::new(1_000_010))
}

/// Reopening checks the stored open block: more insertions than its capacity, or a height
/// other than the number of sealed blocks, is `Corrupt`, each on its own. A block holding
/// exactly its capacity is a seal still owed (the seal after the filling insertion failed):
/// it opens and seals at once, to revision B's case 5 body `3abb2204` for that one element.
#[test]
fn reopening_checks_the_stored_count_and_height() {
    assert_eq!(capacity(5).unwrap(), 1);
    let e: [u8; 32] = e32(&revision_b()["cases"]["5"]["e"]);
    // over capacity, heights consistent
    let err = open_crafted(crafted(0, 0, vec![e, e])).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    // a height out of turn, the count within capacity
    let err = open_crafted(crafted(1, 0, vec![])).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    let err = open_crafted(crafted(0, 1, vec![e])).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    // exactly at capacity: the owed seal is made on opening
    let mut seq = open_crafted(crafted(1, 1, vec![e])).unwrap();
    assert_eq!(seq.open_height(), 2);
    assert_eq!(seq.open_count(), 0);
    assert_eq!(hex::encode(&seq.store().sealed[1]), "3abb2204");
    let info = seq.info().unwrap();
    assert_eq!(info.blocks.len(), 3);
    assert_eq!(info.blocks[1].end, Some(1_000_010));
}

/// A block may end when it starts: at b = 5 (capacity 1) an insertion at the very second the
/// block opened fills and seals it then. The sequence's own info has that interval, and it
/// validates; an end before the start does not.
#[test]
fn a_block_sealed_the_second_it_opened_validates() {
    const T0: u64 = 1_000_000;
    let clock = ManualClock::new(T0);
    let config = SequenceConfig {
        timeout: MIN_TIMEOUT,
        ..SequenceConfig::new(Kind::MeltQuote, 5)
    };
    let mut seq = Sequence::open(config, MemoryStore::default(), clock.clone()).unwrap();
    assert!(seq.insert(&[7; 32]).unwrap().sealed);
    let info = seq.info().unwrap();
    assert_eq!(
        info.blocks,
        [
            BlockInterval {
                start: T0,
                end: Some(T0)
            },
            BlockInterval {
                start: T0,
                end: None
            }
        ]
    );
    info.validate().unwrap();
    let backwards = FiltersInfo {
        blocks: vec![
            BlockInterval {
                start: T0,
                end: Some(T0 - 1),
            },
            BlockInterval {
                start: T0 - 1,
                end: None,
            },
        ],
        ..info
    };
    let err = backwards.validate().unwrap_err();
    assert!(
        matches!(err, Error::InvalidParameter { name: "blocks", .. }),
        "{err:?}"
    );
}

/// A restore starts at the last height whose `start` precedes the seed's creation: strictly,
/// so a seed created the second height 1 opened starts at height 0 (revision B, "Restoring").
#[test]
fn restore_height_needs_a_start_strictly_before_the_seed() {
    let info = FiltersInfo {
        b: 10,
        timeout: MIN_TIMEOUT,
        open_interval: None,
        blocks: vec![
            BlockInterval {
                start: 1_000,
                end: Some(5_000),
            },
            BlockInterval {
                start: 5_000,
                end: None,
            },
        ],
    };
    info.validate().unwrap();
    assert_eq!(info.restore_height(5_000), 0);
    assert_eq!(info.restore_height(5_001), 1);
    assert_eq!(info.restore_height(1_000), 0);
}

/// A state change as a mint reports it hashes to the published `E` of revision B's element
/// vectors, with or without a `0x` prefix, through both entry points (every vector's quote
/// ID is a UUIDv7); an id that is not hex is a `Parse` error on `id_hex`.
#[test]
fn state_changes_hash_to_the_published_elements() {
    let v = revision_b();
    let rows = v["elements"].as_array().unwrap();
    assert!(rows.len() >= 10);
    for row in rows {
        let id_hex = row["id_hex"].as_str().unwrap();
        let e = e32(&row["e"]);
        for id in [id_hex.to_string(), format!("0x{id_hex}")] {
            let change = StateChange {
                kind: Kind::parse(row["kind"].as_str().unwrap()).unwrap(),
                id_hex: id,
                state: row["state"].as_str().unwrap().to_string(),
            };
            assert_eq!(change.element_hash().unwrap(), e, "{}", row["name"]);
            assert_eq!(
                change.published_element_hash().unwrap(),
                e,
                "{}",
                row["name"]
            );
        }
    }
    let bad = StateChange {
        kind: Kind::MintQuote,
        id_hex: "zz".into(),
        state: String::new(),
    };
    for err in [
        bad.element_hash().unwrap_err(),
        bad.published_element_hash().unwrap_err(),
    ] {
        assert!(matches!(err, Error::Parse { .. }), "{err:?}");
    }
}

/// `MemoryStore::begin` begins a kind's sequence once, at height 0: a second begin of the
/// same kind, or a first begin at another height, is refused. `seal` opens the next block at
/// the next height and when the sealed one ends, and refuses either rule broken on its own.
#[test]
fn memory_store_begins_a_sequence_once_at_height_zero() {
    let header = |height| OpenHeader {
        height,
        start: 1_000_000,
        b: 10,
        timeout: MIN_TIMEOUT,
    };
    let mut store = MemoryStore::default();
    store.begin(Kind::ProofState, &header(0)).unwrap();
    assert!(store.begin(Kind::ProofState, &header(0)).is_err());
    assert!(store.begin(Kind::MeltQuote, &header(1)).is_err());
    assert_eq!(store.load(Kind::MeltQuote).unwrap(), None);
    assert_eq!(
        store.load(Kind::ProofState).unwrap().unwrap().open,
        header(0)
    );
    let bytes = [0u8; 128];
    let sealed = SealedBlock {
        height: 0,
        start: 1_000_000,
        end: 1_003_600,
        bytes: &bytes,
    };
    let next = |height, start| OpenHeader {
        height,
        start,
        ..header(height)
    };
    // the right start at the wrong height, the right height at the wrong start
    assert!(store
        .seal(Kind::ProofState, &sealed, &next(2, 1_003_600))
        .is_err());
    assert!(store
        .seal(Kind::ProofState, &sealed, &next(1, 1_003_599))
        .is_err());
    assert_eq!(store.sealed(Kind::ProofState, 0).unwrap(), None);
    store
        .seal(Kind::ProofState, &sealed, &next(1, 1_003_600))
        .unwrap();
    assert_eq!(
        store.sealed(Kind::ProofState, 0).unwrap(),
        Some(bytes.to_vec())
    );
}
