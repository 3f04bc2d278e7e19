"""The six filter kinds from Python: construction, items, batches, round trips (their errors:
test_errors.py)."""

import copy
import pickle
import threading
import time

import numpy as np
import pytest

import amq

N = 2_000
T0 = 1_700_000_000


def make(kind: str):
    """A small filter of each kind, sized for N items."""
    return {
        "bloom": lambda: amq.BloomFilter.with_fpr(N, 0.01, seed=7),
        "blocked": lambda: amq.BlockedBloomFilter.with_fpr(N, 0.01, seed=7),
        "split": lambda: amq.SplitBlockBloomFilter.with_fpr(N, 0.01, seed=7),
        "cuckoo": lambda: amq.CuckooFilter.with_fpr(N, 0.01, seed=7),
        "aging": lambda: amq.AgingBloom.with_window(N, 4, 0.01, seed=7),
        "negative": lambda: amq.NegativeCache(14, 32, 8, seed=7),
    }[kind]()


MEMBERSHIP = ["bloom", "blocked", "split", "cuckoo", "aging", "negative"]


@pytest.mark.parametrize("kind", MEMBERSHIP)
def test_added_items_are_found_and_others_mostly_not(kind):
    f = make(kind)
    for i in range(N):
        f.add(f"item-{i}")
    assert all(f"item-{i}" in f for i in range(N))
    false = sum(f"other-{i}" in f for i in range(10_000))
    # ε = 1% planned: 100 expected, far below 300 (the negative cache: no false positives)
    assert false < 300
    if kind == "negative":
        assert false == 0


@pytest.mark.parametrize("kind", MEMBERSHIP)
def test_batch_calls_answer_as_the_per_item_calls(kind):
    items = [b"a", "b", 3, -4, b"", "\u00e9t\u00e9", bytearray(b"x"), 2**64 - 1, -(2**63)]
    f = make(kind)
    f.add_many(items)
    g = make(kind)
    for item in items:
        g.add(item)
    assert f.to_bytes() == g.to_bytes()
    probes = items + [b"c", "d", 5, 6]
    assert f.contains_many(probes) == [p in f for p in probes]
    assert f.contains_many(iter(probes)) == f.contains_many(tuple(probes))


@pytest.mark.parametrize("kind", MEMBERSHIP)
def test_items_are_bytes_utf8_and_little_endian_integers(kind):
    f = make(kind)
    f.add("caf\u00e9")
    assert "caf\u00e9".encode() in f
    f.add(5)
    assert (5).to_bytes(8, "little") in f
    f.add(-2)
    assert (2**64 - 2) in f  # the same 8 bytes
    assert np.uint64(5) in f and np.int64(-2) in f


@pytest.mark.parametrize("kind", MEMBERSHIP)
def test_numpy_arrays_are_read_as_the_integers(kind):
    values = np.arange(1000, dtype=np.uint64) * np.uint64(7919)
    f = make(kind)
    f.add_many(values)
    answers = f.contains_many(values)
    # the answers to an array are an array of bools; to any other batch, a list
    assert isinstance(answers, np.ndarray) and answers.dtype == np.bool_
    assert answers.shape == (1000,) and answers.all()
    assert f.contains_many(values.astype(np.int64)).tolist() == [True] * 1000
    assert f.contains_many([int(v) for v in values[:10]]) == [True] * 10
    g = make(kind)
    g.add_many([int(v) for v in values])
    assert f.to_bytes() == g.to_bytes()
    # other dtypes and non-contiguous arrays are read item by item, by value
    assert f.contains_many(values[::2]).tolist() == [True] * 500
    assert f.contains_many(values[:10].astype(np.uint32)).tolist() == [True] * 10
    probes = np.arange(5000, dtype=np.uint64)
    assert f.contains_many(probes).tolist() == f.contains_many(probes.tolist())
    assert f.contains_many(np.array([], dtype=np.uint64)).shape == (0,)


