"""A stalled database never stalls the answers: the request path reads the snapshot in memory.

A real server process talks to the real PostgreSQL through :class:`benchmarks.stall_proxy.StallProxy`;
for 15 s the proxy holds every byte. One-shot questions, the catalog and `/healthz` keep answering
within a second (health says `degraded` while the database does not answer), and all is `ok` again
once it does.
"""

from __future__ import annotations

import time

import httpx

from benchmarks.stall_proxy import StallProxy
from service.db import migrate
from tests.server_process import ServerProcess

STALL_S = 15.0
ANSWER_WITHIN_S = 1.0


def _timed(client: httpx.Client, method: str, path: str, **kwargs) -> tuple[float, httpx.Response]:
    started = time.monotonic()
    response = client.request(method, path, timeout=10, **kwargs)
    return time.monotonic() - started, response


def test_a_stalled_database_leaves_one_shot_answers_and_health_answering(postgres_url, tmp_path):
    migrate(postgres_url)
    proxy = StallProxy(postgres_url)
    server = ServerProcess(proxy.url, tmp_path / "server").start()
    try:
        with httpx.Client(base_url=server.url) as client:
            assert client.post("/v1/ask", json={"text": "nlp $800"}).status_code == 200
            proxy.stall()
            slowest: dict[str, float] = {}
            health_seen: set[int] = set()
            until = time.monotonic() + STALL_S
            asked = 0
            while time.monotonic() < until:
                asked += 1
                for method, path, body in (
                    ("GET", "/healthz", None),
                    ("POST", "/v1/ask", {"text": f"cv ${600 + asked * 10}"}),
                    ("GET", "/v1/gpus", None),
                    ("GET", "/v1/models", None),
                ):
                    took, response = _timed(client, method, path, json=body)
                    slowest[path] = max(slowest.get(path, 0.0), took)
                    if path == "/healthz":
                        health_seen.add(response.status_code)
                        assert response.json()["status"] in ("ok", "degraded")
                    else:
                        assert response.status_code == 200, (path, response.text[:300])
                time.sleep(0.25)
            assert all(took < ANSWER_WITHIN_S for took in slowest.values()), slowest
            assert 503 in health_seen, "health must say degraded while the database does not answer"
            proxy.resume()
            deadline = time.monotonic() + 15
            while client.get("/healthz").status_code != 200:
                assert time.monotonic() < deadline, "health stayed degraded after the database came back"
                time.sleep(0.2)
    finally:
        proxy.resume()
        server.stop()
        proxy.close()
