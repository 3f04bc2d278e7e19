"""The golden vectors of tests/vectors/ (the ones the Rust tests read), byte for byte, through
the Python package."""

import base64
import hashlib

import pytest

import amq
from conftest import vector

# --- Ethereum logsBloom --------------------------------------------------------------------


def test_geth_bloom9_vectors():
    v = vector("ethereum/geth-bloom9-tests.json")
    b = amq.eth.LogsBloom()
    for s in v["TestBloom"]["add_utf8"]:
        b.accrue(s.encode())
    assert all(s.encode() in b for s in v["TestBloom"]["must_test_true"])
    assert not any(s.encode() in b for s in v["TestBloom"]["must_test_false"])
    ext = v["TestBloomExtensively"]
    b = amq.eth.LogsBloom()
    for i in range(*ext["i_range"]):
        b.accrue(ext["add_utf8_format"].replace("%d", str(i)).encode())
    assert amq.eth.keccak256(bytes(b)).hex() == ext["keccak256_of_256_byte_bloom"]


def test_nim_eth_bloom_vector():
    v = vector("ethereum/nim-eth-bloom-doc.json")
    b = amq.eth.LogsBloom()
    for s in v["add_utf8"]:
        b.accrue(s.encode())
    assert b.hex() == "0x" + v["bloom_hex_as_printed"].rjust(512, "0")
    assert all(s.encode() in b for s in v["must_test_true"])


def test_public_receipts():
    for r in vector("ethereum/public-receipts.json")["receipts"]:
        assert amq.eth.bloom(r).hex() == r["logsBloom"].lower(), r["name"]
        [check] = amq.eth.verify(r)
        assert check["ok"] and check["bits_missing_from_stated"] == [], r["name"]
        stated = amq.eth.LogsBloom.from_hex(r["logsBloom"])
        for log in r["logs"]:
            assert stated.contains_log(log["address"], log["topics"])
            assert stated.contains(bytes.fromhex(log["address"][2:]))
        for hexed, prefix in r.get("keccak256_first6", {}).items():
            assert amq.eth.keccak256(bytes.fromhex(hexed[2:]))[:6].hex() == prefix


def test_execution_apis_receipts_and_blocks():
    v = vector("ethereum/execution-apis-receipts.json")
    receipts = [r["receipt"] for r in v["receipts"]]
    checks = amq.eth.verify(receipts)
    assert len(checks) == 13 and all(c["ok"] for c in checks)
    by_hash = {r["transactionHash"]: r for r in receipts}
    for block in v["blocks_with_all_receipts"]:
        ors = amq.eth.LogsBloom()
        for h in block["receipt_tx_hashes"]:
            ors |= amq.eth.LogsBloom.from_hex(by_hash[h]["logsBloom"])
        assert ors.hex() == block["logsBloom"]
        full = dict(block, receipts=[by_hash[h] for h in block["receipt_tx_hashes"]])
        assert [c["ok"] for c in amq.eth.verify(full)] == [True] * (len(full["receipts"]) + 1)
    for block in v["block_logs_from_eth_getLogs"]:
        assert amq.eth.bloom(block["logs"]).hex() == block["logsBloom"]
        assert amq.eth.verify(block)[0]["ok"]
    # a JSON-RPC response as text, and web3.py-style bytes values
    import json
    response = json.dumps({"jsonrpc": "2.0", "id": 1, "result": receipts[:3]})
    assert all(c["ok"] for c in amq.eth.verify(response))
    as_bytes = {k: (bytes.fromhex(x[2:]) if k in ("logsBloom", "transactionHash") else x)
                for k, x in receipts[0].items()}
    assert amq.eth.verify(as_bytes)[0]["ok"]


def test_a_tampered_receipt_is_reported():
    r = dict(vector("ethereum/public-receipts.json")["receipts"][0])
    bits = bytearray(bytes.fromhex(r["logsBloom"][2:]))
    bits[0] ^= 0x80  # bit 2047
    r["logsBloom"] = "0x" + bits.hex()
    [check] = amq.eth.verify(r)
    assert not check["ok"]
    assert check["bits_extra_in_stated"] == [2047] or check["bits_missing_from_stated"] == [2047]


