"""Lab measurements for the engine: which benchmark runs count, read with plain SQL.

A terminal answer must start fast, so this module reads the two benchmark tables
through the database driver itself (``sqlite3`` or ``psycopg``), never through the
ORM, and does not touch a database that is not there. The service reads through the
same function, over its session's driver connection (``service.benchmarks``).

What makes a run or a result count:

- the device maps to a catalog GPU (CPUs and unknown devices have no datasheet to
  stand in for);
- the run was received recently (``WINDOW``) and is among the newest ``MAX_RUNS_PER_HOST``
  representative runs of its host and GPU by the time the service received it (an agent's
  own clock cannot make a run look newer; one host cannot push another's runs out), looked
  for among that host's newest ``SCAN_PER_HOST`` runs (a flood of excluded runs costs a
  rebuild nothing);
- its agent is not revoked (revoking an agent takes its runs out of the advice);
- no result flagged ``out_of_band`` (a figure outside the plausible band of its kind) is
  ever used, however many hosts report it;
- it is not a ``--quick`` run (smaller sizes and shorter timing understate a GPU; the
  service marks such runs with the run flag ``quick``);
- the run is not ``contended`` and the result carries none of ``EXCLUDING_FLAGS``
  and no error;
- a training step (CNN / LSTM / transformer) keeps the size tier it ran at (``gpu``,
  ``gpu_small`` …: the engine compares only steps of one tier); a step without one is
  not used, and a step of a run flagged ``out_of_band`` counts as out of band itself
  (the run's other figures say the machine was off).

Each figure is the median over hosts of each host's own median, so a host's weight does
not grow with its number of runs; ``figure_hosts`` says how many hosts stand behind each
figure (the engine bounds a figure of one host alone).
"""

from __future__ import annotations

import json
import sqlite3
import statistics
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rules.performance import Measured, TrainingStep

__all__ = [
    "BANDWIDTH_BENCHMARKS",
    "DECODE_BENCHMARK",
    "EXCLUDING_FLAGS",
    "MAX_RUNS_PER_HOST",
    "OUT_OF_BAND",
    "QUICK_FLAG",
    "RUN_EXCLUDING_FLAGS",
    "TRAINING_BENCHMARKS",
    "WINDOW",
    "lab_measurements",
    "read_measurements",
]

EXCLUDING_FLAGS = frozenset({"throttled", "contended", "noisy", "check_failed"})
QUICK_FLAG = "quick"  # added by the service to runs sent with "quick": true
OUT_OF_BAND = "out_of_band"  # added by the service to a run (and its result) under the plausible band
RUN_EXCLUDING_FLAGS = frozenset({"contended", QUICK_FLAG})  # conditions of the whole run
WINDOW = timedelta(days=90)
MAX_RUNS_PER_HOST = 10
SCAN_PER_HOST = MAX_RUNS_PER_HOST * 10
BANDWIDTH_BENCHMARKS = ("triad", "copy")  # in order of preference
DECODE_BENCHMARK = "llm_decode"  # its figure for the engine is the bandwidth it reached, kept with the run
TRAINING_BENCHMARKS = ("cnn_train", "lstm_train", "transformer_train")  # kept with the size tier they ran at


def lab_measurements(database_url: str, *, now: datetime | None = None) -> dict[str, Measured]:
    """The measurements in the database at ``database_url``; empty when it does not exist,
    cannot be reached or has no benchmark tables (the answer then says "estimated")."""
    connection = _connect(database_url)
    if connection is None:
        return {}
    try:
        return read_measurements(connection, now=now)
    except Exception as exc:  # a database without our tables has no measurements
        if type(exc).__name__ in ("OperationalError", "UndefinedTable", "ProgrammingError"):
            return {}
        raise
    finally:
        connection.close()


def _connect(database_url: str) -> Any | None:
    """A read-only driver connection, or None when there is no database to read."""
    if database_url.startswith("sqlite:///"):
        path = Path(database_url.removeprefix("sqlite:///")).expanduser()
        if not path.is_file():
            return None
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    scheme, _, rest = database_url.partition("://")
    if scheme.split("+")[0] not in ("postgresql", "postgres"):
        return None
    import psycopg

    try:
        return psycopg.connect(f"postgresql://{rest}", connect_timeout=3)
    except psycopg.OperationalError:
        return None


