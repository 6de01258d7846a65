#!/usr/bin/env python3
"""Refresh ``rules/data/datasheets.json`` from Epoch AI's ML hardware database.

    python scripts/import_datasheets.py PATH/TO/ml_hardware.csv

``datasheets.json`` pairs catalog GPU ids with rows of Epoch AI, "Data on Machine
Learning Hardware" (CC BY 4.0, epoch.ai/data/machine-learning-hardware). For every
pair already listed there, this rewrites the release date, dense tensor 16-bit peak,
memory bandwidth, datasheet link and source from the CSV; ids, Epoch names and the
written exceptions are kept. To add a pair, add ``{"gpu": ..., "epoch_name": ...}``
and run it. Run it by hand and commit the result: the product never reads the CSV.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "rules" / "data" / "datasheets.json"
CREDIT = ("Epoch AI, ML hardware database ('Data on Machine Learning Hardware', "
          "epoch.ai/data/machine-learning-hardware), CC BY 4.0")


def _number(text: str, scale: float) -> float | None:
    return round(float(text) / scale, 1) if text and text.strip() else None


def refreshed(row: dict, epoch: dict[str, str]) -> dict:
    """One datasheet row with its figures taken again from the Epoch CSV row."""
    out = {"gpu": row["gpu"], "epoch_name": row["epoch_name"], "released": epoch["Release date"]}
    tensor = _number(epoch["Tensor-FP16/BF16 performance (FLOP/s)"], 1e12)
    bandwidth = _number(epoch["Memory bandwidth (byte/s)"], 1e9)
    if tensor is not None:
        out["tensor_16bit_tflops"] = tensor
    if bandwidth is not None:
        out["bandwidth_gb_s"] = bandwidth
    link = epoch["Link to datasheet"].split()[0] if epoch["Link to datasheet"].strip() else None
    if link:
        out["datasheet"] = link
    out["source"] = f"{CREDIT}, row '{row['epoch_name']}', last modified {epoch['Last modified'][:10]}"
    if row.get("exceptions"):
        out["exceptions"] = row["exceptions"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=Path, help="Epoch AI ml_hardware.csv")
    args = parser.parse_args(argv)
    with args.csv.open(newline="", encoding="utf-8") as f:
        epoch = {r["Hardware name"]: r for r in csv.DictReader(f)}
    doc = json.loads(OUT.read_text(encoding="utf-8"))
    missing = [r["epoch_name"] for r in doc["datasheets"] if r["epoch_name"] not in epoch]
    if missing:
        print(f"not in {args.csv.name}: {', '.join(missing)}", file=sys.stderr)
        return 1
    doc["datasheets"] = [refreshed(r, epoch[r["epoch_name"]]) for r in doc["datasheets"]]
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(doc['datasheets'])} datasheet rows written to {OUT.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
