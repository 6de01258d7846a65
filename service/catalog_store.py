"""Copy the shipped catalog into the catalog tables when its version changes.

The engine ranks the in-memory catalog; the tables are for SQL users and other
processes. :func:`sync_catalog` runs on every start and is a no-op (one query)
when ``catalog_state.catalog_version`` already equals the catalog's version.
On PostgreSQL a transaction-scoped advisory lock serialises replicas starting
together, so the copy is written once and never seen half-done.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from types import MappingProxyType
from typing import Any

from sqlalchemy import delete, text
from sqlmodel import select

from service.db import session_scope
from service.models import CatalogGpu, CatalogState, CloudOffer, PricePoint

__all__ = ["sync_catalog", "gpu_entry", "stored_catalog_version", "VERSION_KEY"]

VERSION_KEY = "catalog_version"
SYNC_LOCK = 7270418


def _plain(value: Any) -> Any:
    """A JSON-ready copy of catalog values (dates, tuples, mapping proxies)."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (dict, MappingProxyType)):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def gpu_entry(gpu: Any) -> dict[str, Any]:
    """The whole catalog entry of a GPU as JSON (specs, overlay, price history, sources)."""
    return _plain(gpu)


def _cut(text_value: str | None, limit: int) -> str | None:
    return text_value if text_value is None or len(text_value) <= limit else text_value[: limit - 1] + "…"


def stored_catalog_version(url: str) -> str | None:
    with session_scope(url) as session:
        state = session.get(CatalogState, VERSION_KEY)
        return state.value if state else None


def sync_catalog(url: str, catalog: Any) -> bool:
    """Write ``catalog`` into the catalog tables unless they hold its version; True if written."""
    with session_scope(url) as session:
        if session.get_bind().dialect.name == "postgresql":
            session.exec(text(f"SELECT pg_advisory_xact_lock({SYNC_LOCK})"))  # type: ignore[call-overload]
        state = session.exec(select(CatalogState).where(CatalogState.key == VERSION_KEY)).first()
        if state is not None and state.value == catalog.version:
            return False
        session.exec(delete(PricePoint))  # type: ignore[call-overload]
        session.exec(delete(CloudOffer))  # type: ignore[call-overload]
        session.exec(delete(CatalogGpu))  # type: ignore[call-overload]
        session.flush()
        for gpu in catalog.gpus:
            session.add(CatalogGpu(id=gpu.id, name=_cut(gpu.name, 200), vendor=gpu.vendor, architecture=_cut(gpu.architecture, 60),
                                   memory_gb=gpu.memory_gb, released=gpu.released, entry=gpu_entry(gpu)))
        session.flush()
        for gpu in catalog.gpus:
            for point in gpu.prices:
                session.add(PricePoint(gpu_id=gpu.id, seen=point.seen, kind=point.kind, price_usd=point.price_usd,
                                       source=_cut(point.source, 300)))
        for offer in catalog.offers:
            session.add(CloudOffer(provider=_cut(offer.provider, 80), instance=_cut(offer.instance, 120),
                                   accelerator=_cut(offer.accelerator, 120), gpu_id=offer.gpu_id, count=offer.count,
                                   on_demand_per_hour=offer.on_demand_per_hour, spot_per_hour=offer.spot_per_hour,
                                   seen=offer.seen, source=_cut(offer.source, 300)))
        if state is None:
            session.add(CatalogState(key=VERSION_KEY, value=catalog.version))
        else:
            state.value = catalog.version
            session.add(state)
    return True
