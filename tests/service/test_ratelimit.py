"""Per-client rate limits: token buckets per address, 429 problem+json with Retry-After, on by default at a
level no person reaches."""

from __future__ import annotations

import re

import jsonschema
import pytest

from service.ratelimit import RateLimiter, client_key
from tests.app_client import app_client


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_client_bursts_up_to_its_minute_then_waits_for_the_refill():
    clock = Clock()
    limiter = RateLimiter(6, clock=clock)  # 6 a minute: one every 10 s
    assert [limiter.wait_s("a") for _ in range(6)] == [0.0] * 6
    assert limiter.wait_s("a") == pytest.approx(10.0)
    assert limiter.wait_s("b") == 0.0  # another client has its own bucket
    clock.now += 5
    assert limiter.wait_s("a") == pytest.approx(5.0)  # refused requests take nothing
    clock.now += 5
    assert limiter.wait_s("a") == 0.0
    assert limiter.wait_s("a") == pytest.approx(10.0)
    clock.now += 3600
    # a full bucket, never more
    assert [limiter.wait_s("a") for _ in range(7)][-2:] == [
        0.0,
        pytest.approx(10.0),
    ]


def test_buckets_stay_bounded_when_addresses_rotate():
    clock = Clock()
    limiter = RateLimiter(60, max_clients=100, clock=clock)
    for _ in range(60):
        limiter.wait_s("busy")
    for i in range(50):  # fewer newcomers than the bound: the drained bucket is kept
        limiter.wait_s(f"10.0.0.{i}")
    assert limiter.wait_s("busy") > 0
    for i in range(1000):
        limiter.wait_s(f"10.1.{i // 256}.{i % 256}")
        clock.now += 0.01
    assert len(limiter) <= 100


def test_ipv6_clients_count_per_64_block():
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key("::ffff:192.0.2.7") == client_key("192.0.2.7") == "192.0.2.7"
    assert client_key(None) == "unknown" and client_key("testclient") == "testclient"


def test_over_the_limit_is_429_with_retry_after_and_health_is_never_counted(tmp_path):
    with app_client(tmp_path, rate_limit=3) as client:
        for _ in range(5):
            assert client.get("/healthz").status_code == 200
        assert [client.post("/v1/ask", json={"text": "nlp $800"}).status_code for _ in range(3)] == [200] * 3
        refused = client.post("/v1/ask", json={"text": "nlp $800"})
        assert refused.status_code == 429
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert 1 <= int(refused.headers["retry-after"]) <= 20
        body = refused.json()
        assert (
            body["status"] == 429
            and body["errors"][0]["field"] == "client"
            and "3 requests a minute" in body["detail"]
        )
        # every anonymous endpoint shares the bucket
        assert client.get("/v1/gpus/rtx-4090").status_code == 429
        assert client.get("/healthz").status_code == 200
        assert 'status="429"' in client.get("/metrics").text  # refusals are counted like any answer


def test_on_by_default_where_no_person_reaches_it(tmp_path):
    """The limit was off by default; now a person's burst passes and a script's flood gets 429."""
    from litestar.testing import TestClient

    from service.app import create_app
    from service.settings import Settings

    settings = Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'w.db'}")
    assert settings.rate_limit > 0
    with TestClient(create_app(settings)) as client:
        assert {client.get("/v1/models").status_code for _ in range(200)} == {200}
        flood = [client.get("/v1/models").status_code for _ in range(int(settings.rate_limit))]
        assert 429 in flood


def test_the_document_gives_429_and_retry_after_exactly_where_the_limit_counts(tmp_path):
    """Documented whether or not the limit is on; each documented 429 is what the server sends when it is."""
    with app_client(tmp_path) as client:
        document = client.get("/schema/openapi.json").json()
    operations = [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]
    quota = ("post", "/v1/benchmarks")  # an agent's 429 is its runs-an-hour quota, not the rate limit
    limited = [(m, p, op) for m, p, op in operations if "429" in op["responses"] and (m, p) != quota]
    assert {(m, p) for m, p, _ in operations} - {(m, p) for m, p, _ in limited} == {
        ("get", "/healthz"),
        ("get", "/metrics"),
        quota,
    }
    assert "quota" in document["paths"]["/v1/benchmarks"]["post"]["responses"]["429"]["description"]
    with app_client(tmp_path / "limited", rate_limit=1) as client:
        client.get("/v1/models")  # the one request a minute
        for method, path, operation in limited:
            documented = operation["responses"]["429"]
            assert documented["headers"]["Retry-After"]["required"] is True
            refused = client.request(
                method.upper(), re.sub(r"\{[^}]+\}", "x", path), json={} if method == "post" else None
            )
            assert refused.status_code == 429, (method, path)
            assert (
                int(refused.headers["retry-after"])
                >= documented["headers"]["Retry-After"]["schema"]["minimum"]
            )
            schema = documented["content"][refused.headers["content-type"]]["schema"]
            # refs resolve
            jsonschema.validate(refused.json(), {**schema, "components": document["components"]})
        for method, path in (("get", "/healthz"), ("get", "/metrics")):
            assert client.request(method.upper(), path).status_code == 200
