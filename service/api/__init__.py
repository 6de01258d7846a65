"""The JSON API's controllers, one per resource, and what they are given by dependency injection.

A handler names what it needs as a parameter and Litestar provides it (:meth:`ApiState.dependencies`):

- ``snapshot``: the catalog, rulebook and advisor the answers come from (:class:`~service.snapshot.Snapshot`,
  looked up once per request, rebuilt when the data change);
- ``holder``: the :class:`~service.snapshot.SnapshotHolder` itself, for a handler that must not wait for a
  rebuild (health) or that changes the data (a benchmark report);
- ``settings``, ``metrics``, ``conversations`` (the conversation writer), ``charts`` (the chart cache),
  ``storage`` (whether writes still fit, for health), ``summaries`` (per-GPU benchmark aggregates, computed
  once per measurements version);
- ``db_session``: a SQLModel session in one transaction, committed when the handler returns, rolled back
  when it raises.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from anyio import CapacityLimiter, to_thread
from litestar.di import Provide
from sqlmodel import Session

from service.benchmarks import GpuSummaries
from service.conversations import ConversationWriter
from service.db import make_engine
from service.metrics import ApiMetrics
from service.settings import Settings
from service.snapshot import SnapshotHolder
from service.storage import StorageWatch

if TYPE_CHECKING:
    from service.charts import ChartCache  # matplotlib: loaded by the app's web routes, not by every import

__all__ = ["OFF_LOOP_CHARS", "ApiState", "in_process", "off_loop", "today"]

T = TypeVar("T")
OFF_LOOP_CHARS = 400  # text longer than this is parsed on a worker thread, not the event loop
# the long-text limiter, one per event loop
_LONG_TEXT: weakref.WeakKeyDictionary[Any, CapacityLimiter] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class ApiState:
    """What one app is made of: settings, snapshot holder, metrics, conversation writer, chart cache."""

    settings: Settings
    database_url: str
    holder: SnapshotHolder
    metrics: ApiMetrics
    conversations: ConversationWriter
    charts: ChartCache
    storage: StorageWatch
    summaries: GpuSummaries = field(default_factory=GpuSummaries)

    def dependencies(self) -> dict[str, Provide]:
        """What handlers may ask for by parameter name (see the module's docstring)."""
        return {
            "snapshot": Provide(self.holder.get, sync_to_thread=False),
            "db_session": Provide(_sessions(self.database_url)),
            **{
                name: Provide(_constant(value), use_cache=True, sync_to_thread=False)
                for name, value in (
                    ("settings", self.settings),
                    ("holder", self.holder),
                    ("metrics", self.metrics),
                    ("conversations", self.conversations),
                    ("charts", self.charts),
                    ("storage", self.storage),
                    ("summaries", self.summaries),
                )
            },
        }


def _constant(value: T) -> Callable[[], T]:
    def provide() -> T:
        return value

    return provide


def _sessions(database_url: str) -> Callable[[], Iterator[Session]]:
    def provide_session() -> Iterator[Session]:
        """One transaction per request; nothing connects until the handler first queries."""
        with Session(make_engine(database_url), expire_on_commit=False) as session:
            try:
                yield session
            except BaseException:
                session.rollback()
                raise
            session.commit()

    return provide_session


def in_process(settings: Settings) -> bool:
    """SQLite answers without network waits: a short read can run on the event loop (a hop to a worker
    thread costs more than it); a networked database gets a thread."""
    return settings.resolved_database_url.startswith("sqlite")


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
