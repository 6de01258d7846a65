"""``GET /healthz`` (database reachable, storage writable, data versions) and ``GET /metrics`` (Prometheus).

Health never waits on the database: the snapshot's refresher looks at it every second off the event
loop, and health reads when that last succeeded, so a stalled database makes `/healthz` say
`degraded` within seconds instead of hanging with it."""

from __future__ import annotations

from litestar import Controller, Response, get
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec

from service.contract.operations import Health
from service.metrics import CONTENT_TYPE_LATEST, ApiMetrics
from service.snapshot import SnapshotHolder
from service.storage import StorageWatch

__all__ = ["HealthController"]

UNREACHABLE = ResponseSpec(
    Health,
    description="The database is unreachable or storage is full: the same body, `degraded`",
    generate_examples=False,
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
        self, holder: NamedDependency[SnapshotHolder], storage: NamedDependency[StorageWatch]
    ) -> Response[Health]:
        """`ok` when the database answered within seconds and storage can be written; the data versions."""
        reachable, writable = holder.database_ok(), storage.writable()
        snapshot = holder.current
        body = Health(
            status="ok" if reachable and writable else "degraded",
            database="ok" if reachable else "unreachable",
            storage="ok" if writable else "full",
            catalog_version=snapshot.catalog_version if snapshot else "not loaded",
            measurements_version=snapshot.measurements_version if snapshot else "not loaded",
        )
        return Response(body, status_code=200 if reachable and writable else 503)

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
