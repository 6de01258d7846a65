"""The whole app (``create_app``) on a fresh SQLite database, behind Litestar's test client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings


@contextmanager
def app_client(data_dir: Path, raise_server_exceptions: bool = True, **settings: Any) -> Iterator[TestClient]:
    """``settings`` over the defaults; the rate limit off unless given (tests send thousands of requests)."""
    settings.setdefault("rate_limit", 0.0)
    app = create_app(Settings(data_dir=data_dir, database_url=f"sqlite:///{data_dir / 'w.db'}", **settings))
    with TestClient(app, raise_server_exceptions=raise_server_exceptions) as client:
        yield client
