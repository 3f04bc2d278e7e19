"""One bounded run of the Python package against its peers (issue 13, part 3).

* Bloom filters at n = 10**6, eps = 1%: amq.BloomFilter and amq.BlockedBloomFilter against
  rbloom and pybloom-live: per-item ``add`` (a bound method) and ``in`` (the operator), ns
  per call in a plain ``for`` loop that every filter pays alike (``loop_overhead_ns``: the
  same loop calling ``id``), with ``str`` and ``bytes`` items (``in``: half members, half
  not); amq's batch calls over a list and over a NumPy uint64 array; rbloom's ``update``;
  table memory; and the false-positive rate measured on items never added. Each figure is
  the best of 5 runs (``--repeat``); the load average before and after is recorded.
* Cashu: the NUT-23 GCS build at N = 10**5 (33-byte items) against the seed's Python
  functions (below, copied from the seed), with a check that both give the same bytes.

Usage (in the virtualenv of scripts/test-python, or one with requirements-dev.txt and
`maturin develop --release`):

    python crates/amq-py/bench/bench.py [--n 1000000] [--json out.json]

pybloom-live is timed on the first 10**5 items only (about 10 s otherwise); its per-call
cost does not depend on n. The machine is whatever runs it: figures from a shared machine
vary by 10-20% from run to run.
"""

import argparse
import json
import os
import platform
import random
import sys
import time

import numpy as np
import rbloom
from pybloom_live import BloomFilter as PyBloomLive

import amq

# --- The seed's reference functions -------------------------------------------------------
# Copied from shared/seeds/nut23-golomb-coded-sets.md (the NUT-23 draft, cashubtc/nuts PR
# #261): hash_to_range, golomb_encode and create. The seed calls create_hashed_set without
# defining it; it is the draft's step 1, "hashing all items to 64-bit integers in the range
# [0, N*M)", written here as that one line.
import mmh3  # noqa: E402
from bitarray import bitarray  # noqa: E402


def hash_to_range(item: bytes, f: int) -> int:
    h = mmh3.hash128(item) & (2**64 - 1)
    return (f * h) >> 64


def golomb_encode(stream: bitarray, x: int, P: int) -> None:
    q = x >> P
    r = x & (2**P - 1)

    while q > 0:
        stream.append(1)
        q -= 1
    stream.append(0)

    for i in range(P):
        stream.append((r >> (P - 1 - i)) & 1)


def create_hashed_set(items, m):  # the draft's step 1 (not defined in the seed)
    f = len(items) * m
    return [hash_to_range(item, f) for item in items]


def create(items, p: int = 19, m: int = 784931) -> bytes:
    if m.bit_length() > 32:
        raise Exception("GCS Error: m parameter must be smaller than 2^32")
    if len(items).bit_length() > 32:
        raise Exception("GCS Error: number of elements must be smaller than 2^32")

    set_items = create_hashed_set(items, m)

    # Sort in non-descending order
    sorted_set_items = sorted(set_items)

    output_stream = bitarray()

    last_value = 0
    for item in sorted_set_items:
        delta = item - last_value
        golomb_encode(output_stream, delta, p)
        last_value = item

    # Padded to the next byte boundary
    return output_stream.tobytes()


# --- Timing -------------------------------------------------------------------------------


REPEAT = 5


def best_ns(fn, repeat=None) -> float:
    """The fastest of `repeat` runs of fn(), in ns."""
    best = float("inf")
    for _ in range(repeat or REPEAT):
        t = time.perf_counter_ns()
        fn()
        best = min(best, time.perf_counter_ns() - t)
    return best


def add_loop(f, items):
    add = f.add
    for x in items:
        add(x)


def in_loop(f, items):
    for x in items:
        x in f  # noqa: B015 (the operator is what is timed)


def id_loop(items):
    for x in items:
        id(x)


# --- The Bloom benchmark ------------------------------------------------------------------


