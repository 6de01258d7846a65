"""Rent or buy: the cheapest cloud accelerator that does the job, against owning the pick.

The engine asks one question here, :meth:`Renting.rent_or_buy`: given the card it would
buy (or none), which rental is the sensible alternative and when does buying pay off
(rule ``rent-vs-buy``)? Rentals are GPU instances of any form factor — an H100 SXM is
never bought for a desktop but is a fine rental — and Cloud TPUs where the workload
suits them (rule ``tpu-fit``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from msgspec.structs import replace as with_changes

from rules.contract.answer import RentOffer, RentOption, RentVsBuy, RentYear
from rules.knowledge.messages import Phrase, Text, spoken
from rules.market import Market, Rental, TpuChip
from rules.money import Pricing

if TYPE_CHECKING:
    from rules.configurations import Configuration, Sizing
    from rules.contract.question import Question
    from rules.knowledge import Catalog, CloudOffer, Gpu, Rulebook

__all__ = ["Renting", "break_even", "named_units", "power_usd_per_hour", "tpu_chips", "tpu_named"]


@dataclass(frozen=True)
class Renting:
    """Rent vs buy over one market: the rentals on its date, the accelerators named, the asker's hours."""

    rulebook: Rulebook
    electricity: float  # USD per kWh

    def rent_or_buy(
        self, market: Market, question: Question, pricing: Pricing, sizing: Sizing, top: Configuration | None
    ) -> RentVsBuy | None:
        """Rent-vs-buy against ``top`` (None: nothing to buy).

        With a card to buy, the rental is that same card's offer: buying is weighed only against renting
        what is bought. Where no provider lists it, the answer says so and prices renting the cheapest
        offer at least ``min_relative_speed`` × as fast instead, with no break-even; without a card to
        buy, the rental that costs least per unit of work. TPUs count where rule ``tpu-fit``
        says the workload suits them, or when the asker names one. ``options`` lists the
        named accelerators and the best GPU and TPU rentals, so both sides can be weighed.
        """
        named = named_units(market.catalog, question.compare)
        count = top.count if top is not None else question.gpus  # as many rented as would be bought
        found = self._holding(market, question, sizing, named, count)
        if found is None:
            return None
        usable, speed, value = found
        unlisted = None  # the card to buy, when no provider lists it
        if top is not None:
            chosen = next((r for r in usable if r.unit.id == top.gpu.id), None)
            if chosen is None:
                unlisted = top.gpu
                ratio = self.rulebook.rent_vs_buy.min_relative_speed
                chosen = _same_chip(market, top.gpu, usable) or next(
                    (r for r in usable if speed[r.unit.id] >= ratio * top.relative), None
                )
                if chosen is None:
                    return None
        else:
            chosen = next((r for r in value if r.unit.id in named), value[0])
        best_gpu = next((r for r in value if not isinstance(r.unit, TpuChip)), None)
        best_tpu = next((r for r in value if isinstance(r.unit, TpuChip)), None)
        shown = [chosen] + [r for r in usable if r.unit.id in named] + [r for r in (best_gpu, best_tpu) if r]
        hours, assumed = self.hours_per_week(question)
        listed = _unique(shown)
        options = tuple(_line(r, speed[r.unit.id], count, hours, pricing, r.unit.id in named) for r in listed)
        if top is None or unlisted is not None:
            result, reason = _rent_only(self.rulebook, pricing, chosen, count, hours, options)
            if unlisted is not None:  # never a break-even against another card's listing
                reason = Phrase("rent.unlisted", {"name": unlisted.name, "instead": reason})
        else:
            result, reason = break_even(self.rulebook, pricing, chosen, top, hours, self.electricity)
            result = with_changes(result, options=options)
        reason = Phrase("rent.reason", {"reason": reason, "basis": _basis(chosen), "assumed": assumed})
        return _said(result, tuple(_basis(r) for r in listed), _basis(chosen), reason, question.language)

    def _holding(
        self, market: Market, question: Question, sizing: Sizing, named: frozenset[str], count: int
    ) -> tuple[list[Rental], dict[str, float], list[Rental]] | None:
        """(the rentals that hold the job on ``count`` units, their speeds, the same by cost per unit of
        work); None: none does."""
        suits_tpu = question.workload in self.rulebook.tpu_fit.good_for and sizing.job.runs_on_tpu
        holds: dict[float, bool] = {}  # by memory size: many accelerators share one
        usable = []
        for rental in market.rentals:
            unit = rental.unit
            if isinstance(unit, TpuChip) and not suits_tpu and unit.id not in named:
                continue
            if unit.memory_gb not in holds:
                holds[unit.memory_gb] = sizing.fit(unit.memory_gb, count).fits
            if holds[unit.memory_gb]:
                usable.append(rental)
        if not usable:
            return None
        # the same measure the card to buy is ranked by (the job's own precision), so that "about as fast" and
        # the cost per unit of work compare like with like
        speed = {r.unit.id: sizing.relative(r.unit) for r in usable}
        return (
            usable,
            speed,
            sorted(usable, key=lambda r: (r.per_unit_usd / max(speed[r.unit.id], 1e-9), r.unit.id)),
        )

    def power_usd_per_hour(self, gpu: Gpu, count: int) -> float:
        """Electricity of ``count`` cards and the machine around them, an hour of use."""
        system_w = self.rulebook.rent_vs_buy.system_power_w
        return power_usd_per_hour(gpu.tdp_w, count, system_w, self.electricity)

    def hours_per_week(self, question: Question) -> tuple[float, Text]:
        """The asker's hours a week, else the rule's default: higher for a server or several cards,
        and why."""
        params = self.rulebook.rent_vs_buy
        if question.hours_per_week:
            return question.hours_per_week, ""
        if question.setting == "server" or question.gpus > 1 or (question.users or 0) > 1:
            hours = f"{params.server_hours_per_week:g}"
            return params.server_hours_per_week, Phrase("rent.server_hours", {"hours": hours})
        hours = f"{params.default_hours_per_week:g}"
        return params.default_hours_per_week, Phrase("rent.personal_hours", {"hours": hours})


