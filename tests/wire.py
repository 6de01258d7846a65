"""The JSON form of a typed object, as a client reads it (lists, not tuples): what assertions compare."""

from __future__ import annotations

from typing import Any

import msgspec


def wire(value: Any) -> Any:
    """``value`` encoded as the service sends it and decoded as a client reads it."""
    return msgspec.json.decode(msgspec.json.encode(value))
