"""``/v1/lab-prices``: this deployment's own prices as the admin route shows them."""

from __future__ import annotations

import msgspec

__all__ = ["LabPriceList", "LabPriceRow"]


class LabPriceRow(msgspec.Struct, frozen=True):
    """One stored price: a card, an amount for one card in a currency, the date it was given, its source."""

    id: int
    gpu: str
    price: float
    currency: str
    date: str
    source: str


class LabPriceList(msgspec.Struct, frozen=True):
    """Prices of this deployment's own (all of them, or those a request stored), by card and date."""

    prices: tuple[LabPriceRow, ...]
