"""``POST /v1/benchmarks`` (a bench agent reports one run) and ``GET /v1/benchmarks`` (stored runs).

A POST is judged in this order, each failure a problem+json: the body is JSON (400,
415; 413 above ``max_body_bytes``), the bearer token belongs to a live agent (401),
the run matches ``benchmark-run.json`` (422 naming the field), its figures are
possible on the device's datasheet (422 naming the benchmark). Then the run is
stored once: 201 the first time, 200 ``already stored`` for a re-send of the same
``run_id`` — the bench agent treats both as delivered.
"""

from __future__ import annotations

import json
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from litestar import Controller, HttpMethod, Request, Response, get, post, route
from litestar.params import RawBody

from service.agents import authenticate, bind_host, is_admin
from service.api import api_state
from service.api.docs import documented
from service.benchmarks import CREATED, ImplausibleFigure, InvalidPayload, gpu_summary, ingest, public_view, query
from service.db import session_scope
from service.problems import InvalidInput, MalformedBody, Unauthorized, UnsupportedMediaType

__all__ = ["BenchmarkController"]

MAX_LIMIT = 200
MAX_OFFSET = 2**31 - 1  # inside every database's integer range
FILTERS = ("run_id", "gpu", "host", "benchmark", "since", "limit", "offset")


def _parse(request: Request, body: bytes) -> Any:
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise UnsupportedMediaType(f"send the run as application/json, not {media or 'no content type'!r}",
                                   [{"field": "content-type", "message": "expected application/json"}])
    try:
        return json.loads(body, parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as exc:
        raise MalformedBody(f"the body is not valid JSON: {exc}", [{"field": "body", "message": "not valid JSON"}]) from None
    except RecursionError:
        raise MalformedBody("the body nests too deeply", [{"field": "body", "message": "nested too deeply"}]) from None


def _checks(rulebook: Any) -> dict[str, Any]:
    """The plausibility band and clock skew of rule spec-dimensions, as ingest takes them."""
    low, high = rulebook.param("spec-dimensions", "measured_band")
    return {"band": (float(low), float(high)), "skew": timedelta(minutes=rulebook.param("spec-dimensions", "clock_skew_minutes"))}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _field(error_line: str) -> dict[str, str]:
    path, _, message = error_line.partition(": ")
    return {"field": "body" if path == "(root)" else path.replace("/", "."), "message": message}


def _since(raw: str) -> datetime:
    try:
        if len(raw) == 10:
            return datetime.combine(date.fromisoformat(raw), time(), tzinfo=timezone.utc)
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        return value.astimezone(timezone.utc) if value.tzinfo else value.replace(tzinfo=timezone.utc)
    except (ValueError, OverflowError):
        raise InvalidInput(f"since={raw[:40]!r} is not a date or date-time that exists in UTC",
                           [{"field": "since", "message": "use YYYY-MM-DD or an ISO 8601 date-time"}]) from None


def _count(params: dict[str, str], name: str, default: int, low: int, high: int | None) -> int:
    raw = params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw) if len(raw) <= 20 else None
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise InvalidInput(f"{name}={raw!r} must be an integer {bound}", [{"field": name, "message": f"an integer {bound}"}])
    return value


