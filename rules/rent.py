"""Rent or buy: the cheapest cloud accelerator that does the job, against owning the pick.

The engine asks one question here, :meth:`Renting.rent_or_buy`: given the card it would
buy (or none), which rental is the sensible alternative and when does buying pay off
(rule ``rent-vs-buy``)? Rentals are GPU instances of any form factor — an H100 SXM is
never bought for a desktop but is a fine rental — and Cloud TPUs where the workload
suits them (rule ``tpu-fit``).
"""

from __future__ import annotations

from datetime import date
from typing import Callable

from rules.answer import RentVsBuy
from rules.money import Pricing
from rules.question import Question
from rules.rulebook import Rulebook

__all__ = ["Renting", "break_even"]

Holds = Callable[[float, int], bool]  # (memory per accelerator in GB, count) -> the job fits


class Renting:
    """Cloud offers of one catalog snapshot, cheapest first per accelerator, cached per date."""

    def __init__(self, catalog, rulebook: Rulebook, performance, electricity_usd_per_kwh: float) -> None:
        self.catalog = catalog
        self.rulebook = rulebook
        self.performance = performance
        self.electricity = electricity_usd_per_kwh
        self._gpu_ids = {gpu.id for gpu in catalog.gpus}
        self._offer_cache: dict[date, list] = {}

    def rent_or_buy(self, question: Question, pricing: Pricing, work: str, holds: Holds, top) -> RentVsBuy | None:
        """Rent-vs-buy against ``top`` (anything with ``gpu``, ``relative``, ``total_usd``).

        The rental is the cheapest offer at least ``min_relative_speed`` × as fast as the pick
        that holds the job on as many accelerators as the asker wants cards.
        """
        ratio = self.rulebook.param("rent-vs-buy", "min_relative_speed")
        for per_unit, offer, gpu in self.cheapest_offers(pricing.as_of):
            if self.performance.relative(gpu, work, question.precision) < ratio * top.relative:
                continue
            if holds(gpu.memory_gb, question.gpus):
                return break_even(self.rulebook, pricing, offer, per_unit * question.gpus, top.gpu, question.gpus,
                                  top.total_usd, question.hours_per_week, self.electricity)
        return None

    def cheapest_offers(self, as_of: date) -> list:
        """(per-GPU $/h, offer, gpu) for the cheapest offer of each catalog GPU, cheapest first."""
        if as_of not in self._offer_cache:
            best: dict[str, tuple] = {}
            for offer in self.catalog.offers_at(as_of):
                if offer.kind != "gpu" or not offer.gpu_id or offer.gpu_id not in self._gpu_ids:
                    continue
                key = (offer.per_unit_per_hour, offer.provider, offer.instance)
                if offer.gpu_id not in best or key < best[offer.gpu_id][0]:
                    best[offer.gpu_id] = (key, offer)
            rows = [(key[0], offer, self.catalog.gpu(gpu_id)) for gpu_id, (key, offer) in best.items()]
            if len(self._offer_cache) > 64:
                self._offer_cache.clear()
            self._offer_cache[as_of] = sorted(rows, key=lambda r: (r[0], r[1].provider, r[1].instance))
        return self._offer_cache[as_of]


def break_even(rulebook: Rulebook, pricing: Pricing, offer, rent_usd_per_hour: float, gpu, count: int,
               buy_usd: float, hours_per_week: float | None, electricity_usd_per_kwh: float) -> RentVsBuy:
    """Break-even hours and 1/2-year totals of buying ``count`` × ``gpu`` versus renting ``offer``."""
    params = rulebook["rent-vs-buy"].parameters
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
        years.append({"years": year, "hours": round(used_hours), "buy": pricing.money(own).to_dict(),
                      "rent": pricing.money(rent).to_dict(), "cheaper": "buy" if own < rent else "rent"})
    cheaper = years[-1]["cheaper"]
    if hours_at_break_even is None:
        reason = "renting costs less per hour than the electricity of owning: rent"
    else:
        weeks = hours_at_break_even / hours
        reason = (f"buying pays off after {hours_at_break_even:,.0f} GPU-hours; at {hours:g} h/week that is "
                  f"{weeks / 52:.1f} years — over {params['years'][-1]} years {cheaper} is cheaper")
    return RentVsBuy(
        offer={"provider": offer.provider, "instance": offer.instance, "accelerator": offer.accelerator,
               "gpu": offer.gpu_id, "count": count, "seen": offer.seen.isoformat(), "source": offer.source},
        rent_per_hour=pricing.money(rent_usd_per_hour),
        own_power_per_hour=pricing.money(power_usd),
        break_even_hours=hours_at_break_even,
        hours_per_week=hours,
        yearly=tuple(years),
        cheaper=cheaper,
        reason=reason,
    )
