"""Rent or buy: the cheapest cloud accelerator that does the job, against owning the pick.

The engine asks one question here, :meth:`Renting.rent_or_buy`: given the card it would
buy (or none), which rental is the sensible alternative and when does buying pay off
(rule ``rent-vs-buy``)? Rentals are GPU instances of any form factor — an H100 SXM is
never bought for a desktop but is a fine rental — and Cloud TPUs where the workload
suits them (rule ``tpu-fit``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Callable, Hashable

from msgspec.structs import replace as with_changes

from rules.answer import RentOffer, RentOption, RentVsBuy, RentYear
from rules.memo import remember
from rules.messages import say
from rules.money import Pricing, months_between
from rules.question import Question
from rules.rulebook import Rulebook

if TYPE_CHECKING:
    from rules.catalog import CloudOffer, Gpu

__all__ = ["Renting", "TpuChip", "break_even"]

HELD_KEPT = 1024  # job shapes whose rentals that hold them stay memoised (cleared when full)
Holds = Callable[[float, int], bool]  # (memory per accelerator in GB, count) -> the job fits

RULE = "rent-vs-buy"


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
    tensor_tflops: dict
    fp32_tflops: float
    fp16_tflops: float
    fast_16bit: bool = True
    software: str = "xla"
    tdp_w: float = 0.0

    @classmethod
    def from_spec(cls, spec) -> "TpuChip":
        tensor = {"bf16": spec.bf16_tflops, "fp16": spec.bf16_tflops}
        if spec.int8_tops:
            tensor["int8"] = spec.int8_tops
        return cls(spec.id, spec.name, spec.hbm_gb, spec.bandwidth_gb_s or 0.0, tensor,
                   spec.bf16_tflops / 3, spec.bf16_tflops)


@dataclass(frozen=True)
class Rental:
    """The representative on-demand offer of one accelerator on a date (rule ``rent-vs-buy``)."""

    per_unit_usd: float
    offer: CloudOffer
    unit: Gpu | TpuChip
    providers: int = 1  # how many providers listed it; the offer sits at the rule's quantile of them

    @property
    def basis(self) -> str:
        """How the offer was chosen, in the answer's words."""
        return self.basis_in(None)

    def basis_in(self, language: str | None) -> str:
        if self.providers == 1:
            return say("rent.only_provider", language, provider=self.offer.provider)
        return say("rent.quartile", language, provider=self.offer.provider, providers=self.providers)