def bloom_bench(n: int, fpr: float) -> dict:
    str_items = [f"item-{i}" for i in range(n)]
    bytes_items = [s.encode() for s in str_items]
    absent_str = [f"absent-{i}" for i in range(n)]
    absent_bytes = [s.encode() for s in absent_str]
    ints = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    absent_ints = ints + np.uint64(1)
    small = 100_000  # pybloom-live's sample
    out = {"n": n, "fpr": fpr,
           "loop_overhead_ns": round(best_ns(lambda: id_loop(str_items)) / n, 1)}
    peers = {
        "amq.BloomFilter": (lambda: amq.BloomFilter.with_fpr(n, fpr), n),
        "amq.BlockedBloomFilter": (lambda: amq.BlockedBloomFilter.with_fpr(n, fpr), n),
        "rbloom": (lambda: rbloom.Bloom(n, fpr), n),
        "pybloom-live": (lambda: PyBloomLive(capacity=n, error_rate=fpr), small),
    }
    rows = {}
    for name, (new, sample) in peers.items():
        row = {}
        for kind, items, absent in [("str", str_items, absent_str),
                                    ("bytes", bytes_items, absent_bytes)]:
            # add: into an empty filter sized for n; in: half members, half not, filter full
            row[f"add_{kind}_ns"] = round(best_ns(lambda: add_loop(new(), items[:sample])) / sample, 1)
            f = new()
            add_loop(f, items)
            probes = items[: sample // 2] + absent[: sample // 2]
            row[f"in_{kind}_ns"] = round(best_ns(lambda: in_loop(f, probes)) / sample, 1)
            row[f"measured_fpr_{kind}"] = sum(x in f for x in absent[:sample]) / sample
        if name.startswith("amq"):
            for kind, items, absent in [("str", str_items, absent_str),
                                        ("bytes", bytes_items, absent_bytes),
                                        ("numpy_u64", ints, absent_ints)]:
                row[f"add_many_{kind}_ns"] = round(best_ns(lambda: new().add_many(items)) / n, 1)
                f = new()
                f.add_many(items)
                if kind == "numpy_u64":
                    probes = np.concatenate([items[: n // 2], absent[: n // 2]])
                else:
                    probes = items[: n // 2] + absent[: n // 2]
                row[f"contains_many_{kind}_ns"] = round(best_ns(lambda: f.contains_many(probes)) / n, 1)
            row["memory_bytes"] = new().size_bytes
        elif name == "rbloom":
            row["update_str_ns"] = round(best_ns(lambda: new().update(str_items)) / n, 1)
            row["update_bytes_ns"] = round(best_ns(lambda: new().update(bytes_items)) / n, 1)
            row["memory_bytes"] = new().size_in_bits // 8
        else:
            row["memory_bytes"] = len(new().bitarray) // 8
            row["sample"] = sample
        rows[name] = row
    out["filters"] = rows
    return out


def cashu_bench(n: int) -> dict:
    rng = random.Random(23)
    items = [bytes([2]) + rng.randbytes(32) for _ in range(n)]
    seed_bytes = b""

    def seed():
        nonlocal seed_bytes
        seed_bytes = create(items)

    seed_ns = best_ns(seed, repeat=1)
    ours = amq.cashu.build(items, timestamp=0)
    import base64
    same = base64.b64decode(ours["content"]) == seed_bytes
    ours_ns = best_ns(lambda: amq.cashu.build(items, timestamp=0), repeat=5)
    targets = items[:500] + [bytes([3]) + rng.randbytes(32) for _ in range(500)]
    match_ns = best_ns(lambda: amq.cashu.match(ours, targets), repeat=5)
    return {
        "n": n,
        "seed_create_ms": round(seed_ns / 1e6, 1),
        "amq_build_ms": round(ours_ns / 1e6, 2),
        "speedup": round(seed_ns / ours_ns, 1),
        "same_bytes": same,
        "content_bytes": len(seed_bytes),
        "amq_match_1000_targets_ms": round(match_ns / 1e6, 2),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--fpr", type=float, default=0.01)
    ap.add_argument("--cashu-n", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=REPEAT, help="runs per figure (the best)")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args()
    globals()["REPEAT"] = a.repeat
    load_before = os.getloadavg()
    result = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "amq": amq.__version__,
        "rbloom": "1.5.4",
        "pybloom-live": "4.0.0",
        "bloom": bloom_bench(a.n, a.fpr),
        "cashu": cashu_bench(a.cashu_n),
        "loadavg_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        "cpus": os.cpu_count(),
    }
    b = result["bloom"]["filters"]
    ours, rb, pbl = b["amq.BloomFilter"], b["rbloom"], b["pybloom-live"]
    result["goals"] = {
        # >= 1.0 means amq's per-item calls are at least as fast as rbloom's
        "per_item_vs_rbloom": {k: round(rb[k] / ours[k], 2)
                               for k in ("add_str_ns", "in_str_ns", "add_bytes_ns", "in_bytes_ns")},
        # batch over per-item (goal >= 5)
        "batch_vs_per_item": {
            "add_bytes": round(ours["add_bytes_ns"] / ours["add_many_bytes_ns"], 1),
            "add_str": round(ours["add_str_ns"] / ours["add_many_str_ns"], 1),
            "in_bytes": round(ours["in_bytes_ns"] / ours["contains_many_bytes_ns"], 1),
            "in_str": round(ours["in_str_ns"] / ours["contains_many_str_ns"], 1),
            "add_numpy_vs_add_bytes": round(ours["add_bytes_ns"] / ours["add_many_numpy_u64_ns"], 1),
            "in_numpy_vs_in_bytes": round(ours["in_bytes_ns"] / ours["contains_many_numpy_u64_ns"], 1),
        },
        # per-item against pybloom-live (goal >= 20)
        "per_item_vs_pybloom_live": {k: round(pbl[k] / ours[k], 1)
                                     for k in ("add_str_ns", "in_str_ns", "add_bytes_ns", "in_bytes_ns")},
        "cashu_build_vs_seed": result["cashu"]["speedup"],  # goal >= 100
    }
    text = json.dumps(result, indent=1)
    print(text)
    if a.json:
        with open(a.json, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
