"""Prices at a date, in the asker's currency, and the rent-vs-buy break-even.

Prices come from the catalog's dated price points: the newest point known on the
as-of date (new, or used when allowed). Amounts are converted with the dated
exchange rate the catalog ships, and the answer says which rate it used.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from rules.answer import Money, RentVsBuy
from rules.rulebook import Rulebook

__all__ = ["Pricing", "rent_vs_buy"]


@dataclass(frozen=True)
class Pricing:
    """Price lookups and currency conversion for one question."""

    catalog: object
    as_of: date
    currency: str
    used_ok: bool
    per_usd: float
    rate_date: date
    rate_source: str
    max_age_days: int = 730

    @classmethod
    def for_question(cls, catalog, as_of: date, currency: str, used_ok: bool, max_age_days: int = 730) -> "Pricing":
        if currency == "USD":
            return cls(catalog, as_of, currency, used_ok, 1.0, as_of, "USD needs no conversion", max_age_days)
        rate, rate_date, source = catalog.usd_rate(currency, as_of)
        return cls(catalog, as_of, currency, used_ok, rate, rate_date, source, max_age_days)

    def describe(self) -> dict:
        return {"code": self.currency, "per_usd": round(self.per_usd, 4),
                "rate_date": self.rate_date.isoformat(), "source": self.rate_source}

    def to_usd(self, amount: float) -> float:
        return amount / self.per_usd

    def money(self, usd: float, point=None) -> Money:
        if point is None:
            return Money(usd * self.per_usd, self.currency, usd)
        return Money(usd * self.per_usd, self.currency, usd, point.seen.isoformat(), point.kind, point.source)

    def best_price(self, gpu):
        """The cheapest allowed price point known on the as-of date (None: not on sale).

        A new price older than ``max_age_days`` is stale (the card is usually sold out by then).
        """
        kinds = ("new", "used") if self.used_ok else ("new",)
        points = [p for kind in kinds if (p := self.catalog.price(gpu, self.as_of, kind)) is not None
                  and (p.kind == "used" or (self.as_of - p.seen).days <= self.max_age_days)]
        return min(points, key=lambda p: (p.price_usd, p.kind)) if points else None


def rent_vs_buy(rulebook: Rulebook, pricing: Pricing, offer, rent_usd_per_hour: float, gpu, count: int,
                buy_usd: float, hours_per_week: float | None, electricity_usd_per_kwh: float) -> RentVsBuy:
    """Break-even hours and 1/2-year totals of buying ``count`` × ``gpu`` versus renting ``offer``."""
    params = rulebook["rent-vs-buy"].parameters
    watts = gpu.tdp_w * count + params["system_power_w"]
    power_usd = watts / 1000 * electricity_usd_per_kwh
    margin = rent_usd_per_hour - power_usd
    break_even = buy_usd / margin if margin > 0 else None
    hours = hours_per_week or params["default_hours_per_week"]
    years = []
    for year in params["years"]:
        used_hours = hours * 52 * year
        own = buy_usd + power_usd * used_hours
        rent = rent_usd_per_hour * used_hours
        years.append({"years": year, "hours": round(used_hours), "buy": pricing.money(own).to_dict(),
                      "rent": pricing.money(rent).to_dict(), "cheaper": "buy" if own < rent else "rent"})
    cheaper = years[-1]["cheaper"]
    if break_even is None:
        reason = "renting costs less per hour than the electricity of owning: rent"
    else:
        weeks = break_even / hours
        reason = (f"buying pays off after {break_even:,.0f} GPU-hours; at {hours:g} h/week that is "
                  f"{weeks / 52:.1f} years — over {params['years'][-1]} years {cheaper} is cheaper")
    return RentVsBuy(
        offer={"provider": offer.provider, "instance": offer.instance, "accelerator": offer.accelerator,
               "gpu": offer.gpu_id, "count": count, "seen": offer.seen.isoformat(), "source": offer.source},
        rent_per_hour=pricing.money(rent_usd_per_hour),
        own_power_per_hour=pricing.money(power_usd),
        break_even_hours=break_even,
        hours_per_week=hours,
        yearly=tuple(years),
        cheaper=cheaper,
        reason=reason,
    )