def _basis(rental: Rental) -> Phrase:
    """How the offer was chosen among the providers'."""
    if rental.providers == 1:
        return Phrase("rent.only_provider", {"provider": rental.offer.provider})
    return Phrase("rent.quartile", {"provider": rental.offer.provider, "providers": rental.providers})


def _said(
    result: RentVsBuy, bases: tuple[Phrase, ...], chosen: Phrase, reason: Text, language: str | None
) -> RentVsBuy:
    """The comparison said: why, in the asker's language; how each offer was chosen, in the API's English."""
    options = tuple(with_changes(o, basis=spoken(b)) for o, b in zip(result.options, bases, strict=True))
    offer = with_changes(result.offer, basis=spoken(chosen))
    return with_changes(result, offer=offer, options=options, reason=spoken(reason, language))


def tpu_chips(catalog: Catalog) -> dict[str, TpuChip]:
    """Every Cloud TPU of the catalog as the performance model sees it."""
    chips = {}
    for tpu_id, spec in catalog.tpus.items():
        tensor = {"bf16": spec.bf16_tflops, "fp16": spec.bf16_tflops}
        if spec.int8_tops:
            tensor["int8"] = spec.int8_tops
        chips[tpu_id] = TpuChip(
            spec.id,
            spec.name,
            spec.hbm_gb,
            spec.bandwidth_gb_s or 0.0,
            MappingProxyType(tensor),
            spec.bf16_tflops / 3,
            spec.bf16_tflops,
        )
    return chips


def tpu_named(catalog: Catalog, name: str) -> TpuChip | None:
    """ "tpu v5e", "Cloud TPU v6e", "trillium" -> the chip."""
    key = _key(name).removeprefix("google").removeprefix("cloud")
    for chip in tpu_chips(catalog).values():
        nicknames = {_key(n) for n in re.findall(r"\((\w+)\)", chip.name)}
        if key and key in {_key(chip.id), _key(chip.name.split("(")[0]).removeprefix("cloud")} | nicknames:
            return chip
    return None


def named_units(catalog: Catalog, names: Sequence[str]) -> frozenset[str]:
    """Catalog GPU and TPU ids of the accelerators the asker named."""
    found = ((tpu_named(catalog, name) or catalog.find(name)) for name in names or ())
    return frozenset(unit.id for unit in found if unit is not None)


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _same_chip(market: Market, gpu: Gpu, usable: list[Rental]) -> Rental | None:
    """The cheapest rental of another form of the card's chip (H200 SXM for an H200 NVL): the nearest one."""
    catalog = market.catalog
    return next(
        (r for r in usable if not isinstance(r.unit, TpuChip) and catalog.same_chip(gpu, r.unit)), None
    )


def _unique(rentals: list[Rental]) -> list[Rental]:
    """Each accelerator once, at its first place."""
    first: dict[str, Rental] = {}
    for rental in rentals:
        first.setdefault(rental.unit.id, rental)
    return list(first.values())


