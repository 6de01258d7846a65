"""Benchmark ingestion, querying and aggregation on SQLite and PostgreSQL, and the HTTP endpoint."""

from __future__ import annotations

import copy
import dataclasses
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import select

from bench_agent.schema import validate_payload
from rules.knowledge.loaded import load_catalog
from service.benchmarks import (
    ALREADY_STORED,
    CREATED,
    ImplausibleFigure,
    InvalidPayload,
    ingest,
    load_measurements,
    measurements_version,
    query,
    unmatched_devices,
)
from service.db import migrate, session_scope
from service.models import BenchmarkResult, BenchmarkRun

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture
def db(database_url: str) -> str:
    migrate(database_url)
    return database_url


def result(
    benchmark: str,
    precision: str,
    value: float | None,
    flags: list[str] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    unit = {"matmul": "TFLOP/s", "copy": "GB/s", "triad": "GB/s", "cnn_train": "images/s"}[benchmark]
    figures = (
        {"value": None, "p10": None, "p90": None, "cv": None}
        if error
        else {"value": value, "p10": value * 0.97, "p90": value * 1.01, "cv": 0.01}
    )
    return {
        "benchmark": benchmark,
        "precision": precision,
        "unit": unit,
        **figures,
        "flags": flags or [],
        "error": error,
        "params": {"m": 8192, "n": 8192, "k": 8192} if benchmark == "matmul" else {},
    }


def run_payload(
    device: str = "NVIDIA GeForce RTX 3090",
    *,
    host: str = "lab-1",
    kind: str = "cuda",
    results: list | None = None,
    flags: list[str] | None = None,
    started: datetime | None = None,
    quick: bool = False,
) -> dict[str, Any]:
    """A payload as the agent sends it, plausible for an RTX 3090 (peaks 35.6 / 71.2 TFLOP/s, 936 GB/s)."""
    started = started or NOW - timedelta(hours=1)
    payload = {
        "schema_version": 1,
        "run_id": uuid.uuid4().hex,
        "agent_version": "0.1.0",
        "host": host,
        "quick": quick,
        "device": {
            "name": device,
            "uuid": None,
            "index": 0,
            "compute_capability": "8.6",
            "memory_gb": 24.0,
            "driver": "550.54",
            "cuda": "12.4",
            "type": kind,
        },
        "environ": {"torch": "2.5.1", "python": "3.11.9", "cpu": "AMD EPYC", "ram_gb": 128.0, "threads": 16},
        "started_at": started.isoformat(),
        "finished_at": (started + timedelta(minutes=3)).isoformat(),
        "flags": sorted(set(flags or []) | {f for r in (results or []) for f in r["flags"]}),
        "results": results
        if results is not None
        else [
            result("matmul", "fp32", 30.0),
            result("matmul", "fp16", 60.0),
            result("copy", "fp32", 800.0),
            result("triad", "fp32", 820.0),
            result("cnn_train", "fp32", 3000.0),
        ],
        "telemetry": {"source": "none"},
    }
    validate_payload(payload)
    return payload


def count(db: str, table) -> int:
    with session_scope(db) as session:
        return session.exec(select(func.count()).select_from(table)).one()


def store(
    db: str, catalog, payload: dict[str, Any], agent: str = "node", received: datetime | None = None
) -> tuple[str, str]:
    """Ingest as the service does; ``received`` is when the service got it (now by default)."""
    with session_scope(db) as session:
        return ingest(session, catalog, agent, payload, now=received)


# --- ingestion ----------------------------------------------------------------------------


def test_a_run_is_stored_with_its_results_and_mapped_to_the_catalog(db: str, catalog) -> None:
    payload = run_payload()
    assert store(db, catalog, payload) == (CREATED, payload["run_id"])
    with session_scope(db) as session:
        [run] = session.exec(select(BenchmarkRun)).all()
        assert (run.gpu_id, run.agent, run.host, run.device_name) == (
            "rtx-3090",
            "node",
            "lab-1",
            "NVIDIA GeForce RTX 3090",
        )
        assert run.environ["device"]["compute_capability"] == "8.6"
        assert run.environ["result_details"]["matmul/fp32"]["params"] == {"m": 8192, "n": 8192, "k": 8192}
        results = session.exec(select(BenchmarkResult).order_by(BenchmarkResult.id)).all()
    assert [(r.benchmark, r.precision, r.value) for r in results] == [
        ("matmul", "fp32", 30.0),
        ("matmul", "fp16", 60.0),
        ("copy", "fp32", 800.0),
        ("triad", "fp32", 820.0),
        ("cnn_train", "fp32", 3000.0),
    ]


def test_resending_a_run_stores_nothing_new(db: str, catalog) -> None:
    payload = run_payload()
    store(db, catalog, payload)
    version = _version(db)
    assert store(db, catalog, copy.deepcopy(payload)) == (ALREADY_STORED, payload["run_id"])
    assert store(db, catalog, payload, agent="another") == (ALREADY_STORED, payload["run_id"])
    assert (count(db, BenchmarkRun), count(db, BenchmarkResult)) == (1, 5)
    assert _version(db) == version


def test_unknown_devices_are_stored_and_listed(db: str, catalog) -> None:
    store(
        db,
        catalog,
        run_payload("Moore Threads MTT S4000", host="odd-box", results=[result("matmul", "fp32", 5000.0)]),
    )
    store(
        db,
        catalog,
        run_payload(
            "AMD EPYC 7763", kind="cpu", results=[result("matmul", "fp32", 1.5), result("copy", "fp32", 90.0)]
        ),
    )
    with session_scope(db) as session:
        listed = query(session, gpu="unmatched")
        devices = unmatched_devices(session)
        assert load_measurements(session) == {}
    assert {item["device"]["name"] for item in listed["items"]} == {
        "Moore Threads MTT S4000",
        "AMD EPYC 7763",
    }
    assert all(item["gpu_id"] is None for item in listed["items"])
    assert [(d["device_name"], d["runs"], d["hosts"]) for d in devices] == [
        ("AMD EPYC 7763", 1, 1),
        ("Moore Threads MTT S4000", 1, 1),
    ]


def test_a_cpu_is_never_mapped_to_a_gpu_even_if_its_name_looks_like_one(db: str, catalog) -> None:
    store(
        db,
        catalog,
        run_payload("NVIDIA GeForce RTX 3090", kind="cpu", results=[result("matmul", "fp32", 900.0)]),
    )
    with session_scope(db) as session:
        assert session.exec(select(BenchmarkRun.gpu_id)).one() is None


def test_the_same_run_arriving_twice_at_once_is_stored_once(db: str, catalog) -> None:
    """Two agents' sessions race with one run_id: the second waits for the first, then finds it."""
    import threading

    payload = run_payload()
    outcome: list[tuple[str, str]] = []
    with session_scope(db) as first:
        assert ingest(first, catalog, "a", payload)[0] == CREATED  # flushed, not committed yet
        racer = threading.Thread(
            target=lambda: outcome.append(store(db, catalog, copy.deepcopy(payload), agent="b"))
        )
        racer.start()
        racer.join(timeout=0.5)  # it is blocked on the uncommitted run (unique index / SQLite write lock)
    racer.join(timeout=30)
    assert outcome == [(ALREADY_STORED, payload["run_id"])]
    assert (count(db, BenchmarkRun), count(db, BenchmarkResult)) == (1, 5)


@pytest.mark.parametrize(
    ("bad", "named"),
    [
        (result("matmul", "fp16", 80.0), "results/0 (matmul fp16): 80 TFLOP/s"),
        (result("matmul", "fp32", 40.0), "results/0 (matmul fp32)"),
        (result("triad", "fp32", 1100.0), "results/0 (triad fp32): 1100 GB/s"),
        (result("copy", "fp32", 1030.0), "results/0 (copy fp32)"),
    ],
)
def test_an_impossible_figure_rejects_the_whole_run(db: str, catalog, bad: dict, named: str) -> None:
    payload = run_payload(results=[bad, result("matmul", "bf16", 50.0)])
    with pytest.raises(ImplausibleFigure) as caught:
        store(db, catalog, payload)
    assert caught.value.reasons[0].startswith(named)
    assert "GeForce RTX 3090" in str(caught.value) and "10%" in str(caught.value)
    assert (count(db, BenchmarkRun), count(db, BenchmarkResult)) == (0, 0)


def test_figures_within_the_margin_are_accepted(db: str, catalog) -> None:
    gpu = catalog.gpu("rtx-3090")
    payload = run_payload(
        results=[
            result("matmul", "fp16", gpu.peak_tflops("fp16") * 1.09),
            result("triad", "fp32", gpu.bandwidth_gb_s * 1.09),
        ]
    )
    assert store(db, catalog, payload)[0] == CREATED


def test_llm_decode_that_read_faster_than_the_memory_is_rejected(db: str, catalog) -> None:
    def decode(tokens_per_second: float, bytes_per_token: float) -> dict[str, Any]:
        figures = {
            "value": tokens_per_second,
            "p10": tokens_per_second * 0.97,
            "p90": tokens_per_second * 1.01,
            "cv": 0.01,
        }
        return {
            "benchmark": "llm_decode",
            "precision": "fp16",
            "unit": "tokens/s",
            **figures,
            "flags": [],
            "error": None,
            "params": {"bytes_per_token": bytes_per_token},
            "achieved_gb_s": tokens_per_second * bytes_per_token / 1e9,
        }

    with pytest.raises(
        ImplausibleFigure
    ) as caught:  # 2.2 GB per token at 500 tokens/s is 1,100 GB/s on a 936 GB/s card
        store(db, catalog, run_payload(results=[decode(500.0, 2.2e9)]))
    assert "decode read 1100 GB/s" in str(caught.value)
    assert store(db, catalog, run_payload(results=[decode(300.0, 2.2e9)]))[0] == CREATED


def test_a_cpu_has_no_datasheet_so_any_figure_is_accepted(db: str, catalog) -> None:
    assert (
        store(
            db,
            catalog,
            run_payload("Intel Xeon Platinum 8480+", kind="cpu", results=[result("matmul", "bf16", 400.0)]),
        )[0]
        == CREATED
    )


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda p: p.pop("host"), "host: 'host' is a required property"),
        (lambda p: p.__setitem__("run_id", "not-hex"), "run_id:"),
        (lambda p: p["results"][1].__setitem__("unit", "GB/s"), "results.1.unit:"),
        (lambda p: p["results"][0].__setitem__("value", -1), "results.0.value:"),
        (lambda p: p["device"].__setitem__("type", "fpga"), "device.type:"),
        (lambda p: p.__setitem__("started_at", "yesterday"), "started_at:"),
        (
            lambda p: p["results"].append(copy.deepcopy(p["results"][0])),
            "results.5: matmul fp32 appears twice",
        ),
    ],
)
def test_a_schema_invalid_payload_names_the_field(db: str, catalog, mutate, field: str) -> None:
    payload = run_payload()
    mutate(payload)
    with pytest.raises(InvalidPayload) as caught:
        store(db, catalog, payload)
    assert any(f"{e['field']}: {e['message']}".startswith(field) for e in caught.value.errors), (
        caught.value.errors
    )
    assert count(db, BenchmarkRun) == 0


