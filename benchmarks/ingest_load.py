"""How many benchmark runs per second one whichgpu service ingests, with N concurrent posters.

Each poster sends realistic, distinct runs (an RTX 3090 full run: 12 results with their
timing details, ~6 KB) to ``POST /v1/benchmarks`` as a bench agent does, for a fixed
time; the script reports runs/s, latency percentiles and failures per concurrency level,
and what that means in agents: a host with G GPUs reports G runs per agent interval.

Against a running service (token from ``whichgpu agents add NAME``)::

    python benchmarks/ingest_load.py --url http://127.0.0.1:8000 --token wgat_... --concurrency 1,8,32

Or let it start its own service (uvicorn, SQLite in a temporary directory unless
``--database-url`` names another database) and create the agent token itself::

    python benchmarks/ingest_load.py --spawn [--database-url postgresql://...] [--workers 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent


def run_payload(host: str) -> dict[str, Any]:
    """A distinct, plausible full run of an RTX 3090, shaped like the agent's."""
    started = datetime.now(UTC) - timedelta(minutes=5)
    results = []
    matmul = (("fp32", 31.0), ("tf32", 33.0), ("fp16", 66.0), ("bf16", 65.0))
    training = (("cnn_train", "images/s", 9000.0), ("lstm_train", "sequences/s", 4000.0),
                ("transformer_train", "tokens/s", 90000.0))
    figures = [("matmul", p, "TFLOP/s", v) for p, v in matmul]
    figures += [("copy", "fp32", "GB/s", 780.0), ("triad", "fp32", "GB/s", 800.0)]
    figures += [(b, p, u, v) for b, u, v in training for p in ("fp32", "fp16")]
    for benchmark, precision, unit, value in figures:
        results.append({
            "benchmark": benchmark, "precision": precision, "unit": unit,
            "value": value, "p10": value * 0.98, "p90": value * 1.01, "cv": 0.008,
            "flags": [], "error": None, "repeats": 25, "calls_per_repeat": 10,
            "time_ms": {"median": 4.2, "p10": 4.15, "p90": 4.3}, "params": {"m": 8192, "n": 8192, "k": 8192},
            "settings": {"tf32": precision == "tf32", "cudnn_benchmark": True, "dtype": precision},
            "check": {"max_rel_error": 1.2e-3, "tolerance": 1e-2, "ok": True},
        })
    return {
        "schema_version": 1, "run_id": uuid.uuid4().hex, "agent_version": "0.1.0", "host": host,
        "quick": False,
        "device": {"name": "NVIDIA GeForce RTX 3090", "uuid": f"GPU-{uuid.uuid4()}", "index": 0,
                   "compute_capability": "8.6", "memory_gb": 24.0, "driver": "550.54.15", "cuda": "12.4",
                   "type": "cuda"},
        "environ": {"torch": "2.5.1+cu124", "python": "3.11.9", "cpu": "AMD EPYC 7543", "ram_gb": 503.0,
                    "threads": 32},
        "started_at": started.isoformat(), "finished_at": (started + timedelta(minutes=4)).isoformat(),
        "flags": [], "results": results,
        "telemetry": {"source": "nvml", "interval_s": 0.5, "summary": {"max_temp_c": 71, "max_power_w": 347}},
    }


async def poster(client: httpx.AsyncClient, index: int, until: float, latencies: list[float],
                 failures: list[str]) -> None:
    while time.perf_counter() < until:
        payload = run_payload(f"load-host-{index}")
        started = time.perf_counter()
        try:
            response = await client.post("/v1/benchmarks", json=payload)
        except httpx.HTTPError as exc:
            failures.append(type(exc).__name__)
            continue
        if response.status_code == 201:
            latencies.append(time.perf_counter() - started)
        else:
            failures.append(f"HTTP {response.status_code}: {response.text[:200]}")


