#!/usr/bin/env python3
"""Independent oracle for the unit-name registry (seed: smart-contract-bloom-filter.md).

Re-implements the contract's to_index / buy_nft with Python's hashlib (OpenSSL's FIPS
SHA-512/256 and SHA3-256) and writes registry-oracle.json. Run from this folder:
    python3 make_registry_vectors.py > registry-oracle.json
"""
import base64
import hashlib
import json


def to_index(digest: bytes, m: int) -> int:
    # op.extract_uint64(digest, 24) % m
    return int.from_bytes(digest[24:32], "big") % m


def h1(name: bytes, m: int) -> int:
    return to_index(hashlib.new("sha512_256", name).digest(), m)


def h2(name: bytes, m: int) -> int:
    return to_index(hashlib.sha3_256(name).digest(), m)


def getbit(box: bytearray, i: int) -> int:
    return (box[i // 8] >> (7 - i % 8)) & 1


def setbit(box: bytearray, i: int) -> None:
    box[i // 8] |= 0x80 >> (i % 8)


class Contract:
    def __init__(self, max_supply: int, box_bytes: int = 4096):
        self.max_supply = max_supply
        self.minted = 0
        self.box = None
        self.box_bytes = box_bytes

    def create_bloom_filter(self):
        if self.box is None:
            self.box = bytearray(self.box_bytes)

    def buy_nft(self, name: bytes) -> str:
        if not self.minted < self.max_supply:
            return "fail: Maximum supply reached"
        if self.box is None:
            return "fail: Application not bootstrapped"
        m = 8 * len(self.box)
        a, b = h1(name, m), h2(name, m)
        if getbit(self.box, a) and getbit(self.box, b):
            return "fail: Unit name already taken"
        if len(name) > 8:  # itxn_field ConfigAssetUnitName: MaxAssetUnitNameBytes = 8
            return "fail: value is too long"
        self.minted += 1
        setbit(self.box, a)
        setbit(self.box, b)
        return "ok"


def box_fields(c: Contract):
    if c.box is None:
        return None, None
    return base64.b64encode(bytes(c.box)).decode(), hashlib.sha256(bytes(c.box)).hexdigest()


names = [b"The GOAT", b"", b"BAYC1", "ñandú".encode(), b"\xff\xfe\x00\x01", b"NINEBYTES", b"12345678"]
indices = []
for m in (32768, 8 * 13154, 8):
    for n in names:
        indices.append({"name_hex": n.hex(), "m": m, "h1": h1(n, m), "h2": h2(n, m)})

small_calls = [b"The GOAT", b"The GOAT", b"NINEBYTES", b"", b"\xff\xfe", b"BAYC1", b"BAYC2", b"BAYC3"]
replays = []
for max_supply, boot in ((5, True), (5, False), (0, True)):
    c = Contract(max_supply)
    if boot:
        c.create_bloom_filter()
    results = [c.buy_nft(n) for n in small_calls]
    b64, sha = box_fields(c)
    replays.append({
        "max_supply": max_supply,
        "bootstrapped": boot,
        "calls_hex": [n.hex() for n in small_calls],
        "results": results,
        "minted": c.minted,
        "box_sha256": sha,
        "box_base64": b64,
    })

# A long replay: BAYC0..BAYC2999 then BAYC0..BAYC99 again, max supply 2500.
c = Contract(2500)
c.create_bloom_filter()
calls = [f"BAYC{i}".encode() for i in range(3000)] + [f"BAYC{i}".encode() for i in range(100)]
failures = []
for i, n in enumerate(calls):
    r = c.buy_nft(n)
    if r != "ok":
        failures.append([i, r])
_, sha = box_fields(c)
long_replay = {
    "max_supply": 2500,
    "calls": "BAYC0..BAYC2999, then BAYC0..BAYC99",
    "failures": failures,
    "minted": c.minted,
    "box_sha256": sha,
}

print(json.dumps({
    "description": "Oracle values for the unit-name registry, computed by make_registry_vectors.py "
                   "(Python hashlib: FIPS SHA-512/256 and SHA3-256) from the seed contract's code.",
    "indices": indices,
    "replays": replays,
    "long_replay": long_replay,
}, indent=1))