@pytest.mark.parametrize("payload", [None, [], "run", 3])
def test_a_payload_that_is_not_an_object_is_invalid(db: str, catalog, payload) -> None:
    with pytest.raises(InvalidPayload, match=r"schema benchmark-run.json: body: "):
        store(db, catalog, payload)


def test_results_with_errors_are_kept(db: str, catalog) -> None:
    payload = run_payload(
        results=[
            result("matmul", "bf16", None, error="RuntimeError: CUDA out of memory"),
            result("matmul", "fp32", 30.0),
        ]
    )
    store(db, catalog, payload)
    with session_scope(db) as session:
        [item] = query(session)["items"]
        assert load_measurements(session)["rtx-3090"].matmul_tflops == {"fp32": 30.0}
    assert item["results"][0]["error"].startswith("RuntimeError")


# --- querying -----------------------------------------------------------------------------


def test_query_filters_and_pages_newest_first(db: str, catalog) -> None:
    for i in range(5):
        store(db, catalog, run_payload(host=f"h{i % 2}", started=NOW - timedelta(days=i)))
    store(
        db, catalog, run_payload("NVIDIA H100 80GB HBM3", host="h9", results=[result("copy", "fp32", 3000.0)])
    )
    with session_scope(db) as session:
        everything = query(session, limit=100)
        page = query(session, gpu="rtx-3090", limit=2, offset=1)
        h1 = query(session, host="h1")
        recent = query(session, since=NOW - timedelta(days=1, hours=12))
        copies = query(session, benchmark="copy")
        triads = query(session, benchmark="triad")
    assert everything["total"] == 6
    assert page["total"] == 5 and len(page["items"]) == 2
    starts = [i["started_at"] for i in everything["items"]]
    assert starts == sorted(starts, reverse=True)
    assert {i["host"] for i in h1["items"]} == {"h1"} and h1["total"] == 2
    assert recent["total"] == 3  # the H100 run, and the RTX runs of 1 h and 1 day ago
    assert copies["total"] == 6 and all(
        [r["benchmark"] for r in i["results"]] == ["copy"] for i in copies["items"]
    )
    assert triads["total"] == 5 and "h9" not in {i["host"] for i in triads["items"]}


