"""Spool and delivery: nothing lost when the service is down, fails or refuses."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from bench_agent.report import ServiceClient, flush
from bench_agent.spool import Spool, write_atomic

API = "http://service.test"


def minimal_payload() -> dict[str, Any]:
    return {"run_id": uuid.uuid4().hex, "agent_version": "0.1.0", "host": "lab-1", "results": []}


@pytest.fixture
def spool(tmp_path: Path) -> Spool:
    return Spool(tmp_path / "spool", backoff=lambda attempts: 60.0 * 2 ** (attempts - 1))


def test_service_down_keeps_the_run_spooled_with_backoff(spool: Spool, unused_port: int) -> None:
    entry = spool.put(minimal_payload())
    with ServiceClient(f"http://127.0.0.1:{unused_port}", "t", timeout_s=2) as client:
        report = flush(spool, client, now=1000.0)
    assert report.retrying == [entry.run_id] and report.delivered == []
    (kept,) = spool.pending()
    assert kept.attempts == 1 and kept.next_attempt_at == 1060.0 and "ConnectError" in (kept.last_error or "")
    assert spool.due(now=1059.0) == [] and spool.due(now=1060.0)[0].run_id == entry.run_id
    with ServiceClient(f"http://127.0.0.1:{unused_port}", "t", timeout_s=2) as client:
        flush(spool, client, now=1060.0)
    assert spool.pending()[0].next_attempt_at == 1060.0 + 120.0  # doubled


@respx.mock(base_url=API, assert_all_called=True)
def test_5xx_stays_then_201_removes(respx_mock: respx.MockRouter, spool: Spool) -> None:
    payload = minimal_payload()
    spool.put(payload)
    route = respx_mock.post("/v1/benchmarks")
    route.side_effect = [httpx.Response(503, json={"title": "Service Unavailable"}),
                         httpx.Response(201, json={"run_id": payload["run_id"]})]
    with ServiceClient(API, "secret") as client:
        first = flush(spool, client, now=0.0)
        assert first.retrying == [payload["run_id"]] and len(spool.pending()) == 1
        assert "503" in (spool.pending()[0].last_error or "")
        second = flush(spool, client, now=1e9)
    assert second.delivered == [payload["run_id"]]
    assert spool.pending() == [] and list(spool.root.glob("*.state.json")) == []
    request = route.calls.last.request
    assert request.headers["Authorization"] == "Bearer secret"
    assert json.loads(request.content)["run_id"] == payload["run_id"]


@respx.mock(base_url=API)
def test_422_moves_the_run_to_rejected_with_the_reason(respx_mock: respx.MockRouter, spool: Spool) -> None:
    payload = minimal_payload()
    spool.put(payload)
    problem = {"title": "Unprocessable Entity", "detail": "results: [] should be non-empty"}
    respx_mock.post("/v1/benchmarks").respond(422, json=problem)
    with ServiceClient(API, "secret") as client:
        report = flush(spool, client)
        assert flush(spool, client, force=True).delivered == []  # never retried
    assert report.rejected == [payload["run_id"]]
    assert spool.pending() == []
    assert json.loads((spool.rejected_dir / f"{payload['run_id']}.json").read_text()) == payload
    (reason,) = spool.rejected()
    assert reason["status"] == 422 and "should be non-empty" in reason["reason"]
    assert respx_mock.calls.call_count == 1


@respx.mock(base_url=API)
def test_bad_token_keeps_the_runs_and_stops_the_round(respx_mock: respx.MockRouter, spool: Spool) -> None:
    for _ in range(2):
        spool.put(minimal_payload())
    respx_mock.post("/v1/benchmarks").respond(401, json={"title": "Unauthorized"})
    with ServiceClient(API, "revoked") as client:
        report = flush(spool, client)
    assert report.auth_error and "401" in report.auth_error
    assert len(spool.pending()) == 2 and spool.rejected() == []
    assert respx_mock.calls.call_count == 1


def test_partial_writes_never_look_like_runs(spool: Spool) -> None:
    spool.put(minimal_payload())
    (spool.root / ".tmp-deadbeef.json.123").write_text('{"run_id": "dead')  # a crash mid-write
    assert len(spool.pending()) == 1
    assert spool.clean_partial() == 1
    assert [p.name for p in spool.root.iterdir() if p.name.startswith(".tmp-")] == []


def test_atomic_write_replaces_whole_files(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    write_atomic(target, {"a": 1})
    write_atomic(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


# --- one test crosses the HTTP boundary for real --------------------------------------------


class RecordingService(BaseHTTPRequestHandler):
    """A tiny stand-in for POST /v1/benchmarks: 201 for a new run_id, 409 for a known one."""

    seen: dict[str, int]
    requests: list[dict[str, Any]]

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append({"path": self.path, "auth": self.headers.get("Authorization"),
                              "idempotency": self.headers.get("Idempotency-Key"), "body": body})
        run_id = body["run_id"]
        status = 409 if run_id in self.seen else 201
        self.seen[run_id] = self.seen.get(run_id, 0) + 1
        data = json.dumps({"run_id": run_id}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def real_service() -> Iterator[type[RecordingService]]:
    handler = type("Handler", (RecordingService,), {"seen": {}, "requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    handler.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    try:
        yield handler
    finally:
        server.shutdown()
        server.server_close()


def test_delivery_to_a_real_http_server_and_idempotent_resend(real_service: Any, spool: Spool) -> None:
    payload = minimal_payload()
    spool.put(payload)
    with ServiceClient(real_service.url, "lab-token") as client:
        assert flush(spool, client).delivered == [payload["run_id"]]
        # The agent crashed after the service stored the run but before the spool file went away:
        spool.put(payload)
        # 409 "already have it" counts as delivered
        assert flush(spool, client).delivered == [payload["run_id"]]
    assert spool.pending() == []
    assert real_service.seen == {payload["run_id"]: 2}  # one run_id, sent twice
    first, second = real_service.requests
    assert first["path"] == "/v1/benchmarks" and first["auth"] == "Bearer lab-token"
    assert first["body"] == second["body"] == payload and second["idempotency"] == payload["run_id"]


def _poison(spool: Spool) -> dict[str, str]:
    """Files no delivery can use, each older than a good run; name -> what it is."""
    spool.root.mkdir(parents=True, exist_ok=True)
    bad = {"list": "[1, 2]", "null": "null", "no-run-id": '{"host": "x"}', "truncated": '{"run_id": "ab',
           "number": "7", "other-id": json.dumps({"run_id": "f" * 32})}
    names = {}
    for label, text in bad.items():
        path = spool.root / f"{uuid.uuid4().hex}.json"
        path.write_text(text, encoding="utf-8")
        names[path.name] = label
    link = spool.root / f"{uuid.uuid4().hex}.json"
    link.symlink_to(spool.root / "nowhere.json")
    names[link.name] = "broken symlink"
    return names


@respx.mock(base_url=API)
def test_any_spool_content_is_set_aside_and_the_rest_delivered(respx_mock: respx.MockRouter,
                                                               spool: Spool) -> None:
    names = _poison(spool)
    good = spool.put(minimal_payload())
    state_broken = spool.put(minimal_payload())
    (spool.root / f"{state_broken.run_id}.state.json").write_text('["attempts", 3]', encoding="utf-8")
    wrong_types = spool.put(minimal_payload())
    wrong_state = '{"attempts": "many", "next_attempt_at": null}'
    (spool.root / f"{wrong_types.run_id}.state.json").write_text(wrong_state, encoding="utf-8")
    route = respx_mock.post("/v1/benchmarks").respond(201, json={"status": "created"})
    with ServiceClient(API, "t") as client:
        report = flush(spool, client, now=1000.0)
    assert sorted(report.delivered) == sorted([good.run_id, state_broken.run_id, wrong_types.run_id])
    assert route.call_count == 3 and spool.pending() == []
    set_aside = {r["run_id"]: r["reason"] for r in spool.rejected()}
    assert {n.removesuffix(".json") for n in names} == set(set_aside), "every bad file in rejected/, with why"
    assert all(reason for reason in set_aside.values())
    assert spool.size()["pending"] == 0


def test_status_never_crashes_on_a_poisoned_spool(spool: Spool) -> None:
    _poison(spool)
    spool.rejected_dir.mkdir(parents=True, exist_ok=True)
    (spool.rejected_dir / "x.reason.json").write_text("[]", encoding="utf-8")
    sized = spool.size()
    assert sized["pending"] == 0 and sized["unusable"] + sized["rejected"] >= 7


def test_status_reads_the_spool_without_moving_a_file(spool: Spool) -> None:
    """`bench-agent status` once set undeliverable files aside while reporting: a look must not change
    what the daemon finds."""
    spool.put({"run_id": "good", "results": []})
    broken = spool.root / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    before = sorted(p.relative_to(spool.root) for p in spool.root.rglob("*"))
    size = spool.size()
    assert size["pending"] == 1 and size["unusable"] == 1 and size["rejected"] == 0
    assert sorted(p.relative_to(spool.root) for p in spool.root.rglob("*")) == before
    assert [e.run_id for e in spool.pending()] == ["good"]
    assert not broken.exists(), "the daemon still sets it aside"
