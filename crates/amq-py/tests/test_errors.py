"""Errors from Python: the library's messages as Python exceptions, allocation failures as
MemoryError, batches that stop part-way keeping exactly the items before the error and saying
where, and specs and inputs that are refused rather than misread or crashing."""

import numpy as np
import pytest

import amq


def test_errors_are_python_exceptions_with_the_library_message():
    with pytest.raises(ValueError, match="invalid fpr"):
        amq.BloomFilter.with_fpr(10, 1.5)
    with pytest.raises(ValueError, match="invalid fpr"):
        amq.BloomFilter.with_fpr(10, float("nan"))
    with pytest.raises(OverflowError):
        amq.BloomFilter.with_fpr(-1, 0.01)
    with pytest.raises(OverflowError):
        amq.BloomFilter(1024, 3, seed=2**64)
    with pytest.raises(MemoryError, match="cannot allocate"):
        amq.BloomFilter(2**63, 3)
    # the item count is what is too large (it said "invalid fpr")
    for cls in [amq.BloomFilter, amq.BlockedBloomFilter]:
        with pytest.raises(ValueError, match="^invalid n: 9223372036854775808 items at "
                           "ε = 0.01 would need more than 2\\^63 bits"):
            cls.with_fpr(2**63, 0.01)
    with pytest.raises(MemoryError, match="cannot allocate"):
        amq.AgingBloom.with_window(10**17, 4, 1e-9)
    f = amq.BloomFilter(1024, 3)
    with pytest.raises(OverflowError, match="2\\*\\*64"):
        f.add(2**64)
    with pytest.raises(OverflowError, match="2\\*\\*63"):
        f.add(-(2**63) - 1)
    with pytest.raises(TypeError, match="not float"):
        f.add(1.5)
    np = pytest.importorskip("numpy")
    f.add(True)  # a bool is an int, as Python has it
    with pytest.raises(TypeError, match="or int, not numpy.bool"):
        f.add(np.bool_(True))
    with pytest.raises(TypeError, match="not NoneType"):
        f.contains_many([b"a", None])
    with pytest.raises(TypeError, match="single bytes, bytearray, memoryview of bytes or str"):
        f.add_many(b"abc")
    with pytest.raises(UnicodeEncodeError):
        f.add("\ud800")
    with pytest.raises(ValueError, match="not an .amq file"):
        amq.load(b"not a filter")
    with pytest.raises(ValueError, match="wrong filter kind"):
        amq.CuckooFilter.from_bytes(f.to_bytes())
    data = bytearray(f.to_bytes())
    data[-1] ^= 1
    with pytest.raises(ValueError, match="checksum mismatch"):
        amq.load(bytes(data))


def test_every_allocation_failure_is_a_memory_error():
    """The library's OutOfMemory error, as well as the parameter errors of a size that cannot
    be allocated, is MemoryError."""
    with pytest.raises(MemoryError, match="cannot allocate .* for buckets"):
        amq.CuckooFilter(2**36, 16)
    f = amq.SlidingWindowCuckoo(2**37, 0.01)
    with pytest.raises(MemoryError, match="cannot allocate"):
        f.register(b"x")
    assert f.members == 0


def _raising_at(n, total=10_000):
    for i in range(total):
        if i == n:
            raise KeyError("the source failed")
        yield i


@pytest.mark.parametrize("cls", [amq.BloomFilter, amq.SplitBlockBloomFilter, amq.CuckooFilter])
def test_a_batch_stopped_part_way_keeps_exactly_the_items_before_the_error(cls):
    f = cls.with_fpr(20_000, 0.01)
    with pytest.raises(KeyError, match="the source failed"):
        f.add_many(_raising_at(5000))
    assert f.inserted == 5000
    assert f.contains_many(range(5000)) == [True] * 5000
    g = cls.with_fpr(20_000, 0.01)
    with pytest.raises(TypeError, match="^item 5000 of the batch: .*not NoneType") as e:
        g.add_many([*range(5000), None, *range(5000, 6000)])
    assert isinstance(e.value.__cause__, TypeError)
    assert g.inserted == 5000 and g == f
    # past a whole chunk and at its first item
    h = cls.with_fpr(20_000, 0.01)
    with pytest.raises(KeyError):
        h.add_many(_raising_at(4096))
    assert h.inserted == 4096


T0 = 1_700_000_000


@pytest.mark.parametrize("make,add", [
    (lambda: amq.SlidingWindowBloom(1 << 12, 1 << 8, 4, 5), lambda f, i: f.add_many(i)),
    (lambda: amq.AgingBloom.with_window(10**5, 4, 0.01), lambda f, i: f.add_many(i, now=T0)),
    (lambda: amq.NegativeCache(16), lambda f, i: f.add_many(i, now=T0)),
    (lambda: amq.TtlCuckooFilter(20_000, 0.01, 60), lambda f, i: f.add_many(i, now=T0)),
    (lambda: amq.SlidingWindowCuckoo(100_000, 0.01), lambda f, i: f.register_many(i)),
], ids=["window", "aging", "negative", "ttl", "rln"])