# --- measurements -------------------------------------------------------------------------


def _measurements(db: str):
    with session_scope(db) as session:
        return load_measurements(session)


def _version(db: str) -> str:
    with session_scope(db) as session:
        return measurements_version(session)


def test_measurements_are_medians_over_hosts_of_unflagged_runs(db: str, catalog) -> None:
    for host, fp16, triad in [("a", 60.0, 820.0), ("b", 62.0, 830.0), ("c", 64.0, 840.0)]:
        store(
            db,
            catalog,
            run_payload(
                host=host,
                results=[
                    result("matmul", "fp16", fp16),
                    result("triad", "fp32", triad),
                    result("copy", "fp32", 700.0),
                ],
            ),
        )
    # excluded: a contended run, flagged results, a quick run, an old run
    store(
        db, catalog, run_payload(host="busy", flags=["contended"], results=[result("matmul", "fp16", 10.0)])
    )
    store(
        db,
        catalog,
        run_payload(
            host="hot",
            results=[
                result("matmul", "fp16", 20.0, ["throttled"]),
                result("triad", "fp32", 100.0, ["noisy"]),
                result("matmul", "fp32", 30.0),
            ],
        ),
    )
    quick = run_payload(host="ci", quick=True, results=[result("matmul", "fp16", 40.0)])
    store(db, catalog, quick)
    store(
        db,
        catalog,
        run_payload(host="old", started=NOW - timedelta(days=120), results=[result("matmul", "fp16", 40.0)]),
        received=NOW - timedelta(days=120, minutes=-5),
    )
    store(db, catalog, run_payload(host="bad", results=[result("matmul", "fp16", 3.0, ["check_failed"])]))
    measured = _measurements(db)
    assert set(measured) == {"rtx-3090"}
    m = measured["rtx-3090"]
    assert m.matmul_tflops == {"fp16": 62.0, "fp32": 30.0}
    assert m.bandwidth_gb_s == 830.0  # triad preferred over copy
    assert m.hosts == 4  # a, b, c and "hot" (its unflagged fp32 matmul counts)
    with session_scope(db) as session:  # the service marks quick runs
        assert query(session, run_id=quick["run_id"])["items"][0]["flags"] == ["quick"]


