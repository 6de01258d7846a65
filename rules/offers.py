"""Stage 3 of an answer: what can be bought on the as-of date, and where it can live.

An :class:`Offer` is one card in one condition (new or used) at its newest dated
price. Desktop questions never get server parts (SXM/OAM modules, passive
data-centre cards, parts sold only through server vendors): they cannot go in a PC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Literal

from rules.money import Pricing

if TYPE_CHECKING:
    from rules.catalog import Gpu, PricePoint

__all__ = ["Offer", "offers_at", "is_server_only", "fits_setting"]


@dataclass(frozen=True)
class Offer:
    """One card for sale: new or used, at a dated price point."""

    gpu: Gpu
    point: PricePoint
    condition: Literal["new", "used"]
    unit_usd: float


def is_server_only(gpu) -> bool:
    """Parts that need a server: modules, passive data-centre cards, server-channel availability."""
    flag = getattr(gpu, "server_only", None)
    if flag is not None:
        return bool(flag)
    return gpu.form_factor in ("sxm", "oam") or "passive" in gpu.cooling


def fits_setting(gpu, setting: str | None) -> bool:
    """A desktop (the default) takes retail cards and whole systems; a server takes any card or module sold,
    but not a whole desktop computer (a Mac Studio or DGX Spark has no place in a rack chassis)."""
    if gpu.form_factor == "cloud":
        return False
    if setting in ("server", "cloud"):
        return gpu.form_factor != "system"
    return not is_server_only(gpu)


def offers_at(catalog, as_of: date, new_prices: Pricing, any_prices: Pricing) -> tuple[Offer, ...]:
    """Every released, purchasable card's new offer and, where cheaper, its used one."""
    found: list[Offer] = []
    for gpu in catalog.released_by(as_of):
        if not gpu.purchasable:
            continue
        new = new_prices.best_price(gpu)
        if new is not None:
            found.append(Offer(gpu, new, "new", new.price_usd))
        cheapest = any_prices.best_price(gpu)
        if cheapest is not None and cheapest.kind == "used":
            found.append(Offer(gpu, cheapest, "used", cheapest.price_usd))
    return tuple(found)

