"""Rent or buy: the cheapest cloud accelerator that does the job, against owning the pick.

The engine asks one question here, :func:`rent_or_buy`: given the card it would
buy (or none), which rental is the sensible alternative and when does buying pay off
(rule ``rent-vs-buy``)? Rentals are GPU instances of any form factor — an H100 SXM is
never bought for a desktop but is a fine rental — and Cloud TPUs where the workload
suits them (rule ``tpu-fit``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple

from rules.contract.answer import RentOffer, RentOption, RentVsBuy, RentYear
from rules.knowledge.messages import Phrase, Text, spoken
from rules.market import Market, Rental, TpuChip
from rules.money import Pricing

if TYPE_CHECKING:
    from rules.configurations import Configuration
    from rules.knowledge import Gpu, Rulebook
    from rules.stages import Known, Stages

__all__ = ["electricity_for", "power_usd_per_hour", "rent_or_buy"]


def electricity_for(
    stages: Stages, known: Known, bought: Iterable[Configuration | None]
) -> Mapping[tuple[str, int], float]:
    """What each machine the answer may weigh owning costs in electricity an hour (USD), by (card, count):
    the configurations ``bought``, the card the asker has and the cards the question names, as many as it
    asks; priced once for renting against buying, a served model's period and a training run."""
    question, params = stages.question, known.rulebook.rent_vs_buy
    machines = [(c.gpu, c.count) for c in bought if c is not None]
    if stages.asker.owned is not None:
        machines.append((stages.asker.owned, question.gpus))
    machines += [(gpu, question.gpus) for name in question.compare if (gpu := known.catalog.find(name))]
    return {
        (gpu.id, count): power_usd_per_hour(
            gpu.tdp_w, count, params.system_power_w, known.electricity_usd_per_kwh
        )
        for gpu, count in machines
    }


def rent_or_buy(
    stages: Stages,
    known: Known,
    top: Configuration | None,
    electricity: Mapping[tuple[str, int], float],
    named: frozenset[str] = frozenset(),
) -> RentVsBuy | None:
    """Rent-vs-buy against ``top`` (None: nothing to buy) over the market of the question's date, at the
    asker's hours a week (``electricity``: :func:`electricity_for`); ``named``: the catalog ids of the GPUs
    and TPUs the asker named (:func:`rules.named.named_units`).

    With a card to buy, the rental is that same card's offer: buying is weighed only against renting
    what is bought. Where no provider lists it, the answer says so and prices renting the cheapest
    offer at least ``min_relative_speed`` × as fast instead, with no break-even; without a card to
    buy, the rental that costs least per unit of work. TPUs count where rule ``tpu-fit``
    says the workload suits them, or when the asker names one. ``options`` lists the
    named accelerators and the best GPU and TPU rentals, so both sides can be weighed.
    """
    question, market, asker, rulebook = stages.question, stages.market, stages.asker, known.rulebook
    count = top.count if top is not None else question.gpus  # as many rented as would be bought
    found = _holding(rulebook, stages, named, count)
    if found is None:
        return None
    usable, speed, value = found
    unlisted = None  # the card to buy, when no provider lists it
    if top is not None:
        chosen = next((r for r in usable if r.unit.id == top.gpu.id), None)
        if chosen is None:
            unlisted = top.gpu
            ratio = rulebook.rent_vs_buy.min_relative_speed
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
    hours, assumed = asker.hours_per_week, asker.hours_assumed
    listed = tuple((r, speed[r.unit.id], r.unit.id in named) for r in _unique(shown))
    if top is None or unlisted is not None:  # never a break-even against another card's listing
        weighed = _rent_only(rulebook, chosen, count, hours)
    else:
        weighed = _break_even(rulebook, chosen, top, hours, electricity[(top.gpu.id, top.count)])
    said = _Said(unlisted.name if unlisted is not None else None, assumed, question.language)
    return _finished(weighed, listed, said, stages.pricing)


