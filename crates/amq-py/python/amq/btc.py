"""Bitcoin's filters, as ``amq btc`` uses them.

* ``Bip37Filter``: BIP37 bloom filters as Bitcoin Core builds them, and their
  ``filterload`` payload.
* ``BlockFilter``: BIP158 basic block filters (Golomb-coded sets keyed by the block hash)
  and BIP157 filter headers.

Hashes are ``bytes`` in internal byte order, or ``str`` as RPC shows them (display order,
reversed); ``display_hex(h)`` turns one into RPC's form.
"""

from ._amq import btc as _btc

Bip37Filter = _btc.Bip37Filter
BlockFilter = _btc.BlockFilter
basic_elements = _btc.basic_elements
display_hex = _btc.display_hex
murmur3_x86_32 = _btc.murmur3_x86_32

__all__ = ["Bip37Filter", "BlockFilter", "basic_elements", "display_hex", "murmur3_x86_32"]
