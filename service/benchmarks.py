"""Benchmark runs from bench agents: ingest one run, query them, and turn them into measurements.

:func:`ingest` takes one payload (the agent's ``benchmark-run`` JSON Schema), checks it,
maps the device to a catalog GPU and stores the run with its results, once per
``run_id``. :func:`load_measurements` gives the engine, per catalog GPU, the medians of
recent representative runs; :func:`measurements_version` says cheaply whether they
may have changed. What makes a run or a result count for the engine is decided in
:mod:`service.measurements` (CPUs and unknown devices are stored and listed, but have
no datasheet to stand in for).

Errors::

    BenchmarkError (ValueError)   ``errors``: ``[{field, message}]``, the field a dotted path
    ├── InvalidPayload     the payload breaks the schema, or its dates or values cannot be stored
    └── ImplausibleFigure  a figure above what the datasheet allows (``reasons``, one line each)
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Any

from sqlalchemy import ColumnElement, func
from sqlalchemy import select as sql_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from bench_agent.schema import payload_errors as run_schema_errors
from rules.performance import Measured

from .measurements import (
    BANDWIDTH_BENCHMARKS,
    DECODE_BENCHMARK,
    EXCLUDING_FLAGS,
    MAX_RUNS_PER_HOST,
    OUT_OF_BAND,
    QUICK_FLAG,
    WINDOW,
    read_measurements,
)
from .models import AgentToken, BenchmarkResult, BenchmarkRun

__all__ = [
    "ALREADY_STORED",
    "BANDS",
    "CREATED",
    "EXCLUDING_FLAGS",
    "MARGIN",
    "OUT_OF_BAND",
    "BenchmarkError",
    "GpuSummaries",
    "ImplausibleFigure",
    "InvalidPayload",
    "gpu_summary",
    "ingest",
    "load_measurements",
    "measurements_version",
    "public_view",
    "query",
    "unmatched_devices",
]

CREATED = "created"
ALREADY_STORED = "already stored"
MARGIN = 0.10  # a measured figure may exceed the datasheet by this much (boost clocks, rounding)
# default of rule spec-dimensions' measured_bands: believable shares of the datasheet, per benchmark kind
BANDS: Mapping[str, tuple[float, float]] = MappingProxyType(
    {
        "matmul": (0.2, 1 + MARGIN),
        "triad": (0.2, 1 + MARGIN),
        "copy": (0.2, 1 + MARGIN),
        "llm_decode": (0.1, 1 + MARGIN),
    }
)
CLOCK_SKEW = timedelta(minutes=10)  # default of rule spec-dimensions' clock_skew_minutes
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)  # no run of a device outside the catalog is older
# Per-result details the tables have no column for; kept with the run so nothing is lost.
RESULT_DETAILS = (
    "repeats",
    "calls_per_repeat",
    "time_ms",
    "params",
    "settings",
    "check",
    "telemetry",
    "achieved_gb_s",
)


class BenchmarkError(ValueError):
    """A benchmark run the service does not store; ``errors`` name each field (``{field, message}``)."""

    def __init__(self, summary: str, errors: list[dict[str, str]]):
        self.errors = errors
        super().__init__(summary)


class InvalidPayload(BenchmarkError):
    """The payload breaks the benchmark-run schema, or holds dates or values no run can have."""

    def __init__(self, errors: list[dict[str, str]]):
        shown = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:3])
        super().__init__(f"the benchmark run does not match schema benchmark-run.json: {shown}", errors)


class ImplausibleFigure(BenchmarkError):
    """A figure is above the datasheet limit; ``reasons`` name each benchmark."""

    def __init__(self, reasons: list[str]):
        self.reasons = reasons
        super().__init__(
            "impossible figure, run rejected: " + "; ".join(reasons),
            [{"field": r.split(" ", 1)[0].replace("/", "."), "message": r} for r in reasons],
        )


# --- validation ---------------------------------------------------------------------------


def _error(path: str, message: str) -> dict[str, str]:
    return {"field": path or "body", "message": message}


def _unstorable(value: Any, path: str = "") -> list[dict[str, str]]:
    """Fields no database column takes: NaN and infinities (JSON has none; Python's parser
    allows them), and text with NUL characters or lone surrogates (PostgreSQL refuses both)."""
    if isinstance(value, float) and not math.isfinite(value):
        return [_error(path, f"{value!r} is not a finite number")]
    if isinstance(value, str):
        if "\x00" in value:
            return [_error(path, "text with a NUL character")]
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return [_error(path, "text that is not valid Unicode")]
        return []
    if isinstance(value, dict):
        return [
            e
            for k, v in value.items()
            for e in _unstorable(k, path) + _unstorable(v, f"{path}.{k}".lstrip("."))
        ]
    if isinstance(value, list):
        return [e for i, v in enumerate(value) for e in _unstorable(v, f"{path}.{i}".lstrip("."))]
    return []


def payload_errors(payload: Any) -> list[dict[str, str]]:
    """Every way ``payload`` breaks the schema, by field (``{field, message}``)."""
    found = run_schema_errors(payload) + _unstorable(payload)
    if found or not isinstance(payload, dict):
        return found
    for key in ("started_at", "finished_at"):  # jsonschema checks date-time only with an optional package
        try:
            _utc(payload[key])
        except (ValueError, OverflowError):
            found.append(_error(key, f"{payload[key]!r} is not an RFC 3339 date-time that exists in UTC"))
    seen: dict[tuple[str, str], int] = {}
    for i, r in enumerate(payload["results"]):
        pair = (r["benchmark"], r["precision"])
        if pair in seen:
            found.append(
                _error(f"results.{i}", f"{pair[0]} {pair[1]} appears twice (first at results.{seen[pair]})")
            )
        seen.setdefault(pair, i)
    return found


def _figure(gpu: Any, r: dict[str, Any]) -> tuple[float, float, str] | None:
    """(figure, datasheet ceiling, wording) of one result, or None when nothing bounds it: matmul against
    the precision's peak, triad and copy against the memory bandwidth, LLM decode by the bandwidth it read
    (weights and cache per token x tokens/s) against the memory bandwidth."""
    benchmark, precision = r["benchmark"], r["precision"]
    figure = r.get("achieved_gb_s") if benchmark == DECODE_BENCHMARK else r["value"]
    if not isinstance(figure, (int, float)) or isinstance(figure, bool):
        return None
    if benchmark == "matmul":
        peak = gpu.peak_tflops(precision)
        return figure, peak, f"the datasheet {precision} peak of {gpu.name} ({peak:.4g} TFLOP/s)"
    if (benchmark in BANDWIDTH_BENCHMARKS or benchmark == DECODE_BENCHMARK) and gpu.bandwidth_gb_s:
        wording = f"the datasheet memory bandwidth of {gpu.name} ({gpu.bandwidth_gb_s:.4g} GB/s)"
        return figure, gpu.bandwidth_gb_s, wording
    return None


def implausible(
    payload: dict[str, Any], gpu: Any, bands: Mapping[str, tuple[float, float]] = BANDS
) -> list[str]:
    """Why figures of ``payload`` cannot be true on ``gpu``: above their kind's top share of the datasheet."""
    reasons = []
    for i, r in enumerate(payload["results"]):
        found, band = _figure(gpu, r), bands.get(r["benchmark"])
        if found is None or band is None or found[0] <= found[1] * band[1]:
            continue
        figure, _, wording = found
        said = (
            f"decode read {figure:.4g} GB/s"
            if r["benchmark"] == DECODE_BENCHMARK
            else f"{figure:.4g} {r['unit']}"
        )
        reasons.append(
            f"results/{i} ({r['benchmark']} {r['precision']}): {said} "
            f"is more than {band[1] - 1:.0%} above {wording}"
        )
    return reasons