# --- Bitcoin BIP37 -------------------------------------------------------------------------


def test_bip37_murmur3_vectors():
    for case in vector("bip37/bitcoin-core-bip37-vectors.json")["murmurhash3_x86_32"]:
        got = amq.btc.murmur3_x86_32(bytes.fromhex(case["data_hex"]), case["seed"])
        assert got == case["expected"]


def test_bip37_core_filters():
    for case in vector("bip37/bitcoin-core-bip37-vectors.json")["filters"]:
        f = amq.btc.Bip37Filter(case["n_elements"], case["fp_rate"], case["tweak"], case["flags"])
        for h in case["insert_hex"]:
            f.add(bytes.fromhex(h))
        assert f.to_filterload().hex() == case["serialized_filterload_hex"], case["test"]
        assert all(bytes.fromhex(h) in f for h in case.get("must_contain_hex", []))
        assert not any(bytes.fromhex(h) in f for h in case.get("must_not_contain_hex", []))
        g = amq.btc.Bip37Filter.from_filterload(bytes.fromhex(case["serialized_filterload_hex"]))
        assert g == f
        f.clear()
        assert not any(bytes.fromhex(h) in f for h in case.get("after_clear_must_not_contain_hex", []))
        # the same elements through filteradd messages build the same filter; bytes after a
        # filterload payload are ignored, as Core ignores them
        h = amq.btc.Bip37Filter.from_filterload(bytes.fromhex(case["serialized_filterload_hex"]) + b"\0")
        h.clear()
        for e in case["insert_hex"]:
            h.filteradd(amq.btc.Bip37Filter.filteradd_payload(bytes.fromhex(e)))
        assert h.to_filterload().hex() == case["serialized_filterload_hex"], case["test"]


def test_bip37_filteradd_takes_520_bytes_and_refuses_521():
    f = amq.btc.Bip37Filter(10, 0.01, 0)
    assert f.filteradd(amq.btc.Bip37Filter.filteradd_payload(bytes(520)))
    with pytest.raises(ValueError, match="520"):
        amq.btc.Bip37Filter.filteradd_payload(bytes(521))
    before = f.to_filterload()
    with pytest.raises(ValueError, match="520"):
        f.filteradd(b"\xfd\x09\x02" + bytes(521))
    assert f.to_filterload() == before


# --- Bitcoin BIP158 ------------------------------------------------------------------------


def bip158_rows():
    return [row for row in vector("bip158/testnet-19.json")[1:]]


@pytest.mark.parametrize("row", bip158_rows(), ids=lambda r: str(r[0]))
def test_bip158_testnet_blocks(row):
    height, block_hash, block_hex, prev_scripts, prev_header, filter_hex, header, _ = row
    spent = [bytes.fromhex(s) for s in prev_scripts]
    f = amq.btc.BlockFilter.from_block(bytes.fromhex(block_hex), spent)
    assert f.to_bytes().hex() == filter_hex, height
    assert amq.btc.display_hex(f.block_hash) == block_hash
    assert amq.btc.display_hex(f.header(prev_header)) == header
    assert f.header(bytes.fromhex(prev_header)[::-1]) == bytes.fromhex(header)[::-1]
    g = amq.btc.BlockFilter(block_hash, bytes.fromhex(filter_hex))
    assert g == f and g.n == f.n
    # every element of the block matches; elements are what basic_elements keeps
    scripts = [s for s in spent if s]
    if scripts:
        assert all(g.match_many(list(dict.fromkeys(scripts))))
        assert g.match_any(scripts) and scripts[0] in g


# --- Cashu GCS (NUT-23 draft) --------------------------------------------------------------


CASHU = vector("cashu-gcs/nuts-pr261-gcs-vector.json")
CASHU_ITEMS = [bytes.fromhex(h) for h in CASHU["items_hex"]]