def test_the_other_batch_adds_keep_exactly_the_items_before_the_error(make, add):
    f = make()
    with pytest.raises(KeyError):
        add(f, _raising_at(5000))
    g = make()
    add(g, range(5000))
    assert f == g


def test_a_spec_with_two_sizes_says_they_are_alternatives():
    with pytest.raises(ValueError, match="a bloom filter is sized by one of fpr, m_bits or "
                                         "memory_bytes.*give one, not both fpr and memory_bytes"):
        amq.plan(items=10, fpr=0.01, memory_bytes=1000)
    with pytest.raises(ValueError, match="a cuckoo filter is sized.*give one, not fpr, m_bits "
                                         "and memory_bytes"):
        amq.new(kind="cuckoo", items=10, fpr=0.01, m_bits=64, memory_bytes=1000)
    with pytest.raises(ValueError, match="a cuckoo filter is sized.*: give one$"):
        amq.new(kind="cuckoo", items=10)
    # a kind whose fpr is not a size keeps the general message
    with pytest.raises(ValueError, match='unknown parameter "m_bits": an aging-bloom filter '
                                         'takes window, window_seconds'):
        amq.plan(kind="aging-bloom", window=10, generations=4, fpr=0.01, m_bits=5)


def test_deeply_nested_input_is_a_value_error_not_a_crash():
    """A spec or logs nested 100,000 levels deep overflowed the stack of the reader (the
    interpreter died with SIGSEGV); past 128 levels, as JSON text already was, they are a
    ValueError. Shallow nesting still reads."""
    import collections

    x = 0
    for _ in range(100_000):
        x = [x]
    with pytest.raises(ValueError, match="nested more than 128 levels"):
        amq.plan(kind="bloom", items=x, fpr=0.01)
    with pytest.raises(ValueError, match="nested more than 128 levels"):
        amq.new({"kind": "bloom", "items": x, "fpr": 0.01})
    d = collections.deque()
    for _ in range(100_000):
        d = collections.deque([d])
    with pytest.raises(ValueError, match="nested more than 128 levels"):
        amq.eth.bloom(d)
    assert amq.eth.bloom(collections.deque()).hex() == "0x" + "00" * 256
    with pytest.raises(ValueError):
        amq.plan(kind="bloom", items=[[[1]]], fpr=0.01)  # shallow: the usual type error


def test_batches_of_elements_say_where_they_stopped():
    # a Cashu state block (a 32-byte element E) and a BIP37 filter (bytes): the error names
    # the item, and the items before it went in
    block = amq.cashu.StateBlock(10)
    elements = [bytes([i]) * 32 for i in range(7)]
    with pytest.raises(ValueError, match="^item 7 of the batch: an element E must be 32 "
                       "bytes, got 3 \\(the 7 before it were inserted\\)"):
        block.insert_many([*elements, b"abc", b"\xff" * 32])
    assert block.contains_many(elements) == [True] * 7 and b"\xff" * 32 not in block
    f = amq.btc.Bip37Filter(100, 0.001, 0, 0)
    with pytest.raises(TypeError, match="^item 5000 of the batch: "):
        f.add_many([*(i.to_bytes(4, "little") for i in range(5000)), 5, b"after"])
    assert all(f.contains_many(i.to_bytes(4, "little") for i in range(5000)))


def test_a_single_str_or_bytes_is_not_taken_for_a_batch():
    # iterating "BAYC1" would ask for (or mint) the five names "B", "A", "Y", "C" and "1"
    box = amq.algorand.AlgorandBloom()
    box.add("BAYC1")
    parquet = amq.parquet.ParquetBloomFilter(1024)
    block = amq.cashu.StateBlock(10)
    for call in [
        lambda: amq.algorand.check(box.to_bytes(), "BAYC1"),
        lambda: amq.algorand.replay("BAYC1", max_supply=10),
        lambda: parquet.contains_bytes_many("abc"),
        lambda: block.contains_many("ab" * 32),
    ]:
        with pytest.raises(TypeError, match="not a single bytes, .* or str object"):
            call()
    assert amq.algorand.check(box.to_bytes(), ["BAYC1", "BAYC2"]) == [False, True]
    # and a bad item is named by its place, counted from 0 as everywhere
    with pytest.raises(TypeError, match="^item 1 of the batch: "):
        amq.algorand.check(box.to_bytes(), ["BAYC1", 5])
    with pytest.raises(TypeError, match="^item 2 of the batch: "):
        amq.algorand.replay(["A", "B", 5.0], max_supply=10)
    with pytest.raises(TypeError, match="^item 1 of the batch: "):
        parquet.contains_int64_many([1, "x"])

