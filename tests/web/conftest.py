"""Fixtures for the web face: the engine over the shipped catalog, and the real app on SQLite."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from rules.advisor import Advisor
from rules.knowledge.loaded import load_catalog
from tests.app_client import app_client


@pytest.fixture(scope="session")
def advisor() -> Advisor:
    return Advisor(load_catalog())


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The whole app (create_app) on a fresh SQLite database, shared by a module's read-only tests."""
    with app_client(tmp_path_factory.mktemp("web")) as test_client:
        yield test_client


@pytest.fixture
def fresh_client(tmp_path: Path) -> Iterator[TestClient]:
    """An app of its own, for tests that store data or count cache hits."""
    with app_client(tmp_path) as test_client:
        yield test_client


def rtx_3090_run(host: str = "lab-1") -> dict[str, Any]:
    """A bench-agent payload plausible for an RTX 3090 (as the agent sends it)."""
    started = datetime.now(UTC) - timedelta(hours=1)

    def result(benchmark: str, precision: str, unit: str, value: float) -> dict[str, Any]:
        return {
            "benchmark": benchmark,
            "precision": precision,
            "unit": unit,
            "value": value,
            "p10": value * 0.97,
            "p90": value * 1.01,
            "cv": 0.01,
            "flags": [],
            "error": None,
            "params": {"m": 8192, "n": 8192, "k": 8192} if benchmark == "matmul" else {},
        }

    return {
        "schema_version": 1,
        "run_id": uuid.uuid4().hex,
        "agent_version": "0.1.0",
        "host": host,
        "quick": False,
        "device": {
            "name": "NVIDIA GeForce RTX 3090",
            "uuid": None,
            "index": 0,
            "compute_capability": "8.6",
            "memory_gb": 24.0,
            "driver": "550.54",
            "cuda": "12.4",
            "type": "cuda",
        },
        "environ": {"torch": "2.5.1", "python": "3.11.9", "cpu": "AMD EPYC", "ram_gb": 128.0, "threads": 16},
        "started_at": started.isoformat(),
        "finished_at": (started + timedelta(minutes=3)).isoformat(),
        "flags": [],
        "results": [
            result("matmul", "fp32", "TFLOP/s", 30.0),
            result("matmul", "fp16", "TFLOP/s", 60.0),
            result("copy", "fp32", "GB/s", 800.0),
            result("triad", "fp32", "GB/s", 820.0),
            result("cnn_train", "fp32", "images/s", 3000.0),
        ],
        "telemetry": {"source": "none"},
    }
