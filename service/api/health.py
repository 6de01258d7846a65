"""``GET /healthz`` (database reachable, data versions) and ``GET /metrics`` (Prometheus)."""

from __future__ import annotations

from litestar import Controller, Response, get
from litestar.di import NamedDependency
from sqlalchemy import text

from service.api import ApiState
from service.api.docs import documented
from service.db import make_engine
from service.metrics import CONTENT_TYPE_LATEST

__all__ = ["HealthController"]


class HealthController(Controller):
    tags = ["operations"]

    @get("/healthz", operation_id="health", summary="Liveness and readiness", sync_to_thread=True,
         operation_class=documented("health", response_text="OK (503 with the same body when the database is unreachable)"))
    def health(self, api: NamedDependency[ApiState]) -> Response:
        """`ok` when the database answers; the catalog and measurements versions in use."""
        try:
            with make_engine(api.database_url).connect() as connection:
                connection.execute(text("SELECT 1"))
            database = "ok"
        except Exception:  # any driver error means: not reachable
            database = "unreachable"
        snapshot = api.holder.current
        body = {"status": "ok" if database == "ok" else "degraded", "database": database,
                "catalog_version": snapshot.catalog_version if snapshot else "not loaded",
                "measurements_version": snapshot.measurements_version if snapshot else "not loaded"}
        return Response(body, status_code=200 if database == "ok" else 503)

    @get("/metrics", operation_id="metrics", summary="Prometheus metrics", sync_to_thread=False, media_type=CONTENT_TYPE_LATEST)
    def metrics(self, api: NamedDependency[ApiState]) -> Response:
        """Request counts and latency histograms per route template; answers by workload."""
        return Response(api.metrics.render(), media_type=CONTENT_TYPE_LATEST)
