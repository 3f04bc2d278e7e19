"""Cashu spent-note filters: the Golomb-coded sets of the NUT-23 draft, as ``amq cashu``
uses them.

A mint publishes a filter of its spent notes' ``Y``s (``build``, the GetFilterResponse); a
wallet checks its own notes against it (``match``): False is "definitely unspent", True
"maybe spent" (wrong with probability 1/M). Items are raw ``bytes`` (33-byte points, not
their hex).

Three item hashes are in use, each with a published vector: ``"murmur3-128"`` (the draft's
text; the default), ``"murmur3-32x2"`` (the draft's own test vectors and its implementation
pull requests to nutshell, cashu-ts and cdk) and ``"siphash"`` (the draft's first version,
with a 16-byte key). A response does not name its hash, and a wallet that hashes otherwise
than its mint finds none of its notes: pass ``hash="murmur3-32x2"`` to work with those
implementations. (The draft, cashubtc/nuts PR #261, was closed unmerged; NUT-23 is now
another document.)

The compact state filters (cashubtc/nuts PR #433, revision B): ``element(kind, id, state)``
is the ``E`` of a state change, ``StateBlock`` a Bloom block of 2**b bits that a mint fills
with them and a wallet tests its candidates against (``insert``, ``in``, ``fold``,
``count_estimate``); ``capacity(b)`` and ``smallest_b(count)`` size a block;
``check_quote_id(id)`` refuses a quote ID a publishing mint must not have (not a UUIDv7).
"""

from ._amq import cashu as _cashu

DEFAULT_P = _cashu.DEFAULT_P
DEFAULT_M = _cashu.DEFAULT_M
build = _cashu.build
match = _cashu.match
contains = _cashu.contains
bulk_all_negative = _cashu.bulk_all_negative
hash_to_range = _cashu.hash_to_range
StateBlock = _cashu.StateBlock
element = _cashu.element
check_quote_id = _cashu.check_quote_id
capacity = _cashu.capacity
smallest_b = _cashu.smallest_b

__all__ = [
    "DEFAULT_M",
    "DEFAULT_P",
    "StateBlock",
    "build",
    "bulk_all_negative",
    "capacity",
    "check_quote_id",
    "contains",
    "element",
    "hash_to_range",
    "match",
    "smallest_b",
]
