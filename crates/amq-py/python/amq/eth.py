"""Ethereum's logsBloom (Yellow Paper section 4.3.1, M3:2048), as ``amq eth`` uses it.

``LogsBloom`` is the 2048-bit bloom of block headers and receipts; ``bloom(obj)`` computes
it from logs, a receipt or a block as JSON-RPC returns them; ``verify(obj)`` checks the
stated ``logsBloom`` fields against the logs; ``keccak256(data)`` is Ethereum's hash.

The JSON-RPC objects may be dicts as ``json.loads`` gives them, their JSON text, or objects
with ``bytes`` values (web3.py's ``AttributeDict`` and ``HexBytes``): byte values are read
as the hex JSON-RPC would write.
"""

from collections.abc import Mapping as _Mapping

from ._amq import eth as _eth

LogsBloom = _eth.LogsBloom
keccak256 = _eth.keccak256

__all__ = ["LogsBloom", "bloom", "keccak256", "verify"]


def _jsonable(obj):
    """JSON-RPC objects with bytes values (web3.py) as JSON-RPC writes them: hex text."""
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if isinstance(obj, (bytes, bytearray)):
        return "0x" + bytes(obj).hex()
    if isinstance(obj, _Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj


def bloom(obj) -> "LogsBloom":
    """The logsBloom computed from logs: of a receipt, a block (its ``receipts`` or
    ``logs``), a list of logs, or a JSON-RPC response holding any of them (the blooms of
    several objects are OR-ed), as ``amq eth bloom`` computes it. Only each log's address and
    topics are hashed, never its data.

    Raises ``ValueError`` for an object without logs or that is not JSON-RPC's shape.
    """
    return _eth.bloom(obj if isinstance(obj, (str, bytes)) else _jsonable(obj))


def verify(obj) -> "list[dict]":
    """Recomputes each receipt's (and block's) logsBloom from its logs and compares it with
    the stated one, as ``amq eth verify --json`` does: one dict per check, ``{"object",
    "ok", "stated", "computed", "bits_missing_from_stated", "bits_extra_in_stated"}``.

    Checks every receipt with both ``logs`` and ``logsBloom`` and every block with
    ``logsBloom`` and ``receipts`` (the OR of the receipts' blooms) or ``logs``. Raises
    ``ValueError`` if there is nothing to check.
    """
    return _eth.verify(obj if isinstance(obj, (str, bytes)) else _jsonable(obj))
