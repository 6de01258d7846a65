"""``GET /v1/gpus`` (filtered, paged catalog, with performance per workload) and ``GET /v1/gpus/{id}``."""

from __future__ import annotations

from datetime import date
from enum import Enum
from typing import Annotated, Any

import msgspec
from litestar import Controller, get
from litestar.di import NamedDependency
from litestar.params import FromPath, QueryParameter

from rules.contract.answer import CardRow
from rules.contract.question import Question
from rules.contract.values import WORKLOADS
from rules.understand.workloads import LISTED_WORKLOADS
from service.api import today
from service.api.docs import problems
from service.api.inputs import schema
from service.api.query import known_parameters_only, schema_bounds
from service.contract.catalog import GpuDetail, GpuList, GpuPerformance, GpuRow, LabFigures
from service.problems import NotFound
from service.snapshot import Snapshot

__all__ = ["GpuController"]

# the published schema of this query: the parameters take their bounds from it
QUERY = schema("gpu-query") or {}
Workload = Enum("Workload", {w: w for w in LISTED_WORKLOADS}, type=str)  # type: ignore[misc]


def _row(gpu: Any, row: CardRow, with_performance: bool) -> GpuRow:
    """A list row: the card's specs and the engine's row for the date (its speed only with a workload)."""
    specs = GpuRow(
        id=gpu.id,
        name=gpu.name,
        vendor=gpu.vendor,
        architecture=gpu.architecture,
        line=gpu.line,
        released=gpu.released,
        memory_gb=gpu.memory_gb,
        bandwidth_gb_s=gpu.bandwidth_gb_s,
        tdp_w=gpu.tdp_w,
        purchasable=gpu.purchasable,
        form_factor=gpu.form_factor,
        availability=gpu.availability,
        desktop=gpu.desktop,
        price=row.price,
    )
    if not with_performance:
        return specs
    return msgspec.structs.replace(
        specs,
        relative_performance=row.relative_performance,
        performance_basis=row.performance_basis,
        performance_per_1000=row.performance_per_1000,
    )


def _chosen(
    snapshot: Snapshot,
    rows: tuple[CardRow, ...],
    vendor: str | None,
    min_memory_gb: float,
    max_price: float | None,
) -> list[tuple[Any, CardRow]]:
    """The rows the filters keep, each with its catalog entry."""
    wanted_vendor = (vendor or "").lower()
    selected = []
    for row in rows:
        gpu = snapshot.catalog.gpu(row.gpu)
        if wanted_vendor and gpu.vendor.lower() != wanted_vendor:
            continue
        if gpu.memory_gb < min_memory_gb:
            continue
        if max_price is not None and (row.price is None or row.price.amount > max_price):
            continue
        selected.append((gpu, row))
    return selected


def _detail(gpu: Any, snapshot: Snapshot, day: date) -> GpuDetail:
    """The fields the contract shows, read from the catalog entry by name; the day's offers and speeds."""
    performance = snapshot.advisor.performance
    measured = performance.measured(gpu.id)
    extra = {
        "catalog_version": snapshot.catalog_version,
        "offers": [o for o in snapshot.catalog.offers_at(day) if o.gpu_id == gpu.id],
        "performance": GpuPerformance(
            basis="measured" if measured else "estimated",
            reference_gpu=performance.reference.id,
            measured=msgspec.convert(measured, LabFigures, from_attributes=True) if measured else None,
            relative={w: round(performance.relative(gpu, w, "16-bit"), 3) for w in WORKLOADS},
        ),
    }
    specs = {name: getattr(gpu, name) for name in GpuDetail.__struct_fields__ if name not in extra}
    return msgspec.convert({**specs, **extra}, GpuDetail, from_attributes=True)


class GpuController(Controller):
    path = "/v1/gpus"
    tags = ("catalog",)

    @get(
        "",
        operation_id="listGpus",
        summary="The GPU catalog, filtered and paged",
        sync_to_thread=False,
        responses=problems(422),
        guards=[known_parameters_only],
    )
    def list_gpus(  # noqa: PLR0913  each query parameter is its own typed, bounded and documented argument
        self,
        *,
        snapshot: NamedDependency[Snapshot],
        vendor: Annotated[str | None, QueryParameter(**schema_bounds(QUERY, "vendor"))] = None,
        min_memory_gb: Annotated[float, QueryParameter(**schema_bounds(QUERY, "min_memory_gb"))] = 0,
        max_price: Annotated[float | None, QueryParameter(**schema_bounds(QUERY, "max_price"))] = None,
        currency: Annotated[str | None, QueryParameter(**schema_bounds(QUERY, "currency"))] = None,
        used_ok: Annotated[bool, QueryParameter(description="Count used prices (true/false/1/0)")] = False,
        as_of: Annotated[str | None, QueryParameter(**schema_bounds(QUERY, "as_of"))] = None,
        workload: Annotated[
            Workload | None, QueryParameter(description="Add performance for this workload")
        ] = None,
        limit: Annotated[int, QueryParameter(**schema_bounds(QUERY, "limit"))] = 50,
        offset: Annotated[int, QueryParameter(**schema_bounds(QUERY, "offset"))] = 0,
    ) -> GpuList:
        """Cards released by `as_of` (default today), with their price then; `workload` adds relative
        performance and performance per 1000 units of `currency`, sorted fastest first."""
        chosen: str | None = workload.value if workload else None
        named = {"as_of": as_of, "currency": currency}
        question = Question.from_dict({k: v for k, v in named.items() if v is not None}, today())
        day = question.as_of or today()
        rows = snapshot.card_rows(chosen or "general", day, question.currency, used_ok)
        selected = _chosen(snapshot, rows, vendor, min_memory_gb, max_price)
        if not chosen:
            selected.sort(key=lambda pair: pair[0].id)
        return GpuList(
            total=len(selected),
            limit=limit,
            offset=offset,
            as_of=day,
            catalog_version=snapshot.catalog_version,
            workload=chosen,
            currency=question.currency,
            items=[_row(gpu, row, bool(chosen)) for gpu, row in selected[offset : offset + limit]],
        )

    @get(
        "/{gpu_id:str}",
        operation_id="getGpu",
        summary="One catalog GPU in full",
        sync_to_thread=False,
        responses=problems(404),
    )
    def get_gpu(self, snapshot: NamedDependency[Snapshot], gpu_id: FromPath[str]) -> GpuDetail:
        """Specs, sources, dated price history, cloud offers, and relative performance per workload
        (measured in the lab when bench agents reported it, else estimated from specs)."""
        gpu = snapshot.catalog.find(gpu_id) if len(gpu_id) <= 100 else None
        if gpu is None:
            raise NotFound(
                f"no GPU {gpu_id[:100]!r} in the catalog", [{"field": "gpu_id", "message": "unknown GPU"}]
            )
        return _detail(gpu, snapshot, today())
