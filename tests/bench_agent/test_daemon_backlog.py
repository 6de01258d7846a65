"""A restarted daemon delivers the whole backlog at once, even runs still waiting out their back-off."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from bench_agent.agent import Daemon, History
from bench_agent.report import ServiceClient
from bench_agent.spool import Spool
from bench_agent.suite import SuiteConfig


def test_daemon_start_delivers_runs_still_in_back_off(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    entry = spool.put({"run_id": "a" * 32, "results": []})
    spool.failed(entry, "service down")  # next attempt pushed into the future
    assert spool.due() == [] and len(spool.pending()) == 1

    received: list[str] = []

    def service(request: httpx.Request) -> httpx.Response:
        received.append(json.loads(request.content)["run_id"])
        return httpx.Response(201, json={"status": "created"})

    client = ServiceClient("http://service.invalid", "token", transport=httpx.MockTransport(service))
    daemon = Daemon(devices=[], config=SuiteConfig(quick=True), spool=spool, client=client,
                    history=History(tmp_path / "runs.jsonl"), lock_dir=tmp_path / "locks",
                    idle_threshold_pct=10.0, interval_s=0.0)
    daemon.run(max_rounds=1)
    assert received == ["a" * 32] and spool.pending() == []
