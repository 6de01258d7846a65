"""Lab measurements read with plain SQL: the same figures the service reads, nothing read (or
created) when there is no database, and the lab's training steps moving the advice."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import subprocess
import sys
import uuid
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest

from rules.advisor import Advisor
from rules.contract.question import Question
from rules.knowledge.loaded import load_catalog, load_rulebook
from rules.performance import Measured, PerformanceModel
from service.agents import add_agent
from service.benchmarks import load_measurements
from service.db import migrate, session_scope
from service.measurements import lab_measurements
from tests.server_process import ROOT, ServerProcess, service_env
from tests.service.test_benchmarks import result, run_payload, store


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_no_database_file_means_no_measurements_and_no_file(tmp_path: Path) -> None:
    path = tmp_path / "absent" / "whichgpu.db"
    assert lab_measurements(f"sqlite:///{path}") == {}
    assert not path.exists() and not path.parent.exists()


def test_a_database_without_the_benchmark_tables_has_no_measurements(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    sqlite3.connect(path).close()
    assert lab_measurements(f"sqlite:///{path}") == {}


def test_an_unreachable_server_has_no_measurements() -> None:
    assert lab_measurements("postgresql://nobody@127.0.0.1:9/none") == {}


def test_the_plain_reading_equals_the_service_reading(database_url: str, catalog) -> None:
    migrate(database_url)
    assert lab_measurements(database_url) == {}
    for host, fp16 in [("a", 60.0), ("b", 64.0)]:
        store(
            database_url,
            catalog,
            run_payload(host=host, results=[result("matmul", "fp16", fp16), result("triad", "fp32", 800.0)]),
        )
    store(database_url, catalog, run_payload(host="ci", quick=True, results=[result("matmul", "fp16", 5.0)]))
    store(
        database_url,
        catalog,
        run_payload("NVIDIA H100 80GB HBM3", host="c", results=[result("copy", "fp32", 3000.0)]),
    )
    with session_scope(database_url) as session:
        expected = load_measurements(session)
    measured = lab_measurements(database_url)
    assert measured == expected
    assert measured["rtx-3090"].matmul_tflops == {"fp16": 62.0} and measured["rtx-3090"].hosts == 2
    assert set(measured) == {"rtx-3090", catalog.find("NVIDIA H100 80GB HBM3").id}


# --- the lab's training steps, stored as the service stores them (PostgreSQL) ----------------

LAB = {  # measured matmul / triad of each card, plausible under its datasheet
    "rtx-3090": ("NVIDIA GeForce RTX 3090", {"fp16": 62.0, "fp32": 31.0}, 800.0),
    "rtx-4090": ("NVIDIA GeForce RTX 4090", {"fp16": 150.0, "fp32": 75.0}, 900.0),
    "rtx-3080": ("NVIDIA GeForce RTX 3080", {"fp16": 50.0, "fp32": 26.0}, 650.0),
}
CNN_COMPARE = Question(
    workload="cnn", budget=5000, used_ok=True, compare=("RTX 3090", "RTX 4090", "RTX 3080")
)


def training(
    benchmark: str, precision: str, per_second: float, tier: str = "gpu", flags: list[str] | None = None
) -> dict[str, Any]:
    """A training-step result as bench_agent.suite reports it: the size tier travels in its params."""
    unit = {"cnn_train": "images/s", "lstm_train": "sequences/s", "transformer_train": "tokens/s"}[benchmark]
    return {
        "benchmark": benchmark,
        "precision": precision,
        "unit": unit,
        "value": per_second,
        "p10": per_second * 0.98,
        "p90": per_second * 1.01,
        "cv": 0.01,
        "flags": flags or [],
        "error": None,
        "params": {"tier": tier, "batch": 256},
    }


def lab_run(
    gpu_id: str,
    host: str,
    cnn_images_s: float,
    *,
    tier: str = "gpu",
    matmul_scale: float = 1.0,
    quick: bool = False,
    flags: list[str] | None = None,
) -> dict[str, Any]:
    device, matmul, triad = LAB[gpu_id]
    return run_payload(
        device,
        host=host,
        quick=quick,
        flags=flags,
        results=[
            result("matmul", "fp16", matmul["fp16"] * matmul_scale),
            result("matmul", "fp32", matmul["fp32"]),
            result("triad", "fp32", triad),
            training("cnn_train", "fp16", cnn_images_s, tier),
        ],
    )


def predicted_cnn(catalog, gpu_id: str, hosts: int = 2) -> float:
    """The model's CNN rate of a lab card from its measured matmul and triad (images/s, the model's unit),
    as many hosts measured them (one host alone moves the spec estimate by a bounded factor only)."""
    _, matmul, triad = LAB[gpu_id]
    plain = PerformanceModel(
        load_rulebook(),
        catalog.gpu("gtx-1080-ti"),
        {gpu_id: Measured(hosts=hosts, matmul_tflops=matmul, bandwidth_gb_s=triad)},
    )
    return plain.relative(catalog.gpu(gpu_id), "cnn", "16-bit") * 1000.0


def without_training(measured: dict[str, Measured]) -> dict[str, Measured]:
    return {gpu_id: dataclasses.replace(m, training=()) for gpu_id, m in measured.items()}


def picks(advisor: Advisor) -> dict[str, Any]:
    return {p.gpu: p for p in advisor.recommend(CNN_COMPARE, intent="compare", today=date.today()).picks}


def test_the_labs_training_steps_move_the_advice(postgres_url: str, catalog) -> None:
    migrate(postgres_url)
    # the 3090's CNN steps run at 0.8x what the model predicts
    share = {
        "rtx-3090": 0.8,
        "rtx-4090": 1.0,
        "rtx-3080": 1.0,
    }
    for gpu_id, hosts in (("rtx-3090", ("a", "b")), ("rtx-4090", ("c", "d")), ("rtx-3080", ("e",))):
        for host in hosts:
            predicted = predicted_cnn(catalog, gpu_id, len(hosts))
            store(postgres_url, catalog, lab_run(gpu_id, host, predicted * share[gpu_id]))
    measured = lab_measurements(postgres_url)
    assert measured["rtx-3090"].training[0].hosts == 2 and measured["rtx-3090"].training[0].tier == "gpu"
    lab, specs_only = picks(Advisor(catalog, measured)), picks(Advisor(catalog, without_training(measured)))
    assert lab["rtx-3090"].relative_performance / specs_only[
        "rtx-3090"
    ].relative_performance == pytest.approx(0.8, rel=1e-3)
    assert lab["rtx-4090"].relative_performance == pytest.approx(
        specs_only["rtx-4090"].relative_performance, rel=1e-3
    )
    reason = next(f.reason for f in lab["rtx-3090"].findings if f.rule == "workload-priorities")
    assert "measured on 2 lab hosts, CNN training step 0.80× the spec estimate on 2 of them" in reason


def test_one_host_moves_a_card_only_a_little(postgres_url: str, catalog) -> None:
    migrate(postgres_url)
    store(postgres_url, catalog, lab_run("rtx-3090", "a", predicted_cnn(catalog, "rtx-3090", 1) * 0.4))
    for gpu_id, host in (("rtx-4090", "c"), ("rtx-3080", "e")):
        store(postgres_url, catalog, lab_run(gpu_id, host, predicted_cnn(catalog, gpu_id, 1)))
    measured = lab_measurements(postgres_url)
    lab, specs_only = picks(Advisor(catalog, measured)), picks(Advisor(catalog, without_training(measured)))
    assert lab["rtx-3090"].relative_performance / specs_only[
        "rtx-3090"
    ].relative_performance == pytest.approx(1 / 1.15, rel=1e-3)


def test_out_of_band_quick_and_other_tier_steps_stay_out(postgres_url: str, catalog) -> None:
    migrate(postgres_url)
    good = predicted_cnn(catalog, "rtx-3090")
    store(postgres_url, catalog, lab_run("rtx-3090", "a", good))
    # its fp16 matmul is under the band
    store(postgres_url, catalog, lab_run("rtx-3090", "low", good * 0.1, matmul_scale=0.1))
    store(postgres_url, catalog, lab_run("rtx-3090", "ci", good * 0.1, quick=True))
    store(postgres_url, catalog, lab_run("rtx-3090", "busy", good * 0.1, flags=["contended"]))
    store(postgres_url, catalog, lab_run("rtx-3090", "small", good * 0.5, tier="gpu_small"))
    steps = {(s.tier, s.per_second, s.hosts) for s in lab_measurements(postgres_url)["rtx-3090"].training}
    assert steps == {("gpu", good, 1), ("gpu_small", good * 0.5, 1)}
    # a second host with the same low figures: out of band is never used
    store(postgres_url, catalog, lab_run("rtx-3090", "low-2", good * 0.1, matmul_scale=0.1))
    [kept] = [s for s in lab_measurements(postgres_url)["rtx-3090"].training if s.tier == "gpu"]
    assert kept.hosts == 1 and kept.per_second == pytest.approx(good)


AGENT_RUN = [
    "--once",
    "--device",
    "cpu",
    "--json",
    "--no-send",
    "--no-progress",
    "--tier",
    "tiny",
    "--only",
    "cnn_train,lstm_train,transformer_train",
    "--warmup",
    "0.02",
    "--seconds",
    "0.1",
]


def _cpu_training_run(data_dir: Path) -> dict[str, Any]:
    """bench-agent's training steps, run for real on this CPU and printed, not sent."""
    agent_env = service_env("", data_dir)
    del agent_env["WHICHGPU_DATABASE_URL"]
    done = subprocess.run(
        [sys.executable, "-m", "bench_agent.cli", "run", *AGENT_RUN],
        cwd=ROOT,
        env=agent_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.e2e
def test_a_real_cpu_run_crosses_agent_service_and_advice(postgres_url: str, tmp_path: Path, catalog) -> None:
    """bench-agent's CNN / LSTM / transformer steps on this CPU, sent to a real server as if two lab hosts had
    measured them on an RTX 3090 and an RTX 4090: equal figures, where the model predicts the 4090 about
    twice as fast, move the 3090 up and the 4090 down, each by at most one host's bound."""
    measured_on_cpu = _cpu_training_run(tmp_path / "agent")
    assert {r["benchmark"] for r in measured_on_cpu["results"] if r["value"]} == {
        "cnn_train",
        "lstm_train",
        "transformer_train",
    }

    server = ServerProcess(postgres_url, tmp_path / "service", cli=False)
    try:
        server.start()
        ask = {
            "workload": "cnn",
            "budget": 5000,
            "used_ok": True,
            "intent": "compare",
            "compare": ["RTX 3090", "RTX 4090"],
        }
        before = _picks(httpx.post(f"{server.url}/v1/recommendations", json=ask, timeout=30))
        for host, device in (("lab-a", "NVIDIA GeForce RTX 3090"), ("lab-b", "NVIDIA GeForce RTX 4090")):
            response = httpx.post(
                f"{server.url}/v1/benchmarks",
                json=_as_gpu_run(measured_on_cpu, host, device),
                headers={"Authorization": f"Bearer {add_agent(postgres_url, host)}"},
                timeout=10,
            )
            assert response.status_code == 201, response.text
        after = _picks(httpx.post(f"{server.url}/v1/recommendations", json=ask, timeout=30))
    finally:
        server.stop()
    assert after["rtx-3090"]["relative_performance"] / before["rtx-3090"][
        "relative_performance"
    ] == pytest.approx(1.15, rel=1e-3)
    assert after["rtx-4090"]["relative_performance"] / before["rtx-4090"][
        "relative_performance"
    ] == pytest.approx(1 / 1.15, rel=1e-3)
    assert after["rtx-3090"]["performance_basis"] == {"kind": "measured", "hosts": 1}
    assert any(
        "CNN training step 1.15× the spec estimate on 1 of them" in r["reason"]
        for r in after["rtx-3090"]["rules"]
    )


def _as_gpu_run(payload: dict[str, Any], host: str, device: str) -> dict[str, Any]:
    """The CPU run's real figures and sizes as one lab host's GPU run. This shared test machine is busy, so
    the agent flags its timing contended and noisy; a lab GPU's run that counts carries neither."""
    run = json.loads(json.dumps(payload))
    run.update(run_id=uuid.uuid4().hex, host=host, flags=[])
    run["device"].update(name=device, type="cuda", memory_gb=24.0)
    for result_ in run["results"]:
        result_["flags"] = [f for f in result_["flags"] if f not in ("noisy", "contended")]
    return run


def _picks(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    return {p["gpu"]: p for p in response.json()["picks"]}


def test_a_flood_of_excluded_runs_costs_a_rebuild_a_bounded_number_of_queries(
    sqlite_url: str, catalog
) -> None:
    """One token once stored 17,000 excluded runs and each rebuild paged past them with a growing OFFSET
    (1.7 s a rebuild). Runs are read per host, by key, among the host's newest few: the queries a rebuild
    makes do not grow with the flood."""
    from service.measurements import SCAN_PER_HOST, read_measurements

    migrate(sqlite_url)
    store(sqlite_url, catalog, run_payload(host="lab", results=[result("matmul", "fp16", 60.0)]))
    for _ in range(30):  # contended runs of one host, then copied 100 times over in bulk
        run = run_payload(host="flood", flags=["contended"], results=[result("matmul", "fp16", 20.0)])
        store(sqlite_url, catalog, run)
    with sqlite3.connect(sqlite_url.removeprefix("sqlite:///")) as db:
        columns = "run_id, agent, host, device_name, gpu_id, started_at, received_at, flags, environ"
        copies = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) "
        db.execute(
            f"INSERT INTO benchmark_run ({columns}) {copies}"
            "SELECT 'flood-' || c.n || '-' || run_id, agent, host, device_name, gpu_id, started_at, "
            "received_at, flags, environ FROM benchmark_run, c WHERE host = 'flood'"
        )
        assert db.execute("SELECT count(*) FROM benchmark_run WHERE host = 'flood'").fetchone()[0] >= 3000
        statements: list[str] = []
        db.set_trace_callback(statements.append)
        measured = read_measurements(db)
    assert measured["rtx-3090"].matmul_tflops == {"fp16": 60.0} and measured["rtx-3090"].hosts == 1
    pages = [s for s in statements if "FROM benchmark_run" in s and "ORDER BY" in s]
    assert len(pages) <= SCAN_PER_HOST // 20 + 2, len(pages)