def test_llm_decode_bandwidth_reaches_the_token_generation_estimate(db: str, catalog) -> None:
    def decode(precision: str, tokens_per_second: float, flags: list[str] | None = None) -> dict[str, Any]:
        figures = {
            "value": tokens_per_second,
            "p10": tokens_per_second * 0.97,
            "p90": tokens_per_second * 1.01,
            "cv": 0.01,
        }
        return {
            "benchmark": "llm_decode",
            "precision": precision,
            "unit": "tokens/s",
            **figures,
            "flags": flags or [],
            "error": None,
            "params": {"bytes_per_token": 2.2e9},
            "achieved_gb_s": tokens_per_second * 2.2e9 / 1e9,
        }

    for host, rate in (("a", 300.0), ("b", 320.0)):
        store(
            db,
            catalog,
            run_payload(
                host=host,
                results=[decode("fp16", rate), decode("bf16", rate), result("triad", "fp32", 820.0)],
            ),
        )
    store(db, catalog, run_payload(host="hot", results=[decode("fp16", 100.0, ["throttled"])]))
    measured = _measurements(db)["rtx-3090"]
    assert measured.decode_gb_s == pytest.approx((300.0 + 320.0) / 2 * 2.2) and measured.hosts == 2
    from rules.contract.question import Question
    from rules.job import job_for
    from rules.knowledge.loaded import load_rulebook
    from rules.performance import PerformanceModel

    job = job_for(
        Question(
            workload="llm", model="llama 3 8b", task="inference", precision="16-bit", context_tokens=128
        ),
        load_rulebook(),
    )
    lab = PerformanceModel(load_rulebook(), catalog.gpu("gtx-1080-ti"), {"rtx-3090": measured})
    # 16.06 GB of weights per token at the 682 GB/s the lab reached
    assert lab.tokens_per_second(catalog.gpu("rtx-3090"), job) == pytest.approx(682.0 / 16.1, rel=0.02)


