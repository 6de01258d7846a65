"""Bounded memos: what questions vary (dates, job shapes, names) is remembered up to a limit, then forgotten at once.

A whole-table reset costs nothing on a hit and keeps memory bounded without an LRU's bookkeeping; every memo in
the engine that is keyed by what askers vary stores through :func:`remember`.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["remember"]

K = TypeVar("K")
V = TypeVar("V")


def remember(table: dict[K, V], key: K, value: V, limit: int) -> V:
    """Store ``value`` under ``key`` and return it, first emptying ``table`` when it holds more than ``limit``."""
    if len(table) > limit:
        table.clear()
    table[key] = value
    return value