def below_band(
    payload: dict[str, Any], gpu: Any, bands: Mapping[str, tuple[float, float]] = BANDS
) -> set[int]:
    """Indexes of results under their kind's lowest share of the datasheet (broken, throttled, misread)."""
    return {
        i
        for i, r in enumerate(payload["results"])
        if (found := _figure(gpu, r)) is not None
        and (band := bands.get(r["benchmark"])) is not None
        and found[0] < found[1] * band[0]
    }


def _when_errors(payload: dict[str, Any], gpu: Any, now: datetime, skew: timedelta) -> list[dict[str, str]]:
    """A run cannot start in the future (past clock skew), before it finished, or before its card existed."""
    started, finished = _utc(payload["started_at"]), _utc(payload["finished_at"])
    errors = []
    if started > now + skew or finished > now + skew:
        errors.append(
            _error(
                "started_at",
                f"{payload['started_at']} is in the future (clocks may differ by {skew} at most)",
            )
        )
    if finished < started:
        errors.append(_error("finished_at", f"{payload['finished_at']} is before started_at"))
    earliest = (
        datetime.combine(gpu.released, datetime.min.time(), tzinfo=UTC) if gpu is not None else EARLIEST
    )
    if started < earliest:
        what = f"{gpu.name} was released ({gpu.released})" if gpu is not None else f"{EARLIEST.date()}"
        errors.append(_error("started_at", f"{payload['started_at']} is before {what}"))
    return errors


