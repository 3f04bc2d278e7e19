"""Apache Parquet's split block Bloom filter, byte for byte as a Parquet file stores it
(https://github.com/apache/parquet-format/blob/master/BloomFilter.md).

``ParquetBloomFilter.from_bitset(data)`` reads the bitset that follows a column chunk's
``BloomFilterHeader`` (at ``bloom_filter_offset``, ``bloom_filter_length`` bytes with the
header); ``bitset()`` writes it. Values are hashed with XXH64 (seed 0) over their plain
encoding: ``hash_int32``, ``hash_int64``, ``hash_float``, ``hash_double``, ``hash_bytes``
(``BYTE_ARRAY`` and ``FIXED_LEN_BYTE_ARRAY``: the bytes without a length prefix).
"""

from ._amq import parquet as _parquet

ParquetBloomFilter = _parquet.ParquetBloomFilter
hash_int32 = _parquet.hash_int32
hash_int64 = _parquet.hash_int64
hash_float = _parquet.hash_float
hash_double = _parquet.hash_double
hash_bytes = _parquet.hash_bytes
writer_num_bytes = _parquet.writer_num_bytes

__all__ = [
    "ParquetBloomFilter",
    "hash_bytes",
    "hash_double",
    "hash_float",
    "hash_int32",
    "hash_int64",
    "writer_num_bytes",
]
