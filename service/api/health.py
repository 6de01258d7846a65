"""``GET /healthz`` (database reachable, data versions) and ``GET /metrics`` (Prometheus)."""

from __future__ import annotations

from litestar import Controller, Response, get
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from sqlalchemy import text

from service.contract.operations import Health
from service.db import make_engine
from service.metrics import CONTENT_TYPE_LATEST, ApiMetrics
from service.settings import Settings
from service.snapshot import SnapshotHolder

__all__ = ["HealthController"]

UNREACHABLE = ResponseSpec(
    Health, description="The database is unreachable: the same body, `degraded`", generate_examples=False
)


class HealthController(Controller):
    tags = ("operations",)

    @get(
        "/healthz",
        operation_id="health",
        summary="Liveness and readiness",
        sync_to_thread=True,
        responses={503: UNREACHABLE},
    )
    def health(
        self, settings: NamedDependency[Settings], holder: NamedDependency[SnapshotHolder]
    ) -> Response[Health]:
        """`ok` when the database answers; the catalog and measurements versions in use."""
        try:
            with make_engine(settings.resolved_database_url).connect() as connection:
                connection.execute(text("SELECT 1"))
            reachable = True
        except Exception:  # any driver error means: not reachable
            reachable = False
        snapshot = holder.current  # never waits for a rebuild
        body = Health(
            status="ok" if reachable else "degraded",
            database="ok" if reachable else "unreachable",
            catalog_version=snapshot.catalog_version if snapshot else "not loaded",
            measurements_version=snapshot.measurements_version if snapshot else "not loaded",
        )
        return Response(body, status_code=200 if reachable else 503)

    @get(
        "/metrics",
        operation_id="metrics",
        summary="Prometheus metrics",
        sync_to_thread=False,
        media_type=CONTENT_TYPE_LATEST,
    )
    def metrics(self, metrics: NamedDependency[ApiMetrics]) -> Response[bytes]:
        """Request counts and latency histograms per route template; answers by workload."""
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)
