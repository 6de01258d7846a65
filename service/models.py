"""The database tables (SQLModel). Alembic migrations in ``service/migrations`` create them.

The catalog tables are a copy of the shipped data files (``rules/data``), written on
start when the data change, so SQL users and other processes see the same catalog
the engine ranks; the engine itself ranks an in-memory snapshot.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any, Optional

from sqlalchemy import JSON, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

__all__ = [
    "CatalogGpu",
    "PricePoint",
    "CloudOffer",
    "CatalogState",
    "BenchmarkRun",
    "BenchmarkResult",
    "AgentToken",
    "Conversation",
]


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class CatalogGpu(SQLModel, table=True):
    """One purchasable accelerator of the catalog (specs and overlay as one JSON document)."""

    __tablename__ = "catalog_gpu"
    id: str = Field(primary_key=True, max_length=80)
    name: str = Field(max_length=200)
    vendor: str = Field(max_length=40, index=True)
    architecture: str = Field(max_length=60)
    memory_gb: float
    released: Optional[date] = None
    entry: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class PricePoint(SQLModel, table=True):
    """A dated price of a catalog GPU: launch MSRP, new/street or used."""

    __tablename__ = "price_point"
    id: Optional[int] = Field(default=None, primary_key=True)
    gpu_id: str = Field(foreign_key="catalog_gpu.id", index=True, max_length=80)
    seen: date
    kind: str = Field(max_length=10)
    price_usd: float
    source: str = Field(max_length=300)


class CloudOffer(SQLModel, table=True):
    """A rentable GPU/TPU instance at a dated hourly price."""

    __tablename__ = "cloud_offer"
    id: Optional[int] = Field(default=None, primary_key=True)
    provider: str = Field(max_length=80, index=True)
    instance: str = Field(max_length=120)
    accelerator: str = Field(max_length=120)
    gpu_id: Optional[str] = Field(default=None, max_length=80, index=True)
    count: int
    on_demand_per_hour: float
    spot_per_hour: Optional[float] = None
    seen: date
    source: str = Field(max_length=300)


class CatalogState(SQLModel, table=True):
    """Key/value facts about the loaded catalog (e.g. its data version)."""

    __tablename__ = "catalog_state"
    key: str = Field(primary_key=True, max_length=60)
    value: str = Field(max_length=200)


class BenchmarkRun(SQLModel, table=True):
    """One bench-agent run on one device of one host; ``run_id`` makes re-sending idempotent."""

    __tablename__ = "benchmark_run"
    __table_args__ = (Index("ix_benchmark_run_gpu_id_received_at", "gpu_id", "received_at"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: str = Field(unique=True, max_length=64)
    agent: str = Field(max_length=120, index=True)
    host: str = Field(max_length=200, index=True)
    device_name: str = Field(max_length=200)
    gpu_id: Optional[str] = Field(default=None, max_length=80, index=True)
    started_at: datetime
    received_at: datetime = Field(default_factory=utcnow)
    flags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    environ: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


class BenchmarkResult(SQLModel, table=True):
    """One measured figure of a run (e.g. matmul bf16 in TFLOP/s) with its spread."""

    __tablename__ = "benchmark_result"
    __table_args__ = (UniqueConstraint("run_id", "benchmark", "precision"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    run_id: str = Field(foreign_key="benchmark_run.run_id", index=True, max_length=64)
    benchmark: str = Field(max_length=60, index=True)
    precision: str = Field(max_length=20)
    unit: str = Field(max_length=20)
    value: Optional[float] = None
    p10: Optional[float] = None
    p90: Optional[float] = None
    cv: Optional[float] = None
    flags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    error: Optional[str] = Field(default=None, max_length=2000)


class AgentToken(SQLModel, table=True):
    """A bench-agent credential; only its SHA-256 is stored."""

    __tablename__ = "agent_token"
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(unique=True, max_length=120)
    token_hash: str = Field(unique=True, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: Optional[datetime] = None
    last_seen_at: Optional[datetime] = None
    host: Optional[str] = Field(default=None, max_length=200)  # the one host this token reports for (set on first report)


class Conversation(SQLModel, table=True):
    """A chat conversation: the last question understood, so follow-ups can refine it."""

    __tablename__ = "conversation"
    __table_args__ = (Index("ix_conversation_updated_at", "updated_at"),)
    id: str = Field(primary_key=True, max_length=64)
    question: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    turns: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
