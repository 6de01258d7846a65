"""``POST /v1/benchmarks`` (a bench agent reports one run) and ``GET /v1/benchmarks`` (stored runs).

A POST is judged in this order, each failure a problem+json: the body is JSON (400,
415; 413 above ``max_body_bytes``), the bearer token belongs to a live agent (401),
the run matches ``benchmark-run.json`` (422 naming the field), its figures are
possible on the device's datasheet (422 naming the benchmark). Then the run is
stored once: 201 the first time, 200 ``already stored`` for a re-send of the same
``run_id`` — the bench agent treats both as delivered.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any

import msgspec
from litestar import Controller, HttpMethod, Request, Response, get, post, route
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from litestar.params import HeaderParameter, QueryParameter, RawBody
from sqlmodel import Session

from service.agents import authenticate, bind_host, is_admin, runs_in_last_hour
from service.api.docs import judged_by, problems
from service.api.inputs import parse_json
from service.api.query import known_parameters_only
from service.benchmarks import CREATED, GpuSummaries, ingest, public_view, query
from service.contract.benchmarks import BenchmarkReceipt, RunListing
from service.models import AgentToken
from service.problems import InvalidInput, PayloadTooLarge, QuotaExceeded, Unauthorized
from service.settings import Settings
from service.snapshot import SnapshotHolder

__all__ = ["BenchmarkController"]

MAX_LIMIT = 200
MAX_OFFSET = 2**31 - 1  # inside every database's integer range
STORED_BEFORE = ResponseSpec(
    BenchmarkReceipt,
    generate_examples=False,
    description="Already stored: this run_id arrived before; nothing new is stored",
)


def _checks(rulebook: Any) -> dict[str, Any]:
    """The plausibility bands and clock skew of rule spec-dimensions, as ingest takes them."""
    bands = rulebook.param("spec-dimensions", "measured_bands")
    return {
        "bands": {kind: (float(low), float(high)) for kind, (low, high) in bands.items()},
        "skew": timedelta(minutes=rulebook.param("spec-dimensions", "clock_skew_minutes")),
    }


def _since(raw: str) -> datetime:
    try:
        if len(raw) == 10:
            return datetime.combine(date.fromisoformat(raw), time(), tzinfo=UTC)
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    except (ValueError, OverflowError):
        raise InvalidInput(
            f"since={raw[:40]!r} is not a date or date-time that exists in UTC",
            [{"field": "since", "message": "use YYYY-MM-DD or an ISO 8601 date-time"}],
        ) from None


def _within_quota(session: Session, agent: AgentToken, document: Any, settings: Settings) -> None:
    """An agent token's quotas: runs an hour (429, Retry-After) and the size of a run's environ (413)."""
    environ = document.get("environ") if isinstance(document, dict) else None
    size = len(msgspec.json.encode(environ)) if environ is not None else 0
    if size > settings.max_environ_bytes:
        raise PayloadTooLarge(
            f"the run's environ is {size} bytes of JSON; at most {settings.max_environ_bytes} are stored",
            [{"field": "environ", "message": f"larger than {settings.max_environ_bytes} bytes"}],
        )
    limit = settings.agent_runs_per_hour
    if limit > 0 and runs_in_last_hour(session, agent) >= limit:
        error = QuotaExceeded(
            f"agent {agent.name!r} reported {settings.agent_runs_per_hour} runs in the last hour, its quota; "
            "retry later",
            [{"field": "authorization", "message": f"{settings.agent_runs_per_hour} runs an hour per agent"}],
        )
        error.headers = {"Retry-After": "300"}
        raise error


class BenchmarkController(Controller):
    path = "/v1/benchmarks"
    tags = ("benchmarks",)

    @post(
        "",
        operation_id="reportBenchmarkRun",
        summary="Report one bench-agent run (agent bearer token)",
        sync_to_thread=True,
        status_code=201,
        operation_class=judged_by("benchmark-run"),
        responses={**problems(400, 401, 413, 415, 422, 429, 507), 200: STORED_BEFORE},
    )
    def report(
        self,
        request: Request[Any, Any, Any],
        body: RawBody,
        settings: NamedDependency[Settings],
        holder: NamedDependency[SnapshotHolder],
        db_session: NamedDependency[Session],
    ) -> Response[BenchmarkReceipt]:
        """Store one run from `bench-agent`: 201 `created`, or 200 `already stored` when this `run_id`
        is known. 401 for a missing, unknown or revoked token; 422 when the run breaks the schema
        (the field is named) or reports a figure above the datasheet peak or bandwidth by more than 10%."""
        document = parse_json(request.headers.get("content-type"), body, settings.max_body_bytes)
        agent = authenticate(db_session, request.headers.get("authorization"))
        if agent is None:
            detail = (
                "a valid bench-agent token is required: `Authorization: Bearer <token>` "
                "from `whichgpu agents add NAME` (unknown or revoked tokens are refused)"
            )
            raise Unauthorized(detail, [{"field": "authorization", "message": detail}])
        _within_quota(db_session, agent, document, settings)
        snapshot = holder.get()  # the snapshot in memory: a report never waits for a rebuild
        host = document.get("host") if isinstance(document, dict) else None
        if isinstance(host, str) and (refused := bind_host(db_session, agent, host)) is not None:
            raise InvalidInput(refused, [{"field": "host", "message": refused}])
        status, run_id = ingest(
            db_session, snapshot.catalog, agent.name, document, **_checks(snapshot.rulebook)
        )
        db_session.commit()  # stored before the snapshot looks for new measurements
        if status == CREATED:
            holder.rebuild_now()
            return Response(
                BenchmarkReceipt(run_id, "created"),
                status_code=201,
                headers={"Location": f"/v1/benchmarks?run_id={run_id}"},
            )
        return Response(BenchmarkReceipt(run_id, "already stored"), status_code=200)

    @get(
        "",
        operation_id="listBenchmarkRuns",
        summary="Stored benchmark runs, filtered and paged",
        sync_to_thread=True,
        responses=problems(401, 422),
        guards=[known_parameters_only],
    )
    def list_runs(  # noqa: PLR0913  each query parameter is its own typed, bounded and documented argument
        self,
        *,
        settings: NamedDependency[Settings],
        db_session: NamedDependency[Session],
        summaries: NamedDependency[GpuSummaries],
        authorization: Annotated[
            str | None, HeaderParameter(name="authorization", include_in_schema=False)
        ] = None,
        run_id: Annotated[str | None, QueryParameter(max_length=200, description="One run")] = None,
        gpu: Annotated[
            str | None,
            QueryParameter(
                max_length=200,
                description="Catalog id, or `unmatched` for devices no catalog GPU matches (CPUs included)",
            ),
        ] = None,
        host: Annotated[
            str | None, QueryParameter(max_length=200, description="One host (admin read token only)")
        ] = None,
        benchmark: Annotated[
            str | None,
            QueryParameter(max_length=200, description="Runs with this benchmark, and only its results"),
        ] = None,
        since: Annotated[
            str | None,
            QueryParameter(max_length=40, description="Runs started since this date or date-time (ISO 8601)"),
        ] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=MAX_LIMIT)] = 50,
        offset: Annotated[int, QueryParameter(ge=0, le=MAX_OFFSET)] = 0,
    ) -> RunListing:
        """Runs newest first with their results, and `gpus`: per GPU the runs, hosts and median figures.
        Agents, hosts, CPU, RAM and driver are shown only with the admin read token
        (`Authorization: Bearer <WHICHGPU_ADMIN_TOKEN>`); agent tokens do not read them."""
        admin = is_admin(authorization, settings.admin_token)
        if host and not admin:
            detail = (
                "filtering by host needs the admin read token: `Authorization: Bearer <WHICHGPU_ADMIN_TOKEN>`"
            )
            raise Unauthorized(detail, [{"field": "host", "message": detail}])
        listing = query(
            db_session,
            gpu=gpu or None,
            host=host or None,
            benchmark=benchmark or None,
            since=_since(since) if since else None,
            limit=limit,
            offset=offset,
            run_id=run_id or None,
        )
        listing["gpus"] = summaries.get(db_session)
        shown = listing if admin else public_view(listing)
        return msgspec.convert({**shown, "view": "admin" if admin else "public"}, RunListing)

    @route("", http_method=[HttpMethod.OPTIONS], include_in_schema=False, sync_to_thread=False)
    def allowed_methods(self) -> Response[None]:
        """The methods of this path: GET lists runs, POST reports one (the automatic answer forgets POST)."""
        return Response(None, status_code=204, headers={"Allow": "GET, OPTIONS, POST"})
