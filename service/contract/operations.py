"""What the service says about itself: its health and the schemas it publishes."""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["Health", "SchemaLink", "SchemaList"]


class Health(msgspec.Struct, frozen=True):
    """GET /healthz: `ok` while the database answers and storage can be written (503 `degraded` when not),
    and the data versions."""

    status: Literal["ok", "degraded"]
    database: Literal["ok", "unreachable"]
    storage: Literal["ok", "full"]
    catalog_version: str
    measurements_version: str


class SchemaLink(msgspec.Struct, frozen=True):
    """One published JSON Schema and where to fetch it."""

    name: str
    url: str


class SchemaList(msgspec.Struct, frozen=True):
    """GET /v1/schemas: the API's schemas, the catalog data files' and the bench agent's `benchmark-run`."""

    schemas: list[SchemaLink]
