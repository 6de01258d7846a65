"""Database engine, migrations and sessions (SQLite embedded, PostgreSQL by URL)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, create_engine

__all__ = [
    "CONNECT_TIMEOUT_S",
    "STATEMENT_TIMEOUT_MS",
    "make_engine",
    "migrate",
    "normalize_url",
    "session_scope",
]

MIGRATIONS = Path(__file__).with_name("migrations")
# Every database call is bounded: a stalled server costs a request (or the refresher) seconds, not forever.
CONNECT_TIMEOUT_S = 3  # PostgreSQL: opening a connection
STATEMENT_TIMEOUT_MS = 5000  # PostgreSQL: one statement, and one wait for a lock
POOL_TIMEOUT_S = 5  # waiting for a free pooled connection
SQLITE_BUSY_TIMEOUT_S = 10  # SQLite: waiting for another writer


def normalize_url(url: str) -> str:
    """``postgresql://`` URLs use the psycopg 3 driver (the only one we install)."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str) -> Engine:
    """One pooled engine per database URL, shared by the whole process."""
    return _engine(normalize_url(url))


@lru_cache(maxsize=32)
def _engine(url: str) -> Engine:
    """SQLite gets its directory, WAL and foreign keys; PostgreSQL a checked pool."""
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_S}
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")  # safe with WAL; a commit no longer waits for fsync
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=5,
        max_overflow=10,
        pool_timeout=POOL_TIMEOUT_S,
        connect_args={
            "connect_timeout": CONNECT_TIMEOUT_S,
            "options": f"-c statement_timeout={STATEMENT_TIMEOUT_MS} -c lock_timeout={STATEMENT_TIMEOUT_MS}",
        },
    )


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", normalize_url(url).replace("%", "%%"))
    return config


def migrate(url: str) -> None:
    """Bring the database at ``url`` to the newest schema (safe to run on every start)."""
    engine = make_engine(url)
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":  # several replicas may start at once
            # a schema change may take longer than a request's statement, and waits for another replica's
            connection.execute(text("SET LOCAL statement_timeout = 0"))
            connection.execute(text("SET LOCAL lock_timeout = 0"))
            connection.execute(text("SELECT pg_advisory_xact_lock(7270417)"))
        config = alembic_config(url)
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


@contextmanager
def session_scope(url: str) -> Iterator[Session]:
    """A session in one transaction: committed on success, rolled back on error."""
    with Session(make_engine(url), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
