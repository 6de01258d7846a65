"""The catalog against its datasheets: every spec has a source, and figures agree with
Epoch AI's ML hardware database (CC BY 4.0) unless an exception says why not."""

from __future__ import annotations

import json
import shutil
from datetime import date

import pytest

from rules.knowledge.catalog import CatalogError
from rules.knowledge.datafile import DATA_DIR, load_data
from rules.knowledge.loaded import load_catalog

TOLERANCE = 0.10  # tensor peak and bandwidth
DAYS = 31  # release dates
FIELDS = ("released", "tensor_16bit_tflops", "bandwidth_gb_s")


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


@pytest.fixture(scope="module")
def sheets():
    return load_data("datasheets")  # schema-checked


def _ours(gpu, fld):
    if fld == "released":
        return gpu.released
    if fld == "bandwidth_gb_s":
        return gpu.bandwidth_gb_s
    return max(gpu.tensor_tflops.get("fp16", 0.0), gpu.tensor_tflops.get("bf16", 0.0)) or None


def disagreements(gpu, row) -> dict[str, str]:
    """Figures of ``gpu`` outside the tolerance of the datasheet ``row``."""
    out = {}
    for fld in FIELDS:
        theirs = row.get(fld)
        if theirs is None:
            continue
        ours = _ours(gpu, fld)
        if fld == "released":
            days = abs((ours - date.fromisoformat(theirs)).days)
            if days > DAYS:
                out[fld] = f"{ours} vs {theirs}: {days} days apart"
        elif ours is None or abs(ours / theirs - 1) > TOLERANCE:
            out[fld] = f"{ours} vs {theirs}"
    return out


def test_every_row_credits_epoch_and_names_a_catalog_gpu(cat, sheets):
    assert "Epoch AI" in sheets["credit"] and "CC BY 4.0" in sheets["credit"]
    seen = set()
    for row in sheets["datasheets"]:
        cat.gpu(row["gpu"])
        assert row["source"].startswith("Epoch AI, ML hardware database")
        assert row["epoch_name"] in row["source"]
        assert row["gpu"] not in seen, row["gpu"]
        seen.add(row["gpu"])
    assert len(seen) >= 50


def test_catalog_agrees_with_datasheets_or_says_why_not(cat, sheets):
    unexplained, stale = [], []
    for row in sheets["datasheets"]:
        found = disagreements(cat.gpu(row["gpu"]), row)
        excused = row.get("exceptions", {})
        unexplained += [f"{row['gpu']} {f}: {why}" for f, why in found.items() if f not in excused]
        stale += [f"{row['gpu']} {f}" for f in excused if f not in found]
    assert not unexplained, "figures that disagree with their datasheet:\n" + "\n".join(unexplained)
    assert not stale, "exceptions for figures that now agree (remove them): " + ", ".join(stale)


def test_the_check_catches_a_wrong_figure(cat, sheets):
    row = next(r for r in sheets["datasheets"] if r["gpu"] == "h100-sxm")
    assert disagreements(cat.gpu("h100-sxm"), row) == {}
    wrong = dict(
        row,
        tensor_16bit_tflops=row["tensor_16bit_tflops"] * 1.2,
        bandwidth_gb_s=row["bandwidth_gb_s"] * 0.85,
        released="2022-01-01",
    )
    assert set(disagreements(cat.gpu("h100-sxm"), wrong)) == set(FIELDS)


def test_every_spec_names_its_source(cat):
    raw = load_data("gpus")["gpus"]
    for e in raw:
        assert len(e["source"]) > 20, e["id"]
        for block in ("overrides", "specs"):
            if block in e:
                source = e[block]["source"]
                assert len(source) > 20 and any(c.isdigit() for c in source), (e["id"], block)
    for g in cat.gpus:
        assert all(len(v) > 10 for v in g.sources.values()), g.id
        assert {"specs", "overlay", "architecture"} <= set(g.sources), g.id
    for a in cat.architectures.values():
        assert len(a.source) > 20, a.id


@pytest.mark.parametrize("gid, block", [("b200", "overrides"), ("gb200", "specs")])
def test_a_figure_without_a_source_is_refused(tmp_path, gid, block):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    doc = json.loads((d / "gpus.json").read_text())
    next(e for e in doc["gpus"] if e["id"] == gid)[block].pop("source")
    (d / "gpus.json").write_text(json.dumps(doc))
    with pytest.raises(CatalogError, match=f"'{gid}'.*'source' is a required property"):
        load_catalog(d, use_cache=False)