def read_measurements(
    connection: Any,
    *,
    now: datetime | None = None,
    window: timedelta = WINDOW,
    max_runs: int = MAX_RUNS_PER_HOST,
) -> dict[str, Measured]:
    """Per catalog GPU id: medians over hosts of matmul (per precision), bandwidth (triad, else copy), the
    bandwidth 16-bit LLM decode reached and the training steps (per benchmark, tier and precision), from
    each host's newest ``max_runs`` representative runs within ``window``; ``hosts`` counts the distinct
    hosts behind the figures used. ``connection`` is a DB-API connection of ``sqlite3`` or ``psycopg``;
    a few small queries per GPU and host, whatever the history."""
    sql = _Sql(connection)
    since = sql.timestamp((now or datetime.now(UTC)) - window)
    pairs = sql.rows(
        "SELECT DISTINCT gpu_id, host FROM benchmark_run "
        f"WHERE gpu_id IS NOT NULL AND received_at >= ? AND {_LIVE}",
        (since,),
    )
    hosts_of: dict[str, list[str]] = defaultdict(list)
    for gpu_id, host in pairs:
        hosts_of[gpu_id].append(host)
    measured: dict[str, Measured] = {}
    for gpu_id in sorted(hosts_of):
        runs = [
            run
            for host in sorted(hosts_of[gpu_id])
            for run in _recent_runs(sql, gpu_id, host, since, max_runs)
        ]
        if not runs:
            continue
        wanted = ("matmul", *BANDWIDTH_BENCHMARKS, DECODE_BENCHMARK, *TRAINING_BENCHMARKS)
        rows = sql.rows(
            f"SELECT run_id, benchmark, precision, value, flags, error FROM benchmark_result "
            f"WHERE run_id IN ({', '.join('?' * len(runs))}) "
            f"AND benchmark IN ({', '.join('?' * len(wanted))})",
            (*(run_id for run_id, _, _ in runs), *wanted),
        )
        usable = [
            (r, b, p, v)
            for r, b, p, v, flags, error in _in_band(runs, rows)
            if _usable(_flags(flags), error, v)
        ]
        m = _measured(runs, _with_details(sql, usable))
        if m is not None:
            measured[gpu_id] = m
    return measured


class _Sql:
    """The two drivers' differences: placeholder style and how a timestamp is compared."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.sqlite = isinstance(connection, sqlite3.Connection)

    def timestamp(self, moment: datetime) -> Any:
        """SQLite holds UTC timestamps as text in SQLAlchemy's format; PostgreSQL as timestamptz."""
        utc = moment.astimezone(UTC) if moment.tzinfo else moment
        return utc.strftime("%Y-%m-%d %H:%M:%S.%f") if self.sqlite else utc.replace(tzinfo=utc.tzinfo or UTC)

    def rows(self, query: str, params: tuple) -> list[tuple]:
        cursor = self.connection.cursor()
        try:
            cursor.execute(query if self.sqlite else query.replace("?", "%s"), params)
            return list(cursor.fetchall())
        finally:
            cursor.close()


_LIVE = "agent NOT IN (SELECT name FROM agent_token WHERE revoked_at IS NOT NULL)"


def _in_band(runs: list[tuple[str, str, bool]], rows: list[tuple]) -> list[tuple]:
    """The result rows without out-of-band ones: a figure outside its plausible band is never used, and a
    training step of an out-of-band run counts as out of band (it has no datasheet band of its own)."""
    low_runs = {run_id for run_id, _, low in runs if low}
    return [
        row
        for row in rows
        if OUT_OF_BAND not in _flags(row[4]) and not (row[0] in low_runs and row[1] in TRAINING_BENCHMARKS)
    ]


def _flags(value: Any) -> list[str]:
    """A JSON column: text from SQLite, already decoded from PostgreSQL."""
    return json.loads(value) if isinstance(value, (str, bytes)) else list(value or ())


def _usable(flags: list[str], error: str | None, value: float | None) -> bool:
    return error is None and value is not None and value > 0 and not (set(flags) & EXCLUDING_FLAGS)


