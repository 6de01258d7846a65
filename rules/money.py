"""Prices at a date, in the asker's currency.

Prices come from the catalog's dated price points: the newest point known on the
as-of date (new, or used when allowed). Amounts are converted with the dated
exchange rate the catalog ships, and the answer says which rate it used.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from rules.contract.answer import Currency, Money
from rules.knowledge.rulebook import Rulebook

if TYPE_CHECKING:
    from rules.knowledge import Catalog, Gpu, PricePoint

__all__ = ["BUDGET_SLACK", "Pricing", "months_between"]

RULE = "cost-efficiency"
BUDGET_SLACK = 1.0001  # a budget affords a price this much above it: prices converted and rounded land on it


def money_step(per_usd: float) -> float:
    """The amount of a currency a speed-for-money figure is given per: 1000 units times the power of ten
    nearest its rate to the dollar, so that the figure reads as one per 1000 USD would (per 1000 RUB a step up
    the price ladder buys 0.05 of speed; per 100,000 RUB, 4.74)."""
    return float(1000 * 10 ** round(math.log10(per_usd)))


def money_step_text(per_usd: float, currency: str) -> str:
    """:func:`money_step` with its currency: "1000 USD", "1000 EUR", "100,000 RUB"
    (digits grouped from five on)."""
    step = money_step(per_usd)
    return f"{step:,.0f} {currency}" if step >= 10_000 else f"{step:.0f} {currency}"


@dataclass(frozen=True)
class Pricing:
    """Price lookups and currency conversion for one question.

    A price is current while it is younger than the rule's age limit for its kind
    (``new_max_age_months`` for new and MSRP points, ``used_max_age_months`` for used):
    an old new price usually means the card is sold out, and used prices drift.
    """

    catalog: Catalog
    as_of: date
    currency: str
    used_ok: bool
    per_usd: float
    rate_date: date
    rate_source: str
    new_max_age_months: int = 24
    used_max_age_months: int = 18
    street_over_msrp_months: int = 12
    shop_life_years: tuple[tuple[str, float], ...] = ()  # (line, years): a tuple keeps Pricing hashable
    remnant_over_used: float = (
        0.0  # a new price above this many times the card's used price is not the market (0: off)
    )
    fresh_months: int = 10_000  # a price older than this is named with its age (rule parameter)
    stale_weight: float = 1.0  # an aged price counts as price / stale_weight against fresher ones

    def in_shops(self, gpu: Gpu) -> bool:
        """Still sold new on the as-of date: within its line's shop life since launch
        (rule ``cost-efficiency``).

        A card past it sells new only as remnant stock, often above its launch price (a new RTX 3090 at
        $1,550 in 2025, five years on); it can still be bought used, so only its new offer goes.
        """
        years = next((y for line, y in self.shop_life_years if line == getattr(gpu, "line", None)), None)
        return years is None or (self.as_of - gpu.released).days < years * 365.25

    @classmethod
    def for_question(
        cls, catalog: Catalog, as_of: date, currency: str, used_ok: bool, rulebook: Rulebook | None = None
    ) -> Pricing:
        ages = {}
        if rulebook is not None:
            params = rulebook.cost_efficiency
            ages = {
                name: getattr(params, name)
                for name in (
                    "new_max_age_months",
                    "used_max_age_months",
                    "street_over_msrp_months",
                    "remnant_over_used",
                    "fresh_months",
                    "stale_weight",
                )
            }
            ages["shop_life_years"] = tuple(params.shop_life_years.items())
        if currency == "USD":
            return cls(catalog, as_of, currency, used_ok, 1.0, as_of, "USD needs no conversion", **ages)
        rate, rate_date, source = catalog.usd_rate(currency, as_of)
        return cls(catalog, as_of, currency, used_ok, rate, rate_date, source, **ages)

    def describe(self) -> Currency:
        return Currency(self.currency, round(self.per_usd, 4), self.rate_date.isoformat(), self.rate_source)

    def to_usd(self, amount: float) -> float:
        return amount / self.per_usd

    def money(self, usd: float, point: PricePoint | None = None) -> Money:
        """``usd`` in the asker's currency; a figure first given in another currency says it was converted."""
        if point is None:
            converted = None if self.currency == "USD" else "USD"
            return Money(usd * self.per_usd, self.currency, usd, converted_from=converted)
        if point.currency == self.currency:  # the price as it was quoted, not a round trip through USD
            amount, converted = usd * point.price / point.price_usd, None
        else:
            amount, converted = usd * self.per_usd, point.currency
        return Money(
            amount,
            self.currency,
            usd,
            point.seen.isoformat(),
            point.kind,
            point.source,
            point.estimate,
            converted,
            None if self.is_fresh(point) and not point.estimate else months_between(point.seen, self.as_of),
        )

    def text(self, usd: float, point: PricePoint | None = None) -> str:
        """``usd`` as the asker reads it, the way the picks show their prices ("48,000 RUB"): what every line
        of an answer that names an amount of money says, so that one answer speaks one currency."""
        return self.money(usd, point).text

    @property
    def step(self) -> float:
        return money_step(self.per_usd)

    def step_text(self) -> str:
        return money_step_text(self.per_usd, self.currency)

    def per_step(self, per_usd: float) -> float:
        """A figure per US dollar (speed per dollar) as one per :attr:`step` of the asker's currency."""
        return per_usd * (self.step / self.per_usd)

    def is_current(self, point: PricePoint) -> bool:
        """Young enough to count on the as-of date (rule ``cost-efficiency``)."""
        limit = self.used_max_age_months if point.kind == "used" else self.new_max_age_months
        return months_between(point.seen, self.as_of) <= limit

    def is_fresh(self, point: PricePoint) -> bool:
        """Within the freshness window (rule ``cost-efficiency``): a price the answer may give as today's."""
        return months_between(point.seen, self.as_of) <= self.fresh_months

    def weighed_usd(self, point: PricePoint) -> float:
        """The price as it counts against fresher ones: an aged price or an estimate counts as if dearer."""
        fresh = self.is_fresh(point) and not point.estimate
        return point.price_usd if fresh else point.price_usd / self.stale_weight

    def best_price(self, gpu: Gpu) -> PricePoint | None:
        """The cheapest current price point (new, or used when allowed); None: no current price.

        A sourced point wins over an estimate, which counts only where nothing sourced is current; an aged
        point counts as if dearer (:meth:`weighed_usd`), so a fresh one of the other kind wins a near tie.
        """
        kinds = ("new", "used") if self.used_ok else ("new",)
        points = [p for kind in kinds if (p := self._current(gpu, kind)) is not None]
        return min(points, key=lambda p: (p.estimate, self.weighed_usd(p), p.kind)) if points else None

    def _current(self, gpu: Gpu, kind: str) -> PricePoint | None:
        """The newest current point of ``kind``, sourced first (new: a street price, else the list price; none
        for a card withdrawn from sale).

        A list price (MSRP) stands in only while no sourced street price of the last
        ``street_over_msrp_months`` is known: cards often sell well above a launch MSRP.
        """
        quote = self._quote(gpu) if kind == "new" else None
        if quote is not None:
            return quote  # the deployment's own price for the card is what its buyer pays
        withdrawn = getattr(gpu, "withdrawn", None)
        if kind == "new" and not (self.in_shops(gpu) and (withdrawn is None or self.as_of < withdrawn)):
            return None
        kinds = ("new", "msrp") if kind == "new" else (kind,)
        current = [p for p in gpu.prices if p.kind in kinds and p.seen <= self.as_of and self.is_current(p)]
        if any(
            p.kind == "new"
            and not p.estimate
            and months_between(p.seen, self.as_of) <= self.street_over_msrp_months
            for p in current
        ):
            current = [p for p in current if p.kind != "msrp"]
        newest = max(current, key=lambda p: (not p.estimate, p.seen, p.kind == "new"), default=None)
        if newest is not None and kind == "new" and self.remnant_over_used:
            used = self._current(gpu, "used")
            if used is not None and newest.price_usd > self.remnant_over_used * used.price_usd:
                return None  # remnant or scalped stock: the used market says what the card is worth
        return newest

    def _quote(self, gpu: Gpu) -> PricePoint | None:
        """The newest of the deployment's own quotes for ``gpu`` within the new-price age limit."""
        quotes = [p for p in gpu.prices if p.kind == "quote" and p.seen <= self.as_of and self.is_current(p)]
        return max(quotes, key=lambda p: (p.seen, -p.price_usd), default=None)

    def last_known(self, gpu: Gpu) -> PricePoint | None:
        """The newest price point of any age and kind known on the as-of date (for "last seen …")."""
        known = [p for p in gpu.prices if p.seen <= self.as_of]
        return max(known, key=lambda p: (p.seen, p.kind != "msrp")) if known else None

    def stale(self, gpus: Iterable[Gpu]) -> list[tuple[Gpu, PricePoint]]:
        """(gpu, last known point) for each card that had a price but has no current one."""
        return [
            (gpu, last)
            for gpu in gpus
            if (last := self.last_known(gpu)) is not None and self.best_price(gpu) is None
        ]


def months_between(earlier: date, later: date) -> int:
    """Whole calendar months from ``earlier`` to ``later`` (2025-01-31 → 2025-02-01 is 1)."""
    return (later.year - earlier.year) * 12 + later.month - earlier.month


