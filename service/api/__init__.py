"""The JSON API's controllers, one per resource, and what they are given by dependency injection.

A handler names what it needs as a parameter and Litestar provides it (:func:`dependencies`):
``api`` (:class:`ApiState`: settings, snapshot holder, metrics, conversation writer) and
``db_session`` (a SQLModel session in one transaction, committed when the handler returns,
rolled back when it raises).
"""

from __future__ import annotations

import asyncio
import dataclasses
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from functools import partial
from types import MappingProxyType
from typing import Any, TypeVar

from anyio import CapacityLimiter, to_thread
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from sqlmodel import Session

from service.conversations import ConversationWriter
from service.db import make_engine
from service.metrics import ApiMetrics
from service.settings import Settings
from service.snapshot import SnapshotHolder

__all__ = ["ApiState", "dependencies", "off_loop", "plain", "today", "OFF_LOOP_CHARS"]

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


def _provide_api(state: State) -> ApiState:
    api: ApiState = state["api"]
    return api


def _provide_session(api: NamedDependency[ApiState]) -> Iterator[Session]:
    """One transaction per request; nothing connects until the handler first queries."""
    with Session(make_engine(api.database_url), expire_on_commit=False) as session:
        try:
            yield session
        except BaseException:
            session.rollback()
            raise
        session.commit()


def dependencies() -> dict[str, Provide]:
    """What handlers may ask for by parameter name: ``api`` and ``db_session``."""
    return {"api": Provide(_provide_api, sync_to_thread=False),
            "db_session": Provide(_provide_session)}


def plain(value: Any) -> Any:
    """A JSON-ready copy of engine values (dataclasses, dates, tuples, mapping proxies)."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (dict, MappingProxyType)):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


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
