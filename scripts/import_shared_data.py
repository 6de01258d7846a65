#!/usr/bin/env python3
"""Regenerate the imported parts of the catalog from the shared data sets.

    python scripts/import_shared_data.py [DATA_DIR]      # default: ../shared/data

Reads ``DATA_DIR/ebay-gpu-prices/monthly-2021-2023.csv`` and every
``DATA_DIR/cloud-gpus/*.csv`` and rewrites, in ``rules/data/``:

- ``prices.json``: the rows whose source starts with ``Tom's Hardware eBay
  sold-price survey`` (one ``used`` point per GPU and month, plus a ``new`` point
  where the survey gave a retail price);
- ``cloud_offers.json``: the rows whose source starts with ``Full Stack Deep
  Learning cloud GPU table`` (every row of every snapshot, serverless included).

Hand-curated rows (any other source) are kept as they are. Run it by hand and
commit the result; the product never reads the shared data at run time.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "rules" / "data"
EBAY_PREFIX = "Tom's Hardware eBay sold-price survey"
FSDL_PREFIX = "Full Stack Deep Learning cloud GPU table"

# eBay survey name -> catalog id (names not listed have no catalog entry)
EBAY_MAP = {
    "GeForce GTX 1650": "gtx-1650",
    "GeForce GTX 1650 Super": "gtx-1650-super",
    "GeForce GTX 1660": "gtx-1660",
    "GeForce GTX 1660 Super": "gtx-1660-super",
    "GeForce GTX 1660 Ti": "gtx-1660-ti",
    "GeForce RTX 2060": "rtx-2060",
    "GeForce RTX 2060 Super": "rtx-2060-super",
    "GeForce RTX 2070": "rtx-2070",
    "GeForce RTX 2070 Super": "rtx-2070-super",
    "GeForce RTX 2080": "rtx-2080",
    "GeForce RTX 2080 Super": "rtx-2080-super",
    "GeForce RTX 2080 Ti": "rtx-2080-ti",
    "GeForce RTX 3050": "rtx-3050",
    "GeForce RTX 3060": "rtx-3060",  # the 12 GB card; the survey splits it out only later
    "GeForce RTX 3060 12GB": "rtx-3060",
    "GeForce RTX 3060 Ti": "rtx-3060-ti",
    "GeForce RTX 3070": "rtx-3070",
    "GeForce RTX 3070 Ti": "rtx-3070-ti",
    "GeForce RTX 3080": "rtx-3080",
    "GeForce RTX 3080 12GB": "rtx-3080-12gb",
    "GeForce RTX 3080 Ti": "rtx-3080-ti",
    "GeForce RTX 3090": "rtx-3090",
    "GeForce RTX 3090 Ti": "rtx-3090-ti",
    "GeForce RTX 4060": "rtx-4060",
    "GeForce RTX 4060 Ti": "rtx-4060-ti-8gb",
    "GeForce RTX 4060 Ti 16GB": "rtx-4060-ti-16gb",
    "GeForce RTX 4070": "rtx-4070",
    "GeForce RTX 4070 Ti": "rtx-4070-ti",
    "GeForce RTX 4080": "rtx-4080",
    "GeForce RTX 4090": "rtx-4090",
    "Intel Arc A380": "arc-a380",
    "Intel Arc A580": "arc-a580",
    "Intel Arc A750": "arc-a750",
    "Intel Arc A770 16GB": "arc-a770",
    "Radeon RX 6600": "rx-6600",
    "Radeon RX 6600 XT": "rx-6600-xt",
    "Radeon RX 6650 XT": "rx-6650-xt",
    "Radeon RX 6700 XT": "rx-6700-xt",
    "Radeon RX 6750 XT": "rx-6750-xt",
    "Radeon RX 6800": "rx-6800",
    "Radeon RX 6800 XT": "rx-6800-xt",
    "Radeon RX 6900 XT": "rx-6900-xt",
    "Radeon RX 6950 XT": "rx-6950-xt",
    "Radeon RX 7600": "rx-7600",
    "Radeon RX 7700 XT": "rx-7700-xt",
    "Radeon RX 7800 XT": "rx-7800-xt",
    "Radeon RX 7900 XT": "rx-7900-xt",
    "Radeon RX 7900 XTX": "rx-7900-xtx",
}


def cloud_gpu_id(name: str, mem_per_gpu: float | None) -> str | None:
    """Catalog id for the table's GPU Type (e.g. 'A100 (80 GB)', 'Nvidia L4')."""
    n = re.sub(r"\(.*?\)", "", name).replace("Nvidia", "").replace("NVIDIA", "").strip().upper()
    n = n.replace("QUADRO ", "").replace(" ", "")
    mem = mem_per_gpu
    m = re.search(r"\((\d+)\s*(?:GB)?\)", name)
    if m:
        mem = float(m.group(1))
    if n == "A100":
        if mem is not None and mem < 40:
            return None  # a MIG slice / 20 GB partition: no whole catalog GPU
        return "a100-80gb-sxm" if (mem or 40) >= 80 else "a100-40gb-sxm"
    if n == "V100":
        return "v100-sxm2-32gb" if (mem or 16) >= 32 else "v100-sxm2-16gb"
    if n in ("H100", "H100HGX"):
        return "h100-sxm"
    table = {
        "H100PCIE": "h100-pcie",
        "A10G": "a10g",
        "A10": "a10",
        "A40": "a40",
        "A6000": "rtx-a6000",
        "RTXA6000": "rtx-a6000",
        "A5000": "rtx-a5000",
        "A4000": "rtx-a4000",
        "K80": "tesla-k80",
        "P100": "tesla-p100-pcie-16gb",
        "P4": "tesla-p4",
        "T4": "t4",
        "L4": "l4",
        "L40": "l40",
        "L40S": "l40s",
        "RTX5000": "quadro-rtx-5000",
        "RTX4000": "quadro-rtx-4000",
        "RTX6000": "quadro-rtx-6000",
        "3080TI": "rtx-3080-ti",
        "GH200": None,
    }
    return table.get(n)


