"""The Algorand unit-name registry's Bloom filter off-chain, as ``amq algorand`` uses it.

The seed contract keeps a 4,096-byte box; a unit name is taken when its bits h1 =
``sha512_256(name) % m`` and h2 = ``sha3_256(name) % m`` (each digest's last 8 bytes,
``extract_uint64(digest, 24)``, big-endian) are both set. ``check(box, names)`` says which names are still available,
``indices`` gives a name's bits, ``UnitNameRegistry`` and ``replay`` run the contract's
``buy_nft`` off-chain, ``plan`` sizes a box for a supply.
"""

from ._amq import algorand as _algorand

AlgorandBloom = _algorand.AlgorandBloom
UnitNameRegistry = _algorand.UnitNameRegistry
BuyError = _algorand.BuyError
DEFAULT_BOX_BYTES = _algorand.DEFAULT_BOX_BYTES
DEFAULT_K = _algorand.DEFAULT_K
check = _algorand.check
indices = _algorand.indices
plan = _algorand.plan
replay = _algorand.replay

__all__ = [
    "DEFAULT_BOX_BYTES",
    "DEFAULT_K",
    "AlgorandBloom",
    "BuyError",
    "UnitNameRegistry",
    "check",
    "indices",
    "plan",
    "replay",
]
