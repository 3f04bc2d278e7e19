"""The NUT-23 draft's own Python GCS build (shared/seeds/nut23-golomb-coded-sets.md:
`hash_to_range`, `golomb_encode`, `create`, as the draft gives them), timed at N = 10^5 on the
same items as crates/amq-bench/benches/gcs.rs, for the "≥ 100× faster" goal in BENCHMARKS.md.

Run by hand (not in CI):

    pip install mmh3==5.3.1 bitarray==3.12.3
    python3 crates/amq-bench/python/nut23_build.py

It prints the time per build (best and mean of 7 runs) and per item and checks the output against
`amq cashu build` when an `amq` binary is given as the first argument.
"""

import base64
import json
import subprocess
import sys
import time
from typing import List

import mmh3
from bitarray import bitarray

MASK = (1 << 64) - 1


# --- the draft's functions ---------------------------------------------------------------

def hash_to_range(item: bytes, f: int) -> int:
    h = mmh3.hash128(item) & (2**64 - 1)
    return (f * h) >> 64


def create_hashed_set(items: List[bytes], m: int) -> List[int]:
    f = len(items) * m
    return [hash_to_range(item, f) for item in items]


def golomb_encode(stream: bitarray, x: int, P: int) -> None:
    q = x >> P
    r = x & (2**P - 1)
    while q > 0:
        stream.append(1)
        q -= 1
    stream.append(0)
    for i in range(P):
        stream.append((r >> (P - 1 - i)) & 1)


def create(items: List[bytes], p: int = 19, m: int = 784931) -> bytes:
    if m.bit_length() > 32:
        raise Exception("GCS Error: m parameter must be smaller than 2^32")
    if len(items).bit_length() > 32:
        raise Exception("GCS Error: number of elements must be smaller than 2^32")
    set_items = create_hashed_set(items, m)
    sorted_set_items = sorted(set_items)
    output_stream = bitarray()
    last_value = 0
    for item in sorted_set_items:
        delta = item - last_value
        golomb_encode(output_stream, delta, p)
        last_value = item
    return output_stream.tobytes()


# --- the bench's items (benches/gcs.rs `item`) ---------------------------------------------

def mix(i: int) -> int:
    z = (i + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def item(i: int) -> bytes:
    return b"\x02" + b"".join(mix(i * 4 + w).to_bytes(8, "little") for w in range(4))


def main() -> None:
    n = 100_000
    items = [item(i) for i in range(n)]
    times = []
    out = b""
    for _ in range(7):
        t0 = time.perf_counter()
        out = create(items)
        times.append(time.perf_counter() - t0)
    best, mean = min(times), sum(times) / len(times)
    print(f"nut23 python create(): N = {n}, 7 runs: best {best * 1e3:.1f} ms "
          f"({best / n * 1e9:.0f} ns per item), mean {mean * 1e3:.1f} ms, {len(out)} bytes")
    if len(sys.argv) > 1:
        text = "".join(i.hex() + "\n" for i in items)
        res = subprocess.run([sys.argv[1], "cashu", "build", "--timestamp", "0", "-"],
                             input=text.encode(), capture_output=True, check=True)
        content = base64.b64decode(json.loads(res.stdout)["content"])
        assert content == out, "amq cashu build differs from the draft's create()"
        print("amq cashu build gives the same bytes")


if __name__ == "__main__":
    main()
