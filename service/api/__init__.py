"""The JSON API's controllers, one per resource, and what they share (:class:`ApiState`)."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import partial
from typing import Any, TypeVar

from anyio import CapacityLimiter, to_thread
from litestar import Request

from service.conversations import ConversationWriter
from service.metrics import ApiMetrics
from service.settings import Settings
from service.snapshot import SnapshotHolder

__all__ = ["ApiState", "api_state", "off_loop", "today", "OFF_LOOP_CHARS"]

T = TypeVar("T")
OFF_LOOP_CHARS = 400  # text longer than this is parsed on a worker thread, not the event loop
_LONG_TEXT: weakref.WeakKeyDictionary[Any, CapacityLimiter] = weakref.WeakKeyDictionary()  # one per event loop


@dataclass(frozen=True)
class ApiState:
    """Per-app objects the handlers use: settings, the snapshot holder, the metrics."""

    settings: Settings
    database_url: str
    holder: SnapshotHolder
    metrics: ApiMetrics
    conversations: ConversationWriter

    @property
    def database_in_process(self) -> bool:
        """SQLite answers without network waits: a short read can run on the event loop
        (a hop to a worker thread costs more than it); a networked database gets a thread."""
        return self.database_url.startswith("sqlite")


def api_state(request: Request) -> ApiState:
    return request.app.state["api"]


def today() -> date:
    return date.today()


async def off_loop(chars: int, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)``: inline for short text (a thread hop costs more than the parse),
    on one shared worker thread for long text, so long questions queue behind each other
    instead of holding the event loop while short ones wait."""
    if chars <= OFF_LOOP_CHARS:
        return function(*args)
    loop = asyncio.get_running_loop()
    limiter = _LONG_TEXT.get(loop) or _LONG_TEXT.setdefault(loop, CapacityLimiter(1))
    return await to_thread.run_sync(partial(function, *args), limiter=limiter)
