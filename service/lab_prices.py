"""A deployment's own prices: the quotes a lab's vendor gave it, or a price list it trusts.

Each is a card, an amount in a currency, the date it was given and where it comes from; they live in the
database (table ``lab_price``) and reach the engine as dated price points of kind ``quote``
(:meth:`rules.knowledge.catalog.Catalog.with_quotes`), which that deployment's answers price the card at
and show as "your quote". The CLI (``whichgpu prices``) and the admin HTTP route share these functions, so
both accept and refuse the same input with the same words.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from sqlmodel import Session, col, func, select

from service.db import session_scope
from service.lab_quotes import quotes_from_rows
from service.models import LabPrice

if TYPE_CHECKING:
    from rules.knowledge.catalog import Catalog
    from rules.knowledge.records import PricePoint

__all__ = [
    "CSV_COLUMNS",
    "LabPriceError",
    "NewPrice",
    "add_prices",
    "lab_quotes",
    "list_prices",
    "parse_csv",
    "prices_version",
    "remove_price",
    "row_json",
    "validate",
]

CSV_COLUMNS = ("gpu", "price", "currency", "date", "source")
MAX_PRICE = 10_000_000  # more than any single accelerator or server costs: a typo, not a quote
EARLIEST = date(2000, 1, 1)


class LabPriceError(ValueError):
    """Input that cannot be a price; the message says what to change, ``field`` which input it was."""

    def __init__(self, message: str, field: str = "body") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class NewPrice:
    """A checked price, ready to store."""

    gpu_id: str
    price: float
    currency: str
    seen: date
    source: str


def validate(
    catalog: Catalog,
    *,
    gpu: str,
    price: float | str,
    currency: str,
    seen: date | str,
    source: str,
    today: date,
) -> NewPrice:
    """The price as the database keeps it, or :class:`LabPriceError` naming the field that is wrong."""
    found = catalog.find(gpu.strip()) if gpu and gpu.strip() else None
    if found is None:
        raise LabPriceError(
            f"no card called {gpu!r} in the catalog (try its name, e.g. 'rtx 4090' or 'h100 sxm')", "gpu"
        )
    try:
        amount = float(price)
    except (TypeError, ValueError):
        raise LabPriceError(f"price {price!r} is not a number", "price") from None
    if not math.isfinite(amount) or not 0 < amount <= MAX_PRICE:
        raise LabPriceError(f"price {price!r} must be above 0 and at most {MAX_PRICE:,}", "price")
    code = (currency or "").strip().upper()
    known = {"USD", *(r.currency for r in catalog.currencies)}
    if code not in known:
        raise LabPriceError(
            f"currency {currency!r} is not one the catalog has rates for ({', '.join(sorted(known))})",
            "currency",
        )
    try:
        day = seen if isinstance(seen, date) else date.fromisoformat(str(seen).strip())
    except ValueError:
        raise LabPriceError(f"date {seen!r} is not a date (YYYY-MM-DD)", "date") from None
    if not EARLIEST <= day <= today:
        raise LabPriceError(
            f"date {day.isoformat()} must be between {EARLIEST.isoformat()} and today ({today})", "date"
        )
    text = (source or "").strip()
    if not 3 <= len(text) <= 500:
        raise LabPriceError(
            "source must say where the price comes from (3 to 500 characters), e.g. 'Vendor X quote 2026-11'",
            "source",
        )
    return NewPrice(found.id, amount, code, day, text)


def parse_csv(text: str, catalog: Catalog, today: date) -> list[NewPrice]:
    """Every row of a CSV with the columns ``gpu,price,currency,date,source``; the first bad row stops it,
    named by its line, so that nothing of a broken file is stored."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise LabPriceError(
            f"the CSV needs the columns {','.join(CSV_COLUMNS)}; missing: {', '.join(missing)}"
        )
    rows = []
    for line, row in enumerate(reader, start=2):
        try:
            rows.append(
                validate(
                    catalog,
                    gpu=row["gpu"] or "",
                    price=row["price"] or "",
                    currency=row["currency"] or "",
                    seen=row["date"] or "",
                    source=row["source"] or "",
                    today=today,
                )
            )
        except LabPriceError as err:
            raise LabPriceError(f"line {line}: {err}", err.field) from None
    if not rows:
        raise LabPriceError("the CSV has no rows under its header")
    return rows


def add_prices(database_url: str, prices: Iterable[NewPrice]) -> list[LabPrice]:
    """Store ``prices`` in one transaction; the stored rows, with their ids."""
    with session_scope(database_url) as session:
        rows = [
            LabPrice(gpu_id=p.gpu_id, price=p.price, currency=p.currency, seen=p.seen, source=p.source)
            for p in prices
        ]
        session.add_all(rows)
        session.flush()
        for row in rows:
            session.refresh(row)
        return rows


def list_prices(database_url: str) -> list[LabPrice]:
    with session_scope(database_url) as session:
        return list(session.exec(select(LabPrice).order_by(col(LabPrice.gpu_id), col(LabPrice.seen))))


def remove_price(database_url: str, price_id: int) -> bool:
    """Delete one price; False when there is none with that id."""
    with session_scope(database_url) as session:
        row = session.get(LabPrice, price_id)
        if row is None:
            return False
        session.delete(row)
        return True


def prices_version(session: Session) -> str:
    """Changes whenever a price is added or removed ("" while there are none)."""
    count, newest = session.exec(select(func.count(col(LabPrice.id)), func.max(col(LabPrice.id)))).one()
    return f"quotes-{count}-{newest}" if count else ""


def lab_quotes(session: Session, catalog: Catalog) -> Mapping[str, tuple[PricePoint, ...]]:
    """The stored prices as the engine's dated price points, by card (cards the catalog lost are skipped)."""
    rows = session.exec(select(LabPrice).order_by(col(LabPrice.id))).all()
    plain = [(r.id, r.gpu_id, r.price, r.currency, r.seen, r.source) for r in rows]
    return quotes_from_rows(plain, catalog)[0]


def row_json(row: LabPrice) -> dict[str, object]:
    """A stored price as the CLI's --json and the HTTP route show it."""
    return {
        "id": row.id,
        "gpu": row.gpu_id,
        "price": row.price,
        "currency": row.currency,
        "date": row.seen.isoformat(),
        "source": row.source,
    }