def _holding(
    rulebook: Rulebook, stages: Stages, named: frozenset[str], count: int
) -> tuple[list[Rental], dict[str, float], list[Rental]] | None:
    """(the rentals that hold the job on ``count`` units, their speeds, the same by cost per unit of
    work); None: none does."""
    suits_tpu = stages.question.workload in rulebook.tpu_fit.good_for and stages.job.runs_on_tpu
    held = [
        r
        for r in stages.rentable
        if r.fewest <= count
        and (not isinstance(r.rental.unit, TpuChip) or suits_tpu or r.rental.unit.id in named)
    ]
    if not held:
        return None
    usable = [r.rental for r in held]
    # the same measure the card to buy is ranked by (the job's own precision), so that "about as fast" and
    # the cost per unit of work compare like with like
    speed = {r.rental.unit.id: r.relative for r in held}
    return (
        usable,
        speed,
        sorted(usable, key=lambda r: (r.per_unit_usd / max(speed[r.unit.id], 1e-9), r.unit.id)),
    )


def _basis(rental: Rental) -> Phrase:
    """How the offer was chosen among the providers'."""
    if rental.providers == 1:
        return Phrase("rent.only_provider", {"provider": rental.offer.provider})
    return Phrase("rent.quartile", {"provider": rental.offer.provider, "providers": rental.providers})


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


@dataclass(frozen=True)
class _Weighed:
    """Renting ``count`` of a rental against buying the configuration (or nothing), in USD: the asker's
    currency and language are applied once, by :func:`_finished`."""

    rental: Rental
    count: int
    hours: float  # a week
    rent_usd_per_hour: float
    power_usd_per_hour: float  # the bought cards' electricity; 0 with nothing bought
    break_even_hours: float | None
    # (years, hours used, owning USD (None: nothing to own), renting USD, the cheaper of the two)
    years: tuple[tuple[int, float, float | None, float, Literal["buy", "rent"]], ...]
    cheaper: Literal["buy", "rent"]
    reason: Phrase | None  # why; None: renting only, said with what a year of it costs


class _Said(NamedTuple):
    """What the comparison's words need beyond its figures."""

    unlisted: str | None  # the card to buy, where no provider lists it
    assumed: Text  # the hours a week assumed, where the question gave none
    language: str | None


def _rent_only(rulebook: Rulebook, rental: Rental, count: int, hours: float) -> _Weighed:
    """Nothing to buy (none named can be, or none fits the budget): what renting costs over the rule's
    years."""
    rent_usd = rental.per_unit_usd * count
    rent: Literal["buy", "rent"] = "rent"
    spans = rulebook.rent_vs_buy.years
    years = tuple((y, hours * 52 * y, None, rent_usd * hours * 52 * y, rent) for y in spans)
    return _Weighed(rental, count, hours, rent_usd, 0.0, None, years, "rent", None)


def _break_even(
    rulebook: Rulebook,
    rental: Rental,
    bought: Configuration,
    hours_per_week: float | None,
    power_usd: float,
) -> _Weighed:
    """Break-even hours and 1/2-year totals of buying the configuration versus renting as many units of
    ``rental`` as it has cards (``power_usd``: running them an hour), and why the cheaper one is."""
    count, buy_usd = bought.count, bought.total_usd
    rent_usd_per_hour = rental.per_unit_usd * count
    params = rulebook.rent_vs_buy
    margin = rent_usd_per_hour - power_usd
    hours_at_break_even = buy_usd / margin if margin > 0 else None
    hours = hours_per_week or params.default_hours_per_week
    years = tuple(_year(y, hours * 52 * y, buy_usd, power_usd, rent_usd_per_hour) for y in params.years)
    cheaper = years[-1][4]
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
    return _Weighed(
        rental, count, hours, rent_usd_per_hour, power_usd, hours_at_break_even, years, cheaper, reason
    )


def _year(
    years: int, used: float, buy_usd: float, power_usd: float, rent_usd_per_hour: float
) -> tuple[int, float, float, float, Literal["buy", "rent"]]:
    """Owning against renting over ``years`` of ``used`` hours: the price and the electricity, or the rent."""
    own, rent = buy_usd + power_usd * used, rent_usd_per_hour * used
    return years, used, own, rent, "buy" if own < rent else "rent"


