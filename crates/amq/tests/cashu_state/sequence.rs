use super::*;

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

/// A block keeps the timeout it opened under when the sequence reopens under another, as it
/// keeps its width: reopened under an hour, a block opened under a week sealed at start + one
/// hour, before an insertion it held, and a wallet restoring from a seed date after that end
/// skipped the block (helper-20's reproduction). The next block takes the new timeout.
#[test]
fn a_block_keeps_the_timeout_it_opened_under() {
    let clock = ManualClock::new(T0);
    let week = SequenceConfig::new(Kind::BlindSignature, 12);
    let mut seq = Sequence::open(week, MemoryStore::default(), clock.clone()).unwrap();
    clock.advance(10_000);
    let e = sha_counter(9, 0);
    seq.insert(&e).unwrap();
    let inserted_at = T0 + 10_000;
    let store = seq.into_store();
    clock.advance(1000);
    let hour = SequenceConfig {
        timeout: HOUR,
        ..week
    };
    let mut again = Sequence::open(hour, store, clock.clone()).unwrap();
    let info = again.info().unwrap();
    assert_eq!((info.blocks.len(), info.timeout), (1, week.timeout));
    clock.set(T0 + week.timeout);
    let info = again.info().unwrap();
    assert_eq!(info.blocks[0].end, Some(T0 + week.timeout));
    assert!(info.blocks[0].end.unwrap() >= inserted_at);
    assert!(Block::from_bytes(&sealed_bytes(&mut again, 0))
        .unwrap()
        .contains_element(&e));
    // a seed dated after the insertion starts at a height whose block holds it
    assert_eq!(info.restore_height(inserted_at + 1), 0);
    // the next block opened under the hour
    assert_eq!(info.timeout, HOUR);
    clock.advance(HOUR);
    assert_eq!(
        again.info().unwrap().blocks[1].end,
        Some(T0 + week.timeout + HOUR)
    );
}

/// A stored open block whose timeout is below the spec's minimum is corrupt (a run of empty
/// blocks, one per second, would follow); one stored without a timeout (0) takes the
/// configured one.
#[test]
fn a_stored_timeout_is_checked() {
    let clock = ManualClock::new(T0);
    let cfg = config(Kind::ProofState, 8);
    for (timeout, ok) in [(0, true), (1, false), (HOUR - 1, false), (HOUR, true)] {
        let mut store = MemoryStore::default();
        let open = OpenHeader {
            height: 0,
            start: T0,
            b: 8,
            timeout,
        };
        store.begin(Kind::ProofState, &open).unwrap();
        let seq = Sequence::open(cfg, store, clock.clone());
        assert_eq!(seq.is_ok(), ok, "{timeout}");
        if let Ok(mut seq) = seq {
            assert_eq!(seq.info().unwrap().timeout, HOUR);
        }
    }
}
