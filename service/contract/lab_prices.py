"""``/v1/lab-prices``: this deployment's own prices as the admin route shows them."""

from __future__ import annotations

from typing import Annotated

import msgspec

__all__ = ["LabPriceInput", "LabPriceList", "LabPriceRequest", "LabPriceRow"]


class LabPriceInput(msgspec.Struct, frozen=True):
    """One price to store: the card as people name it, the amount for one card, its currency (default USD),
    the date it was given (default today, YYYY-MM-DD) and where it comes from."""

    # no field is required here: a missing one is refused with its name, as a wrong one is (422)
    gpu: Annotated[str, msgspec.Meta(max_length=200)] = ""
    price: float = 0.0
    source: Annotated[str, msgspec.Meta(max_length=500)] = ""
    currency: Annotated[str, msgspec.Meta(max_length=8)] = "USD"
    date: Annotated[str, msgspec.Meta(max_length=40)] | None = None


class LabPriceRequest(msgspec.Struct):
    """POST /v1/lab-prices: one or more prices, stored together or not at all."""

    prices: Annotated[list[LabPriceInput], msgspec.Meta(min_length=1, max_length=500)]


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