async def level(url: str, token: str, concurrency: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    failures: list[str] = []
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=60) as client:
        started = time.perf_counter()
        until = started + seconds
        await asyncio.gather(*(poster(client, i, until, latencies, failures) for i in range(concurrency)))
        elapsed = time.perf_counter() - started
    ordered = sorted(latencies) or [float("nan")]
    return {
        "concurrency": concurrency, "runs": len(latencies), "failures": len(failures),
        "first_failure": failures[0] if failures else "",
        "runs_per_s": len(latencies) / elapsed,
        "p50_ms": 1000 * statistics.median(ordered), "p95_ms": 1000 * ordered[int(0.95 * (len(ordered) - 1))],
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spawn(database_url: str | None, workers: int, workdir: Path) -> tuple[subprocess.Popen, str, str]:
    """Start a service of our own and create its agent token; returns (process, url, token)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHICHGPU_")}
    env.update(WHICHGPU_DATA_DIR=str(workdir), PYTHONPATH=str(ROOT),
               WHICHGPU_DATABASE_URL=database_url or f"sqlite:///{workdir / 'whichgpu.db'}",
               WHICHGPU_AGENT_RUNS_PER_HOUR="0")  # throughput, not the per-token quota, is measured
    add_agent = [sys.executable, "-m", "service.cli", "agents", "add", f"load-{uuid.uuid4().hex[:8]}"]
    add = subprocess.run(add_agent, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    token = next(word for word in add.stdout.split() if word.startswith("wgat_"))
    port = free_port()
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app", "--host", "127.0.0.1",
           "--port", str(port), "--log-level", "warning", "--no-access-log"]
    if workers > 1:
        cmd += ["--workers", str(workers)]
    process = subprocess.Popen(cmd, cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the service exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return process, url, token
        except httpx.HTTPError:
            time.sleep(0.3)
    process.terminate()
    raise SystemExit("the service did not come up within 120 s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("WHICHGPU_API_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("WHICHGPU_AGENT_TOKEN"))
    parser.add_argument("--concurrency", default="1,8,32",
                        help="comma-separated numbers of concurrent posters")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per concurrency level")
    parser.add_argument("--spawn", action="store_true", help="start a service of our own (and its token)")
    parser.add_argument("--database-url",
                        help="with --spawn: the database (default: SQLite in a temporary directory)")
    parser.add_argument("--workers", type=int, default=1, help="with --spawn: uvicorn worker processes")
    parser.add_argument("--gpus-per-host", type=int, default=8,
                        help="for the agents estimate: runs per host per interval")
    parser.add_argument("--interval", type=float, default=3600.0,
                        help="for the agents estimate: the agents' interval (s)")
    args = parser.parse_args(argv)

    process = None
    with tempfile.TemporaryDirectory(prefix="whichgpu-load-") as workdir:
        try:
            if args.spawn:
                process, args.url, args.token = spawn(args.database_url, args.workers, Path(workdir))
            if not args.token:
                parser.error("give --token (or WHICHGPU_AGENT_TOKEN), or --spawn")
            asyncio.run(level(args.url, args.token, 1, 1.0))  # warm-up: connections, snapshot, caches
            print(f"{'posters':>8} {'runs':>7} {'runs/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'failed':>7}")
            best = 0.0
            for n in (int(x) for x in args.concurrency.split(",")):
                r = asyncio.run(level(args.url, args.token, n, args.seconds))
                best = max(best, r["runs_per_s"])
                first = f"  first: {r['first_failure']}" if r["failures"] else ""
                print(f"{n:>8} {r['runs']:>7} {r['runs_per_s']:>8.1f} {r['p50_ms']:>8.1f} "
                      f"{r['p95_ms']:>8.1f} {r['failures']:>7}{first}")
        finally:
            if process:
                process.terminate()
                process.wait(timeout=30)
    hosts = best * args.interval / args.gpus_per_host
    print(f"\nbest {best:.1f} runs/s → about {hosts:,.0f} hosts of {args.gpus_per_host} GPUs reporting every "
          f"{args.interval:g} s (the load is spread over the interval; "
          "bursts are queued by the agents' spools)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
