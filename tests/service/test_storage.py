"""Storage against both databases: migrations, every table, constraints."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import inspect
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from service.db import alembic_config, make_engine, migrate, session_scope
from service.models import AgentToken, BenchmarkResult, BenchmarkRun, Conversation

TABLES = {
    "benchmark_run",
    "benchmark_result",
    "agent_token",
    "conversation",
    "lab_price",
    "slack_request",
    "alembic_version",
}
# dropped by 0003: nothing read them
CATALOG_COPY = {
    "catalog_gpu",
    "price_point",
    "cloud_offer",
    "catalog_state",
}


def _tables(url: str) -> set[str]:
    return set(inspect(make_engine(url)).get_table_names())


def test_migrate_creates_every_table_and_is_idempotent(database_url: str) -> None:
    migrate(database_url)
    migrate(database_url)  # a restart migrates again: nothing to do, no error
    assert _tables(database_url) == TABLES


def test_an_older_database_loses_the_catalog_copy_and_can_go_back(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "0002")
    assert _tables(database_url) >= CATALOG_COPY
    migrate(database_url)
    assert _tables(database_url) == TABLES
    command.downgrade(alembic_config(database_url), "0002")
    assert _tables(database_url) >= CATALOG_COPY


def test_benchmark_run_id_is_unique_so_resending_is_idempotent(database_url: str) -> None:
    migrate(database_url)
    run = dict(
        run_id="r1",
        agent="lab-a",
        host="gpu01",
        device_name="NVIDIA GeForce RTX 3090",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        flags=["noisy"],
        environ={"torch": "2.13.0"},
    )
    with session_scope(database_url) as session:
        session.add(BenchmarkRun(**run))
        session.flush()
        session.add(
            BenchmarkResult(run_id="r1", benchmark="matmul", precision="bf16", unit="TFLOP/s", value=70.1)
        )
    with pytest.raises(IntegrityError), session_scope(database_url) as session:
        session.add(BenchmarkRun(**run))
    with session_scope(database_url) as session:
        assert session.exec(select(BenchmarkRun)).one().flags == ["noisy"]
        assert session.exec(select(BenchmarkResult)).one().value == pytest.approx(70.1)


def test_agent_token_names_and_hashes_are_unique(database_url: str) -> None:
    migrate(database_url)
    with session_scope(database_url) as session:
        session.add(AgentToken(name="lab-a", token_hash="0" * 64))
    with pytest.raises(IntegrityError), session_scope(database_url) as session:
        session.add(AgentToken(name="lab-a", token_hash="1" * 64))


def test_conversation_keeps_its_question_and_turns(database_url: str) -> None:
    migrate(database_url)
    with session_scope(database_url) as session:
        session.add(
            Conversation(
                id="c1", question={"workload": "transformer", "budget": 800}, turns=[{"text": "nlp $800"}]
            )
        )
    with session_scope(database_url) as session:
        conversation = session.get(Conversation, "c1")
        assert conversation.question["budget"] == 800 and conversation.turns[0]["text"] == "nlp $800"
