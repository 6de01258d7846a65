"""The whole loop over real processes: `whichgpu agents add` → a uvicorn service → `bench-agent`
on the CPU → stored → listed → a measured GPU reaching the advice; and an outage in between:
the agent spools, the service comes back, the spool is delivered, every run stored once.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench_agent.report import ServiceClient, flush
from bench_agent.schema import validate_payload
from bench_agent.spool import Spool
from tests.server_process import ROOT, ServerProcess, service_env

pytestmark = pytest.mark.e2e

# The quickest settings the agent offers: toy model sizes, tiny arrays, milliseconds of timing.
QUICKEST = ["--quick", "--tier", "tiny", "--matmul-n", "128", "--stream-mb", "1", "--warmup", "0.01",
            "--seconds", "0.03"]


class Lab:
    """A service (restartable on one port), an agent data dir, and the environment of each."""

    def __init__(self, tmp_path: Path):
        self.admin = "lab-admin-read-token"  # the listing names agents and hosts only for the admin
        service_dir = tmp_path / "service"
        self.service = ServerProcess(f"sqlite:///{service_dir / 'whichgpu.db'}", service_dir, cli=False,
                                     WHICHGPU_ADMIN_TOKEN=self.admin)
        self.url = self.service.url
        self.service_env = self.service.env
        self.agent_dir = tmp_path / "agent"
        self.agent_env = service_env("", self.agent_dir, WHICHGPU_API_URL=self.url)
        del self.agent_env["WHICHGPU_DATABASE_URL"]
        self.token = ""

    def whichgpu(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "service.cli", *args], cwd=ROOT, env=self.service_env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def add_agent(self, name: str) -> str:
        out = self.whichgpu("agents", "add", name)
        self.token = next(word for word in out.split() if word.startswith("wgat_"))
        self.agent_env["WHICHGPU_AGENT_TOKEN"] = self.token
        return self.token

    def start(self) -> None:
        self.service.start()

    def stop(self) -> None:
        self.service.stop()

    def agent(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "bench_agent.cli", *args], cwd=ROOT, env=self.agent_env,
                              capture_output=True, text=True, timeout=300)

    def run_once(self) -> tuple[dict[str, Any], str]:
        """`bench-agent run --once` on the CPU: the payload it printed, and what it said on stderr."""
        done = self.agent("run", "--once", "--device", "cpu", "--json", "--no-progress", *QUICKEST)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout), done.stderr

    def runs(self, **params: str) -> dict[str, Any]:
        response = httpx.get(f"{self.url}/v1/benchmarks", params={"limit": "200", **params},
                             headers={"Authorization": f"Bearer {self.admin}"}, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    lab = Lab(tmp_path)
    try:
        yield lab
    finally:
        lab.stop()


def rtx_3090_run(host: str) -> dict[str, Any]:
    """A plausible run of an RTX 3090 (below its 35.6/71.2 TFLOP/s and 936 GB/s datasheet)."""
    started = datetime.now(UTC) - timedelta(minutes=5)

    def result(benchmark: str, precision: str, unit: str, value: float) -> dict[str, Any]:
        return {"benchmark": benchmark, "precision": precision, "unit": unit, "value": value,
                "p10": value * 0.98, "p90": value * 1.01, "cv": 0.008, "flags": [], "error": None}

    payload = {
        "schema_version": 1, "run_id": uuid.uuid4().hex, "agent_version": "0.1.0", "host": host,
        "quick": False,
        "device": {"name": "NVIDIA GeForce RTX 3090", "uuid": "GPU-7d1c", "index": 0,
                   "compute_capability": "8.6", "memory_gb": 24.0, "driver": "550.54", "cuda": "12.4",
                   "type": "cuda"},
        "environ": {"torch": "2.5.1", "python": "3.11.9"},
        "started_at": started.isoformat(), "finished_at": (started + timedelta(minutes=4)).isoformat(),
        "flags": [],
        "results": [result("matmul", "fp32", "TFLOP/s", 31.0), result("matmul", "tf32", "TFLOP/s", 33.0),
                    result("matmul", "fp16", "TFLOP/s", 66.0), result("copy", "fp32", "GB/s", 780.0),
                    result("triad", "fp32", "GB/s", 800.0)],
        "telemetry": {"source": "none"},
    }
    validate_payload(payload)
    return payload


def test_agent_run_is_stored_listed_and_a_measured_gpu_reaches_the_advice(lab: Lab) -> None:
    lab.add_agent("cpu-node")
    lab.start()
    payload, said = lab.run_once()
    assert "delivered" in said, said
    assert not Spool(lab.agent_dir / "spool").pending()

    [stored] = lab.runs(run_id=payload["run_id"])["items"]
    assert (stored["agent"], stored["host"], stored["gpu_id"]) == ("cpu-node", payload["host"], None)
    assert stored["device"]["type"] == "cpu" and stored["quick"] is True
    sent = {(r["benchmark"], r["precision"]): r["value"] for r in payload["results"]}
    assert {(r["benchmark"], r["precision"]): r["value"] for r in stored["results"]} == sent
    assert lab.runs(gpu="unmatched")["total"] == 1  # a CPU maps to no catalog GPU: kept and listed

    gpu_run = rtx_3090_run("gpu-box-1")
    # one token per host: the CPU node's token speaks only for its own host
    gpu_token = lab.add_agent("gpu-box-1")
    response = httpx.post(f"{lab.url}/v1/benchmarks", json=gpu_run,
                          headers={"Authorization": f"Bearer {gpu_token}"}, timeout=10)
    assert response.status_code == 201, response.text

    card = httpx.get(f"{lab.url}/v1/gpus/rtx-3090", timeout=10).json()
    assert card["performance"]["basis"] == "measured"
    assert card["performance"]["measured"] == {
        "hosts": 1, "matmul_tflops": {"fp16": 66.0, "fp32": 31.0, "tf32": 33.0},
        "bandwidth_gb_s": 800.0, "decode_gb_s": None, "training": [],
    }
    question = {"workload": "cnn", "budget": 3000, "used_ok": True, "intent": "compare",
                "compare": ["RTX 3090", "RTX 4090"]}
    answer = httpx.post(f"{lab.url}/v1/recommendations", json=question, timeout=30)
    assert answer.status_code == 200, answer.text
    picks = {p["gpu"]: p for p in answer.json()["picks"]}
    assert picks["rtx-3090"]["performance_basis"] == {"kind": "measured", "hosts": 1}
    assert any("(measured on 1 lab host)" in r["reason"] for r in picks["rtx-3090"]["rules"])
    assert picks["rtx-4090"]["performance_basis"]["kind"] == "estimated"  # no run of it: still the datasheet


def test_an_outage_spools_and_every_run_is_stored_once(lab: Lab) -> None:
    lab.add_agent("cpu-node")
    spool = Spool(lab.agent_dir / "spool")

    first, said = lab.run_once()  # the service has never started: nothing listens
    assert "later retry" in said, said
    second, _ = lab.run_once()
    assert {e.run_id for e in spool.pending()} == {first["run_id"], second["run_id"]}
    status = json.loads(lab.agent("status", "--json").stdout)
    assert status["spool"]["pending"] == 2 and status["service"]["reachable"] is False

    lab.start()
    with ServiceClient(lab.url, lab.token) as client:  # the agent's delivery path, the service back
        report = flush(spool, client, force=True)
    assert sorted(report.delivered) == sorted([first["run_id"], second["run_id"]]) and not report.rejected
    assert not spool.pending() and not spool.rejected()

    # the daemon: one round benchmarks the CPU again and delivers it (idle threshold out of reach:
    # a busy test machine must not make the daemon skip the round; idleness is tested in tests/bench_agent)
    daemon = lab.agent("daemon", "--devices", "cpu", "--max-rounds", "1", "--idle-threshold", "1000",
                       *QUICKEST)
    assert daemon.returncode == 0, daemon.stderr
    assert not spool.pending(), daemon.stderr
    history = [json.loads(line) for line in (lab.agent_dir / "agent-runs.jsonl").read_text().splitlines()]
    produced = [h["run_id"] for h in history]
    assert len(produced) == 3, daemon.stderr

    # a re-send after a lost answer is "already stored", never a second copy
    again = ServiceClient(lab.url, lab.token).send(first)
    assert (again.outcome, again.status) == ("delivered", 200)

    listed = lab.runs()
    assert sorted(item["run_id"] for item in listed["items"]) == sorted(produced)
    assert listed["total"] == 3
    sent_by_id = {p["run_id"]: p for p in (first, second)}
    for item in listed["items"]:
        if item["run_id"] in sent_by_id:
            assert len(item["results"]) == len(sent_by_id[item["run_id"]]["results"])
