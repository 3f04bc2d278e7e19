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

