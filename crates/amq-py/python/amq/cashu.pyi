"""Cashu spent-note filters (NUT-23 draft GCS)."""

from collections.abc import Iterable, Mapping
from typing import Any, Literal, Optional, Union

Bytes = Union[bytes, bytearray]
HashName = Literal["murmur3-128", "murmur3-32x2", "siphash"]
Response = Union[Mapping[str, Any], str, bytes]
"""A GetFilterResponse: a dict ({"n", "p", "m", "content", "timestamp"}) or its JSON text."""

DEFAULT_P: int
DEFAULT_M: int

def build(items: Iterable[Bytes], hash: HashName = "murmur3-128", p: int = 19,
          m: int = 784931, timestamp: Optional[int] = None,
          key: Union[Bytes, str, None] = None) -> dict[str, Any]: ...
def match(response: Response, items: Iterable[Bytes], hash: HashName = "murmur3-128",
          key: Union[Bytes, str, None] = None) -> list[bool]: ...
def contains(response: Response, item: Bytes, hash: HashName = "murmur3-128",
             key: Union[Bytes, str, None] = None) -> bool: ...
def bulk_all_negative(queries: int, m: int = 784931) -> float: ...
def hash_to_range(item: Bytes, f: int, hash: HashName = "murmur3-128",
                  key: Union[Bytes, str, None] = None) -> int: ...
