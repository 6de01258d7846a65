"""One benchmark run on one device, and the daemon that runs them when GPUs are idle.

A run takes the device's lock (``fcntl.flock`` on ``<lock_dir>/<GPU UUID>.lock``, so two
agents on a host never benchmark the same GPU at once), looks at the device first (other
processes, utilisation: ``contended``), samples NVML telemetry while the suite runs, and
returns a complete payload. Only complete payloads are spooled; an interrupted run leaves
nothing behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ._version import __version__
from .nvml import Nvml, TelemetrySampler
from .report import ServiceClient, flush
from .spool import Spool
from .suite import Case, Interrupted, SuiteConfig, run_suite

__all__ = [
    "Daemon",
    "DeviceBusy",
    "History",
    "NotIdle",
    "Probe",
    "benchmark_device",
    "cpu_busy_percent",
    "device_lock",
    "probe_device",
]

log = logging.getLogger("bench_agent")
HISTORY_KEEP = 50
SAMPLE_INTERVAL_S = 0.5  # seconds between telemetry samples while the suite runs


class DeviceBusy(RuntimeError):
    """Another agent holds this device's lock."""


class NotIdle(RuntimeError):
    """The device is in use (other processes or load); the daemon skips it this round."""


@contextlib.contextmanager
def device_lock(lock_dir: Path, key: str) -> Iterator[Path]:
    """Hold the exclusive per-device lock or raise :class:`DeviceBusy` at once (never waits)."""
    lock_dir.mkdir(parents=True, exist_ok=True)
    path = lock_dir / f"{key}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"
            raise DeviceBusy(f"{key} is being benchmarked by {holder} (lock {path})") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}".encode(), 0)
        yield path
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _proc_stat_jiffies() -> tuple[int, int]:
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    values = [int(v) for v in fields]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values[:8]), sum(values[:8]) - idle


def _own_jiffies() -> int:
    after_name = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return int(after_name[11]) + int(after_name[12])  # utime, stime (fields 14 and 15)


def cpu_busy_percent(window_s: float = 0.3) -> float | None:
    """CPU time used by *other* processes over a short window, in % of all cores (Linux),
    else the 1-minute load average per core; ``None`` when neither is known."""
    try:
        total0, busy0 = _proc_stat_jiffies()
        own0 = _own_jiffies()
        time.sleep(window_s)
        total1, busy1 = _proc_stat_jiffies()
        own1 = _own_jiffies()
    except (OSError, ValueError, IndexError):
        try:
            return 100.0 * os.getloadavg()[0] / (os.cpu_count() or 1)
        except (OSError, AttributeError):
            return None
    total = max(1, total1 - total0)
    return max(0.0, 100.0 * ((busy1 - busy0) - (own1 - own0)) / total)


@dataclass
class Probe:
    """How busy a device is right before a run."""

    idle: bool
    reason: str
    processes: list[dict[str, Any]] = field(default_factory=list)
    utilization_pct: float | None = None
    cpu_busy_pct: float | None = None
    sample: dict[str, Any] | None = None


