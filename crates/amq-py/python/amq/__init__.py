"""amq: approximate membership queries, from the Rust library of the same name.

"Is x in the set?" answered in a few bits per item, with a bounded, measured error. A filter
answers ``item in f`` with True ("maybe present") or False ("definitely absent": never
wrong); the negative cache answers the other way round.

Filters (each with ``add``, ``in``, ``add_many``, ``contains_many``, ``info()``,
``to_bytes()`` and ``from_bytes()``):

* ``BloomFilter``: the classic filter, ``BloomFilter.with_fpr(n, fpr)``.
* ``BlockedBloomFilter``: one 64-byte cache line per item.
* ``SplitBlockBloomFilter``: one bit in each of eight lanes of a 64-byte block, SIMD probes.
* ``CuckooFilter``: fingerprints in 4-slot buckets, with ``remove``.
* ``ScalableBloomFilter``, ``ExpandableCuckooFilter``: chains that add links as items come,
  within a bound on the false-positive rate, for a set of unknown size.
* ``SlidingWindowBloom``: items at positions, a window that slides (mutator sets).
* ``AgingBloom``: "seen within the last window" of insertions or seconds.
* ``TtlCuckooFilter``: a cuckoo filter whose every entry expires on its own (a TTL per add).
* ``SlidingWindowCuckoo``: members by registration epoch, each slashed at its epoch (the
  rate-limiting-nullifier membership set); a light client takes one epoch at a time.
* ``NegativeCache``: "definitely present" or "maybe absent".

``amq.load(data)`` reads any ``.amq`` file; ``amq.plan(...)`` sizes a filter;
``amq.new(...)`` makes one from a spec. A file written here is byte-identical to the one
``amq build`` writes for the same items and parameters.

Items are ``bytes``, ``str`` (UTF-8) or ``int`` (8 little-endian bytes, as the library's
integers); batch calls also take NumPy ``uint64``/``int64`` arrays, read in place, and run
with the GIL released.

Chain formats: ``amq.eth`` (logsBloom), ``amq.btc`` (BIP37, BIP158), ``amq.cashu`` (NUT-23
GCS filters), ``amq.algorand`` (the unit-name registry's box). File formats: ``amq.parquet``
(Parquet's split block Bloom filter).

Errors: ``ValueError`` (parameters out of range, corrupt input), ``OverflowError``
(integers out of range), ``MemoryError`` (a table that cannot be allocated),
``TypeError`` (an object that is not an item) and ``amq.FilterFullError`` (a full cuckoo
filter), with the library's message.
"""

from ._amq import (
    AgingBloom,
    BlockedBloomFilter,
    BloomFilter,
    CuckooFilter,
    ExpandableCuckooFilter,
    FilterFullError,
    NegativeCache,
    ScalableBloomFilter,
    SlidingWindowBloom,
    SlidingWindowCuckoo,
    SplitBlockBloomFilter,
    TtlCuckooFilter,
    __version__,
    load,
    new,
    plan,
)
from . import algorand, btc, cashu, eth, parquet

__all__ = [
    "AgingBloom",
    "BlockedBloomFilter",
    "BloomFilter",
    "CuckooFilter",
    "ExpandableCuckooFilter",
    "FilterFullError",
    "NegativeCache",
    "ScalableBloomFilter",
    "SlidingWindowBloom",
    "SlidingWindowCuckoo",
    "SplitBlockBloomFilter",
    "TtlCuckooFilter",
    "__version__",
    "algorand",
    "btc",
    "cashu",
    "eth",
    "load",
    "new",
    "parquet",
    "plan",
]