def _line(
    rental: Rental, relative: float, count: int, hours: float, pricing: Pricing, named: bool
) -> RentOption:
    """One rental option: what, where, per hour (on demand and spot), speed and a year at ``hours`` a week."""
    offer, per_hour = rental.offer, rental.per_unit_usd * count
    spot = offer.spot_per_hour / offer.count * count if offer.spot_per_hour else None
    return RentOption(
        kind="tpu" if isinstance(rental.unit, TpuChip) else "gpu",
        id=rental.unit.id,
        name=rental.unit.name,
        provider=offer.provider,
        instance=offer.instance,
        accelerator=offer.accelerator,
        count=count,
        per_hour=pricing.money(per_hour),
        spot_per_hour=pricing.money(spot) if spot else None,
        relative_performance=relative,
        per_year=pricing.money(per_hour * hours * 52),
        seen=offer.seen.isoformat(),
        source=offer.source,
        basis="",  # said with the comparison
        named=named,
    )


def _rent_only(
    rulebook: Rulebook,
    pricing: Pricing,
    rental: Rental,
    count: int,
    hours: float,
    options: tuple[RentOption, ...],
) -> tuple[RentVsBuy, Phrase]:
    """Nothing to buy (none named can be, or none fits the budget): what renting costs over the rule's
    years, and why."""
    rent_usd = rental.per_unit_usd * count
    years = tuple(
        RentYear(y, round(hours * 52 * y), None, pricing.money(rent_usd * hours * 52 * y), "rent")
        for y in rulebook.rent_vs_buy.years
    )
    per_year = pricing.money(rent_usd * hours * 52)
    reason = Phrase(
        "rent.only",
        {
            "count": count,
            "name": rental.unit.name,
            "price": f"{per_year.amount:,.0f}",
            "currency": per_year.currency,
            "hours": f"{hours:g}",
        },
    )
    rented = RentVsBuy(
        offer=_offer(rental.offer, count),
        rent_per_hour=pricing.money(rent_usd),
        own_power_per_hour=pricing.money(0.0),
        break_even_hours=None,
        hours_per_week=hours,
        yearly=years,
        cheaper="rent",
        reason="",  # said with the comparison
        options=options,
    )
    return rented, reason


def _offer(offer: CloudOffer, count: int) -> RentOffer:
    return RentOffer(
        provider=offer.provider,
        instance=offer.instance,
        accelerator=offer.accelerator,
        gpu=offer.gpu_id,
        tpu=offer.tpu_id,
        count=count,
        seen=offer.seen.isoformat(),
        source=offer.source,
    )


def power_usd_per_hour(tdp_w: float, count: int, system_power_w: float, usd_per_kwh: float) -> float:
    """What ``count`` cards of ``tdp_w`` and the machine around them cost in electricity an hour: the one
    sum behind rent vs buy, a bought card's share of a training run and a served model's year."""
    return (tdp_w * count + system_power_w) / 1000 * usd_per_kwh


def break_even(
    rulebook: Rulebook,
    pricing: Pricing,
    rental: Rental,
    bought: Configuration,
    hours_per_week: float | None,
    electricity_usd_per_kwh: float,
) -> tuple[RentVsBuy, Phrase]:
    """Break-even hours and 1/2-year totals of buying the configuration versus renting as many units of
    ``rental`` as it has cards, and why the cheaper one is."""
    offer, gpu, count, buy_usd = rental.offer, bought.gpu, bought.count, bought.total_usd
    rent_usd_per_hour = rental.per_unit_usd * count
    params = rulebook.rent_vs_buy
    power_usd = power_usd_per_hour(gpu.tdp_w, count, params.system_power_w, electricity_usd_per_kwh)
    margin = rent_usd_per_hour - power_usd
    hours_at_break_even = buy_usd / margin if margin > 0 else None
    hours = hours_per_week or params.default_hours_per_week
    years = []
    for year in params.years:
        used_hours = hours * 52 * year
        own = buy_usd + power_usd * used_hours
        rent = rent_usd_per_hour * used_hours
        years.append(
            RentYear(
                year,
                round(used_hours),
                pricing.money(own),
                pricing.money(rent),
                "buy" if own < rent else "rent",
            )
        )
    cheaper = years[-1].cheaper
    if hours_at_break_even is None:
        reason = Phrase("rent.rent_is_cheaper")
    else:
        weeks = hours_at_break_even / hours
        reason = Phrase(
            "rent.break_even",
            {
                "hours": f"{hours_at_break_even:,.0f}",
                "per_week": f"{hours:g}",
                "years": f"{weeks / 52:.1f}",
                "horizon": params.years[-1],
                "cheaper": Phrase(f"rent.cheaper.{cheaper}"),
            },
        )
    compared = RentVsBuy(
        offer=_offer(offer, count),
        rent_per_hour=pricing.money(rent_usd_per_hour),
        own_power_per_hour=pricing.money(power_usd),
        break_even_hours=hours_at_break_even,
        hours_per_week=hours,
        yearly=tuple(years),
        cheaper=cheaper,
        reason="",  # said with the comparison
    )
    return compared, reason