# --- ingestion ----------------------------------------------------------------------------


def _utc(text_or_dt: str | datetime) -> datetime:
    value = (
        datetime.fromisoformat(text_or_dt.replace("Z", "+00:00"))
        if isinstance(text_or_dt, str)
        else text_or_dt
    )
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _stored_environ(payload: dict[str, Any]) -> dict[str, Any]:
    """The run's environment plus what the run table has no column for."""
    telemetry = payload.get("telemetry") or {}
    return {
        **payload["environ"],
        "device": payload["device"],
        "run": {
            "agent_version": payload["agent_version"],
            "schema_version": payload.get("schema_version", 1),
            "quick": bool(payload.get("quick", False)),
            "finished_at": payload["finished_at"],
        },
        "telemetry": {k: telemetry.get(k) for k in ("source", "interval_s", "summary") if k in telemetry},
        "result_details": {
            f"{r['benchmark']}/{r['precision']}": {k: r[k] for k in RESULT_DETAILS if k in r}
            for r in payload["results"]
        },
    }


def _run_flags(payload: dict[str, Any], out_of_band: bool) -> list[str]:
    """The agent's flags, plus ``quick`` for a ``--quick`` run (so it is excluded without reading JSON)
    and ``out_of_band`` when a figure is under the plausible band."""
    added = ({QUICK_FLAG} if payload.get("quick") else set()) | ({OUT_OF_BAND} if out_of_band else set())
    return sorted(set(payload["flags"]) | added)


def _exists(session: Session, run_id: str) -> bool:
    return session.exec(select(BenchmarkRun.id).where(BenchmarkRun.run_id == run_id)).first() is not None


def ingest(
    session: Session,
    catalog: Any,
    agent_name: str,
    payload: Any,
    *,
    bands: Mapping[str, tuple[float, float]] = BANDS,
    skew: timedelta = CLOCK_SKEW,
    now: datetime | None = None,
) -> tuple[str, str]:
    """Store one run; returns ``(CREATED | ALREADY_STORED, run_id)``.

    Raises :class:`InvalidPayload` (schema, non-finite numbers, impossible dates) or
    :class:`ImplausibleFigure` (above its kind's band); nothing is stored then. A figure
    under the band is stored and flagged ``out_of_band`` (never used). The caller's session commits.
    """
    errors = payload_errors(payload)
    if errors:
        raise InvalidPayload(errors)
    run_id = payload["run_id"]
    if _exists(session, run_id):
        return ALREADY_STORED, run_id
    device = payload["device"]
    gpu = None if device["type"] == "cpu" else catalog.find(device["name"])
    now = now or datetime.now(UTC)
    if errors := _when_errors(payload, gpu, now, skew):
        raise InvalidPayload(errors)
    if gpu is not None and (reasons := implausible(payload, gpu, bands)):
        raise ImplausibleFigure(reasons)
    low = below_band(payload, gpu, bands) if gpu is not None else set()
    try:  # the run first: its results refer to it (no ORM relationship orders the inserts)
        session.add(
            BenchmarkRun(
                run_id=run_id,
                agent=agent_name,
                host=payload["host"],
                device_name=device["name"],
                gpu_id=gpu.id if gpu else None,
                started_at=_utc(payload["started_at"]),
                received_at=now,
                flags=_run_flags(payload, bool(low)),
                environ=_stored_environ(payload),
            )
        )
        session.flush()
    except IntegrityError:  # the same run_id arrived concurrently and won
        session.rollback()
        if _exists(session, run_id):
            return ALREADY_STORED, run_id
        raise
    session.add_all(_results(run_id, payload["results"], low))
    session.flush()
    return CREATED, run_id