@pytest.mark.parametrize("hash, key, content", [
    ("murmur3-32x2", None, CASHU["filter_base64"]),
    ("murmur3-128", None, CASHU["hash128_variant"]["filter_base64"]),
    ("siphash", bytes.fromhex(CASHU["siphash_variant"]["key_hex"]),
     CASHU["siphash_variant"]["filter_base64"]),
])
def test_cashu_published_filters(hash, key, content):
    r = amq.cashu.build(CASHU_ITEMS, hash=hash, key=key, timestamp=1_700_000_000)
    assert r == {"n": 10, "p": 19, "m": 784931, "content": content, "timestamp": 1_700_000_000}
    published = {"n": 10, "p": None, "m": None, "content": [content], "timestamp": 0}
    assert amq.cashu.match(published, CASHU_ITEMS, hash=hash, key=key) == [True] * 10
    non_members = [bytes.fromhex(h) for h in CASHU["non_members_hex"]]
    assert amq.cashu.match(published, non_members, hash=hash, key=key) == [False] * 5
    assert amq.cashu.contains(published, CASHU_ITEMS[3], hash=hash, key=key)


def test_cashu_hash_to_range_and_empty_set():
    c = CASHU["hash_to_range_case"]
    item = bytes.fromhex(c["item_hex"])
    assert amq.cashu.hash_to_range(item, c["f"], hash="murmur3-32x2") == c["expected"]
    c = CASHU["hash128_variant"]["hash_to_range_case"]
    assert amq.cashu.hash_to_range(item, c["f"]) == c["expected"]
    empty = amq.cashu.build([], timestamp=5)
    assert (empty["n"], empty["content"]) == (0, CASHU["empty_set"]["filter_base64"])
    assert amq.cashu.match(empty, CASHU_ITEMS) == [False] * 10
    assert f"{amq.cashu.bulk_all_negative(5000):.9f}" == "0.993650255"


def test_cashu_refuses_bad_responses_and_items():
    with pytest.raises(ValueError, match="n"):
        amq.cashu.match({"n": 4_000_000_000, "p": 19, "m": None, "content": "AAAA",
                         "timestamp": 0}, [b"x"])
    with pytest.raises(ValueError, match="targets"):
        amq.cashu.match(amq.cashu.build(CASHU_ITEMS, timestamp=0), [b"a", b"a"])
    with pytest.raises(TypeError, match="bytes.fromhex"):
        amq.cashu.build([CASHU["items_hex"][0]])
    with pytest.raises(ValueError, match="key is only for"):
        amq.cashu.build(CASHU_ITEMS, key=bytes(16))
    with pytest.raises(ValueError, match="unknown hash"):
        amq.cashu.build(CASHU_ITEMS, hash="md5")
    # an n that is not the content's count of codes: one less would leave the last unread
    response = amq.cashu.build(CASHU_ITEMS, timestamp=0)
    with pytest.raises(ValueError, match="bytes after the last code"):
        amq.cashu.match({**response, "n": response["n"] - 1}, CASHU_ITEMS)
    with pytest.raises(ValueError, match="truncated|each item needs"):
        amq.cashu.match({**response, "n": response["n"] + 1}, CASHU_ITEMS)


# --- Algorand unit-name registry -----------------------------------------------------------


ALGORAND = vector("algorand/registry-oracle.json")