class Renting:
    """Cloud offers of one catalog snapshot, cheapest first per accelerator, cached per date."""

    def __init__(self, catalog, rulebook: Rulebook, performance, electricity_usd_per_kwh: float) -> None:
        self.catalog = catalog
        self.rulebook = rulebook
        self.performance = performance
        self.electricity = electricity_usd_per_kwh
        self._gpu_ids = {gpu.id for gpu in catalog.gpus}
        self._chips = {tpu_id: TpuChip.from_spec(spec) for tpu_id, spec in catalog.tpus.items()}
        self._offer_cache: dict[date, list[Rental]] = {}
        self._quantile = rulebook.param(RULE, "rental_quantile")
        self._held: dict[tuple[Hashable, ...], tuple[list[Rental], dict[str, float], list[Rental]] | None] = {}
        self._named_ids: dict[tuple[str, ...], frozenset[str]] = {}

    def rent_or_buy(self, question: Question, pricing: Pricing, work: str, holds: Holds, top,
                    same: Hashable | None = None) -> RentVsBuy | None:
        """Rent-vs-buy against ``top`` (anything with ``gpu``, ``relative``, ``total_usd``; None: nothing to buy).

        With a card to buy, the rental is the cheapest offer at least ``min_relative_speed`` ×
        as fast that holds the job on as many accelerators as the asker wants cards; without
        one, the rental that costs least per unit of work. TPUs count where rule ``tpu-fit``
        says the workload suits them, or when the asker names one. ``options`` lists the
        named accelerators and the best GPU and TPU rentals, so both sides can be weighed.
        ``same``: equal for every ``holds`` that judges alike (the engine's job and question shape),
        so the rentals that hold the job are looked up once for all budgets and currencies.
        """
        named = self._named(question.compare)
        found = self._holding(pricing.as_of, work, question, holds, named, same)
        if found is None:
            return None
        usable, speed, value = found
        if top is not None:
            ratio = self.rulebook.param(RULE, "min_relative_speed")
            chosen = next((r for r in usable if speed[r.unit.id] >= ratio * top.relative), None)
            if chosen is None:
                return None
        else:
            chosen = next((r for r in value if r.unit.id in named), value[0])
        best_gpu = next((r for r in value if not isinstance(r.unit, TpuChip)), None)
        best_tpu = next((r for r in value if isinstance(r.unit, TpuChip)), None)
        shown = [chosen] + [r for r in usable if r.unit.id in named] + [r for r in (best_gpu, best_tpu) if r]
        hours, assumed = self.hours_per_week(question)
        options = tuple(_line(r, speed[r.unit.id], question.gpus, hours, pricing, r.unit.id in named) for r in _unique(shown))
        lang = question.language
        if top is None:
            result = _rent_only(self.rulebook, pricing, chosen, question.gpus, hours, options, lang)
        else:
            result = with_changes(break_even(self.rulebook, pricing, chosen.offer, chosen.per_unit_usd * question.gpus, top.gpu,
                                        question.gpus, top.total_usd, hours, self.electricity, lang), options=options)
        offer = with_changes(result.offer, basis=chosen.basis)
        return with_changes(result, offer=offer, reason=say("rent.reason", lang, reason=result.reason, basis=chosen.basis_in(lang), assumed=assumed))

    def _holding(self, as_of: date, work: str, question: Question, holds: Holds, named: frozenset[str],
                 same: Hashable | None) -> tuple[list[Rental], dict[str, float], list[Rental]] | None:
        """(the rentals that hold the job, their speeds, the same by cost per unit of work); None: none does."""
        suits_tpu = question.workload in self.rulebook.param("tpu-fit", "good_for")
        key = None if same is None else (same, as_of, work, question.precision, question.gpus, suits_tpu, named)
        if key is not None and key in self._held:
            return self._held[key]
        usable = [r for r in self.rentals(as_of)
                  if (not isinstance(r.unit, TpuChip) or suits_tpu or r.unit.id in named)
                  and holds(r.unit.memory_gb, question.gpus)]
        found = None
        if usable:
            speed = {r.unit.id: self.performance.relative(r.unit, work, question.precision) for r in usable}
            found = usable, speed, sorted(usable, key=lambda r: (r.per_unit_usd / max(speed[r.unit.id], 1e-9), r.unit.id))
        return found if key is None else remember(self._held, key, found, HELD_KEPT)

    def hours_per_week(self, question: Question) -> tuple[float, str]:
        """The asker's hours a week, else the rule's default: higher for a server or several cards, and why."""
        if question.hours_per_week:
            return question.hours_per_week, ""
        if question.setting == "server" or question.gpus > 1:
            hours = self.rulebook.param(RULE, "server_hours_per_week")
            return hours, say("rent.server_hours", question.language, hours=f"{hours:g}")
        hours = self.rulebook.param(RULE, "default_hours_per_week")
        return hours, say("rent.personal_hours", question.language, hours=f"{hours:g}")

    def rentals(self, as_of: date) -> list[Rental]:
        """The representative on-demand offer of each catalog GPU and Cloud TPU known on ``as_of``, cheapest first.

        Each provider counts once, at its cheapest instance; the rental is the provider at the rule's
        ``rental_quantile`` of their prices, so one marketplace's outlier never stands for the market.
        Prices older than ``offer_max_age_months`` count only where nothing younger is known.
        """
        if as_of not in self._offer_cache:
            cheapest: dict[str, dict[str, tuple]] = {}  # unit -> provider -> (key, offer)
            for offer in self.catalog.offers_at(as_of):
                unit_id = offer.tpu_id if offer.kind == "tpu" else offer.gpu_id
                if offer.serverless or (unit_id not in self._gpu_ids and unit_id not in self._chips):
                    continue
                key = (offer.per_unit_per_hour, offer.provider, offer.instance)
                providers = cheapest.setdefault(unit_id, {})
                if offer.provider not in providers or key < providers[offer.provider][0]:
                    providers[offer.provider] = (key, offer)
            rows = []
            max_age = self.rulebook.param(RULE, "offer_max_age_months")
            for unit_id, providers in cheapest.items():
                young = [pair for pair in providers.values() if months_between(pair[1].seen, as_of) <= max_age]
                ranked = sorted(young or providers.values(), key=lambda pair: pair[0])
                key, offer = ranked[int(self._quantile * (len(ranked) - 1) + 0.5)]
                rows.append(Rental(key[0], offer, self._chips.get(unit_id) or self.catalog.gpu(unit_id), len(ranked)))
            remember(self._offer_cache, as_of, sorted(rows, key=lambda r: (r.per_unit_usd, r.offer.provider, r.offer.instance)), 64)
        return self._offer_cache[as_of]

    def rentable(self, names) -> tuple[str, ...]:
        """The names that mean a Cloud TPU (rented only, never in the GPU catalog)."""
        return tuple(name for name in names or () if self._tpu(name) is not None)

    def _named(self, names) -> frozenset[str]:
        """Catalog GPU and TPU ids of the accelerators the asker named."""
        key = tuple(names or ())
        if key not in self._named_ids:
            found = ((self._tpu(name) or self.catalog.find(name)) for name in key)
            remember(self._named_ids, key, frozenset(unit.id for unit in found if unit is not None), HELD_KEPT)
        return self._named_ids[key]

    def _tpu(self, name: str) -> TpuChip | None:
        """"tpu v5e", "Cloud TPU v6e", "trillium" -> the chip."""
        key = _key(name).removeprefix("google").removeprefix("cloud")
        for chip in self._chips.values():
            nicknames = {_key(n) for n in re.findall(r"\((\w+)\)", chip.name)}
            if key and key in {_key(chip.id), _key(chip.name.split("(")[0]).removeprefix("cloud")} | nicknames:
                return chip
        return None


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _unique(rentals: list[Rental]) -> list[Rental]:
    """Each accelerator once, at its first place."""
    first: dict[str, Rental] = {}
    for rental in rentals:
        first.setdefault(rental.unit.id, rental)
    return list(first.values())


