"""The database tables (SQLModel). Alembic migrations in ``service/migrations`` create them.

Only what the service learns at run time is stored: benchmark runs, agent tokens and
conversations. The catalog is the shipped data files (``rules/data``), read into memory.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, CheckConstraint, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = [
    "AgentToken",
    "BenchmarkResult",
    "BenchmarkRun",
    "Conversation",
    "LabPrice",
    "SlackRequest",
]


def utcnow() -> datetime:
    return datetime.now(UTC)


class BenchmarkRun(SQLModel, table=True):
    """One bench-agent run on one device of one host; ``run_id`` makes re-sending idempotent."""

    __tablename__ = "benchmark_run"
    __table_args__ = (
        Index("ix_benchmark_run_gpu_id_received_at", "gpu_id", "received_at"),
        Index("ix_benchmark_run_gpu_id_host_received_at", "gpu_id", "host", "received_at", "id"),
        Index("ix_benchmark_run_agent_received_at", "agent", "received_at"),
    )
    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(unique=True, max_length=64)
    agent: str = Field(max_length=120, index=True)
    host: str = Field(max_length=200, index=True)
    device_name: str = Field(max_length=200)
    gpu_id: str | None = Field(default=None, max_length=80, index=True)
    started_at: datetime
    received_at: datetime = Field(default_factory=utcnow)
    flags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    environ: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class BenchmarkResult(SQLModel, table=True):
    """One measured figure of a run (e.g. matmul bf16 in TFLOP/s) with its spread."""

    __tablename__ = "benchmark_result"
    __table_args__ = (UniqueConstraint("run_id", "benchmark", "precision"),)
    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="benchmark_run.run_id", index=True, max_length=64)
    benchmark: str = Field(max_length=60, index=True)
    precision: str = Field(max_length=20)
    unit: str = Field(max_length=20)
    value: float | None = None
    p10: float | None = None
    p90: float | None = None
    cv: float | None = None
    flags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    error: str | None = Field(default=None, max_length=2000)


class AgentToken(SQLModel, table=True):
    """A bench-agent credential; only its SHA-256 is stored."""

    __tablename__ = "agent_token"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, max_length=120)
    token_hash: str = Field(unique=True, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None
    last_seen_at: datetime | None = None
    # the one host this token reports for (set on first report)
    host: str | None = Field(default=None, max_length=200)


class Conversation(SQLModel, table=True):
    """A chat conversation: the last question understood, so follow-ups can refine it."""

    __tablename__ = "conversation"
    __table_args__ = (
        Index("ix_conversation_updated_at", "updated_at"),
        Index("ix_conversation_client_updated_at", "client", "updated_at"),
    )
    id: str = Field(primary_key=True, max_length=64)
    question: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    turns: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    # who started it (client address key, or "slack"): the per-client quota counts these
    client: str | None = Field(default=None, max_length=64)


class SlackRequest(SQLModel, table=True):
    """A signed Slack request already answered, by signature, shared by every replica (replays refused)."""

    __tablename__ = "slack_request"
    signature: str = Field(primary_key=True, max_length=80)
    stamp: int = Field(sa_column=Column(BigInteger, nullable=False, index=True))


class LabPrice(SQLModel, table=True):
    """A price this deployment trusts for a card (a vendor's quote, a price list), dated and sourced;
    its answers price the card at it, shown as "your quote"."""

    __tablename__ = "lab_price"
    __table_args__ = (CheckConstraint("price > 0", name="ck_lab_price_positive"),)
    id: int | None = Field(default=None, primary_key=True)
    gpu_id: str = Field(max_length=80, index=True)
    price: float
    currency: str = Field(max_length=3)
    seen: date
    source: str = Field(max_length=500)
    created_at: datetime = Field(default_factory=utcnow)