def test_algorand_indices():
    for case in ALGORAND["indices"]:
        name = bytes.fromhex(case["name_hex"])
        assert case["m"] % 8 == 0
        got = amq.algorand.indices(name, box_bytes=case["m"] // 8)
        assert got == [case["h1"], case["h2"]], case


@pytest.mark.parametrize("case", ALGORAND["replays"], ids=lambda c: str(c["max_supply"]))
def test_algorand_replays(case):
    names = [bytes.fromhex(h) for h in case["calls_hex"]]
    r = amq.algorand.replay(names, case["max_supply"], bootstrapped=case["bootstrapped"])
    assert r["results"] == case["results"]
    assert r["minted"] == case["minted"]
    assert r["box_sha256"] == case["box_sha256"]
    assert r["box_base64"] == case["box_base64"]
    # the same calls one by one on the registry
    app = amq.algorand.UnitNameRegistry(case["max_supply"])
    if case["bootstrapped"]:
        assert app.create_bloom_filter()
    for name, result in zip(names, case["results"]):
        if result == "ok":
            app.buy_nft(name)
        else:
            with pytest.raises(amq.algorand.BuyError, match=result.removeprefix("fail: ")):
                app.buy_nft(name)
    assert app.minted == case["minted"]


def test_a_registry_read_back_from_its_state_continues_where_the_contract_was():
    app = amq.algorand.UnitNameRegistry(3)
    app.create_bloom_filter()
    app.buy_nft("BAYC1")
    back = amq.algorand.UnitNameRegistry.from_state(3, 1, app.box.to_bytes())
    assert back == app and back.box.m_bits == 4096 * 8
    with pytest.raises(amq.algorand.BuyError, match="Unit name already taken"):
        back.buy_nft("BAYC1")
    back.buy_nft("BAYC2")
    back.buy_nft("BAYC3")
    with pytest.raises(amq.algorand.BuyError, match="Maximum supply reached"):
        back.buy_nft("BAYC4")
    assert app.minted == 1  # the original is its own
    # before create_bloom_filter: no box, the shape given
    assert amq.algorand.UnitNameRegistry.from_state(3, 0, box_bytes=64, k=3) == (
        amq.algorand.UnitNameRegistry(3, box_bytes=64, k=3))
    box = app.box.to_bytes()
    for args, message in [
        ((3, 4, box), "over the maximum supply"),
        ((3, 1, None), "no box"),
        ((3, 1, box, 64), "4096 bytes, where the box is 64"),
        ((3, 1, box, None, 9), "hash opcodes"),
    ]:
        with pytest.raises(ValueError, match=message):
            amq.algorand.UnitNameRegistry.from_state(*args)


def test_algorand_long_replay():
    lr = ALGORAND["long_replay"]
    names = [f"BAYC{i}" for i in range(3000)] + [f"BAYC{i}" for i in range(100)]
    r = amq.algorand.replay(names, lr["max_supply"])
    failures = [[i, res] for i, res in enumerate(r["results"]) if res != "ok"]
    assert failures == lr["failures"]
    assert r["minted"] == lr["minted"]
    assert r["box_sha256"] == lr["box_sha256"]
    box = base64.b64decode(r["box_base64"])
    assert hashlib.sha256(box).hexdigest() == lr["box_sha256"]
    # every minted name is taken in the box; the check says so
    minted = [n for n, res in zip(names, r["results"]) if res == "ok"]
    assert amq.algorand.check(box, minted[:500]) == [False] * 500
    assert all(n in amq.algorand.AlgorandBloom.from_box(box) for n in minted)


# --- Cashu compact state filters (nuts PR #433, revision B) --------------------------------


STATE = vector("cashu-state/revision-b.json")


def test_state_elements():
    for case in STATE["elements"]:
        id = bytes.fromhex(case["id_hex"])
        assert amq.cashu.element(case["kind"], id, case["state"]).hex() == case["e"], case["name"]
        if case["kind"] in ("mint_quote", "melt_quote"):  # a quote ID given as text
            assert amq.cashu.element(case["kind"], id.decode(), case["state"]).hex() == case["e"]


@pytest.mark.parametrize("name", ["1", "2", "3"])
def test_state_single_element_blocks(name):
    case = STATE["cases"][name]
    e = amq.cashu.element(case["kind"], bytes.fromhex(case["id_hex"]),
                          bytes.fromhex(case["state_hex"]).decode())
    assert e.hex() == case["e"]
    block = amq.cashu.StateBlock(case["b"])
    block.insert(e)
    assert block.hex() == case["hex"]
    assert block.popcount() == case["popcount"] and e in block
    assert base64.b64decode(case["base64"][0]) == bytes(block)


def test_state_block_of_five_elements_and_its_fold():
    case = STATE["cases"]["4"]
    block = amq.cashu.StateBlock.build([bytes.fromhex(e) for e in case["elements"]], case["b"])
    assert block.hex() == case["hex"] and block.popcount() == case["popcount"]
    assert amq.cashu.capacity(case["b"]) == case["capacity_b10"]
    assert block.contains_many(case["elements"]) == [True] * 5
    assert case["non_member"]["e"] not in block
    info = block.info()
    assert (info["b"], info["bits"], info["bytes"]) == (10, 1024, 128)
    assert 3 < info["count_estimate"] < 8
    fold = STATE["cases"]["7"]
    folded = block.fold(fold["to_b"])
    assert folded.hex() == fold["hex"] and folded.popcount() == fold["popcount"]
    direct = amq.cashu.StateBlock.build([bytes.fromhex(e) for e in case["elements"]], fold["to_b"])
    assert folded == direct
    assert amq.cashu.StateBlock.from_bytes(bytes(folded)) == folded


def test_state_block_saturation_and_sizes():
    case = STATE["cases"]["5"]
    block = amq.cashu.StateBlock(case["b"])
    block.insert(case["e"])  # hex text
    assert block.hex() == case["hex"] and block.popcount() == case["distinct"]
    for row in STATE["capacity"]:
        assert amq.cashu.capacity(row["b"]) == row["capacity"]
        assert len(bytes(amq.cashu.StateBlock(row["b"]))) == row["bytes"]
    for row in STATE["right_size"]:
        assert amq.cashu.smallest_b(row["count"]) == row["b"]
    with pytest.raises(ValueError, match="2\\^b/8 bytes"):
        amq.cashu.StateBlock.from_bytes(bytes(5))
    with pytest.raises(ValueError):
        amq.cashu.StateBlock(27)
    with pytest.raises(ValueError, match="starts with 02 or 03"):
        amq.cashu.element("proof_state", bytes(33), "SPENT")
    # a point's hex given as text: the hint, not "got 66 bytes"
    for kind, state in [("proof_state", "SPENT"), ("blind_signature", "")]:
        with pytest.raises(TypeError, match="bytes.fromhex"):
            amq.cashu.element(kind, "02" + "11" * 32, state)


def test_the_format_classes_copy_and_pickle_to_equal_objects():
    import copy
    import pickle

    bip37 = amq.btc.Bip37Filter(100, 0.001, 7, 1)
    bip37.add(b"a script")
    block = amq.btc.BlockFilter.build(bytes(range(32)), [b"one", b"two"], p=10, m=1024)
    box = amq.algorand.AlgorandBloom(1024, 3)
    box.add("BAYC1")
    parquet = amq.parquet.ParquetBloomFilter(1024)
    parquet.insert_int64(42)
    fresh = amq.algorand.UnitNameRegistry(5, box_bytes=64, k=3)
    app = amq.algorand.UnitNameRegistry(5)
    app.create_bloom_filter()
    app.buy_nft("BAYC1")
    for f in [bip37, block, box, parquet, fresh, app]:
        for g in [copy.copy(f), copy.deepcopy(f), pickle.loads(pickle.dumps(f))]:
            assert type(g) is type(f) and g == f and g is not f, f
    # each copy is its own: a change to it leaves the original as it was
    g = copy.copy(bip37)
    g.add(b"another")
    assert g != bip37 and bip37.contains(b"a script")
    # the block filter keeps its P and M (10 and 1024 here), not the defaults
    again = pickle.loads(pickle.dumps(block))
    assert again.match_many([b"one", b"two"]) == [True, True] and again.n == 2
    with pytest.raises(ValueError, match="truncated"):  # read with BIP158's P = 19
        amq.btc.BlockFilter(bytes(range(32)), block.to_bytes())
