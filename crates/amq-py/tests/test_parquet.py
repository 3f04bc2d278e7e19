"""amq's Parquet split block Bloom filter against a real Parquet writer, DuckDB.

DuckDB writes an INT64 and a VARCHAR (BYTE_ARRAY) column of 10^5 distinct values each, with
a Bloom filter per column chunk; the test finds each filter with DuckDB's
``parquet_metadata()`` (``bloom_filter_offset``, ``bloom_filter_length``), decodes the Thrift
``BloomFilterHeader`` with thriftpy2 (compact protocol, the struct as parquet.thrift declares
it), and checks that amq

* reads the bitset and finds every value of the column;
* builds the same bitset, byte for byte, from the same values at the same size, and picks the
  same size DuckDB picks for them;
* agrees with DuckDB's own filter (``parquet_bloom_probe``) on non-members: amq answers all
  10^5 per column; DuckDB is asked about every one amq calls "maybe present" and about a
  fixed sample of those amq calls absent (``AMQ_PARQUET_PROBES``, default 2000; ``all`` asks
  about all 10^5, about 35 s per column: each probe re-opens the file, about 0.35 ms);
* shows a false-positive rate within 4 binomial sigma of the model.
"""

import io
import math
import os
import random

import duckdb
import pytest
import thriftpy2
from thriftpy2.protocol.compact import TCompactProtocol

from amq.parquet import ParquetBloomFilter, hash_bytes, hash_int64, writer_num_bytes

N = 100_000
FPP = 0.01

# parquet.thrift (apache/parquet-format), the Bloom filter header and its unions
THRIFT = """
struct SplitBlockAlgorithm {}
union BloomFilterAlgorithm { 1: SplitBlockAlgorithm BLOCK; }
struct XxHash {}
union BloomFilterHash { 1: XxHash XXHASH; }
struct Uncompressed {}
union BloomFilterCompression { 1: Uncompressed UNCOMPRESSED; }
struct BloomFilterHeader {
  1: required i32 numBytes;
  2: required BloomFilterAlgorithm algorithm;
  3: required BloomFilterHash hash;
  4: required BloomFilterCompression compression;
}
"""
schema = thriftpy2.load_fp(io.StringIO(THRIFT), module_name="parquet_bloom_thrift")


class _Bytes:
    """A read-only Thrift transport over bytes that counts what the protocol read."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def read(self, n):
        if self.pos + n > len(self.data):
            raise EOFError("header runs past the Bloom filter data")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out


def int_value(i):
    """Member i of the INT64 column (negative and positive values)."""
    return i * 7919 - 400_000_000


def str_value(i):
    return f"amq-{i}"


COLUMNS = {
    "a": (int_value, lambda i: int_value(i) + 1, hash_int64, "contains_int64_many"),
    "s": (str_value, lambda i: f"non-{i}", hash_bytes, "contains_bytes_many"),
}


def write(path, n, fpp, extra=""):
    con = duckdb.connect()
    con.execute(
        f"""COPY (SELECT i::BIGINT * 7919 - 400000000 AS a, 'amq-' || i::VARCHAR AS s
                  FROM range({n}) t(i))
            TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000,
                         DICTIONARY_SIZE_LIMIT 1000000,
                         BLOOM_FILTER_FALSE_POSITIVE_RATIO {fpp}{extra})""")
    return con


def filters(con, path):
    """{column: (header, bitset)} of the one row group, read from the file's bytes."""
    rows = con.execute(
        "SELECT row_group_id, path_in_schema, bloom_filter_offset, bloom_filter_length "
        "FROM parquet_metadata(?)", [str(path)]).fetchall()
    data = path.read_bytes()
    out = {}
    for group, column, offset, length in rows:
        assert group == 0, "every value must land in one row group's filter"
        assert offset is not None, f"DuckDB wrote no Bloom filter for {column}"
        t = _Bytes(data[offset:offset + length])
        header = schema.BloomFilterHeader()
        header.read(TCompactProtocol(t))
        assert header.algorithm.BLOCK is not None
        assert header.hash.XXHASH is not None
        assert header.compression.UNCOMPRESSED is not None
        assert t.pos + header.numBytes == length, "header + bitset is the whole length"
        out[column] = (header, data[offset + t.pos:offset + length])
    return out


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    path = tmp_path_factory.mktemp("parquet") / "duckdb.parquet"
    con = write(path, N, FPP)
    return con, path, filters(con, path)


