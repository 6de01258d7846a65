"""The on-disk catalog cache: used only when it matches the data exactly, rebuilt otherwise."""

from __future__ import annotations

import json
import shutil
import time

import pytest

import rules.catalog as catalog_module
from rules.catalog import DATA_DIR, load_catalog


@pytest.fixture()
def data(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    return d


def _files(cache):
    return sorted(cache.glob("catalog-*.pickle"))


def test_a_warm_load_gives_the_same_catalog_without_validating(data, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cold = load_catalog(data, cache_dir=cache)
    assert len(_files(cache)) == 1

    def no_validation(*args):
        raise AssertionError("a matching cache must not be validated and built again")

    monkeypatch.setattr(catalog_module, "_build", no_validation)
    warm = load_catalog(data, cache_dir=cache)
    assert warm is not cold and warm.version == cold.version
    assert warm.gpus == cold.gpus and warm.offers == cold.offers and warm.currencies == cold.currencies
    assert warm.resolve("a100 80gb") == cold.resolve("a100 80gb")
    assert dict(warm.gpu("rtx-4090").tensor_tflops) == dict(cold.gpu("rtx-4090").tensor_tflops)


def test_changed_data_is_never_served_from_a_stale_cache(data, tmp_path):
    cache = tmp_path / "cache"
    before = load_catalog(data, cache_dir=cache)
    doc = json.loads((data / "gpus.json").read_text())
    next(g for g in doc["gpus"] if g["id"] == "rtx-4090")["name"] = "GeForce RTX 4090 (edited)"
    (data / "gpus.json").write_text(json.dumps(doc))
    after = load_catalog(data, cache_dir=cache)
    assert after.gpu("rtx-4090").name == "GeForce RTX 4090 (edited)" and after.version != before.version
    assert len(_files(cache)) == 2


def test_changed_code_is_never_served_an_old_cache(data, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    load_catalog(data, cache_dir=cache)
    real = catalog_module.Path.read_bytes

    def edited(path):
        blob = real(path)
        return blob + b"# edited" if path.name == "money.py" else blob

    monkeypatch.setattr(catalog_module.Path, "read_bytes", edited)
    load_catalog(data, cache_dir=cache)
    assert len(_files(cache)) == 2  # a new key: built again


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_a_damaged_cache_is_rebuilt_not_trusted(data, tmp_path, damage):
    cache = tmp_path / "cache"
    good = load_catalog(data, cache_dir=cache)
    (path,) = _files(cache)
    blob = path.read_bytes()
    if damage == "truncate":
        blob = blob[: len(blob) // 2]
    elif damage == "flip":  # payload changed, header and digest kept
        blob = blob[:-10] + bytes(b ^ 0xFF for b in blob[-10:])
    else:
        blob = b"not a cache at all"
    path.write_bytes(blob)
    again = load_catalog(data, cache_dir=cache)
    assert again.gpus == good.gpus
    assert path.read_bytes() != blob  # rewritten whole


def test_an_unwritable_cache_dir_still_loads(data, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache dir should be")
    assert len(load_catalog(data, cache_dir=blocker / "cache").gpus) > 100


def test_bad_data_is_refused_even_with_a_cache(data, tmp_path):
    cache = tmp_path / "cache"
    load_catalog(data, cache_dir=cache)
    doc = json.loads((data / "gpus.json").read_text())
    doc["gpus"][0]["cooling"] = ["fan"]
    (data / "gpus.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="field 'cooling'"):
        load_catalog(data, cache_dir=cache)


def test_cold_and_warm_load_times(data, tmp_path, capsys):
    """CPU time, the least of three warm loads: a neighbour on the machine can stall any one wall-clock run."""
    cache = tmp_path / "cache"
    t0 = time.process_time()
    load_catalog(data, use_cache=False)
    t1 = time.process_time()
    load_catalog(data, cache_dir=cache)
    t2 = time.process_time()
    warm = []
    for _ in range(3):
        start = time.process_time()
        load_catalog(data, cache_dir=cache)
        warm.append(time.process_time() - start)
    with capsys.disabled():
        print(f"\ncatalog (CPU): full build {t1 - t0:.3f} s, build + cache write {t2 - t1:.3f} s, warm {min(warm):.3f} s")
    assert min(warm) < (t1 - t0) / 3