def _recent_runs(sql: _Sql, gpu_id: str, host: str, since: Any, max_runs: int) -> list[tuple[str, str, bool]]:
    """(run_id, host, out of band) of one host's newest ``max_runs`` representative runs of one GPU, by
    arrival, among its newest ``SCAN_PER_HOST``; paged by key (received_at, id), never by a growing offset."""
    chosen: list[tuple[str, str, bool]] = []
    after: tuple[Any, int] | None = None
    scanned, batch = 0, max_runs * 2
    while len(chosen) < max_runs and scanned < SCAN_PER_HOST:
        keyset = "AND (received_at < ? OR (received_at = ? AND id < ?)) " if after else ""
        rows = sql.rows(
            "SELECT run_id, flags, received_at, id FROM benchmark_run "
            f"WHERE gpu_id = ? AND host = ? AND received_at >= ? AND {_LIVE} {keyset}"
            "ORDER BY received_at DESC, id DESC LIMIT ?",
            (gpu_id, host, since, *((after[0], after[0], after[1]) if after else ()), batch),
        )
        for run_id, flags, _, _ in rows:
            named = set(_flags(flags))
            if not named & RUN_EXCLUDING_FLAGS:
                chosen.append((run_id, host, OUT_OF_BAND in named))
        scanned += len(rows)
        if len(rows) < batch:
            break
        after = (rows[-1][2], rows[-1][3])
    return chosen[:max_runs]


def _with_details(
    sql: _Sql, results: list[tuple[str, str, str, float]]
) -> list[tuple[str, str, str, float, str | None]]:
    """(run, benchmark, precision, value, tier): LLM decode as the GB/s it reached and training steps
    with their size tier, both kept in the run's result details; other results as they are (tier None)."""
    runs = sorted({r for r, b, _, _ in results if b == DECODE_BENCHMARK or b in TRAINING_BENCHMARKS})
    details = (
        {
            run_id: (_json(environ) or {}).get("result_details", {})
            for run_id, environ in sql.rows(
                f"SELECT run_id, environ FROM benchmark_run WHERE run_id IN ({', '.join('?' * len(runs))})",
                tuple(runs),
            )
        }
        if runs
        else {}
    )
    out = []
    for run_id, benchmark, precision, value in results:
        detail = details.get(run_id, {}).get(f"{benchmark}/{precision}", {})
        tier = None
        if benchmark == DECODE_BENCHMARK:
            value = detail.get("achieved_gb_s")
            if not value or precision not in ("fp16", "bf16"):
                continue
        elif benchmark in TRAINING_BENCHMARKS:
            tier = (detail.get("params") or {}).get("tier")
            if not isinstance(tier, str):
                continue
        out.append((run_id, benchmark, precision, value, tier))
    return out


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, (str, bytes)) else value


def _over_hosts(found: list[tuple[float, str]]) -> float:
    """The median over hosts of each host's median: a host's weight does not grow with its runs."""
    per_host: dict[str, list[float]] = defaultdict(list)
    for value, host in found:
        per_host[host].append(value)
    return statistics.median(statistics.median(values) for values in per_host.values())


def _measured(
    runs: list[tuple[str, str, bool]], results: Iterable[tuple[str, str, str, float, str | None]]
) -> Measured | None:
    """Figures of one GPU's usable (run_id, benchmark, precision, value, tier) results, with their hosts."""
    host_of = {run_id: host for run_id, host, _ in runs}
    figures: dict[str, list[tuple[float, str]]] = defaultdict(list)
    training: dict[tuple[str, str, str], list[tuple[float, str]]] = defaultdict(list)
    for run_id, benchmark, precision, value, tier in results:
        found = (value, host_of[run_id])
        if benchmark in TRAINING_BENCHMARKS and tier is not None:  # a training step always has its tier
            training[(benchmark, tier, precision)].append(found)
        elif benchmark == "matmul":
            figures[f"matmul/{precision}"].append(found)
        else:
            figures["decode" if benchmark == DECODE_BENCHMARK else benchmark].append(found)
    hosts = {host for found in (*figures.values(), *training.values()) for _, host in found}
    if not hosts:
        return None
    bandwidth = next((b for b in BANDWIDTH_BENCHMARKS if figures.get(b)), None)
    if bandwidth:
        figures["bandwidth"] = figures[bandwidth]
    for b in BANDWIDTH_BENCHMARKS:
        figures.pop(b, None)
    return Measured(
        hosts=len(hosts),
        matmul_tflops={
            key.removeprefix("matmul/"): _over_hosts(found)
            for key, found in sorted(figures.items())
            if key.startswith("matmul/")
        },
        bandwidth_gb_s=_over_hosts(figures["bandwidth"]) if "bandwidth" in figures else None,
        decode_gb_s=_over_hosts(figures["decode"]) if "decode" in figures else None,
        training=tuple(
            TrainingStep(b, t, p, _over_hosts(found), len({h for _, h in found}))
            for (b, t, p), found in sorted(training.items())
        ),
        figure_hosts={key: len({h for _, h in found}) for key, found in sorted(figures.items())},
    )