def _finished(
    weighed: _Weighed, listed: tuple[tuple[Rental, float, bool], ...], said: _Said, pricing: Pricing
) -> RentVsBuy:
    """The comparison in the asker's money and words, made once: every amount converted, then why (in the
    asker's language) and how the offer was chosen (in the API's English)."""
    count, hours, rental = weighed.count, weighed.hours, weighed.rental
    options = _options(listed, count, hours, pricing)
    rent_per_hour = pricing.money(weighed.rent_usd_per_hour)
    own_power = pricing.money(weighed.power_usd_per_hour)
    owned = [None if own is None else pricing.money(own) for _, _, own, _, _ in weighed.years]
    rented = [pricing.money(rent) for _, _, _, rent, _ in weighed.years]
    a_year = pricing.money(weighed.rent_usd_per_hour * hours * 52)
    only = {"count": count, "name": rental.unit.name, "hours": f"{hours:g}"}
    reason: Text = weighed.reason or Phrase(
        "rent.only", {**only, "price": f"{a_year.amount:,.0f}", "currency": a_year.currency}
    )
    if said.unlisted is not None:
        reason = Phrase("rent.unlisted", {"name": said.unlisted, "instead": reason})
    reason = Phrase("rent.reason", {"reason": reason, "basis": _basis(rental), "assumed": said.assumed})
    offer = rental.offer
    return RentVsBuy(
        offer=RentOffer(
            provider=offer.provider,
            instance=offer.instance,
            accelerator=offer.accelerator,
            gpu=offer.gpu_id,
            tpu=offer.tpu_id,
            count=count,
            seen=offer.seen.isoformat(),
            source=offer.source,
            basis=spoken(_basis(rental)),
        ),
        rent_per_hour=rent_per_hour,
        own_power_per_hour=own_power,
        break_even_hours=weighed.break_even_hours,
        hours_per_week=hours,
        yearly=tuple(
            RentYear(y, round(used), own, rent, cheaper)
            for (y, used, _, _, cheaper), own, rent in zip(weighed.years, owned, rented, strict=True)
        ),
        cheaper=weighed.cheaper,
        reason=spoken(reason, said.language),
        options=options,
    )


def _options(
    listed: tuple[tuple[Rental, float, bool], ...], count: int, hours: float, pricing: Pricing
) -> tuple[RentOption, ...]:
    """The rentals worth knowing: what, where, per hour (on demand and spot), speed, a year at ``hours`` a
    week and how the offer was chosen among the providers' (in the API's English)."""
    return tuple(
        RentOption(
            kind="tpu" if isinstance(r.unit, TpuChip) else "gpu",
            id=r.unit.id,
            name=r.unit.name,
            provider=r.offer.provider,
            instance=r.offer.instance,
            accelerator=r.offer.accelerator,
            count=count,
            per_hour=pricing.money(r.per_unit_usd * count),
            spot_per_hour=pricing.money(spot) if (spot := _spot_usd(r, count)) else None,
            relative_performance=relative,
            per_year=pricing.money(r.per_unit_usd * count * hours * 52),
            seen=r.offer.seen.isoformat(),
            source=r.offer.source,
            basis=spoken(_basis(r)),
            named=named,
        )
        for r, relative, named in listed
    )


def _spot_usd(rental: Rental, count: int) -> float | None:
    offer = rental.offer
    return offer.spot_per_hour / offer.count * count if offer.spot_per_hour else None


def power_usd_per_hour(tdp_w: float, count: int, system_power_w: float, usd_per_kwh: float) -> float:
    """What ``count`` cards of ``tdp_w`` and the machine around them cost in electricity an hour: the one
    sum behind rent vs buy, a bought card's share of a training run and a served model's year."""
    return (tdp_w * count + system_power_w) / 1000 * usd_per_kwh
