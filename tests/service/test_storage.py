"""Storage against both databases: migrations, every table, constraints."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from sqlalchemy import inspect
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from service.db import make_engine, migrate, session_scope
from service.models import (
    AgentToken,
    BenchmarkResult,
    BenchmarkRun,
    CatalogGpu,
    CatalogState,
    CloudOffer,
    Conversation,
    PricePoint,
)

TABLES = {"catalog_gpu", "price_point", "cloud_offer", "catalog_state", "benchmark_run",
          "benchmark_result", "agent_token", "conversation", "alembic_version"}


def test_migrate_creates_every_table_and_is_idempotent(database_url: str) -> None:
    migrate(database_url)
    migrate(database_url)  # a restart migrates again: nothing to do, no error
    assert TABLES <= set(inspect(make_engine(database_url)).get_table_names())


def test_catalog_rows_round_trip_with_json(database_url: str) -> None:
    migrate(database_url)
    with session_scope(database_url) as session:
        session.add(CatalogGpu(id="rtx-3090", name="GeForce RTX 3090", vendor="nvidia", architecture="Ampere",
                               memory_gb=24, released=date(2020, 9, 24), entry={"cooling": ["open-air", "blower"]}))
        session.flush()
        session.add(PricePoint(gpu_id="rtx-3090", seen=date(2020, 9, 24), kind="msrp", price_usd=1499, source="NVIDIA"))
        session.add(CloudOffer(provider="Lambda", instance="gpu_1x_a100", accelerator="A100", gpu_id=None, count=1,
                               on_demand_per_hour=1.29, seen=date(2024, 5, 20), source="snapshot"))
        session.add(CatalogState(key="version", value="abc"))
    with session_scope(database_url) as session:
        gpu = session.get(CatalogGpu, "rtx-3090")
        assert gpu is not None and gpu.entry == {"cooling": ["open-air", "blower"]}
        assert session.exec(select(PricePoint)).one().price_usd == 1499
        assert session.exec(select(CloudOffer)).one().spot_per_hour is None


def test_price_point_needs_a_known_gpu(database_url: str) -> None:
    migrate(database_url)
    with pytest.raises(IntegrityError):
        with session_scope(database_url) as session:
            session.add(PricePoint(gpu_id="no-such-gpu", seen=date(2020, 1, 1), kind="new", price_usd=1, source="x"))


def test_benchmark_run_id_is_unique_so_resending_is_idempotent(database_url: str) -> None:
    migrate(database_url)
    run = dict(run_id="r1", agent="lab-a", host="gpu01", device_name="NVIDIA GeForce RTX 3090",
               started_at=datetime(2026, 1, 1, tzinfo=timezone.utc), flags=["noisy"], environ={"torch": "2.13.0"})
    with session_scope(database_url) as session:
        session.add(BenchmarkRun(**run))
        session.flush()
        session.add(BenchmarkResult(run_id="r1", benchmark="matmul", precision="bf16", unit="TFLOP/s", value=70.1))
    with pytest.raises(IntegrityError):
        with session_scope(database_url) as session:
            session.add(BenchmarkRun(**run))
    with session_scope(database_url) as session:
        assert session.exec(select(BenchmarkRun)).one().flags == ["noisy"]
        assert session.exec(select(BenchmarkResult)).one().value == pytest.approx(70.1)


def test_agent_token_names_and_hashes_are_unique(database_url: str) -> None:
    migrate(database_url)
    with session_scope(database_url) as session:
        session.add(AgentToken(name="lab-a", token_hash="0" * 64))
    with pytest.raises(IntegrityError):
        with session_scope(database_url) as session:
            session.add(AgentToken(name="lab-a", token_hash="1" * 64))


def test_conversation_keeps_its_question_and_turns(database_url: str) -> None:
    migrate(database_url)
    with session_scope(database_url) as session:
        session.add(Conversation(id="c1", question={"workload": "transformer", "budget": 800},
                                 turns=[{"text": "nlp $800"}]))
    with session_scope(database_url) as session:
        conversation = session.get(Conversation, "c1")
        assert conversation.question["budget"] == 800 and conversation.turns[0]["text"] == "nlp $800"