def probe_device(device: Any, nvml: Nvml | None, handle: Any, threshold_pct: float) -> Probe:
    """Idle means: no other process on the GPU and utilisation under ``threshold_pct``
    (for the CPU: other processes' CPU use under the threshold)."""
    if device.type == "cpu":
        busy = cpu_busy_percent()
        if busy is not None and busy >= threshold_pct:
            reason = f"other processes use {busy:.0f}% of the CPU (threshold {threshold_pct:g}%)"
            return Probe(False, reason, cpu_busy_pct=busy)
        return Probe(True, "CPU idle" if busy is not None else "CPU load unknown", cpu_busy_pct=busy)
    if nvml is None or handle is None:
        return Probe(True, "idle not verified: no NVML for this device")
    processes = nvml.processes(handle, exclude_pid=os.getpid())
    sample = nvml.sample(handle)
    util = sample.get("utilization_pct")
    if processes:
        pids = ", ".join(str(p["pid"]) for p in processes)
        reason = f"{len(processes)} other process(es) on the GPU (pid {pids})"
        return Probe(False, reason, processes, util, sample=sample)
    if util is not None and util >= threshold_pct:
        reason = f"GPU utilisation {util:.0f}% (threshold {threshold_pct:g}%)"
        return Probe(False, reason, processes, util, sample=sample)
    return Probe(True, "GPU idle", processes, util, sample=sample)


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def benchmark_device(
    device: Any,
    config: SuiteConfig,
    *,
    nvml: Nvml | None,
    idle_threshold_pct: float,
    lock_dir: Path,
    require_idle: bool = False,
    on_case: Callable[[int, int, Case], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Run the suite on one device under its lock; the complete payload.

    Raises :class:`DeviceBusy` (lock held), :class:`NotIdle` (``require_idle`` and in use),
    :class:`~bench_agent.suite.Interrupted` (``should_stop``).
    """
    from .device import device_record, environ_record, host_record, lock_key

    with device_lock(lock_dir, lock_key(device)):
        info = device_record(device, driver=nvml.driver_version() if nvml else None)
        handle = nvml.handle(info.get("uuid"), device.index) if nvml and device.type == "cuda" else None
        probe = probe_device(device, nvml, handle, idle_threshold_pct)
        if require_idle and not probe.idle:
            raise NotIdle(probe.reason)
        run_flags = [] if probe.idle else ["contended"]
        started_at = _now_iso()
        sampler = TelemetrySampler(nvml, handle, SAMPLE_INTERVAL_S) if nvml and handle is not None else None
        with sampler or contextlib.nullcontext():
            results = run_suite(device, config, sampler=sampler, on_case=on_case, should_stop=should_stop)
        finished_at = _now_iso()
    for result in results:
        result["flags"] = sorted(set(result["flags"]) | set(run_flags))
    flags = sorted({f for r in results for f in r["flags"]} | set(run_flags))
    telemetry: dict[str, Any] = {
        "source": "nvml" if sampler else "none",
        "processes_at_start": probe.processes,
        "cpu_busy_pct_at_start": probe.cpu_busy_pct,
    }
    if sampler:
        telemetry.update(interval_s=SAMPLE_INTERVAL_S, at_start=probe.sample, summary=sampler.summary())
    telemetry["idle_check"] = probe.reason
    return {
        "schema_version": 1,
        "run_id": uuid.uuid4().hex,
        "agent_version": __version__,
        "host": host_record()["hostname"],
        "quick": config.quick,
        "device": info,
        "environ": environ_record(device),
        "started_at": started_at,
        "finished_at": finished_at,
        "flags": flags,
        "results": results,
        "telemetry": telemetry,
    }


class History:
    """The agent's own log of recent runs (``agent-runs.jsonl`` in the data dir), for ``status``."""

    def __init__(self, path: Path):
        self.path = path

    def add(self, payload: dict[str, Any], delivery: str) -> None:
        entry = {
            "run_id": payload["run_id"],
            "device": payload["device"].get("name"),
            "started_at": payload["started_at"],
            "finished_at": payload["finished_at"],
            "quick": payload.get("quick", False),
            "flags": payload["flags"],
            "errors": sum(1 for r in payload["results"] if r["error"]),
            "delivery": delivery,
        }
        lines = self.recent(HISTORY_KEEP - 1)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text("".join(json.dumps(e) + "\n" for e in [*lines, entry]), encoding="utf-8")
        os.replace(tmp, self.path)

    def recent(self, limit: int = 10) -> list[dict[str, Any]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        entries = []
        for line in lines[-limit:] if limit else []:
            with contextlib.suppress(ValueError):
                entries.append(json.loads(line))
        return entries


@dataclass
class Daemon:
    """Every ``interval_s``: benchmark each idle, unlocked device, spool the run, deliver the spool."""

    devices: list[str]
    config: SuiteConfig
    spool: Spool
    client: ServiceClient
    history: History
    lock_dir: Path
    idle_threshold_pct: float
    interval_s: float
    nvml: Nvml | None = None
    require_idle: bool = True
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self, max_rounds: int | None = None) -> int:
        """Rounds until ``stop`` is set (SIGTERM) or ``max_rounds``; returns the rounds done."""
        from .device import DeviceError, resolve_device

        removed = self.spool.clean_partial()
        if removed:
            log.info("removed %d partial spool file(s) from an earlier crash", removed)
        backlog = flush(self.spool, self.client, force=True)  # a restart is a good moment to retry everything
        if backlog.delivered:
            log.info("delivered %d run(s) left from before the start", len(backlog.delivered))
        rounds = 0
        while not self.stop.is_set() and (max_rounds is None or rounds < max_rounds):
            for name in self.devices:
                if self.stop.is_set():
                    break
                try:
                    device = resolve_device(name)
                    payload = benchmark_device(
                        device, self.config, nvml=self.nvml, idle_threshold_pct=self.idle_threshold_pct,
                        lock_dir=self.lock_dir, require_idle=self.require_idle, should_stop=self.stop.is_set,
                    )
                except (DeviceBusy, NotIdle) as exc:
                    log.info("%s skipped this round: %s", name, exc)
                    continue
                except Interrupted:
                    log.info("%s: run interrupted, nothing spooled", name)
                    break
                except DeviceError as exc:
                    log.error("%s", exc)
                    continue
                self.spool.put(payload)
                self.history.add(payload, "spooled")
                log.info("%s: run %s spooled (%d results, flags %s)",
                         name, payload["run_id"], len(payload["results"]), payload["flags"] or "none")
            report = flush(self.spool, self.client)
            if report.delivered or report.rejected or report.retrying:
                log.info("delivered %d, rejected %d, will retry %d",
                         len(report.delivered), len(report.rejected), len(report.retrying))
            if report.auth_error:
                log.error("the service refused the agent token: %s", report.auth_error)
            rounds += 1
            if max_rounds is not None and rounds >= max_rounds:
                break
            self.stop.wait(self.interval_s)
        return rounds
