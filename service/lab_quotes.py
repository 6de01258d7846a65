"""The deployment's own prices as the terminal reads them: a driver connection and one query, so that
``whichgpu ask`` starts without the ORM (the table and its management live in :mod:`service.lab_prices`)."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from service.measurements import _connect as read_only_connection  # the measurements' reader connects alike

if TYPE_CHECKING:
    from rules.knowledge.catalog import Catalog
    from rules.knowledge.records import PricePoint

__all__ = ["quoted_catalog", "quotes_from_rows"]

QUERY = "SELECT id, gpu_id, price, currency, seen, source FROM lab_price ORDER BY id"


def quotes_from_rows(
    rows: list[tuple[Any, ...]], catalog: Catalog
) -> tuple[dict[str, tuple[PricePoint, ...]], str]:
    """(the rows as dated price points of kind ``quote`` by card, their version: "" when there are none).
    Cards the catalog no longer has are skipped."""
    from rules.knowledge.records import PricePoint

    known = {g.id for g in catalog.gpus}
    quotes: dict[str, list[PricePoint]] = {}
    for _, gpu_id, price, currency, seen, source in rows:
        if gpu_id not in known:
            continue
        day = seen if isinstance(seen, date) else date.fromisoformat(str(seen)[:10])
        usd = catalog.to_usd(float(price), currency, day)
        point = PricePoint(day, "quote", usd, float(price), currency, f"your quote: {source}")
        quotes.setdefault(gpu_id, []).append(point)
    version = f"quotes-{len(rows)}-{rows[-1][0]}" if rows else ""
    return {gpu: tuple(points) for gpu, points in quotes.items()}, version


def quoted_catalog(database_url: str, catalog: Catalog) -> Catalog:
    """``catalog`` with the deployment's prices; unchanged where there is no database or no price table yet
    (``whichgpu ask`` before the first ``migrate``)."""
    connection = read_only_connection(database_url)
    if connection is None:
        return catalog
    try:
        rows = list(connection.execute(QUERY).fetchall())
    except Exception as exc:  # a database without the table has no prices of its own
        if type(exc).__name__ in ("OperationalError", "UndefinedTable", "ProgrammingError"):
            return catalog
        raise
    finally:
        connection.close()
    quotes, version = quotes_from_rows(rows, catalog)
    return catalog.with_quotes(quotes, version) if version else catalog