def test_a_memoryview_is_an_item_and_a_byte_string_is_never_a_batch():
    """A memoryview is one item, its bytes (as bytes(view) would give); a bytearray, or a
    memoryview of bytes, given as a batch is refused as bytes is (iterated, each byte would be
    an int item); a memoryview of wider items (an array of u64) iterates its numbers."""
    import array

    f = amq.BloomFilter(4096, 7)
    assert f.add(memoryview(b"abc")) and f.contains(b"abc") and not f.add(b"abc")
    assert f.contains(memoryview(bytearray(b"abc"))) and f.contains(memoryview(b"xabc")[1:])
    for batch in [bytearray(b"abc"), memoryview(b"abc"), memoryview(bytearray(b"xy"))]:
        with pytest.raises(TypeError, match="not a single bytes, bytearray, memoryview of bytes"):
            f.add_many(batch)
        with pytest.raises(TypeError, match="not a single bytes, bytearray, memoryview of bytes"):
            f.contains_many(batch)
    assert f.inserted == 2 and not f.contains(97)  # two adds of b"abc", nothing from the batches
    numbers = memoryview(array.array("Q", [5, 6, 7]))
    f.add_many(numbers)
    assert f.contains_many([5, 6, 7]) == [True, True, True]
    # the chain formats' byte items take a memoryview too
    parquet = amq.parquet.ParquetBloomFilter(1024)
    parquet.insert_bytes(memoryview(b"value"))
    assert parquet.contains_bytes(b"value") and parquet.contains_bytes(memoryview(b"value"))
    node = amq.btc.Bip37Filter(10, 0.01, 0)
    node.add(memoryview(b"script"))
    assert node.contains(b"script")


def test_a_file_name_given_for_a_filter_says_to_read_the_file(tmp_path):
    path = tmp_path / "users.amq"
    path.write_bytes(amq.BloomFilter(64, 3).to_bytes())
    for data in [str(path), path]:
        for load in [amq.load, amq.BloomFilter.from_bytes]:
            with pytest.raises(TypeError, match=r"not a file name: .*open\(.*\.read\(\)"):
                load(data)
    assert amq.load(open(path, "rb").read()) == amq.BloomFilter(64, 3)

def test_a_spec_whose_kind_is_not_a_str_says_so():
    # serde read such a tag as a map and said "dict keys must have type str"
    for kind, name in [(5, "int"), (None, "NoneType"), (b"bloom", "bytes")]:
        with pytest.raises(ValueError, match=f"^not a filter spec: kind must be a str, one of "
                           f"bloom, blocked-bloom, .*; got {name}$"):
            amq.plan({"kind": kind, "items": 10, "fpr": 0.01})
    with pytest.raises(ValueError, match="unknown variant `blom`"):
        amq.plan({"kind": "blom"})


def test_a_spec_value_of_the_wrong_type_names_its_parameter():
    # serde reads a spec's fields through its kind tag and its message names none
    for spec, message in [
        ({"items": [1], "fpr": 0.01}, 'parameter "items": invalid type: sequence, expected u64'),
        ({"items": 10, "fpr": "1%"}, 'parameter "fpr": invalid type: string "1%", expected f64'),
        ({"items": 10, "fpr": 0.01, "k": -2},
         'parameter "k": invalid value: integer `-2`, expected u32'),
        ({"kind": "cuckoo", "items": None, "fpr": 0.01},
         'parameter "items": invalid type: unit value, expected u64'),
    ]:
        with pytest.raises(ValueError) as e:
            amq.plan(spec)
        assert str(e.value) == "not a filter spec: " + message
    # a value nested past the depth limit is refused before anything reads it
    deep = [0]
    for _ in range(10_000):
        deep = [deep]
    with pytest.raises(ValueError, match="nest"):
        amq.plan({"items": deep, "fpr": 0.01})


def test_a_ttl_that_ends_within_the_current_tick_is_refused():
    # it used to return False ("may already have been there") and store nothing
    f = amq.TtlCuckooFilter(100, 0.01, 10, max_ttl=600)
    with pytest.raises(ValueError, match="expires within the current tick \\(1700000000 to "
                       "1700000010\\): nothing was stored"):
        f.add("x", ttl=5, now=1_700_000_000)
    assert not f.contains("x", now=1_700_000_000)
    assert f.add("x", ttl=5, now=1_700_000_005)  # ends at the next tick: stored
    assert f.contains("x", now=1_700_000_009)
    with pytest.raises(ValueError, match="max_ttl.*shorter than one tick \\(10\\)"):
        amq.TtlCuckooFilter(100, 0.01, 10, max_ttl=5)
