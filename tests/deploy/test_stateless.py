"""The stateless proof behind "scale the API by adding replicas" (deploy/README.md, "Scaling").

Two real `whichgpu serve` processes, each with its own data directory, share one real
PostgreSQL, started at the same moment as Kubernetes starts two replicas. Whatever is
written through one is seen through the other: a conversation, an agent token (made
and revoked with the CLI, as an admin does), a benchmark run, and the measurements
the advice is built from.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server_process import ServerProcess, service_env

from deploy_files import HEALTH

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

BIN = Path(sys.executable).parent


class Replica(ServerProcess):
    """`whichgpu serve` with an HTTP client, named for failure messages."""

    def __init__(self, name: str, database_url: str, data_dir: Path) -> None:
        super().__init__(database_url, data_dir)
        self.name = name
        self.http = httpx.Client(base_url=self.url, timeout=30)

    def stop(self) -> None:
        self.http.close()
        super().stop()


@pytest.fixture
def replicas(postgres_url: str, tmp_path: Path) -> Iterator[tuple[Replica, Replica]]:
    """Two processes started together (both migrate and sync the catalog at once, as replicas do)."""
    one = Replica("replica 1", postgres_url, tmp_path / "one")
    two = Replica("replica 2", postgres_url, tmp_path / "two")
    try:
        one.start(wait=False)
        two.start(wait=False)
        one.wait_ready()
        two.wait_ready()
        yield one, two
    finally:
        one.stop()
        two.stop()


def _cli(database_url: str, tmp_path: Path, *args: str) -> str:
    done = subprocess.run([str(BIN / "whichgpu"), *args], env=service_env(database_url, tmp_path / "cli"),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"whichgpu {' '.join(args)}: {done.stderr}"
    return done.stdout


def _run_payload() -> dict[str, Any]:
    """A run as bench-agent sends it, plausible for an RTX 3090."""
    from bench_agent.schema import validate_payload

    def result(benchmark: str, precision: str, unit: str, value: float) -> dict[str, Any]:
        return {"benchmark": benchmark, "precision": precision, "unit": unit, "value": value,
                "p10": value * 0.97, "p90": value * 1.01, "cv": 0.01, "flags": [], "error": None}

    started = datetime.now(UTC) - timedelta(minutes=10)
    payload = {
        "schema_version": 1, "run_id": uuid.uuid4().hex, "agent_version": "0.1.0",
        "host": "stateless-test-node", "quick": False,
        "device": {"name": "NVIDIA GeForce RTX 3090", "uuid": None, "index": 0, "compute_capability": "8.6",
                   "memory_gb": 24.0, "driver": "550.54", "cuda": "12.4", "type": "cuda"},
        "environ": {"torch": "2.5.1", "python": "3.11.9", "cpu": None, "ram_gb": None, "threads": 16},
        "started_at": started.isoformat(), "finished_at": (started + timedelta(minutes=3)).isoformat(),
        "flags": [],
        "results": [result("matmul", "fp32", "TFLOP/s", 30.0), result("matmul", "fp16", "TFLOP/s", 60.0),
                    result("copy", "fp32", "GB/s", 800.0)],
        "telemetry": {"source": "none"},
    }
    validate_payload(payload)
    return payload


def test_a_conversation_started_on_one_replica_continues_on_the_other(
        replicas: tuple[Replica, Replica]) -> None:
    one, two = replicas
    first = one.http.post("/v1/ask", json={"text": "nlp $800", "start_conversation": True})
    assert first.status_code == 200, first.text
    conversation = first.json()["conversation_id"]
    asked = first.json()["query"]
    assert (asked["workload"], asked["budget"], asked["gpus"]) == ("transformer", 800, 1)

    follow_up = two.http.post("/v1/ask",
                              json={"text": "what about 2 of them?", "conversation_id": conversation})
    assert follow_up.status_code == 200, follow_up.text
    body = follow_up.json()
    assert body["conversation_id"] == conversation
    # the follow-up names neither workload nor budget: replica 2 took them from the turn replica 1 recorded
    followed = body["query"]
    assert (followed["workload"], followed["budget"], followed["gpus"]) == ("transformer", 800, 2)

    unknown = two.http.post("/v1/ask",
                            json={"text": "what about 2 of them?", "conversation_id": "no-such-conversation"})
    assert unknown.status_code == 404, "a conversation neither replica recorded is unknown to both"


def test_tokens_and_benchmark_runs_are_shared_between_replicas(
        replicas: tuple[Replica, Replica], postgres_url: str, tmp_path: Path) -> None:
    one, two = replicas
    token = _cli(postgres_url, tmp_path, "agents", "add", "stateless-node").strip().splitlines()[-1]
    auth = {"Authorization": f"Bearer {token}"}
    payload = _run_payload()

    stored = one.http.post("/v1/benchmarks", json=payload, headers=auth)
    assert stored.status_code == 201, stored.text
    again = two.http.post("/v1/benchmarks", json=payload, headers=auth)
    assert again.status_code == 200 and again.json()["status"] == "already stored", again.text

    listed = two.http.get("/v1/benchmarks", params={"run_id": payload["run_id"]})
    assert listed.status_code == 200, listed.text
    assert [item["run_id"] for item in listed.json()["items"]] == [payload["run_id"]]

    # the measurements behind the advice: replica 2 rebuilds its snapshot from the shared database
    deadline = time.monotonic() + 10
    while True:
        for r in (one, two):
            r.http.get("/v1/gpus")  # a read refreshes the snapshot (health only shows it)
        versions = {r.name: r.http.get(HEALTH).json()["measurements_version"] for r in (one, two)}
        if versions["replica 1"] == versions["replica 2"] and not versions["replica 2"].startswith("0:"):
            break
        assert time.monotonic() < deadline, f"replica 2 never saw the new measurements: {versions}"
        time.sleep(0.5)

    _cli(postgres_url, tmp_path, "agents", "revoke", "stateless-node")
    refused = two.http.post("/v1/benchmarks", json=_run_payload(), headers=auth)
    assert refused.status_code == 401, "a token revoked with the CLI is refused by every replica"