def test_bandwidth_falls_back_to_copy_and_only_the_newest_runs_count(db: str, catalog) -> None:
    for i in range(25):  # newest 20 of 25: the five oldest (value 1.0) fall out
        value = 1.0 if i >= 20 else 700.0 + i
        store(
            db,
            catalog,
            run_payload(
                host=f"n{i % 3}", started=NOW - timedelta(hours=i), results=[result("copy", "fp32", value)]
            ),
            received=NOW - timedelta(hours=i, minutes=-5),
        )
    m = _measurements(db)["rtx-3090"]
    assert m.bandwidth_gb_s == pytest.approx(709.5) and m.matmul_tflops == {} and m.hosts == 3


def test_measurements_version_changes_when_results_are_stored(db: str, catalog) -> None:
    empty = _version(db)
    store(db, catalog, run_payload())
    once = _version(db)
    assert once != empty
    store(db, catalog, run_payload())
    assert _version(db) not in (empty, once)


# --- HTTP ---------------------------------------------------------------------------------


ADMIN = "test-admin-read-token"


@pytest.fixture
def client(settings):
    from litestar.testing import TestClient

    from service.app import create_app

    with TestClient(create_app(dataclasses.replace(settings, admin_token=ADMIN))) as test_client:
        yield test_client


@pytest.fixture
def token(settings, client) -> str:
    from service.agents import add_agent

    return add_agent(settings.resolved_database_url, "lab-node")


def _post(client, payload, token: str | None = None, **kwargs):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post("/v1/benchmarks", json=payload, headers=headers, **kwargs)


