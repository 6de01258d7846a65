"""Benchmark runs over HTTP: the receipt for a reported run, and the stored runs as the API lists them.

The run a bench agent posts is not declared here: its one statement is the agent's own JSON Schema
(``bench_agent/schemas/benchmark-run.schema.json``), which is also the format of the agent's
on-disk spool; the service judges the body by it and publishes it as ``benchmark-run``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

__all__ = ["BenchmarkReceipt", "GpuMeasurements", "Median", "ResultRecord", "RunListing", "RunRecord"]

Timestamp = Annotated[
    str, msgspec.Meta(description="ISO 8601 date-time in UTC, e.g. 2026-11-20T11:00:00+00:00")
]


class BenchmarkReceipt(msgspec.Struct, frozen=True):
    """POST /v1/benchmarks: the run is stored (`created`) or was stored before (`already stored`)."""

    run_id: str
    status: Literal["created", "already stored"]


class ResultRecord(msgspec.Struct, kw_only=True, frozen=True):
    """One benchmark of a run: its median and spread, or the error that stopped it."""

    benchmark: str
    precision: str
    unit: str
    value: float | None
    p10: float | None
    p90: float | None
    cv: float | None
    flags: list[str]
    error: str | None


class RunRecord(msgspec.Struct, kw_only=True, frozen=True):
    """A stored run; who measured where (agent, host, environment) only in the admin view."""

    run_id: str
    agent: str | UnsetType = UNSET
    host: str | UnsetType = UNSET
    # the agent's device record (public view: name, type, memory and compute capability)
    device: dict[str, Any]
    gpu_id: str | None  # None: no catalog GPU matches the device
    started_at: Timestamp
    received_at: Timestamp
    quick: bool
    agent_version: str | None
    flags: list[str]
    environ: dict[str, Any] | UnsetType = UNSET
    results: list[ResultRecord]


class Median(msgspec.Struct, kw_only=True, frozen=True):
    benchmark: str
    precision: str
    unit: str
    value: float
    results: int  # how many results the median is taken over


class GpuMeasurements(msgspec.Struct, kw_only=True, frozen=True):
    """What the lab measured on one catalog GPU (`unmatched` for the other devices), not by whom."""

    gpu: str
    runs: int
    hosts: int
    last_run: Timestamp
    medians: list[Median]


class RunListing(msgspec.Struct, kw_only=True, frozen=True):
    """GET /v1/benchmarks: stored runs newest first, and per GPU the runs, hosts and median figures."""

    items: list[RunRecord]
    total: int
    limit: int
    offset: int
    gpus: list[GpuMeasurements]
    view: Literal["admin", "public"]
