"""``GET /v1/gpus`` (filtered, paged catalog, with performance per workload) and ``GET /v1/gpus/{id}``."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter

from rules.answer import CardRow
from rules.question import AS_OF_PATTERN, CURRENCY_PATTERN, MAX_BUDGET, WORKLOADS, Question, Workload as QuestionWorkload
from service.api import ApiState, plain, today
from service.api.docs import documented
from service.api.inputs import schema
from service.api.query import known_parameters_only, schema_bounds
from service.problems import NotFound

__all__ = ["GpuController", "GpuQuery"]


class GpuQuery(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """GET /v1/gpus: the query parameters, as its published schema (generated from this type) describes them;
    the fields a question also has take the question's values and limits."""

    vendor: Annotated[str, msgspec.Meta(pattern="^[A-Za-z]{2,20}$", description="nvidia, amd, intel, google …")] | None = None
    min_memory_gb: Annotated[float, msgspec.Meta(ge=0, le=4096)] = 0
    max_price: Annotated[float, msgspec.Meta(gt=0, le=MAX_BUDGET, description=(
        "Highest price in `currency` (cards without a known price are left out)."))] | None = None
    currency: Annotated[str, msgspec.Meta(pattern=CURRENCY_PATTERN)] | None = None
    used_ok: Literal["true", "false", "1", "0"] | None = None
    as_of: Annotated[str, msgspec.Meta(pattern=AS_OF_PATTERN)] | None = None
    workload: QuestionWorkload | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=200)] = 50
    offset: Annotated[int, msgspec.Meta(ge=0, le=100_000)] = 0


QUERY = schema("gpu-query") or {}  # the published schema of this query: the parameters take their bounds from it
Workload = Enum("Workload", {w: w for w in WORKLOADS}, type=str)  # type: ignore[misc]


def _row(gpu: Any, row: CardRow, with_performance: bool) -> dict[str, Any]:
    item = {"id": gpu.id, "name": gpu.name, "vendor": gpu.vendor, "architecture": gpu.architecture, "line": gpu.line,
            "released": gpu.released.isoformat(), "memory_gb": gpu.memory_gb, "bandwidth_gb_s": gpu.bandwidth_gb_s,
            "tdp_w": gpu.tdp_w, "purchasable": gpu.purchasable, "form_factor": gpu.form_factor,
            "availability": gpu.availability, "desktop": gpu.desktop, "price": row.price}
    if with_performance:
        item.update(relative_performance=row.relative_performance, performance_basis=row.performance_basis,
                    performance_per_1000=row.performance_per_1000)
    return item


class GpuController(Controller):
    path = "/v1/gpus"
    tags = ["catalog"]

    @get("", operation_id="listGpus", summary="The GPU catalog, filtered and paged", sync_to_thread=False,
         operation_class=documented("gpu-list", errors=(422,)), guards=[known_parameters_only])
    def list_gpus(
        self,
        api: NamedDependency[ApiState],
        vendor: Annotated[str | None, QueryParameter(**schema_bounds(QUERY, "vendor"))] = None,
        min_memory_gb: Annotated[float, QueryParameter(**schema_bounds(QUERY, "min_memory_gb"))] = 0,
        max_price: Annotated[float | None, QueryParameter(**schema_bounds(QUERY, "max_price"))] = None,
        currency: Annotated[str | None, QueryParameter(**schema_bounds(QUERY, "currency"))] = None,
        used_ok: Annotated[bool, QueryParameter(description="Count used prices (true/false/1/0)")] = False,
        as_of: Annotated[str | None, QueryParameter(**schema_bounds(QUERY, "as_of"))] = None,
        workload: Annotated[Workload | None, QueryParameter(description="Add performance for this workload")] = None,
        limit: Annotated[int, QueryParameter(**schema_bounds(QUERY, "limit"))] = 50,
        offset: Annotated[int, QueryParameter(**schema_bounds(QUERY, "offset"))] = 0,
    ) -> dict[str, Any]:
        """Cards released by `as_of` (default today), with their price then; `workload` adds relative
        performance and performance per 1000 units of `currency`, sorted fastest first."""
        chosen = workload.value if workload else None
        named = {"as_of": as_of, "currency": currency, "workload": chosen}
        question = Question.from_dict({k: v for k, v in named.items() if v is not None}, today())
        day = question.as_of or today()
        snapshot = api.holder.get()
        rows = snapshot.card_rows(chosen or "general", day, question.currency, used_ok)
        wanted_vendor = (vendor or "").lower()
        selected = []
        for row in rows:
            gpu = snapshot.catalog.gpu(row.gpu)
            price = row.price
            if wanted_vendor and gpu.vendor.lower() != wanted_vendor:
                continue
            if gpu.memory_gb < min_memory_gb:
                continue
            if max_price is not None and (price is None or price.amount > max_price):
                continue
            selected.append((gpu, row))
        if not chosen:
            selected.sort(key=lambda pair: pair[0].id)
        return {"total": len(selected), "limit": limit, "offset": offset, "as_of": day.isoformat(),
                "catalog_version": snapshot.catalog_version, "workload": chosen, "currency": question.currency,
                "items": [_row(gpu, row, bool(chosen)) for gpu, row in selected[offset:offset + limit]]}

    @get("/{gpu_id:str}", operation_id="getGpu", summary="One catalog GPU in full", sync_to_thread=False,
         operation_class=documented("gpu", errors=(404,)))
    def get_gpu(self, api: NamedDependency[ApiState], gpu_id: FromPath[str]) -> dict[str, Any]:
        """Specs, sources, dated price history, cloud offers, and relative performance per workload
        (measured in the lab when bench agents reported it, else estimated from specs)."""
        snapshot = api.holder.get()
        catalog = snapshot.catalog
        gpu = catalog.find(gpu_id) if len(gpu_id) <= 100 else None
        if gpu is None:
            raise NotFound(f"no GPU {gpu_id[:100]!r} in the catalog", [{"field": "gpu_id", "message": "unknown GPU"}])
        performance = snapshot.advisor.performance
        measured = performance.measured(gpu.id)
        entry = plain(gpu)
        entry.update(catalog_version=snapshot.catalog_version, desktop=gpu.desktop, server_only=gpu.server_only)
        entry["offers"] = [plain(o) for o in catalog.offers_at(today()) if o.gpu_id == gpu.id]
        entry["performance"] = {
            "basis": "measured" if measured else "estimated",
            "reference_gpu": performance.reference.id,
            "measured": plain(measured) if measured else None,
            "relative": {w: round(performance.relative(gpu, w, "16-bit"), 3) for w in WORKLOADS},
        }
        return entry
