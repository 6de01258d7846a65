"""A full disk is the storage's problem, told as such: 507 problem+json for the write, `degraded` health."""

from __future__ import annotations

from sqlalchemy import event

from service.db import make_engine
from service.storage import StorageWatch, is_storage_full
from tests.app_client import app_client


def _fill(url: str) -> None:
    """Cap the SQLite file at the pages it has: the next page it needs is "database or disk is full"."""
    engine = make_engine(url)

    @event.listens_for(engine, "connect")
    def _capped(dbapi_connection, _record) -> None:
        cursor = dbapi_connection.cursor()
        pages = cursor.execute("PRAGMA page_count").fetchone()[0]
        cursor.execute(f"PRAGMA max_page_count = {pages}")
        cursor.close()

    engine.dispose()


def test_a_full_database_is_507_and_health_degraded(tmp_path):
    with app_client(tmp_path, raise_server_exceptions=False) as client:
        assert client.get("/healthz").json()["storage"] == "ok"
        _fill(client.app.state["api"].database_url)
        for n in range(200):  # until the pages the file had are used up
            response = client.post(
                "/v1/ask",
                json={"text": f"nlp ${800 + n} " + "and more words " * 20, "start_conversation": True},
            )
            if response.status_code != 200:
                break
        assert response.status_code == 507, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["title"] == "Insufficient storage"
        health = client.get("/healthz")
        assert health.status_code == 503 and health.json()["storage"] == "full"
        assert client.post("/v1/ask", json={"text": "nlp $800"}).status_code == 200  # one-shot still answers


def test_storage_full_is_told_apart_from_other_errors(tmp_path):
    import errno
    import sqlite3

    assert is_storage_full(OSError(errno.ENOSPC, "No space left on device"))
    assert is_storage_full(sqlite3.OperationalError("database or disk is full"))
    assert not is_storage_full(sqlite3.OperationalError("no such table: x"))
    assert not is_storage_full(ValueError("disk"))
    watch = StorageWatch(tmp_path / "data")
    assert watch.writable()
    watch.failed()
    assert not watch.writable()
