"""Filters used from several threads: what a batch call answers while other threads use the
same filter, or a copy of it, meanwhile."""

import threading

import numpy as np
import pytest

import amq

T = 1_700_000_000
KEYS = np.arange(300_000, dtype=np.uint64)


def timed(kind: str):
    """A filter of a time-based kind holding KEYS, added at T; every key has expired (aging:
    rotated out; negative cache: its TTL is over) a million seconds later."""
    f = {
        "aging": lambda: amq.AgingBloom.with_time_window(60, 4, len(KEYS), 0.01),
        "negative": lambda: amq.NegativeCache(20, 32, 4, ttl=60),
    }[kind]()
    f.add_many(KEYS, now=T)
    return f


@pytest.mark.parametrize("kind", ["aging", "negative"])
@pytest.mark.parametrize("other", ["same filter", "copy"])
def test_a_batch_answers_at_its_own_time_while_other_threads_ask_at_another(kind, other):
    """A batch call releases the GIL between its chunks of 4,096 items; a call at a later
    `now` from another thread, on the same filter or on a copy, must not move the time the
    rest of the batch is answered at (it did when the filter and its copies shared one clock
    that every call set: most keys then read as expired)."""
    f = timed(kind)
    alone = f.contains_many(KEYS, now=T)
    assert alone.sum() > 0.9 * len(KEYS)  # the negative cache pushes a few keys out
    g = f if other == "same filter" else f.copy()
    assert not g.contains(int(KEYS[0]), now=T + 10**6)
    stop, running = threading.Event(), threading.Event()

    def ask_later():
        running.set()
        while not stop.is_set():
            g.contains(b"x", now=T + 10**6)
            g.info(now=T + 10**6)

    t = threading.Thread(target=ask_later)
    t.start()
    try:
        running.wait()
        answers = [f.contains_many(KEYS, now=T) for _ in range(3)]
    finally:
        stop.set()
        t.join()
    for a in answers:
        assert int((a != alone).sum()) == 0
    # and the filter itself was left as it was
    assert (f.contains_many(KEYS, now=T) == alone).all()



def _busy(f, call):
    """Runs `call` while `f.add_many` holds `f` (from inside the iterator it consumes): the
    exception `call` raised, or None."""
    seen = []

    def items():
        yield 1
        try:
            call()
        except Exception as e:  # noqa: BLE001 - the test inspects what was raised
            seen.append(e)
        yield 2

    f.add_many(items())
    return seen[0] if seen else None


@pytest.mark.parametrize(
    "what",
    ["union into it", "union from it", "|", "&", "intersect", "pickle", "copy"],
)
def test_a_filter_in_a_batch_call_refuses_other_uses_with_runtime_error(what):
    """What needs a filter that a batch call holds raises RuntimeError (Already borrowed), as
    docs/python.md says; some of these panicked (pyo3's PanicException) instead."""
    import pickle

    f, g = amq.BloomFilter(1000, 3), amq.BloomFilter(1000, 3)
    call = {
        "union into it": lambda: f.union(g),
        "union from it": lambda: g.union(f),
        "|": lambda: f | g,
        "&": lambda: g & f,
        "intersect": lambda: g.intersect(f),
        "pickle": lambda: pickle.dumps(f),
        "copy": lambda: f.copy(),
    }[what]
    e = _busy(f, call)
    assert isinstance(e, RuntimeError) and "borrow" in str(e).lower(), repr(e)
    assert 1 in f and 2 in f


def test_apply_epoch_during_register_many_is_a_runtime_error():
    s = amq.SlidingWindowCuckoo(20, 0.01)
    part = amq.SlidingWindowCuckoo(20, 0.01)
    part.register(b"x")
    part = part.export_epoch(0)
    seen = []

    def items():
        yield b"a"
        try:
            s.apply_epoch(part)
        except Exception as e:  # noqa: BLE001
            seen.append(e)
        yield b"b"

    s.register_many(items())
    assert len(seen) == 1 and isinstance(seen[0], RuntimeError), seen
