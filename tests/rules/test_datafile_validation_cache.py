"""Data files are validated once per content: a marker keyed by the bytes of the file and its
schema lets a later start skip jsonschema, and any change to the bytes is checked again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rules.datafile import DATA_DIR, DataFileError, load_data

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("WHICHGPU_CACHE_DIR", str(folder))
    return folder


def _copy(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    (data / "messages.json").write_bytes((DATA_DIR / "messages.json").read_bytes())
    return data


def test_a_valid_file_leaves_one_marker_and_a_changed_one_is_checked_again(tmp_path: Path, cache: Path) -> None:
    data = _copy(tmp_path)
    assert load_data("messages", data)["languages"] == ["en", "ru"]
    assert len(list(cache.glob("valid-messages-*"))) == 1
    broken = json.loads((data / "messages.json").read_text(encoding="utf-8"))
    broken["messages"]["heading.why"].pop("ru")
    (data / "messages.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(DataFileError, match="ru"):
        load_data("messages", data)
    assert len(list(cache.glob("valid-messages-*"))) == 1  # a failing file leaves none


def test_a_known_file_loads_without_jsonschema(tmp_path: Path, cache: Path) -> None:
    probe = ("import sys; from rules.datafile import load_data; load_data('messages'); load_data('vocabulary'); "
             "print('jsonschema' in sys.modules)")
    env = {**os.environ, "WHICHGPU_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    run = lambda: subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60, check=True).stdout  # noqa: E731
    assert run().strip() == "True"  # first start: checked
    assert run().strip() == "False"  # same bytes: not again
