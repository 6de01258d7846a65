"""``GET /v1/gpus`` (filtered, paged catalog, with performance per workload) and ``GET /v1/gpus/{id}``."""

from __future__ import annotations

from datetime import date
from typing import Any

from litestar.params import FromPath
from litestar import Controller, Request, get

from rules.question import WORKLOADS, Question
from service.api import api_state, today
from service.api.docs import documented
from service.api.inputs import check
from service.catalog_store import gpu_entry
from service.problems import InvalidInput, NotFound

__all__ = ["GpuController"]

NUMERIC = {"min_memory_gb": float, "max_price": float, "limit": int, "offset": int}


def _query(request: Request) -> dict[str, Any]:
    """The query string as a dict for the gpu-query schema (numbers converted where they parse)."""
    raw: dict[str, Any] = {}
    for key, value in request.query_params.items():
        if key in raw:
            raise InvalidInput(f"query parameter {key!r} is given twice", [{"field": key, "message": "given more than once"}])
        raw[key] = value
    for key, kind in NUMERIC.items():
        if key in raw:
            try:
                number = float(raw[key])
                raw[key] = int(number) if kind is int and number.is_integer() else number
            except (ValueError, OverflowError):
                pass  # left a string: the schema names it
    return check("gpu-query", raw, what="query")


def _row(gpu: Any, row: dict[str, Any], with_performance: bool) -> dict[str, Any]:
    item = {"id": gpu.id, "name": gpu.name, "vendor": gpu.vendor, "architecture": gpu.architecture, "line": gpu.line,
            "released": gpu.released.isoformat(), "memory_gb": gpu.memory_gb, "bandwidth_gb_s": gpu.bandwidth_gb_s,
            "tdp_w": gpu.tdp_w, "purchasable": gpu.purchasable, "form_factor": gpu.form_factor,
            "availability": gpu.availability, "desktop": gpu.desktop, "price": row["price"]}
    if with_performance:
        item.update(relative_performance=row["relative_performance"], performance_basis=row["performance_basis"],
                    performance_per_1000=row["performance_per_1000"])
    return item


class GpuController(Controller):
    path = "/v1/gpus"
    tags = ["catalog"]

    @get("", operation_id="listGpus", summary="The GPU catalog, filtered and paged", sync_to_thread=False,
         operation_class=documented("gpu-list", errors=(422,)))
    def list_gpus(self, request: Request) -> dict[str, Any]:
        """Cards released by `as_of` (default today), with their price then; `workload` adds relative
        performance and performance per 1000 units of `currency`, sorted fastest first.
        Query: vendor, min_memory_gb, max_price, currency, used_ok, as_of, workload, limit (≤200), offset."""
        query = _query(request)
        question = Question.from_dict({k: query[k] for k in ("as_of", "currency", "workload") if k in query}, today())
        as_of: date = question.as_of or today()
        snapshot = api_state(request).holder.get()
        workload = query.get("workload")
        used_ok = query.get("used_ok") in ("true", "1")
        rows = snapshot.card_rows(workload or "general", as_of, question.currency, used_ok)
        vendor = query.get("vendor", "").lower()
        selected = []
        for row in rows:
            gpu = snapshot.catalog.gpu(row["gpu"])
            price = row["price"]
            if vendor and gpu.vendor.lower() != vendor:
                continue
            if gpu.memory_gb < query.get("min_memory_gb", 0):
                continue
            if "max_price" in query and (price is None or price["amount"] > query["max_price"]):
                continue
            selected.append((gpu, row))
        if not workload:
            selected.sort(key=lambda pair: pair[0].id)
        limit, offset = query.get("limit", 50), query.get("offset", 0)
        return {"total": len(selected), "limit": limit, "offset": offset, "as_of": as_of.isoformat(),
                "catalog_version": snapshot.catalog_version, "workload": workload, "currency": question.currency,
                "items": [_row(gpu, row, bool(workload)) for gpu, row in selected[offset:offset + limit]]}

    @get("/{gpu_id:str}", operation_id="getGpu", summary="One catalog GPU in full", sync_to_thread=False,
         operation_class=documented("gpu", errors=(404,)))
    def get_gpu(self, request: Request, gpu_id: FromPath[str]) -> dict[str, Any]:
        """Specs, sources, dated price history, cloud offers, and relative performance per workload
        (measured in the lab when bench agents reported it, else estimated from specs)."""
        snapshot = api_state(request).holder.get()
        catalog = snapshot.catalog
        gpu = catalog.find(gpu_id) if len(gpu_id) <= 100 else None
        if gpu is None:
            raise NotFound(f"no GPU {gpu_id[:100]!r} in the catalog", [{"field": "gpu_id", "message": "unknown GPU"}])
        performance = snapshot.advisor.performance
        measured = performance.measured(gpu.id)
        entry = gpu_entry(gpu)
        entry.update(catalog_version=snapshot.catalog_version, desktop=gpu.desktop, server_only=gpu.server_only)
        entry["offers"] = [gpu_entry(o) for o in catalog.offers_at(today()) if o.gpu_id == gpu.id]
        entry["performance"] = {
            "basis": "measured" if measured else "estimated",
            "reference_gpu": performance.reference.id,
            "measured": gpu_entry(measured) if measured else None,
            "relative": {w: round(performance.relative(gpu, w, "16-bit"), 3) for w in WORKLOADS},
        }
        return entry
