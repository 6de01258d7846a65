"""Prices at a date, in the asker's currency.

Prices come from the catalog's dated price points: the newest point known on the
as-of date (new, or used when allowed). Amounts are converted with the dated
exchange rate the catalog ships, and the answer says which rate it used.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from rules.answer import Money

__all__ = ["Pricing"]


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

