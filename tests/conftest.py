"""Shared fixtures: real databases (SQLite and PostgreSQL) and settings.

PostgreSQL tests need the server on 127.0.0.1:5432 (or WHICHGPU_TEST_POSTGRES_URL,
an admin URL). Each test gets a throwaway database, dropped afterwards. When the
server is missing the tests skip locally but fail under CI=true: a test CI skips
is a test not run.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests explore new examples on a developer's machine; under CI=true they replay a fixed sequence, so
# a landing never fails on an example no one has seen (a failure found locally is fixed, not re-rolled).
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    settings.load_profile("ci")

POSTGRES_ADMIN_URL = os.environ.get("WHICHGPU_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def _postgres_unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"PostgreSQL is required under CI=true but is unavailable: {reason}")
    pytest.skip(f"PostgreSQL unavailable: {reason}")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test."""
    import psycopg

    name = f"whichgpu_test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        _postgres_unavailable(str(exc).strip())
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0]
    url = f"{base}/{name}"
    try:
        yield url
    finally:
        from service.db import make_engine

        make_engine(url).dispose()
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'whichgpu.db'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str:
    """The same test against the embedded default and the real PostgreSQL server."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def settings(tmp_path: Path, sqlite_url: str):
    """Settings isolated in a temporary data directory (SQLite)."""
    from service.settings import Settings

    return Settings(data_dir=tmp_path, database_url=sqlite_url)