def money(text: str) -> float | None:
    t = (text or "").strip().replace("$", "").replace(",", "")
    if not t or t in ("-", "N/A", "n/a"):
        return None
    return float(t)


def number(text: str) -> float | None:
    t = re.sub(r"[^0-9.]", "", text or "")
    return float(t) if t else None


def import_ebay(data_dir: Path) -> tuple[list[dict], set[str]]:
    path = data_dir / "ebay-gpu-prices" / "monthly-2021-2023.csv"
    acc: dict[tuple[str, str, str], list[tuple[float, int]]] = defaultdict(list)
    skipped: set[str] = set()
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            gid = EBAY_MAP.get(row["gpu"])
            if gid is None:
                skipped.add(row["gpu"])
                continue
            sold = int(number(row["qty_sold"]) or 0)
            used = money(row["ebay_avg_sold_usd"])
            if used:  # 0 / empty: no sales that month
                acc[(gid, row["month"], "used")].append((used, sold))
            retail = money(row["retail_usd"])
            if retail:
                acc[(gid, row["month"], "new")].append((retail, 0))
    rows = []
    for (gid, month, kind), pts in sorted(acc.items()):
        total = sum(s for _, s in pts)
        if kind == "used" and total:
            price = sum(p * s for p, s in pts) / total
        else:
            price = sum(p for p, _ in pts) / len(pts)
        row = {
            "gpu": gid,
            "seen": f"{month}-15",
            "kind": kind,
            "price": round(price, 2),
            "currency": "USD",
            "source": f"{EBAY_PREFIX}, {month}" + (" (average sold price)" if kind == "used" else " (retail price)"),
        }
        if kind == "used":
            row["sold"] = total
        rows.append(row)
    return rows, skipped


