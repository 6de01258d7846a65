"""The lint runs with the tests, so CI holds the code to pyproject's ``[tool.ruff]`` as it does to mypy's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"

# The paths held to the configuration, one a line.
LINTED = (
    "bench_agent",
    "benchmarks",
    "bot",
    "deploy",
    "rules",
    "scripts",
    "tests/bench_agent",
    "tests/bot",
    "tests/deploy",
    "tests/quality",
    "tests/rules",
    "service",
    "tests/service",
    "tests/web",
)
# Files under a linted path that are not held yet (none now; a file listed here must still break the
# configuration, or the last test below fails).
NOT_YET: set[str] = set()


def linted_paths() -> list[str]:
    """LINTED and every top-level file of tests/ (a new one is linted without being listed)."""
    top_level = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").glob("*.py"))
    return [*LINTED, *(path for path in top_level if path not in NOT_YET)]


def assert_lint_clean(*paths: str | Path) -> None:
    """``ruff check`` of the paths, by this environment's ruff under the project's configuration; the files
    in NOT_YET are left out wherever they lie."""
    excluded = [arg for path in sorted(NOT_YET) for arg in ("--extend-exclude", path)]
    command = [sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(PYPROJECT),
               *excluded, *map(str, paths)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"ruff check found problems:\n{done.stdout}{done.stderr}"


def test_the_linted_paths_keep_to_the_configuration() -> None:
    assert_lint_clean(*linted_paths())


def test_a_file_that_breaks_the_configuration_fails_with_ruffs_report(tmp_path: Path) -> None:
    bad = tmp_path / "careless.py"
    long_string = "x" * 120
    bad.write_text(f"import os\n\n\ndef long_line() -> str:\n    return '{long_string}'\n", encoding="utf-8")
    with pytest.raises(AssertionError) as failure:
        assert_lint_clean(bad)
    report = str(failure.value)
    assert "careless.py" in report
    assert "F401" in report and "E501" in report  # the unused import and the long line, as ruff names them


def test_a_file_not_yet_held_still_needs_leaving_out() -> None:
    """Once a NOT_YET file keeps to the configuration (or is gone), it joins the linted paths."""
    for path in NOT_YET:
        assert (ROOT / path).exists(), f"{path} is gone: take it out of NOT_YET"
        command = [sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(PYPROJECT), path]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode != 0, f"{path} keeps to the configuration now: take it out of NOT_YET"