def _results(run_id: str, results: list[dict[str, Any]], low: set[int]) -> list[BenchmarkResult]:
    """The rows of a run's results; those under the plausible band (``low``, by index) flagged so."""
    return [
        BenchmarkResult(
            run_id=run_id,
            benchmark=r["benchmark"],
            precision=r["precision"],
            unit=r["unit"],
            value=r["value"],
            p10=r["p10"],
            p90=r["p90"],
            cv=r["cv"],
            flags=sorted(set(r["flags"]) | ({OUT_OF_BAND} if i in low else set())),
            error=r["error"],
        )
        for i, r in enumerate(results)
    ]


# --- reading ------------------------------------------------------------------------------


def _run_view(run: BenchmarkRun, results: list[BenchmarkResult]) -> dict[str, Any]:
    environ = dict(run.environ)
    device = environ.pop("device", {"name": run.device_name})
    meta = environ.pop("run", {})
    environ.pop("result_details", None)
    environ.pop("telemetry", None)
    return {
        "run_id": run.run_id,
        "agent": run.agent,
        "host": run.host,
        "device": device,
        "gpu_id": run.gpu_id,
        "started_at": _utc(run.started_at).isoformat(),
        "received_at": _utc(run.received_at).isoformat(),
        "quick": meta.get("quick", False),
        "agent_version": meta.get("agent_version"),
        "flags": run.flags,
        "environ": environ,
        "results": [
            {
                "benchmark": r.benchmark,
                "precision": r.precision,
                "unit": r.unit,
                "value": r.value,
                "p10": r.p10,
                "p90": r.p90,
                "cv": r.cv,
                "flags": r.flags,
                "error": r.error,
            }
            for r in results
        ],
    }


def query(
    session: Session,
    *,
    gpu: str | None = None,
    host: str | None = None,
    benchmark: str | None = None,
    since: datetime | None = None,
    limit: int = 50,
    offset: int = 0,
    run_id: str | None = None,
) -> dict[str, Any]:
    """Stored runs, newest first: ``{"items": [...], "total", "limit", "offset"}``.

    ``gpu`` is a catalog id, or ``unmatched`` for devices no catalog GPU matches;
    ``benchmark`` keeps runs with that benchmark and shows only its results.
    """
    where: list[ColumnElement[bool]] = []
    if run_id:
        where.append(col(BenchmarkRun.run_id) == run_id)
    if gpu == "unmatched":
        where.append(col(BenchmarkRun.gpu_id).is_(None))
    elif gpu:
        where.append(col(BenchmarkRun.gpu_id) == gpu)
    if host:
        where.append(col(BenchmarkRun.host) == host)
    if since:
        where.append(col(BenchmarkRun.started_at) >= _utc(since))
    if benchmark:
        where.append(
            col(BenchmarkRun.run_id).in_(
                select(BenchmarkResult.run_id).where(BenchmarkResult.benchmark == benchmark)
            )
        )
    total = session.exec(select(func.count()).select_from(BenchmarkRun).where(*where)).one()
    runs = session.exec(
        select(BenchmarkRun)
        .where(*where)
        .order_by(col(BenchmarkRun.started_at).desc(), col(BenchmarkRun.id).desc())
        .offset(offset)
        .limit(limit)
    ).all()
    results: dict[str, list[BenchmarkResult]] = defaultdict(list)
    if runs:
        rows = select(BenchmarkResult).where(col(BenchmarkResult.run_id).in_([r.run_id for r in runs]))
        if benchmark:
            rows = rows.where(BenchmarkResult.benchmark == benchmark)
        for r in session.exec(rows.order_by(col(BenchmarkResult.id))).all():
            results[r.run_id].append(r)
    return {
        "items": [_run_view(r, results[r.run_id]) for r in runs],
        "total": total,
        "limit": limit,
        "offset": offset,
    }


PUBLIC_DEVICE = ("name", "type", "memory_gb", "compute_capability")
PRIVATE_RUN = ("agent", "host", "environ")


def public_view(listing: dict[str, Any]) -> dict[str, Any]:
    """A :func:`query` listing without who measured where: no agent, host, CPU, RAM, driver or device serial.

    The lab's machines are nobody else's business; the figures and the card are.
    """

    def run(item: dict[str, Any]) -> dict[str, Any]:
        device = {k: item["device"].get(k) for k in PUBLIC_DEVICE if k in item["device"]}
        return {k: v for k, v in item.items() if k not in PRIVATE_RUN} | {"device": device}

    return {**listing, "items": [run(item) for item in listing["items"]]}