def test_split_block_numpy_batches_equal_lists_above_the_prefetch_size():
    """``add_many`` of a NumPy array goes through the split block kind's vectorised batch
    insert (``insert_batch_values``), which in a table of 4 MiB and more prefetches: the same
    bits and answers as a list of ints, item by item."""
    values = np.arange(200_000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    f = amq.SplitBlockBloomFilter(8 * (4 << 20) + 512, seed=3)
    g = amq.SplitBlockBloomFilter(8 * (4 << 20) + 512, seed=3)
    f.add_many(values)
    g.add_many([int(v) for v in values])
    assert f.to_bytes() == g.to_bytes()
    probes = np.concatenate([values[::7], values[:1000] + np.uint64(1)])
    assert f.contains_many(probes).tolist() == [p in g for p in probes.tolist()]
    assert (f.contains_many(probes.view(np.int64)) == f.contains_many(probes)).all()


@pytest.mark.parametrize("kind", MEMBERSHIP + ["window"])
def test_round_trips_through_bytes_load_pickle_and_copy(kind):
    f = make(kind) if kind != "window" else amq.SlidingWindowBloom(1 << 12, 1 << 8, 4, 5, seed=3)
    f.add_many([f"x{i}" for i in range(300)])
    data = f.to_bytes()
    assert bytes(f) == data
    assert data[:4] == b"AMQ\0"
    for g in (type(f).from_bytes(data), amq.load(data), pickle.loads(pickle.dumps(f)),
              copy.copy(f), copy.deepcopy(f), f.copy()):
        assert type(g) is type(f)
        assert g.to_bytes() == data
        assert g == f
    g = f.copy()
    g.add("one more")
    assert g != f and f.to_bytes() == data


@pytest.mark.parametrize("kind", MEMBERSHIP)
def test_info_has_the_common_fields(kind):
    f = make(kind)
    f.add_many(range(100))
    info = f.info()
    for key in ["kind", "m_bits", "k", "seed", "items_inserted", "bytes", "fill_ratio",
                "estimated_items", "estimated_fpr"]:
        assert key in info
    assert info["seed"] == 7 == f.seed
    assert info["items_inserted"] == 100 == f.inserted
    assert info["bytes"] == f.size_bytes


# A sliding-window Bloom file of index scheme 1, as amq wrote it before scheme 2 (pinned in
# crates/amq/tests/schema/pinned.rs, PINNED_WINDOW_V1_FILE).
WINDOW_SCHEME_1 = bytes.fromhex(
    "414d51000100040008000000000000005000000000000000000100000000000040000000000000000200000000000000"
    "03000000000000002a000000000000000500000000000000050000000000000002000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000800008000000000000000000040"
    "400000000008100000104008000000000000000000000000030000000000000000000000020040100100000000000000"
    "030000000000000020000000000002015f3fb025968de0de"
)


def test_info_names_the_index_scheme():
    for kind in ["bloom", "aging"]:
        assert make(kind).info()["index_scheme"] == 2, kind
    for kind in ["blocked", "split", "cuckoo", "negative"]:
        assert "index_scheme" not in make(kind).info(), kind
    old = amq.load(WINDOW_SCHEME_1)
    assert old.info()["kind"] == "sliding-window-bloom"
    assert old.info()["index_scheme"] == 1
    assert old.to_bytes() == WINDOW_SCHEME_1


def test_bloom_shape_union_intersect_clear():
    f = amq.BloomFilter.with_fpr(1_000_000, 0.01)
    assert (f.m_bits, f.k) == (9_592_955, 7)
    assert amq.BloomFilter(1024, 3, seed=9).info()["m_bits"] == 1024
    a, b = amq.BloomFilter(4096, 3), amq.BloomFilter(4096, 3)
    a.add("a")
    b.add("b")
    u = a | b
    assert "a" in u and "b" in u and "b" not in a
    assert "a" not in (a & b)
    a |= b
    assert a == u
    a |= a
    assert a == u
    a.clear()
    assert "a" not in a and a.inserted == 0
    with pytest.raises(ValueError, match="filters differ in seed"):
        amq.BloomFilter(4096, 3, seed=1).union(amq.BloomFilter(4096, 3, seed=2))
    with pytest.raises(TypeError):
        a | amq.BlockedBloomFilter(4096, 3)


@pytest.mark.parametrize("cls", [amq.BlockedBloomFilter, amq.SplitBlockBloomFilter])
def test_blocked_kinds_round_m_to_blocks_union_and_intersect(cls):
    f = cls(1000) if cls is amq.SplitBlockBloomFilter else cls(1000, 6)
    assert f.m_bits == 1024  # two 512-bit blocks
    a, b = f.copy(), f.copy()
    a.add("a")
    b.add("b")
    u = a | b
    assert "a" in u and "b" in u
    assert (a & a) == a
    a &= b  # the bits the two items share: too few for either
    assert "a" not in a and "b" not in a
    assert (u & b) == b
    a.clear()
    assert a == f


def test_split_block_sets_eight_bits_per_item():
    f = amq.SplitBlockBloomFilter.with_fpr(10_000, 0.01, seed=3)
    assert f.k == 8 and f.m_bits % 512 == 0
    assert f.info()["kind"] == "split-block-bloom"
    assert amq.SplitBlockBloomFilter.with_fpr(10_000, 0.01, seed=3, k=8) == f
    with pytest.raises(ValueError, match="sets 8 bits per item"):
        amq.SplitBlockBloomFilter.with_fpr(10_000, 0.01, k=7)
    g = amq.SplitBlockBloomFilter(512)
    assert g.add("x") and not g.add("x")
    assert g.info()["fill_ratio"] == 8 / 512  # one bit in each of the eight lanes
    with pytest.raises(ValueError, match="differ"):
        g.union(amq.SplitBlockBloomFilter(1024))


def test_cuckoo_removes_counts_and_reports_full():
    f = amq.CuckooFilter.with_fpr(100, 0.01)
    f.add("a")
    f.add("a")
    assert f.count("a") == 2
    assert f.remove("a") and "a" in f
    assert f.remove("a") and "a" not in f
    assert not f.remove("a")
    small = amq.CuckooFilter(2, 8)  # 8 slots
    with pytest.raises(amq.FilterFullError, match="filter is full") as e:
        small.add_many(range(100))
    held = small.inserted
    message = str(e.value)
    assert f"item {held} of the batch: the {held} before it were processed" in message, message
    assert "nothing was added" not in message, message
    assert 0 < held <= 9  # 8 slots and the victim stash
    assert all(i in small for i in range(held))  # nothing lost
    with pytest.raises(amq.FilterFullError):
        for i in range(100, 200):
            small.add(i)
    assert not issubclass(amq.FilterFullError, ValueError)


def test_sliding_window_positions():
    f = amq.SlidingWindowBloom.neptune()
    assert f.add("utxo-1") == 0
    first = f.add_many(range(5000))
    assert first == 1 and f.next_position == 5001
    assert f.contains("utxo-1", 0) and not f.contains("utxo-1", 1)
    assert f.add("late", position=9000) == 9000
    assert f.contains_many(["utxo-1", 0, 1], [0, 1, 2]) == [True, True, True]
    assert f.contains_many(["late", "utxo-1"], 9000) == [True, False]
    with pytest.raises(ValueError, match="does not support membership without a position"):
        "utxo-1" in f
    with pytest.raises(ValueError, match="2 items but 3 positions"):
        f.contains_many(["a", "b"], [1, 2, 3])
    assert f.info()["kind"] == "sliding-window-bloom"
    # the batch answers as single queries do: members at their positions (archived or in the
    # window), the same items at other positions, non-members
    items = [0, 1, 4999, "utxo-1", "late", "absent"] + list(range(0, 5000, 7))
    positions = [1, 2, 5000, 0, 9000, 5] + [(i * 31) % 9001 for i in range(0, 5000, 7)]
    want = [f.contains(i, p) for i, p in zip(items, positions)]
    assert f.contains_many(items, positions) == want
    assert want[:6] == [True, True, True, True, True, False]
    positions = [(i * 13) % 9001 for i in range(5000)]
    answers = f.contains_many(np.arange(5000, dtype=np.uint64), positions)
    assert answers.dtype == np.bool_
    assert answers.tolist() == [f.contains(i, p) for i, p in zip(range(5000), positions)]


def test_ttl_filter_expires_removes_and_says_when_full():
    f = amq.TtlCuckooFilter(1000, 0.01, 60, max_ttl=3600)
    assert (f.tick, f.default_ttl) == (60, 3600) and f.max_ttl >= 3600
    t0 = 1_700_000_000
    assert f.add("short", ttl=120, now=t0) and f.add("long", now=t0)
    assert not f.add("long", ttl=60, now=t0)  # live already: keeps the later expiry
    assert f.contains("short", now=t0 + 59) and not f.contains("short", now=t0 + 120)
    assert f.contains("long", now=t0 + 3500) and f.live(now=t0 + 3500) == 1
    assert f.remove("long", now=t0) and not f.contains("long", now=t0)
    assert not f.remove("long", now=t0)
    with pytest.raises(ValueError, match="ttl"):
        f.add("x", ttl=f.max_ttl + 60, now=t0)
    assert "buckets=" in repr(f) and f.info(now=t0)["kind"] == "ttl-cuckoo"
    import pickle, copy
    assert pickle.loads(pickle.dumps(f)) == f and copy.copy(f) == f
    # a full table says so and keeps what it held
    small = amq.TtlCuckooFilter(8, 0.1, 60, max_ttl=600)
    with pytest.raises(amq.FilterFullError, match="before it were processed"):
        small.add_many(range(10_000), now=t0)
    held = [i for i in range(10_000) if small.contains(i, now=t0)]
    assert len(held) >= small.buckets * 4 * 0.8
    # once the entries expire, the room is there again
    small.expire(now=t0 + 601)
    assert small.live(now=t0 + 601) == 0
    small.add_many(range(small.buckets * 2), now=t0 + 601)
    answers = small.contains_many(np.arange(small.buckets * 4, dtype=np.int64), now=t0 + 602)
    assert answers.dtype == np.bool_
    assert answers.tolist() == [small.contains(i, now=t0 + 602) for i in range(small.buckets * 4)]


def test_rln_set_registers_slashes_and_syncs_epochs():
    f = amq.SlidingWindowCuckoo(1000, 0.001, seed=3)
    assert (f.epoch_items, f.epochs, f.next_epoch) == (1000, 0, 0)
    assert f.fpr_bound <= 0.001 and f.fingerprint_bits >= 10
    assert f.register("alice") == 0
    epochs = f.register_many(range(2500))
    assert epochs == [0] * 999 + [1] * 1000 + [2] * 501
    assert (f.epochs, f.members, f.inserted, f.next_epoch) == (3, 2501, 2501, 2)
    # a member is found at its epoch, not at another (bar false positives)
    assert f.contains("alice", 0) and f.contains(1500, 1) and f.contains(2400, 2)
    assert sum(f.contains(i, 0) for i in range(1000, 3000)) <= 8
    assert not f.contains("alice", 7)  # an epoch not held
    with pytest.raises(ValueError, match="epoch"):
        "alice" in f
    assert f.contains_many(range(2500), 1) == [f.contains(i, 1) for i in range(2500)]
    answers = f.contains_many(np.arange(2500, dtype=np.uint64), 1)
    assert answers.dtype == np.bool_ and answers.tolist() == [f.contains(i, 1) for i in range(2500)]
    # slash: gone at its epoch; slashing again (definitely absent) changes nothing
    assert f.slash("alice", 0) and not f.contains("alice", 0)
    before = f.to_bytes()
    assert not f.slash("alice", 0) and f.to_bytes() == before
    assert f.members == 2500
    # a closed epoch is compacted: smaller than the open one, still answering
    e0, e2 = f.epoch(0), f.epoch(2)
    assert (e0["open"], e2["open"]) == (False, True) and e0["members"] == 999
    assert e0["buckets"] <= f.epoch_buckets and e0["fpr"] <= f.fpr_bound
    assert f.epoch(3) is None and f.epoch_fpr(3) == 0
    assert f.close() == 2 and f.close() is None  # none is open after
    assert f.register("bob") == 3 and f.epoch(2)["open"] is False
    # a light client takes the epochs one at a time, and a later change of one of them
    light = f.export_epoch(0)
    for e in (1, 2, 3):
        light.apply_epoch(f.export_epoch(e))
    assert light == f
    assert f.slash(1500, 1)
    light.apply_epoch(f.export_epoch(1))
    assert light == f and not light.contains(1500, 1)
    with pytest.raises(ValueError, match="not held"):
        f.export_epoch(9)
    other_seed = amq.SlidingWindowCuckoo(1000, 0.001, seed=4)
    other_seed.register("x")
    with pytest.raises(ValueError, match="seed"):
        light.apply_epoch(other_seed.export_epoch(0))
    with pytest.raises(ValueError, match="exactly one epoch"):
        light.apply_epoch(f)
    gap = amq.SlidingWindowCuckoo(1000, 0.001, seed=3)
    gap.register_many(range(6000))
    with pytest.raises(ValueError, match="neither held"):
        light.apply_epoch(gap.export_epoch(5))
    assert light == f  # a refused part changes nothing
    assert pickle.loads(pickle.dumps(f)) == f and copy.copy(f) == f
    assert "epochs=4" in repr(f) and f.info()["kind"] == "sliding-window-cuckoo"
    with pytest.raises(ValueError):
        amq.SlidingWindowCuckoo(0, 0.001)
    with pytest.raises(ValueError):
        amq.SlidingWindowCuckoo(1000, 1.5)


def test_aging_forgets_by_count_and_by_time():
    f = amq.AgingBloom.with_window(100, 4, 0.01)
    f.add_many(range(100))
    assert all(i in f for i in range(100))
    f.add_many(range(1000, 2000))
    assert sum(i in f for i in range(100)) < 5  # rotated out, bar false positives
    t = amq.AgingBloom.with_time_window(3600, 4, 1000, 0.01)
    t.add("seen", now=1_700_000_000)
    assert t.contains("seen", now=1_700_000_000 + 3600)
    assert not t.contains("seen", now=1_700_000_000 + 10 * 3600)
    assert t.info(now=1_700_000_000)["rotation"] == "seconds"


def test_aging_fpr_bound_is_the_planned_one():
    f = amq.AgingBloom.with_window(4000, 4, 0.01)
    # count-rotated every ceil(4000 / 3) = 1334 insertions (three full generations hold the
    # window while the fourth fills): the bound is at that count
    assert "every 1334 insertions" in repr(f)
    assert 0.0099 < f.fpr_bound() <= 0.01
    assert f.fpr_bound_at(1334) == f.fpr_bound() > f.fpr_bound_at(1000)
    t = amq.AgingBloom.with_time_window(3600, 4, 1000, 0.01)
    assert t.fpr_bound() == 0.0  # as of now: nothing inserted
    assert 0.0099 < t.fpr_bound_at(1000) <= 0.01
    assert t.fpr_bound_at(2000) > 0.01  # an interval past its plan breaks the promise
    t.add_many(range(10), now=1_700_000_000)
    assert 0.0 < t.fpr_bound() == t.fpr_bound_at(10) < t.fpr_bound_at(1000)


def test_negative_cache_is_definite_and_expires():
    c = amq.NegativeCache(10, b=64, ways=4, ttl=60)
    c.add("missing-key", now=1000)
    assert c.contains("missing-key", now=1059)
    assert not c.contains("missing-key", now=1061)
    c.add("k2", ttl=5, now=1000)
    assert c.contains("k2", now=1004) and not c.contains("k2", now=1006)
    assert c.remove("missing-key", now=1000) and not c.contains("missing-key", now=1000)
    with pytest.raises(ValueError, match="ttl"):
        amq.NegativeCache(10).add("x", ttl=5)


def test_new_and_plan_take_a_spec():
    f = amq.new(kind="cuckoo", items=1000, fpr=0.01, seed=5)
    assert isinstance(f, amq.CuckooFilter) and f.seed == 5
    assert isinstance(amq.new({"kind": "blocked-bloom", "items": 10, "fpr": 0.1}),
                      amq.BlockedBloomFilter)
    assert isinstance(amq.new("negative-cache", l=8, b=16, ways=2), amq.NegativeCache)
    p = amq.plan(items=1_000_000, fpr=0.01)
    assert (p["kind"], p["k"], p["m_bits"]) == ("bloom", 7, 9_592_955)
    assert amq.plan("cuckoo", items=10**6, fpr=0.001)["k"] == 2
    assert amq.plan(kind="bloom", items=10**4, m_bits=32768)["m_bits"] == 32768
    with pytest.raises(ValueError, match="invalid n"):
        amq.plan(items=0, fpr=0.01)
    with pytest.raises(ValueError, match="not a filter spec"):
        amq.plan(kind="nonsense", items=1)


def test_batch_calls_release_the_gil():
    """Another thread runs while a batch call works: a thread that counts, giving up the GIL
    after every step, can only advance during the call if the call released the GIL."""
    values = np.arange(3_000_000, dtype=np.uint64)
    f = amq.BloomFilter.with_fpr(3_000_000, 0.01)
    count = [0]
    stop = threading.Event()

    def counter():
        while not stop.is_set():
            count[0] += 1
            time.sleep(0)

    t = threading.Thread(target=counter)
    t.start()
    try:
        time.sleep(0.01)
        before = count[0]
        f.add_many(values)
        during_add = count[0] - before
        before = count[0]
        answers = f.contains_many(values)
        during_contains = count[0] - before
    finally:
        stop.set()
        t.join()
    assert answers.tolist() == [True] * len(values)
    assert during_add > 50 and during_contains > 50, (during_add, during_contains)


def test_repr_and_help_read_well():
    assert repr(amq.BloomFilter(1024, 3)) == "<amq.BloomFilter m_bits=1024 k=3 seed=0 inserted=0>"
    assert "definitely absent" in amq.BloomFilter.__doc__
    assert "FilterFullError" in amq.CuckooFilter.__doc__
    assert amq.BloomFilter.with_fpr.__text_signature__ == "(n, fpr, seed=0, k=None)"
    assert "definitely present" in amq.NegativeCache.__doc__


def test_numpy_subclasses_are_read_as_arrays(tmp_path):
    values = np.arange(10_000, dtype=np.uint64) * np.uint64(2654435761)
    mm = np.memmap(tmp_path / "keys.u64", dtype=np.uint64, mode="w+", shape=values.shape)
    mm[:] = values
    mm.flush()
    ro = np.memmap(tmp_path / "keys.u64", dtype=np.uint64, mode="r", shape=values.shape)
    for cls in (amq.BloomFilter, amq.SplitBlockBloomFilter, amq.CuckooFilter):
        f = cls.with_fpr(len(values), 0.01)
        f.add_many(ro)
        g = cls.with_fpr(len(values), 0.01)
        g.add_many(values)
        assert f == g
        answers = f.contains_many(ro)
        assert type(answers) is np.ndarray and answers.dtype == np.bool_
        assert answers.all()

    class Tagged(np.ndarray):
        pass

    answers = amq.BloomFilter.with_fpr(10, 0.01).contains_many(values[:5].view(Tagged))
    assert type(answers) is np.ndarray and answers.dtype == np.bool_


def test_window_positions_are_any_iterable_of_ints_and_never_negative():
    f = amq.SlidingWindowBloom(1 << 12, 1 << 8, 4, 5)
    f.add_many(["a", "b", "c"])
    want = [True, True, True]
    assert f.contains_many(["a", "b", "c"], (p for p in range(3))) == want
    assert f.contains_many(["a", "b", "c"], range(3)) == want
    assert f.contains_many(["a", "b", "c"], np.arange(3, dtype=np.int64)) == want
    assert f.contains_many(["a", "b", "c"], np.arange(3, dtype=np.uint32)) == want
    assert f.contains_many(["a", "b"], np.int64(0)) == [True, False]
    with pytest.raises(OverflowError):
        f.contains_many(["a"], -1)
    with pytest.raises(OverflowError):
        f.contains_many(["a", "b"], [0, -1])
    with pytest.raises(OverflowError):
        f.contains_many(["a", "b"], np.array([0, -1], dtype=np.int64))
    with pytest.raises(ValueError, match="2 items but 3 positions"):
        f.contains_many(["a", "b"], (p for p in range(3)))


def test_inserted_says_what_each_kind_counts():
    """The docstring of `inserted` says what the kind counts, and the count does that."""
    b = amq.BloomFilter(1024, 3)
    b.add("x"), b.add("x")
    assert b.inserted == 2 and "a duplicate too" in type(b).inserted.__doc__
    s = amq.ScalableBloomFilter(100, 0.01)
    s.add("x"), s.add("x")
    assert s.inserted == 1 and "returned True" in type(s).inserted.__doc__
    t = amq.TtlCuckooFilter(100, 0.01, 10)
    t.add("x", now=T0), t.add("x", now=T0)
    assert t.inserted == 1 and "returned True" in type(t).inserted.__doc__
    c = amq.CuckooFilter(64, 12)
    c.add("x"), c.add("x"), c.remove("x")
    assert c.inserted == 1 and "minus removes" in type(c).inserted.__doc__


def test_from_bytes_takes_bytes_and_bytearray_as_load_does():
    f = amq.BloomFilter(1024, 3)
    f.add("x")
    data = bytearray(f.to_bytes())
    assert amq.BloomFilter.from_bytes(data) == f == amq.load(data)
    a = amq.AgingBloom.with_window(10, 2, 0.01)
    assert amq.AgingBloom.from_bytes(bytearray(a.to_bytes())) == a
    with pytest.raises(TypeError, match=r"bytes or bytearray\), not a file name"):
        amq.BloomFilter.from_bytes("AMQ")



def test_now_takes_the_float_time_time_gives_as_its_whole_seconds():
    """`now=` (and Cashu's `timestamp=`) take a float such as `time.time()` returns, rounded
    down to whole seconds as the system clock is; a float that is no time is a ValueError."""
    import time

    t0 = 1_700_000_000
    by_int = amq.TtlCuckooFilter(1000, 0.01, 1, max_ttl=10)
    by_float = amq.TtlCuckooFilter(1000, 0.01, 1, max_ttl=10)
    assert by_int.add("k", ttl=3, now=t0) and by_float.add("k", ttl=3, now=t0 + 0.99)
    assert by_int == by_float  # the same stamp: 0.99 s was rounded down
    # live until t0 + 3 (exclusive) on both, whole seconds or not
    assert by_float.contains("k", now=t0 + 2.999) and not by_float.contains("k", now=t0 + 3.0)
    assert by_float.live(now=float(t0 + 2)) == 1 and by_float.live(now=t0 + 3.5) == 0
    cache = amq.NegativeCache(10, ttl=60)
    cache.add("miss", now=t0 + 0.5)
    assert cache.contains("miss", now=t0 + 59.9) and not cache.contains("miss", now=t0 + 61.5)
    for at in [t0 + 59.5, t0 + 60.5]:
        assert cache.contains("miss", now=at) == cache.contains("miss", now=int(at))
    aging = amq.AgingBloom.with_time_window(60, 4, 100, 0.01)
    aging.add("x", now=time.time())
    assert aging.contains("x", now=time.time())
    for bad in [float("nan"), float("inf"), -1.0, 2.0**64]:
        with pytest.raises(ValueError, match="seconds since the Unix epoch"):
            by_float.contains("k", now=bad)
    with pytest.raises(TypeError):
        by_float.contains("k", now="1700000000")
    response = amq.cashu.build([b"a", b"b"], timestamp=t0 + 0.75)
    assert response["timestamp"] == t0
