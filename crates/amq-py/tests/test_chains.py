"""The growing chains from Python: ScalableBloomFilter and ExpandableCuckooFilter grow past
their first link's n with no false negatives and a measured rate within their bound, refuse
items when they cannot grow (and lose nothing), and round-trip through their .amq bytes."""

import json
import math
import pickle
import re

import pytest

import amq

N = 1_000  # the first link's n
ADDED = 20_000  # five scalable links from N, doubling (1k + 2k + 4k + 8k + 16k = 31k)
PROBES = 100_000


def chains():
    return [amq.ScalableBloomFilter(N, 0.01, seed=3), amq.ExpandableCuckooFilter(N, 0.01, seed=3)]


@pytest.mark.parametrize("f", chains(), ids=lambda f: type(f).__name__)
def test_grows_without_false_negatives_and_keeps_its_bound(f):
    f.add_many(range(ADDED))
    if isinstance(f, amq.ScalableBloomFilter):
        # a link is added when the active one holds its n (an item that may be present
        # adds nothing, so a few fewer count)
        assert f.links == 5 and f.capacity == 31 * N and ADDED * 0.99 < f.inserted <= ADDED
    else:
        # a link is added when the newest one refuses an item (past its planned load)
        assert f.links >= 2 and f.inserted == ADDED
    assert all(f.contains_many(range(ADDED)))
    assert all(i in f for i in range(0, ADDED, 97))
    bound = f.fpr_bound
    assert 0 < bound <= 0.01
    false = sum(f.contains_many(range(ADDED, ADDED + PROBES)))
    # the measured rate is under the bound, bar 3 sigma of the binomial spread
    assert false <= PROBES * bound + 3 * math.sqrt(PROBES * bound * (1 - bound)), false
    info = f.info()
    assert info["kind"] in ("scalable-bloom", "expandable-cuckoo")
    assert info["seed"] == 3 and info["bytes"] == f.size_bytes


@pytest.mark.parametrize("f", chains(), ids=lambda f: type(f).__name__)
def test_round_trips_through_bytes_load_and_pickle(f):
    f.add_many([f"x{i}" for i in range(3 * N)])
    data = f.to_bytes()
    for g in (type(f).from_bytes(data), amq.load(data), pickle.loads(pickle.dumps(f)), f.copy()):
        assert type(g) is type(f) and g == f and g.to_bytes() == data
    with pytest.raises(ValueError):
        type(f).from_bytes(data[:-1])


@pytest.mark.parametrize("f", chains(), ids=lambda f: type(f).__name__)
def test_the_command_line_reads_the_file(run_cli, workdir, f):
    f.add_many(range(3 * N))
    path = workdir / "chain.amq"
    path.write_bytes(f.to_bytes())
    info = json.loads(run_cli("info", "--json", path))
    assert info == f.info()


def test_union_of_chains_holds_both_sets():
    a, b = amq.ScalableBloomFilter(N, 0.01), amq.ScalableBloomFilter(N, 0.01)
    a.add_many(range(N // 2))
    b.add_many(range(10 * N, 10 * N + N // 2))
    u = a | b
    assert all(u.contains_many(range(N // 2)))
    assert all(u.contains_many(range(10 * N, 10 * N + N // 2)))
    assert u.links == 1 and u.inserted == 2 * (N // 2)
    # a chain of three links OR-ed into an empty one: the later links are copied
    grown = amq.ScalableBloomFilter(N, 0.01)
    grown.add_many(range(20 * N, 27 * N))
    assert grown.links == 3
    v = amq.ScalableBloomFilter(N, 0.01) | grown
    assert v.to_bytes() == grown.to_bytes()
    # a's and the grown chain's first links together hold more than the N items it is
    # planned for: its rate, and the chain's fpr_bound, would no longer hold
    before = a.to_bytes()
    with pytest.raises(amq.FilterFullError, match="capacity"):
        a.union(grown)
    assert a.to_bytes() == before
    with pytest.raises(ValueError):
        a.union(amq.ScalableBloomFilter(N, 0.01, seed=1))
    c, d = amq.ExpandableCuckooFilter(N, 0.01), amq.ExpandableCuckooFilter(N, 0.01)
    c.add_many(range(N // 2))
    d.add_many(range(N, N + N // 2))
    c |= d
    assert all(c.contains_many(range(N // 2))) and all(c.contains_many(range(N, N + N // 2)))


def test_a_chain_that_cannot_grow_says_so_and_keeps_what_it_held():
    f = amq.ScalableBloomFilter(100, 0.01, nonscaling=True)
    with pytest.raises(amq.FilterFullError) as e:
        f.add_many(range(1_000))
    message = str(e.value)
    at = re.search(r"item (\d+) of the batch: the (\d+) before it were processed", message)
    assert at and at[1] == at[2], message  # item i (from 0) is the one after the i before it
    assert "nothing was added" not in message, message
    held = f.inserted
    assert f.links == 1 and 100 <= held < 1_000
    assert all(f.contains_many(range(held)))
    g = amq.ExpandableCuckooFilter(100, 0.01, expansion=0)
    with pytest.raises(amq.FilterFullError):
        for i in range(1_000):
            g.add(i)
    assert g.links == 1 and all(g.contains_many(range(g.inserted)))


def test_expandable_cuckoo_removes_and_counts():
    f = amq.ExpandableCuckooFilter(N, 0.01)
    f.add("a")
    f.add("a")
    assert f.count("a") == 2
    assert f.remove("a") and "a" in f
    assert f.remove("a") and "a" not in f
    assert not f.remove("a")


def test_new_makes_the_chain_classes():
    assert isinstance(amq.new(kind="scalable-bloom", items=100, fpr=0.01), amq.ScalableBloomFilter)
    f = amq.new(kind="expandable-cuckoo", items=100, fpr=0.01, seed=9)
    assert isinstance(f, amq.ExpandableCuckooFilter) and f.seed == 9
    assert f == amq.ExpandableCuckooFilter(100, 0.01, seed=9)


def test_bad_parameters_are_value_errors():
    with pytest.raises(ValueError):
        amq.ScalableBloomFilter(0, 0.01)
    with pytest.raises(ValueError):
        amq.ScalableBloomFilter(100, 1.5)
    with pytest.raises(ValueError):
        amq.ExpandableCuckooFilter(100, 0.01, tightening=0)