def _problem(response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body


def test_http_post_stores_once_and_get_lists_it(client, token: str) -> None:
    payload = run_payload()
    first = _post(client, payload, token)
    assert first.status_code == 201 and first.json() == {"run_id": payload["run_id"], "status": "created"}
    again = _post(client, payload, token)
    assert again.status_code == 200 and again.json()["status"] == "already stored"
    listed = client.get(first.headers["location"], headers={"Authorization": f"Bearer {ADMIN}"}).json()
    assert listed["total"] == 1 and listed["view"] == "admin"
    [item] = listed["items"]
    assert (item["gpu_id"], item["agent"], len(item["results"])) == ("rtx-3090", "lab-node", 5)
    assert (
        client.get("/v1/benchmarks", params={"gpu": "rtx-3090", "benchmark": "triad"}).json()["items"][0][
            "results"
        ][0]["value"]
        == 820.0
    )


@pytest.mark.parametrize("header", [None, "Bearer wrong", "Basic dXNlcjpwYXNz"])
def test_http_bad_token_is_401_problem(client, token: str, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    response = client.post("/v1/benchmarks", json=run_payload(), headers=headers)
    body = _problem(response, 401)
    assert "token" in body["detail"] and response.headers["www-authenticate"].startswith("Bearer")
    assert client.get("/v1/benchmarks").json()["total"] == 0


def test_http_revoked_token_is_401(settings, client, token: str) -> None:
    from service.agents import revoke_agent

    assert _post(client, run_payload(), token).status_code == 201
    revoke_agent(settings.resolved_database_url, "lab-node")
    _problem(_post(client, run_payload(), token), 401)
    assert client.get("/v1/benchmarks").json()["total"] == 1


def test_http_schema_invalid_payload_is_422_naming_the_field(client, token: str) -> None:
    payload = run_payload()
    payload["results"][1]["unit"] = "GB/s"
    body = _problem(_post(client, payload, token), 422)
    assert "results.1.unit" in {e["field"] for e in body["errors"]}
    del payload["device"]["type"]
    body = _problem(_post(client, payload, token), 422)
    assert {"results.1.unit", "device.type"} <= {e["field"] for e in body["errors"]}
    assert body["schema"] == "/v1/schemas/benchmark-run.json"


def test_http_duplicate_result_is_422(client, token: str) -> None:
    payload = run_payload()
    payload["results"].append(copy.deepcopy(payload["results"][0]))
    body = _problem(_post(client, payload, token), 422)
    assert body["errors"][0]["field"] == "results.5" and "twice" in body["errors"][0]["message"]


def test_http_impossible_figure_is_422_with_the_reason(client, token: str) -> None:
    body = _problem(
        _post(
            client,
            run_payload(results=[result("matmul", "fp32", 30.0), result("matmul", "bf16", 150.0)]),
            token,
        ),
        422,
    )
    assert body["errors"][0]["field"] == "results.1"
    assert "matmul bf16" in body["detail"] and "datasheet" in body["detail"] and "RTX 3090" in body["detail"]
    assert client.get("/v1/benchmarks").json()["total"] == 0


def test_http_malformed_bodies_are_problems(client, token: str) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    _problem(
        client.post(
            "/v1/benchmarks", content=b"{not json", headers={**auth, "content-type": "application/json"}
        ),
        400,
    )
    _problem(
        client.post("/v1/benchmarks", content=b"run", headers={**auth, "content-type": "text/plain"}), 415
    )
    _problem(
        client.post(
            "/v1/benchmarks",
            content=b"[" + b" " * 70_000 + b"]",
            headers={**auth, "content-type": "application/json"},
        ),
        413,
    )


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"limit": "0"}, "limit"),
        ({"limit": "500"}, "limit"),
        ({"offset": "-1"}, "offset"),
        ({"since": "last week"}, "since"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_http_bad_filters_are_422(client, query: dict[str, str], field: str) -> None:
    body = _problem(client.get("/v1/benchmarks", params=query), 422)
    assert body["errors"][0]["field"] == field


def test_http_measured_figures_reach_the_advice(settings, client, token: str) -> None:
    from service.agents import add_agent

    assert _post(client, run_payload(host="a"), token).status_code == 201
    assert (
        _post(client, run_payload(host="b"), add_agent(settings.resolved_database_url, "node-b")).status_code
        == 201
    )
    performance = client.get("/v1/gpus/rtx-3090").json()["performance"]
    assert performance["basis"] == "measured"
    assert performance["measured"] == {
        "hosts": 2,
        "matmul_tflops": {"fp16": 60.0, "fp32": 30.0},
        "bandwidth_gb_s": 820.0,
        "decode_gb_s": None,
        "training": [],
    }


def test_the_per_gpu_aggregates_are_computed_once_per_measurements_version(tmp_path) -> None:
    """GET /v1/benchmarks recomputed every median per request."""
    from tests.app_client import app_client

    with app_client(tmp_path) as client:
        summaries = client.app.state["api"].summaries
        for _ in range(5):
            assert client.get("/v1/benchmarks").status_code == 200
        assert summaries.computed == 1
        state = client.app.state["api"]
        store(state.database_url, state.holder.get().catalog, run_payload(host="lab"))
        gpus = client.get("/v1/benchmarks").json()["gpus"]
        assert summaries.computed == 2 and [g["gpu"] for g in gpus] == ["rtx-3090"]