class BenchmarkController(Controller):
    path = "/v1/benchmarks"
    tags = ["benchmarks"]

    @post("", operation_id="reportBenchmarkRun", summary="Report one bench-agent run (agent bearer token)",
          sync_to_thread=True, status_code=201,
          operation_class=documented(None, "benchmark-run", (400, 401, 413, 415, 422),
                                     also={200: "Already stored: this run_id arrived before; nothing new is stored"}))
    def report(self, request: Request, body: RawBody) -> Response:
        """Store one run from `bench-agent`: 201 `created`, or 200 `already stored` when this `run_id`
        is known. 401 for a missing, unknown or revoked token; 422 when the run breaks the schema
        (the field is named) or reports a figure above the datasheet peak or bandwidth by more than 10%."""
        api = api_state(request)
        document = _parse(request, body)
        with session_scope(api.database_url) as session:
            agent = authenticate(session, request.headers.get("authorization"))
            if agent is None:
                detail = ("a valid bench-agent token is required: `Authorization: Bearer <token>` "
                          "from `whichgpu agents add NAME` (unknown or revoked tokens are refused)")
                raise Unauthorized(detail, [{"field": "authorization", "message": detail}])
            snapshot = api.holder.current or api.holder.get()  # no snapshot rebuild per report
            if isinstance(document, dict) and isinstance(document.get("host"), str):
                if (refused := bind_host(session, agent, document["host"])) is not None:
                    raise InvalidInput(refused, [{"field": "host", "message": refused}])
            try:
                status, run_id = ingest(session, snapshot.catalog, agent.name, document, **_checks(snapshot.rulebook))
            except InvalidPayload as exc:
                raise InvalidInput("the benchmark run does not match schema benchmark-run.json: " + "; ".join(exc.errors[:3]),
                                   [_field(e) for e in exc.errors[:10]], schema="/v1/schemas/benchmark-run.json") from None
            except ImplausibleFigure as exc:
                fields = [{"field": r.split(" ", 1)[0].replace("/", "."), "message": r} for r in exc.reasons]
                raise InvalidInput(str(exc), fields) from None
        if status == CREATED:
            api.holder.invalidate()
        return Response({"run_id": run_id, "status": status}, status_code=201 if status == CREATED else 200,
                        headers={"Location": f"/v1/benchmarks?run_id={run_id}"} if status == CREATED else None)

    @get("", operation_id="listBenchmarkRuns", summary="Stored benchmark runs, filtered and paged", sync_to_thread=True,
         operation_class=documented(None, errors=(401, 422)))
    def list_runs(self, request: Request) -> dict[str, Any]:
        """Runs newest first with their results, and `gpus`: per GPU the runs, hosts and median figures.
        Query: `run_id`, `gpu` (catalog id, or `unmatched` for devices no catalog GPU matches, CPUs
        included), `host` (admin only), `benchmark`, `since` (date or date-time), `limit` (1-200,
        default 50), `offset` (0-2147483647). Agents, hosts, CPU, RAM and driver are shown only with
        the admin read token (`Authorization: Bearer <WHICHGPU_ADMIN_TOKEN>`); agent tokens do not read them."""
        api = api_state(request)
        params = dict(request.query_params.items())
        unknown = sorted(set(params) - set(FILTERS))
        if unknown:
            raise InvalidInput(f"unknown query parameter {unknown[0]!r}; known: {', '.join(FILTERS)}",
                               [{"field": name, "message": "unknown query parameter"} for name in unknown])
        admin = is_admin(request.headers.get("authorization"), api.settings.admin_token)
        if params.get("host") and not admin:
            detail = "filtering by host needs the admin read token: `Authorization: Bearer <WHICHGPU_ADMIN_TOKEN>`"
            raise Unauthorized(detail, [{"field": "host", "message": detail}])
        since = _since(params["since"]) if params.get("since") else None
        limit = _count(params, "limit", 50, 1, MAX_LIMIT)
        offset = _count(params, "offset", 0, 0, MAX_OFFSET)
        with session_scope(api.database_url) as session:
            listing = query(session, gpu=params.get("gpu") or None, host=params.get("host") or None,
                            benchmark=params.get("benchmark") or None, since=since, limit=limit, offset=offset,
                            run_id=params.get("run_id") or None)
            listing["gpus"] = gpu_summary(session)
        return {**(listing if admin else public_view(listing)), "view": "admin" if admin else "public"}

    @route("", http_method=[HttpMethod.OPTIONS], include_in_schema=False, sync_to_thread=False)
    def allowed_methods(self) -> Response:
        """The methods of this path: GET lists runs, POST reports one (the automatic answer forgets POST)."""
        return Response(None, status_code=204, headers={"Allow": "GET, OPTIONS, POST"})
