#!/usr/bin/env python3
"""Regenerate the imported parts of the catalog from the shared data sets.

    python scripts/import_shared_data.py [DATA_DIR]      # default: ../shared/data

Reads ``DATA_DIR/ebay-gpu-prices/monthly-2021-2023.csv``,
``DATA_DIR/retail-price-tracker/monthly-2022-2025.csv``,
``DATA_DIR/epoch-ml-hardware/ml_hardware.csv`` and every
``DATA_DIR/cloud-gpus/*.csv`` and rewrites, in ``rules/data/``:

- ``prices.json``: the rows whose source starts with ``Tom's Hardware eBay
  sold-price survey`` (one ``used`` point per GPU and month, plus a ``new`` point
  where the survey gave a retail price), ``Amazon.com buy-box price`` (one ``new``
  point per GPU and month: what one listing asked, which may sit above MSRP) and
  ``Epoch AI`` (one ``msrp`` point per GPU at its release, credited to Epoch AI under
  CC BY 4.0 with Epoch's own price source);
- ``prices.json``: the rows whose source starts with ``Street price seen``: the
  dated 2026 (and late 2025) street prices of ``street-prices-2026/``, US rows, the
  cheapest per card, condition and date, each with its source title, address,
  retailer, date and reliability grade. A "low" row stands only beside a better one
  (a "higher" or "medium" row of the same card and condition, or a vendor's list
  price for the card); a row without a month ("2026") is left out;
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
sys.path.insert(0, str(REPO))

from rules.knowledge.catalog import Catalog  # noqa: E402
from rules.knowledge.loaded import load_catalog  # noqa: E402

OUT_DIR = REPO / "rules" / "data"
EBAY_PREFIX = "Tom's Hardware eBay sold-price survey"
FSDL_PREFIX = "Full Stack Deep Learning cloud GPU table"
TRACKER_PREFIX = "Amazon.com buy-box price"
EPOCH_PREFIX = "Epoch AI, 'Data on Machine Learning Hardware'"
STREET_PREFIX = "Street price seen"
# street-prices-2026 card names -> catalog id; a name not here is not imported (a different product or
# configuration than any catalog entry: AMD's own Ryzen AI Halo box is not the Framework Desktop the
# catalog's 128 GB Ryzen AI Max+ 395 entry prices)
STREET_CARDS: dict[str, str] = {
    "GeForce RTX 5090": "rtx-5090",
    "GeForce RTX 5080": "rtx-5080",
    "GeForce RTX 5070 Ti": "rtx-5070-ti",
    "GeForce RTX 5070": "rtx-5070",
    "GeForce RTX 5060 Ti 16GB": "rtx-5060-ti-16gb",
    "GeForce RTX 5060": "rtx-5060",
    "GeForce RTX 4090": "rtx-4090",
    "GeForce RTX 3090": "rtx-3090",
    "GeForce RTX 3060 12GB": "rtx-3060",
    "RTX PRO 6000 Blackwell (Workstation Edition)": "rtx-pro-6000-blackwell",
    "NVIDIA DGX Spark (GB10, 128GB)": "dgx-spark",
    "Framework Desktop (Ryzen AI Max+ 395, 128GB)": "ryzen-ai-max-395-128gb",
    "Mac Studio M3 Ultra (base config)": "mac-studio-m3-ultra-96gb",
    "Radeon RX 9070 XT": "rx-9070-xt",
    "Radeon RX 9060 XT 16GB": "rx-9060-xt-16gb",
    "Intel Arc B580": "arc-b580",
}
STREET_RELIABLE = ("higher", "medium")  # a "low" row stands only beside one of these or a vendor list price
# rows graded "higher" whose own note says the page is of low reliability (date inferred, no retailer): the
# grade the data set's README gives such pages
STREET_LOW_BY_NOTE = ("https://redactleunlimited.com/",)
TRACKER_MIN_OBSERVATIONS = 3  # fewer daily observations in a month: too weak to keep
TRACKER_MAX_OVER_MEDIAN = 2.5  # a month this far above the listing's median is a marketplace outlier

# Source names the catalog's resolver cannot judge: the catalog id, or None for a name that must map to
# nothing. Every other name is resolved by Catalog.resolve (see catalog_id).
OVERRIDES: dict[str, str | None] = {
    # price tracker: spelled "PCle" (a lower-case L), so the resolver finds no A100 in it
    "NVIDIA A100 40GB PCle": "a100-40gb-pcie",
    # price tracker: the listing's $480-520 matches the 16 GB card's $499 list price;
    # a bare "4060 Ti" means the 8 GB card
    "NVIDIA GeForce RTX 4060 Ti": "rtx-4060-ti-16gb",
    # eBay survey: the 2023 board with GDDR6 (192 GB/s) is not the catalog's GDDR5 card; its prices stay apart
    "GeForce GTX 1650 GDDR6": None,
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


def catalog_id(catalog: Catalog, name: str) -> str | None:
    """The catalog id a source's product name means, or None: an override, else the catalog's resolver,
    except that a memory size the name states must be the card's (an "Arc A770 8GB" is not the 16 GB card
    the resolver falls back to)."""
    if name in OVERRIDES:
        return OVERRIDES[name]
    gpu = catalog.find(name)
    stated = re.search(r"(\d+)\s*GB\b", name, re.IGNORECASE)
    if gpu is None or (stated and float(stated.group(1)) != gpu.memory_gb):
        return None
    return gpu.id


def mapped_rows(path: Path, catalog: Catalog) -> tuple[list[tuple[str, dict]], set[str]]:
    """(catalog id, row) for each CSV row whose ``gpu`` name is a catalog card; the names that are not."""
    mapped, skipped = [], set()
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            gid = catalog_id(catalog, row["gpu"])
            if gid is None:
                skipped.add(row["gpu"])
            else:
                mapped.append((gid, row))
    return mapped, skipped


def import_ebay(data_dir: Path, catalog: Catalog) -> tuple[list[dict], set[str]]:
    path = data_dir / "ebay-gpu-prices" / "monthly-2021-2023.csv"
    acc: dict[tuple[str, str, str], list[tuple[float, int]]] = defaultdict(list)
    mapped, skipped = mapped_rows(path, catalog)
    for gid, row in mapped:
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
            "source": f"{EBAY_PREFIX}, {month} ({'average sold' if kind == 'used' else 'retail'} price)",
        }
        if kind == "used":
            row["sold"] = total
        rows.append(row)
    return rows, skipped


def import_tracker(data_dir: Path, catalog: Catalog) -> tuple[list[dict], set[str]]:
    """Monthly medians of one Amazon listing per GPU, as ``new`` points (weak months, outliers left out)."""
    path = data_dir / "retail-price-tracker" / "monthly-2022-2025.csv"
    by_gpu: dict[str, list[dict]] = defaultdict(list)
    mapped, skipped = mapped_rows(path, catalog)
    for gid, row in mapped:
        if int(row["observations"]) >= TRACKER_MIN_OBSERVATIONS:
            by_gpu[gid].append(row)
    rows = []
    for gid, months in sorted(by_gpu.items()):
        typical = sorted(float(m["median_usd"]) for m in months)[len(months) // 2]
        for m in sorted(months, key=lambda m: m["month"]):
            price = float(m["median_usd"])
            if price > typical * TRACKER_MAX_OVER_MEDIAN:
                continue
            source = (
                f"{TRACKER_PREFIX} (Keepa history, United-Compute/gpu-price-tracker), {m['month']} "
                f"median of {m['observations']} daily observations of one listing; may sit above MSRP"
            )
            rows.append(
                {
                    "gpu": gid,
                    "seen": f"{m['month']}-15",
                    "kind": "new",
                    "price": round(price, 2),
                    "currency": "USD",
                    "source": source,
                }
            )
    return rows, skipped


def import_epoch(data_dir: Path, catalog: Catalog) -> list[dict]:
    """Release prices with Epoch AI's own price source, as ``msrp`` points at the release date.

    Epoch dates some cards at their announcement; the point is dated no earlier than the
    catalog's release date, since nobody could buy the card before. A release price that a
    hand-curated vendor announcement already gives (same card, same price) is not repeated.
    """
    released = {gpu.id: gpu.released.isoformat() for gpu in catalog.gpus}
    doc = json.loads((OUT_DIR / "prices.json").read_text(encoding="utf-8"))
    imported = (EBAY_PREFIX, TRACKER_PREFIX, EPOCH_PREFIX)
    known = {
        (r["gpu"], float(r["price"]))
        for r in doc["prices"]
        if r["kind"] == "msrp" and not r["source"].startswith(imported)
    }
    path = data_dir / "epoch-ml-hardware" / "ml_hardware.csv"
    rows = []
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            gid, price = catalog_id(catalog, row["Hardware name"]), money(row["Release price (USD)"])
            if gid is None or not price or (gid, price) in known:
                continue
            cited = " ".join((row["Source for the price"] or "").split())
            source = f"{EPOCH_PREFIX}, epoch.ai/data/machine-learning-hardware (CC BY 4.0), release price"
            if cited:
                source += f"; Epoch's source: {cited}"
            rows.append(
                {
                    "gpu": gid,
                    "seen": max(row["Release date"], released[gid]),
                    "kind": "msrp",
                    "price": price,
                    "currency": "USD",
                    "source": source,
                }
            )
    return sorted(rows, key=lambda r: (r["gpu"], r["seen"]))


def street_seen(observed: str) -> str | None:
    """The observation's date as the catalog dates points: a day as given, a month at its 15th, "2026-01/02"
    (a source dated to two months) at the first day of the later one; None without a month: a page dated
    "2026" alone could be dated at the year's first day only by showing the price to questions asked before
    the page existed, and at its end only by making the price look younger than it may be."""
    day = re.fullmatch(r"(\d{4}-\d{2}-\d{2})", observed)
    if day:
        return day.group(1)
    months = re.fullmatch(r"(\d{4})-(\d{2})/(\d{2})", observed)
    if months:
        return f"{months.group(1)}-{months.group(3)}-01"
    month = re.match(r"(\d{4}-\d{2})(?: \(before \d{2}-\d{2}\))?$", observed)
    return f"{month.group(1)}-15" if month else None


def street_grade(row: dict) -> str:
    """The row's reliability grade; "low" where the row's own note says so (see ``STREET_LOW_BY_NOTE``)."""
    if row["source_url"].startswith(STREET_LOW_BY_NOTE):
        return "low"
    return row["reliability"]


def vendor_list_prices() -> set[str]:
    """Cards with a sourced list price (msrp) in the catalog that is neither imported here nor an estimate."""
    doc = json.loads((OUT_DIR / "prices.json").read_text(encoding="utf-8"))
    return {
        r["gpu"]
        for r in doc["prices"]
        if r["kind"] == "msrp" and not r.get("estimate") and not r["source"].startswith(STREET_PREFIX)
    }


def import_street(data_dir: Path) -> list[dict]:
    """The cheapest US street price per card, condition and date from ``street-prices-2026/``.

    A "low" row counts only beside a better one: a "higher" or "medium" row of the same card and condition in
    the data set, or a vendor's list price for the card, so that no card's only price is a page of low
    reliability.
    """
    with (data_dir / "street-prices-2026" / "street-prices-2026.csv").open(encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["region"] == "US" and r["currency"] == "USD"]
    kind_of = {"used": "used"}
    better = {
        (STREET_CARDS.get(r["card"]), kind_of.get(r["condition"], "new"))
        for r in rows
        if street_grade(r) in STREET_RELIABLE
    }
    listed = vendor_list_prices()
    cheapest: dict[tuple[str, str, str], dict] = {}
    for row in rows:
        gpu, seen = STREET_CARDS.get(row["card"]), street_seen(row["observed"])
        if gpu is None or seen is None:
            continue
        kind, grade = kind_of.get(row["condition"], "new"), street_grade(row)
        if grade not in STREET_RELIABLE and (gpu, kind) not in better and gpu not in listed:
            continue
        price = float(row["price_low"])
        source = (
            f"{STREET_PREFIX} {row['observed']} ({row['retailer']}): {row['source_title']}, "
            f"{row['source_url']} (reliability {grade})"
        )
        point = {"gpu": gpu, "seen": seen, "kind": kind, "price": price, "currency": "USD", "source": source}
        key = (gpu, kind, seen)
        if key not in cheapest or price < cheapest[key]["price"]:
            cheapest[key] = point
    return sorted(cheapest.values(), key=lambda p: (p["gpu"], p["seen"], p["kind"]))


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
                        "source": f"{FSDL_PREFIX}, snapshot {seen} (MIT)"
                        + (", serverless" if serverless else ""),
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
    ap.add_argument(
        "data_dir", nargs="?", default="../shared/data", help="shared data folder (relative to the repo root)"
    )
    args = ap.parse_args(argv)
    data_dir = Path(args.data_dir)
    if not data_dir.is_absolute():
        data_dir = (REPO / data_dir).resolve()
    if not data_dir.is_dir():
        print(f"no such folder: {args.data_dir}", file=sys.stderr)
        return 2

    catalog = load_catalog(OUT_DIR)  # names and release dates only: the prices it holds are not read
    ebay, skipped = import_ebay(data_dir, catalog)
    replace_imported("prices.json", "prices", EBAY_PREFIX, ebay, "points")
    if skipped:
        print(f"  eBay GPUs without a catalog entry (skipped): {', '.join(sorted(skipped))}")
    tracker, skipped = import_tracker(data_dir, catalog)
    replace_imported("prices.json", "prices", TRACKER_PREFIX, tracker, "points")
    if skipped:
        print(f"  price-tracker GPUs without a catalog entry (skipped): {', '.join(sorted(skipped))}")
    replace_imported("prices.json", "prices", EPOCH_PREFIX, import_epoch(data_dir, catalog), "points")
    replace_imported("prices.json", "prices", STREET_PREFIX, import_street(data_dir), "points")
    cloud, unmapped = import_cloud(data_dir)
    replace_imported("cloud_offers.json", "offers", FSDL_PREFIX, cloud, "offers")
    if unmapped:
        print(f"  accelerators without a catalog GPU (gpu: null): {', '.join(sorted(unmapped))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
