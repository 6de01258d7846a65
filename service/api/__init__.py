"""The JSON API's controllers, one per resource, and what they share (:class:`ApiState`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from litestar import Request

from service.conversations import ConversationWriter
from service.metrics import ApiMetrics
from service.settings import Settings
from service.snapshot import SnapshotHolder

__all__ = ["ApiState", "api_state", "today"]


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