def _line(rental: Rental, relative: float, count: int, hours: float, pricing: Pricing, named: bool) -> RentOption:
    """One rental option: what, where, per hour (on demand and spot), speed and a year at ``hours`` a week."""
    offer, per_hour = rental.offer, rental.per_unit_usd * count
    spot = offer.spot_per_hour / offer.count * count if offer.spot_per_hour else None
    return RentOption(
        kind="tpu" if isinstance(rental.unit, TpuChip) else "gpu", id=rental.unit.id, name=rental.unit.name,
        provider=offer.provider, instance=offer.instance, accelerator=offer.accelerator, count=count,
        per_hour=pricing.money(per_hour), spot_per_hour=pricing.money(spot) if spot else None,
        relative_performance=relative, per_year=pricing.money(per_hour * hours * 52),
        seen=offer.seen.isoformat(), source=offer.source, basis=rental.basis, named=named,
    )


def _rent_only(rulebook: Rulebook, pricing: Pricing, rental: Rental, count: int, hours: float,
               options: tuple[RentOption, ...], language: str | None = None) -> RentVsBuy:
    """Nothing to buy (none named can be, or none fits the budget): what renting costs over the rule's years."""
    rent_usd = rental.per_unit_usd * count
    years = tuple(RentYear(y, round(hours * 52 * y), None, pricing.money(rent_usd * hours * 52 * y), "rent")
                  for y in rulebook.param(RULE, "years"))
    per_year = pricing.money(rent_usd * hours * 52)
    return RentVsBuy(
        offer=_offer(rental.offer, count), rent_per_hour=pricing.money(rent_usd), own_power_per_hour=pricing.money(0.0),
        break_even_hours=None, hours_per_week=hours, yearly=years, cheaper="rent",
        reason=say("rent.only", language, count=count, name=rental.unit.name, price=f"{per_year.amount:,.0f}", currency=per_year.currency,
                   hours=f"{hours:g}"),
        options=options,
    )


def _offer(offer, count: int) -> RentOffer:
    return RentOffer(provider=offer.provider, instance=offer.instance, accelerator=offer.accelerator,
                     gpu=offer.gpu_id, tpu=offer.tpu_id, count=count, seen=offer.seen.isoformat(), source=offer.source)


def break_even(rulebook: Rulebook, pricing: Pricing, offer, rent_usd_per_hour: float, gpu, count: int,
               buy_usd: float, hours_per_week: float | None, electricity_usd_per_kwh: float, language: str | None = None) -> RentVsBuy:
    """Break-even hours and 1/2-year totals of buying ``count`` × ``gpu`` versus renting ``offer``."""
    params = rulebook[RULE].parameters
    watts = gpu.tdp_w * count + params["system_power_w"]
    power_usd = watts / 1000 * electricity_usd_per_kwh
    margin = rent_usd_per_hour - power_usd
    hours_at_break_even = buy_usd / margin if margin > 0 else None
    hours = hours_per_week or params["default_hours_per_week"]
    years = []
    for year in params["years"]:
        used_hours = hours * 52 * year
        own = buy_usd + power_usd * used_hours
        rent = rent_usd_per_hour * used_hours
        years.append(RentYear(year, round(used_hours), pricing.money(own), pricing.money(rent), "buy" if own < rent else "rent"))
    cheaper = years[-1].cheaper
    if hours_at_break_even is None:
        reason = say("rent.rent_is_cheaper", language)
    else:
        weeks = hours_at_break_even / hours
        reason = say("rent.break_even", language, hours=f"{hours_at_break_even:,.0f}", per_week=f"{hours:g}", years=f"{weeks / 52:.1f}",
                     horizon=params["years"][-1], cheaper=say(f"rent.cheaper.{cheaper}", language))
    return RentVsBuy(
        offer=_offer(offer, count),
        rent_per_hour=pricing.money(rent_usd_per_hour),
        own_power_per_hour=pricing.money(power_usd),
        break_even_hours=hours_at_break_even,
        hours_per_week=hours,
        yearly=tuple(years),
        cheaper=cheaper,
        reason=reason,
    )