@pytest.mark.parametrize("column", COLUMNS)
def test_amq_reads_the_bitset_and_finds_every_value(written, column):
    _, _, fs = written
    header, bitset = fs[column]
    f = ParquetBloomFilter.from_bitset(bitset)
    assert f.size_bytes() == header.numBytes == len(bitset)
    member, _, _, many = COLUMNS[column]
    answers = getattr(f, many)(member(i) for i in range(N))
    assert all(answers), f"{answers.count(False)} values of {column} not found"


@pytest.mark.parametrize("column", COLUMNS)
def test_amq_builds_the_same_bitset(written, column):
    _, _, fs = written
    header, bitset = fs[column]
    assert writer_num_bytes(N, FPP) == header.numBytes
    member, _, hash_value, _ = COLUMNS[column]
    f = ParquetBloomFilter(header.numBytes)
    for i in range(N):
        f.insert_hash(hash_value(member(i)))
    assert f.bitset() == bitset
    assert f == ParquetBloomFilter.from_bitset(bitset)
    assert ParquetBloomFilter.with_ndv_fpp(N, FPP).size_bytes() == header.numBytes


@pytest.mark.parametrize("column", COLUMNS)
def test_amq_agrees_with_duckdb_on_non_members(written, column):
    con, path, fs = written
    _, bitset = fs[column]
    f = ParquetBloomFilter.from_bitset(bitset)
    _, non_member, _, many = COLUMNS[column]
    values = [non_member(i) for i in range(N)]
    amq = getattr(f, many)(values)
    positives = [v for v, a in zip(values, amq) if a]
    negatives = [v for v, a in zip(values, amq) if not a]
    budget = os.environ.get("AMQ_PARQUET_PROBES", "2000")
    if budget != "all":
        negatives = random.Random(14).sample(negatives, int(budget))
    stmt = f"SELECT bloom_filter_excludes FROM parquet_bloom_probe('{path}', '{column}', ?)"

    def duckdb_maybe(v):
        (excludes,), = con.execute(stmt, [v]).fetchall()
        return not excludes

    assert all(duckdb_maybe(v) for v in positives), "amq says maybe, DuckDB says absent"
    assert not any(duckdb_maybe(v) for v in negatives), "amq says absent, DuckDB says maybe"

    # the measured rate against the model, 4 sigma of the binomial spread
    eps = f.expected_fpr(N)
    sigma = math.sqrt(eps * (1 - eps) / N)
    assert abs(len(positives) / N - eps) < 4 * sigma, (len(positives), eps)


@pytest.mark.parametrize("n", [1, 100, 1000, 3000, 12345])
@pytest.mark.parametrize("fpp", [0.1, 0.01, 0.001])
def test_amq_sizes_as_duckdb(tmp_path, n, fpp):
    path = tmp_path / "sizes.parquet"
    con = write(path, n, fpp)
    for header, _ in filters(con, path).values():
        assert header.numBytes == writer_num_bytes(n, fpp)


def test_bad_bitsets_raise():
    for bad in [b"", bytes(31), bytes(33), bytes(100)]:
        with pytest.raises(ValueError, match="multiple of 32"):
            ParquetBloomFilter.from_bitset(bad)
    with pytest.raises(ValueError):
        ParquetBloomFilter(48)


def test_hash_float_rounds_to_a_single_and_refuses_what_overflows_it():
    import struct

    from amq.parquet import hash_float

    # a FLOAT column holds the nearest single: the hash of its 4 little-endian bytes
    for x in [0.0, -0.0, 0.1, 1.5, -3.4e38, 1e-45, float("inf"), float("-inf")]:
        assert hash_float(x) == hash_bytes(struct.pack("<f", x)), x
    assert hash_float(float("nan")) == hash_bytes(struct.pack("<f", float("nan")))
    # beyond the largest single a value would be stored as infinity: refused, as struct does
    for x in [3.5e38, -1e39, 1e300]:
        with pytest.raises(ValueError, match="beyond a FLOAT's range"):
            hash_float(x)
