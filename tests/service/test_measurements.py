"""Lab measurements read with plain SQL: the same figures the service reads, and nothing
read (or created) when there is no database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rules.catalog import load_catalog
from service.benchmarks import load_measurements
from service.db import migrate, session_scope
from service.measurements import lab_measurements
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
        store(database_url, catalog, run_payload(host=host, results=[result("matmul", "fp16", fp16), result("triad", "fp32", 800.0)]))
    store(database_url, catalog, run_payload(host="ci", quick=True, results=[result("matmul", "fp16", 5.0)]))
    store(database_url, catalog, run_payload("NVIDIA H100 80GB HBM3", host="c", results=[result("copy", "fp32", 3000.0)]))
    with session_scope(database_url) as session:
        expected = load_measurements(session)
    measured = lab_measurements(database_url)
    assert measured == expected
    assert measured["rtx-3090"].matmul_tflops == {"fp16": 62.0} and measured["rtx-3090"].hosts == 2
    assert set(measured) == {"rtx-3090", catalog.find("NVIDIA H100 80GB HBM3").id}
