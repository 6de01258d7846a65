"""Conversation turns: group commit keeps every turn, in order, on both databases."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from rules.contract.question import Question
from service.conversations import ConversationWriter, load_question, purge_expired, save_turn
from service.db import migrate, session_scope
from service.models import Conversation


def test_concurrent_turns_are_all_committed_in_few_transactions(database_url: str) -> None:
    migrate(database_url)
    writer = ConversationWriter(database_url)

    async def many() -> list[str]:
        return await asyncio.gather(
            *(writer.save(None, Question(budget=100 + i), {"text": f"q{i}"}) for i in range(60))
        )

    ids = asyncio.run(many())
    assert len(set(ids)) == 60
    assert 1 <= writer.batches < 60  # turns waiting together share a transaction
    with session_scope(database_url) as session:
        stored = {c.id: c for c in session.exec(select(Conversation)).all()}
    assert set(stored) == set(ids)
    assert load_question(database_url, ids[7]).budget == 107


def test_follow_ups_in_one_batch_keep_their_order(database_url: str) -> None:
    migrate(database_url)
    first = save_turn(database_url, None, Question(workload="cnn"), {"text": "cv"})
    writer = ConversationWriter(database_url)

    async def follow_ups() -> None:
        await asyncio.gather(
            *(
                writer.save(first, Question(workload="cnn", gpus=n), {"text": f"{n} of them"})
                for n in (2, 3, 4)
            )
        )

    asyncio.run(follow_ups())
    with session_scope(database_url) as session:
        turns = session.get(Conversation, first).turns
    assert [t["text"] for t in turns] == ["cv", "2 of them", "3 of them", "4 of them"]
    assert load_question(database_url, first).gpus == 4


def test_a_failing_turn_does_not_fail_its_batch(sqlite_url: str) -> None:
    migrate(sqlite_url)
    writer = ConversationWriter(sqlite_url)

    async def mixed() -> list:
        good = [writer.save(None, None, {"text": "ok"}) for _ in range(5)]
        # breaks the id length on PG only
        bad = writer.save("x" * 500, None, {"text": "id longer than the column"})
        unserialisable = writer.save(None, None, {"text": object()})
        return await asyncio.gather(*good, bad, unserialisable, return_exceptions=True)

    results = asyncio.run(mixed())
    assert all(isinstance(r, str) for r in results[:5])
    assert isinstance(results[-1], Exception)


def _rows(url: str) -> list[Conversation]:
    with session_scope(url) as session:
        return list(session.exec(select(Conversation)).all())


def test_conversations_expire_and_the_writer_deletes_them_itself(database_url: str) -> None:
    migrate(database_url)
    old = save_turn(database_url, None, Question(budget=100), {"text": "old"})
    with session_scope(database_url) as session:
        row = session.get(Conversation, old)
        row.updated_at = datetime.now(UTC) - timedelta(days=31)
        session.add(row)
    writer = ConversationWriter(database_url, keep_days=30, purge_every_s=0.05)
    fresh = asyncio.run(writer.save(None, Question(budget=200), {"text": "new"}))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and old in {r.id for r in _rows(database_url)}:
        time.sleep(0.05)
    writer.close()
    assert {r.id for r in _rows(database_url)} == {fresh}, (
        "the writer thread purged the expired conversation unasked"
    )
    assert purge_expired(database_url, 0) == 0, "0 days keeps conversations forever"


def test_the_clean_up_runs_every_tenth_of_the_retention_at_most_hourly() -> None:
    from service.conversations import PURGE_EVERY_S, purge_interval_s

    assert (
        purge_interval_s(30) == PURGE_EVERY_S == ConversationWriter("sqlite://", keep_days=30).purge_every_s
    )
    assert purge_interval_s(0.01) == pytest.approx(86.4)  # a 14-minute retention is looked after every 86 s
    assert purge_interval_s(1e-6) == 1.0 and purge_interval_s(0) == PURGE_EVERY_S


def test_one_shot_questions_store_nothing(tmp_path) -> None:
    from tests.app_client import app_client

    with app_client(tmp_path) as client:
        for text in ("nlp $800", "blorp", "help", "cv 2 gpus 3000"):
            reply = client.post("/v1/ask", json={"text": text})
            assert reply.status_code == 200 and reply.json()["conversation_id"] is None
        assert _rows(f"sqlite:///{tmp_path / 'w.db'}") == []
        started = client.post("/v1/ask", json={"text": "nlp $800", "start_conversation": True}).json()[
            "conversation_id"
        ]
        follow = client.post("/v1/ask", json={"text": "cheaper?", "conversation_id": started}).json()
        assert follow["conversation_id"] == started and follow["query"]["budget"] == 560
        assert [r.id for r in _rows(f"sqlite:///{tmp_path / 'w.db'}")] == [started]


def test_one_client_keeps_at_most_its_quota_and_the_table_its_total(database_url: str) -> None:
    """Four anonymous clients once stored about 22 MB of conversations a minute, kept 30 days: a client now
    turns over only its own oldest, and the table keeps at most its total, the oldest dropped first."""
    from service.conversations import Quota

    migrate(database_url)
    writer = ConversationWriter(database_url, quota=Quota(per_client=5, total=12))

    async def start(client: str, n: int) -> list[str]:
        return [await writer.save(None, None, {"text": f"nlp ${800 + i}"}, client) for i in range(n)]

    try:
        quiet = asyncio.run(start("198.51.100.7", 3))
        flood = asyncio.run(start("203.0.113.9", 40))
        with session_scope(database_url) as session:
            kept = {c.id: c.client for c in session.exec(select(Conversation))}
        assert set(quiet) <= set(kept), "another client's flood never drops a quiet client's conversations"
        assert [k for k, c in kept.items() if c == "203.0.113.9"] and set(flood[-5:]) <= set(kept)
        assert sum(c == "203.0.113.9" for c in kept.values()) == 5
        more = [asyncio.run(start(f"192.0.2.{i}", 2)) for i in range(5)]
        with session_scope(database_url) as session:
            kept_ids = {c.id for c in session.exec(select(Conversation))}
        assert len(kept_ids) == 12 and set(more[-1]) <= kept_ids and not set(quiet) & kept_ids, (
            "over the total the oldest go first"
        )
    finally:
        writer.close()
