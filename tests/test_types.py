"""The type check runs with the tests, so CI keeps the typed packages clean (pyproject ``[tool.mypy]``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TYPED_PACKAGES = ("rules", "bot", "bench_agent", "service")


@pytest.mark.parametrize("package", TYPED_PACKAGES)
def test_mypy_finds_no_errors(package: str, tmp_path: Path) -> None:
    # Each package answers for its own errors: the ones it imports are read, their errors reported under
    # their own name.
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"),
               "--follow-imports=silent", package]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
