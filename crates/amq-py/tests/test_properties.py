"""Hypothesis properties (derandomized, see conftest.py): no false negatives, round trips,
batch calls equal to per-item calls, and decoders that never crash."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import amq

ITEM = st.one_of(
    st.binary(max_size=64),
    st.text(max_size=32),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
)
ITEMS = st.lists(ITEM, max_size=300)
SEED = st.integers(min_value=0, max_value=2**64 - 1)


def as_bytes(item) -> bytes:
    """The bytes the library hashes for an item (the package's documented rule)."""
    if isinstance(item, int):
        return (item % 2**64).to_bytes(8, "little")
    if isinstance(item, str):
        return item.encode()
    return bytes(item)


def filters(n: int, seed: int):
    n = max(n, 1)
    return [
        amq.BloomFilter.with_fpr(n, 0.01, seed),
        amq.BlockedBloomFilter.with_fpr(n, 0.01, seed),
        amq.SplitBlockBloomFilter.with_fpr(n, 0.01, seed),
        amq.CuckooFilter.with_fpr(n, 0.01, seed),
        amq.AgingBloom.with_window(n, 4, 0.01, seed),
    ]


@given(ITEMS, SEED)
def test_no_false_negatives(items, seed):
    for f in filters(len(items), seed):
        f.add_many(items)
        assert all(item in f for item in items), f
        assert all(f.contains_many(items)), f
        assert all(as_bytes(item) in f for item in items), f


@given(ITEMS, SEED)
def test_round_trips_keep_bytes_and_answers(items, seed):
    probes = items + [b"probe-%d" % i for i in range(50)]
    for f in filters(len(items), seed):
        f.add_many(items)
        g = amq.load(f.to_bytes())
        assert type(g) is type(f)
        assert g.to_bytes() == f.to_bytes()
        assert g.contains_many(probes) == f.contains_many(probes)


@given(ITEMS, SEED)
def test_items_hash_as_their_bytes(items, seed):
    for f, g in zip(filters(len(items), seed), filters(len(items), seed)):
        f.add_many(items)
        g.add_many([as_bytes(i) for i in items])
        assert f.to_bytes() == g.to_bytes()


@given(st.lists(st.integers(min_value=0, max_value=2**64 - 1), max_size=500), SEED)
def test_numpy_batches_equal_lists(values, seed):
    array = np.array(values, dtype=np.uint64)
    for f, g in zip(filters(len(values), seed), filters(len(values), seed)):
        f.add_many(array)
        g.add_many(values)
        assert f.to_bytes() == g.to_bytes()
        probes = np.concatenate([array, np.arange(100, dtype=np.uint64)])
        answers = f.contains_many(probes)
        assert answers.dtype == np.bool_
        assert answers.tolist() == g.contains_many([int(p) for p in probes])


@given(st.lists(st.binary(max_size=16), max_size=200), st.integers(0, 2**32), SEED)
def test_negative_cache_never_claims_an_item_not_added(items, now, seed):
    c = amq.NegativeCache(12, b=64, ways=8, seed=seed)
    c.add_many(items, now=now)
    if items:
        assert items[-1] in c  # the latest item of its set is always held
    added = set(items)
    probes = [b"other-%d" % i for i in range(100)]
    assert not any(c.contains_many([p for p in probes if p not in added], now=now))
    assert amq.load(c.to_bytes()).to_bytes() == c.to_bytes()


@given(st.lists(st.binary(max_size=16), max_size=200), SEED)
def test_sliding_window_finds_items_at_their_positions(items, seed):
    f = amq.SlidingWindowBloom(1 << 12, 1 << 8, 4, 6, seed=seed)
    first = f.add_many(items)
    assert all(f.contains_many(items, list(range(first, first + len(items)))))
    assert amq.load(f.to_bytes()).to_bytes() == f.to_bytes()


@given(st.lists(st.binary(max_size=16), max_size=200), st.integers(10, 600), SEED)
def test_ttl_filter_keeps_items_until_their_ttl(items, ttl, seed):
    """No false negatives while an item's TTL runs (less one tick); every item gone once it
    has passed, bar false positives; the batch answers as single queries do. (A TTL below
    the tick of 10 may end within the current tick: test_errors.py.)"""
    f = amq.TtlCuckooFilter(max(len(items), 1), 0.001, 10, max_ttl=600, seed=seed)
    t0 = 1_700_000_000
    f.add_many(items, ttl=ttl, now=t0)
    for now in (t0, t0 + max(ttl - 10, 0) - 1):
        assert all(f.contains_many(items, now=now)) if ttl > 10 else True
        assert f.contains_many(items, now=now) == [f.contains(i, now=now) for i in items]
    gone = f.contains_many(items, now=t0 + ttl)
    assert sum(gone) <= 3 + len(items) // 20  # ε = 0.1%: false positives only
    assert f.live(now=t0 + ttl) == 0
    assert amq.load(f.to_bytes()).to_bytes() == f.to_bytes()


@given(st.lists(st.binary(max_size=16), max_size=300), st.integers(1, 120), SEED)
def test_rln_members_are_found_at_their_epoch_until_slashed(items, epoch_items, seed):
    """No false negatives at a member's epoch; a slashed member is gone, bar false
    positives; the batch answers as single queries do; an export per epoch rebuilds it."""
    f = amq.SlidingWindowCuckoo(epoch_items, 0.001, seed=seed)
    epochs = f.register_many(items)
    assert epochs == [i // epoch_items for i in range(len(items))]
    for e in set(epochs):
        mine = [i for i, x in zip(items, epochs) if x == e]
        assert all(f.contains_many(mine, e))
        assert f.contains_many(items, e) == [f.contains(i, e) for i in items]
    slashed = {}
    for i, e in zip(items[::3], epochs[::3]):
        if i not in slashed and f.slash(i, e):
            slashed[i] = e
    back = sum(f.contains(i, e) for i, e in slashed.items()
               if items.count(i) == 1)
    assert back <= 2 + len(slashed) // 50  # ε ≤ 0.1%: false positives only
    if f.epochs:
        light = f.export_epoch(0)
        for e in range(1, f.epochs):
            light.apply_epoch(f.export_epoch(e))
        assert light == f
    assert amq.load(f.to_bytes()) == f


@given(st.binary(max_size=2000))
def test_decoders_never_crash(data):
    """Arbitrary bytes: a Python exception or a value, never a crash."""
    for read in (amq.load, amq.BloomFilter.from_bytes, amq.CuckooFilter.from_bytes,
                 amq.NegativeCache.from_bytes, amq.SlidingWindowBloom.from_bytes,
                 amq.AgingBloom.from_bytes, amq.TtlCuckooFilter.from_bytes,
                 amq.SlidingWindowCuckoo.from_bytes,
                 amq.btc.Bip37Filter.from_filterload,
                 amq.eth.LogsBloom, lambda d: amq.btc.BlockFilter(bytes(32), d),
                 lambda d: amq.algorand.AlgorandBloom.from_box(d),
                 amq.cashu.StateBlock.from_bytes):
        try:
            read(data)
        except ValueError:
            pass


@given(st.binary(min_size=32, max_size=400), st.integers(0, 400))
def test_damaged_amq_files_are_refused(data, at):
    """A valid file with a byte changed or cut short is refused with ValueError (the
    checksum), never read as something else and never a crash."""
    f = amq.CuckooFilter.with_fpr(50, 0.01)
    f.add_many([data[i:i + 8] for i in range(0, len(data), 8)])
    good = f.to_bytes()
    at %= len(good)
    for bad in (good[:at], good[:at] + bytes([good[at] ^ 0x5A]) + good[at + 1:]):
        try:
            g = amq.load(bad)
        except ValueError:
            continue
        assert g.to_bytes() == good


@settings(max_examples=50)
@given(st.lists(st.binary(min_size=33, max_size=33), unique=True, max_size=100),
       st.sampled_from(["murmur3-128", "murmur3-32x2", "siphash"]))
def test_cashu_filters_find_their_items(items, hash):
    response = amq.cashu.build(items, hash=hash, timestamp=0)
    assert response["n"] == len(items)
    assert all(amq.cashu.match(response, items, hash=hash))


@settings(max_examples=50)
@given(st.lists(st.binary(max_size=40), max_size=100), st.binary(min_size=32, max_size=32))
def test_bip158_filters_find_their_elements(elements, block_hash):
    f = amq.btc.BlockFilter.build(block_hash, elements)
    assert f.n == len(set(elements))
    if elements:
        assert all(f.match_many(list(dict.fromkeys(elements))))
    g = amq.btc.BlockFilter(block_hash, f.to_bytes())
    assert g == f and g.header() == f.header()


@given(st.lists(st.binary(max_size=40), max_size=100), st.integers(1, 1000),
       st.floats(0.0001, 0.5), st.integers(0, 2**32 - 1), st.integers(0, 2))
def test_bip37_filterload_round_trips(elements, n, fpr, tweak, flags):
    f = amq.btc.Bip37Filter(n, fpr, tweak, flags)
    f.add_many(elements)
    assert all(f.contains_many(elements))
    g = amq.btc.Bip37Filter.from_filterload(f.to_filterload())
    assert g == f and g.to_filterload() == f.to_filterload()


@given(st.lists(st.binary(max_size=64), max_size=50))
def test_logs_bloom_round_trips(inputs):
    b = amq.eth.LogsBloom()
    for i in inputs:
        b.accrue(i)
    assert all(i in b for i in inputs)
    assert amq.eth.LogsBloom.from_hex(b.hex()) == b == amq.eth.LogsBloom(bytes(b))


@given(st.lists(st.binary(min_size=32, max_size=32), max_size=200), st.integers(5, 16),
       st.integers(5, 16))
def test_state_blocks_keep_their_elements_through_folds(elements, b, to):
    block = amq.cashu.StateBlock.build(elements, b)
    assert all(block.contains_many(elements))
    folded = block.fold(min(b, to))
    assert all(folded.contains_many(elements))
    assert amq.cashu.StateBlock.from_bytes(bytes(folded)) == folded