def import_cloud(data_dir: Path) -> tuple[list[dict], set[str]]:
    rows: list[dict] = []
    unmapped: set[str] = set()
    for path in sorted((data_dir / "cloud-gpus").glob("*.csv")):
        m = re.search(r"(\d{4}-\d{2}-\d{2})", path.name)
        if not m:
            continue
        seen = m.group(1)
        serverless = path.name.startswith("serverless")
        with path.open(newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                provider = (row.get("Cloud") or row.get("Vendor") or "").strip()
                acc = (row.get("GPU Type") or "").strip()
                count = int(number(row.get("GPUs", "")) or 1)
                gpu_ram = number(row.get("GPU RAM", ""))
                mem = round(gpu_ram / count, 1) if gpu_ram else None
                on_demand = money(row.get("On-demand") if not serverless else row.get("Per-Hour"))
                per_gpu = money(row.get("Per-GPU"))
                if per_gpu is None and on_demand is not None:
                    per_gpu = round(on_demand / count, 4)
                if on_demand is None and per_gpu is not None:
                    on_demand = round(per_gpu * count, 4)
                if on_demand is None:
                    raise SystemExit(f"{path.name}: row without a price: {row}")
                gid = cloud_gpu_id(acc, mem)
                if gid is None:
                    unmapped.add(acc)
                rows.append(
                    {
                        "provider": provider,
                        "instance": (row.get("Name") or "").strip(),
                        "accelerator": acc,
                        "kind": "gpu",
                        "gpu": gid,
                        "count": count,
                        "on_demand_per_hour": on_demand,
                        "per_gpu_per_hour": per_gpu,
                        "spot_per_hour": money(row.get("Spot", "")),
                        "gpu_memory_gb": mem,
                        "arch": (row.get("GPU Arch") or "").strip() or None,
                        "vcpus": number(row.get("vCPUs", "")),
                        "ram_gb": number(row.get("RAM", "")),
                        "serverless": serverless,
                        "seen": seen,
                        "source": f"{FSDL_PREFIX}, snapshot {seen} (MIT)" + (", serverless" if serverless else ""),
                    }
                )
    return rows, unmapped


def write_rows(path: Path, key: str, doc: dict) -> None:
    """JSON with one list entry per line: small diffs, small file."""
    head = {k: v for k, v in doc.items() if k not in (key, "tpus")}
    parts = ["{"]
    for k, v in head.items():
        parts.append(f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
    for k in ("tpus", key):
        if k not in doc:
            continue
        items = ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in doc[k])
        parts.append(f"{json.dumps(k)}: [\n{items}\n]" + ("," if k != key else ""))
    parts.append("}")
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")


def replace_imported(file_name: str, key: str, prefix: str, imported: list, noun: str) -> None:
    """Swap the rows whose source starts with ``prefix`` for ``imported``; hand-curated rows stay."""
    path = OUT_DIR / file_name
    doc = json.loads(path.read_text(encoding="utf-8"))
    hand = [row for row in doc[key] if not row["source"].startswith(prefix)]
    doc[key] = hand + imported
    write_rows(path, key, doc)
    print(f"{file_name}: {len(hand)} hand-curated + {len(imported)} imported {noun}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data_dir", nargs="?", default="../shared/data", help="shared data folder (relative to the repo root)")
    args = ap.parse_args(argv)
    data_dir = Path(args.data_dir)
    if not data_dir.is_absolute():
        data_dir = (REPO / data_dir).resolve()
    if not data_dir.is_dir():
        print(f"no such folder: {args.data_dir}", file=sys.stderr)
        return 2

    ebay, skipped = import_ebay(data_dir)
    replace_imported("prices.json", "prices", EBAY_PREFIX, ebay, "points")
    if skipped:
        print(f"  eBay GPUs without a catalog entry (skipped): {', '.join(sorted(skipped))}")
    cloud, unmapped = import_cloud(data_dir)
    replace_imported("cloud_offers.json", "offers", FSDL_PREFIX, cloud, "offers")
    if unmapped:
        print(f"  accelerators without a catalog GPU (gpu: null): {', '.join(sorted(unmapped))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