def _median(values: list[float]) -> float:
    ordered, middle = sorted(values), len(values) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def gpu_summary(session: Session) -> list[dict[str, Any]]:
    """Per catalog GPU (``unmatched`` for the rest): runs, hosts, medians by benchmark and precision.

    What the public sees of the lab: how much was measured and what it came to, not by whom.
    """
    runs = session.exec(
        select(
            BenchmarkRun.gpu_id,
            func.count(),
            func.count(func.distinct(BenchmarkRun.host)),
            func.max(BenchmarkRun.started_at),
        ).group_by(BenchmarkRun.gpu_id)
    ).all()
    values: dict[Any, dict[tuple[str, str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    rows = session.execute(  # five columns: more than sqlmodel's typed select takes
        sql_select(
            col(BenchmarkRun.gpu_id),
            col(BenchmarkResult.benchmark),
            col(BenchmarkResult.precision),
            col(BenchmarkResult.unit),
            col(BenchmarkResult.value),
        )
        .join(BenchmarkRun, col(BenchmarkRun.run_id) == col(BenchmarkResult.run_id))
        .where(col(BenchmarkResult.value).is_not(None), col(BenchmarkResult.error).is_(None))
    ).all()
    for gpu_id, benchmark, precision, unit, value in rows:
        values[gpu_id][(benchmark, precision, unit)].append(value)
    return sorted(
        (
            {
                "gpu": gpu_id or "unmatched",
                "runs": count,
                "hosts": hosts,
                "last_run": _utc(last).isoformat(),
                "medians": [
                    {"benchmark": b, "precision": p, "unit": u, "value": _median(v), "results": len(v)}
                    for (b, p, u), v in sorted(values[gpu_id].items())
                ],
            }
            for gpu_id, count, hosts, last in runs
        ),
        key=lambda row: (row["gpu"] == "unmatched", row["gpu"]),
    )


class GpuSummaries:
    """:func:`gpu_summary` computed once per measurements version (``GET /v1/benchmarks`` asked for it on
    every request, and its medians read every recent result); one per app."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: tuple[str, list[dict[str, Any]]] | None = None
        self.computed = 0

    def get(self, session: Session) -> list[dict[str, Any]]:
        version = measurements_version(session)
        latest = self._latest
        if latest is not None and latest[0] == version:
            return latest[1]
        with self._lock:
            if self._latest is None or self._latest[0] != version:
                self._latest = (version, gpu_summary(session))
                self.computed += 1
            return self._latest[1]


def unmatched_devices(session: Session) -> list[dict[str, Any]]:
    """Devices no catalog GPU matched (CPUs included): name, runs, hosts, last run."""
    rows = session.exec(
        select(
            BenchmarkRun.device_name,
            func.count(),
            func.count(func.distinct(BenchmarkRun.host)),
            func.max(BenchmarkRun.started_at),
        )
        .where(col(BenchmarkRun.gpu_id).is_(None))
        .group_by(BenchmarkRun.device_name)
        .order_by(BenchmarkRun.device_name)
    ).all()
    return [
        {"device_name": name, "runs": runs, "hosts": hosts, "last_run": _utc(last).isoformat()}
        for name, runs, hosts, last in rows
    ]


# --- measurements for the engine ----------------------------------------------------------


def load_measurements(
    session: Session,
    *,
    now: datetime | None = None,
    window: timedelta = WINDOW,
    max_runs: int = MAX_RUNS_PER_HOST,
) -> dict[str, Measured]:
    """The engine's measurements (:func:`service.measurements.read_measurements`), read
    over this session's own driver connection and transaction."""
    return read_measurements(
        session.connection().connection.driver_connection, now=now, window=window, max_runs=max_runs
    )


def measurements_version(session: Session) -> str:
    """Changes whenever a result is stored or removed, or an agent revoked (their runs leave the advice)."""
    count, newest = session.exec(
        select(func.count(col(BenchmarkResult.id)), func.max(col(BenchmarkResult.id)))
    ).one()
    revoked = session.exec(
        select(func.count(col(AgentToken.id))).where(col(AgentToken.revoked_at).is_not(None))
    ).one()
    return f"{count}:{newest or 0}:{revoked}"
