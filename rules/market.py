"""The market on one day: what can be bought (new and used, priced in USD) and rented.

A :class:`Market` is the engine's one per-date value: every question asked of the same day reads the same
offers, best prices and rentals, so the advisor builds it once per date (:class:`Markets`) and hands it
forward. Desktop questions never get server parts (SXM/OAM modules, passive data-centre cards, parts sold only
through server vendors): they cannot go in a PC; a server takes any card or module sold,
but not a whole desktop computer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from rules.money import Pricing, months_between

if TYPE_CHECKING:
    from rules.knowledge import Catalog, CloudOffer, Gpu, PricePoint, Rulebook
    from rules.knowledge.records import System

__all__ = [
    "Market",
    "Markets",
    "Offer",
    "Rental",
    "SystemOffer",
    "TpuChip",
    "fits_setting",
    "is_server_only",
    "placement",
]

MARKETS_KEPT = 64  # dates whose market stays built; questions name few dates besides today


@dataclass(frozen=True)
class Offer:
    """One card for sale: new or used, at a dated price point."""

    gpu: Gpu
    point: PricePoint
    condition: Literal["new", "used"]
    unit_usd: float


@dataclass(frozen=True)
class SystemOffer:
    """A whole server for sale on a date: ``system.count`` of its module, priced as the system."""

    system: System
    point: PricePoint


@dataclass(frozen=True)
class TpuChip:
    """A Cloud TPU chip seen through the spec fields the performance model reads.

    fp32 matrix work runs as several bf16 passes on a TPU; a third of the bf16 peak stands
    for it (an estimate, as every spec-based speed is).
    """

    id: str
    name: str
    memory_gb: float
    bandwidth_gb_s: float
    tensor_tflops: Mapping[str, float]
    fp32_tflops: float
    fp16_tflops: float
    fast_16bit: bool = True
    software: str = "xla"
    tdp_w: float = 0.0


@dataclass(frozen=True)
class Rental:
    """The representative on-demand offer of one accelerator on a date (rule ``rent-vs-buy``)."""

    per_unit_usd: float
    offer: CloudOffer
    unit: Gpu | TpuChip
    providers: int = 1  # how many providers listed it; the offer sits at the rule's quantile of them


def is_server_only(gpu: Gpu) -> bool:
    """Parts that need a server: modules, passive data-centre cards, server-channel availability."""
    return gpu.server_only


def fits_setting(gpu: Gpu, setting: str | None) -> bool:
    """A desktop (the default) takes retail cards and whole systems; a server takes any card or module sold,
    but not a whole desktop computer (a Mac Studio or DGX Spark has no place in a rack chassis)."""
    if gpu.form_factor == "cloud":
        return False
    if setting in ("server", "cloud"):
        return gpu.form_factor != "system"
    return not gpu.server_only


def placement(setting: str | None) -> Literal["server", "desktop"]:
    """Where the cards of a question live: a server (also for a cloud-only question), else a desktop."""
    return "server" if setting in ("server", "cloud") else "desktop"


@dataclass(frozen=True)
class Market:
    """Offers, best prices and rentals on :attr:`as_of`; built once per date by :class:`Markets`."""

    as_of: date
    catalog: Catalog
    rulebook: Rulebook
    offers: tuple[Offer, ...]  # every released, purchasable card's new offer and, where cheaper, its used one
    desktop: tuple[Offer, ...]
    server: tuple[Offer, ...]
    rentals: tuple[Rental, ...]  # cheapest first
    best_new: Mapping[str, PricePoint | None]  # gpu id -> its best current new price
    best_any: Mapping[str, PricePoint | None]  # gpu id -> its best current price, new or used
    # (module id, count) -> the whole server of that many, priced on the date
    systems: Mapping[tuple[str, int], SystemOffer] = field(default_factory=lambda: MappingProxyType({}))

    def placeable(self, setting: str | None) -> tuple[Offer, ...]:
        """The offers whose cards can live where the question's cards will."""
        return self.server if placement(setting) == "server" else self.desktop

    def largest_gb(self, setting: str | None) -> float:
        """The largest card's memory among the offers placeable in ``setting``."""
        return max((o.gpu.memory_gb for o in self.placeable(setting)), default=0.0)

    def pricing(self, currency: str, used_ok: bool) -> Pricing:
        """Prices on the date in ``currency``, new only or also used."""
        return Pricing.for_question(self.catalog, self.as_of, currency, used_ok, self.rulebook)

    def midrange(self, speed: Callable[[Gpu], float]) -> float:
        """The median ``speed`` of the new desktop cards on sale: the market's mid-range."""
        speeds = sorted(speed(o.gpu) for o in self.offers if o.condition == "new" and not o.gpu.server_only)
        return speeds[len(speeds) // 2] if speeds else 1.0

    def best_price(self, gpu: Gpu, used_ok: bool) -> PricePoint | None:
        """The cheapest current price of ``gpu`` (new, or also used): ``Pricing.best_price`` looked up once a
        day."""
        return (self.best_any if used_ok else self.best_new)[gpu.id]

    def new_only(self) -> Market:
        """This market without its used offers, for an asker who buys only new: no used card can be picked,
        named as a way to save, or priced, so when nothing new fits the answer says so with new cards."""
        return replace(
            self,
            offers=tuple(o for o in self.offers if o.condition == "new"),
            desktop=tuple(o for o in self.desktop if o.condition == "new"),
            server=tuple(o for o in self.server if o.condition == "new"),
            best_any=self.best_new,
        )


class Markets:
    """The market of each date asked about, built on first use: the engine's one per-date cache."""

    def __init__(
        self,
        catalog: Catalog,
        rulebook: Rulebook,
        rentals: Callable[[Catalog, Rulebook, date], tuple[Rental, ...]],
    ) -> None:
        self._catalog, self._rulebook, self._rentals = catalog, rulebook, rentals
        self._built: dict[date, Market] = {}

    def on(self, day: date) -> Market:
        market = self._built.get(day)
        if market is None:
            if len(self._built) >= MARKETS_KEPT:
                self._built.clear()
            market = self._built[day] = self._build(day)
        return market

    def _build(self, day: date) -> Market:
        catalog, rulebook = self._catalog, self._rulebook
        new = Pricing.for_question(catalog, day, "USD", False, rulebook)
        every = Pricing.for_question(catalog, day, "USD", True, rulebook)
        best_new = {gpu.id: new.best_price(gpu) for gpu in catalog.gpus}
        best_any = {gpu.id: every.best_price(gpu) for gpu in catalog.gpus}
        offers: list[Offer] = []
        for gpu in catalog.released_by(day):
            if not gpu.purchasable:
                continue
            point = best_new[gpu.id]
            if point is not None:
                offers.append(Offer(gpu, point, "new", point.price_usd))
            cheapest = best_any[gpu.id]
            if cheapest is not None and cheapest.kind == "used":
                offers.append(Offer(gpu, cheapest, "used", cheapest.price_usd))
        return Market(
            day,
            catalog,
            rulebook,
            tuple(offers),
            desktop=tuple(o for o in offers if fits_setting(o.gpu, "desktop")),
            server=tuple(o for o in offers if fits_setting(o.gpu, "server")),
            rentals=self._rentals(catalog, rulebook, day),
            best_new=MappingProxyType(best_new),
            best_any=MappingProxyType(best_any),
            systems=MappingProxyType(_systems_on(catalog, day)),
        )


def _systems_on(catalog: Catalog, day: date) -> dict[tuple[str, int], SystemOffer]:
    """The servers priced on ``day``, by the module and count they carry (the cheaper of two alike)."""
    found: dict[tuple[str, int], SystemOffer] = {}
    for system in catalog.systems:
        point = system.price_on(day)
        key = (system.gpu, system.count)
        if point is not None and (key not in found or point.price_usd < found[key].point.price_usd):
            found[key] = SystemOffer(system, point)
    return found


def representative_rentals(
    catalog: Catalog, rulebook: Rulebook, day: date, chips: Mapping[str, TpuChip]
) -> tuple[Rental, ...]:
    """The representative on-demand offer of each catalog GPU and Cloud TPU known on ``day``, cheapest first.

    Each provider counts once, at its cheapest instance; the rental is the provider at the rule's
    ``rental_quantile`` of their prices, so one marketplace's outlier never stands for the market.
    Prices older than ``offer_max_age_months`` count only where nothing younger is known.
    """
    gpu_ids = {gpu.id for gpu in catalog.gpus}
    cheapest: dict[
        str, dict[str, tuple[tuple[float, str, str], CloudOffer]]
    ] = {}  # unit -> provider -> (key, offer)
    for offer in catalog.offers_at(day):
        unit_id = offer.tpu_id if offer.kind == "tpu" else offer.gpu_id
        if offer.serverless or unit_id is None or (unit_id not in gpu_ids and unit_id not in chips):
            continue
        key = (offer.per_unit_per_hour, offer.provider, offer.instance)
        providers = cheapest.setdefault(unit_id, {})
        if offer.provider not in providers or key < providers[offer.provider][0]:
            providers[offer.provider] = (key, offer)
    params = rulebook.rent_vs_buy
    rows = []
    for unit_id, providers in cheapest.items():
        young = [
            pair
            for pair in providers.values()
            if months_between(pair[1].seen, day) <= params.offer_max_age_months
        ]
        ranked = sorted(young or providers.values(), key=lambda pair: pair[0])
        key, offer = ranked[int(params.rental_quantile * (len(ranked) - 1) + 0.5)]
        rows.append(Rental(key[0], offer, chips.get(unit_id) or catalog.gpu(unit_id), len(ranked)))
    return tuple(sorted(rows, key=lambda r: (r.per_unit_usd, r.offer.provider, r.offer.instance)))
