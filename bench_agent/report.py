"""Deliver spooled runs to the service: ``POST {api_url}/v1/benchmarks`` with the agent's bearer token.

What an answer means for a spooled payload:

- 2xx, or 409 (the service already has this ``run_id``): delivered, removed from the spool.
- connection error, timeout, 5xx, 408, 429: kept, retried later with exponential back-off.
- 401/403: the token is wrong or revoked — a problem of this agent, not of the payload;
  the payload is kept and delivery stops for this round.
- any other 4xx: the payload itself is refused; moved to ``spool/rejected/`` with the reason.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from ._version import __version__
from .spool import Spool

__all__ = ["Delivery", "FlushReport", "ServiceClient", "flush"]

RETRY_STATUSES = frozenset({408, 425, 429})
AUTH_STATUSES = frozenset({401, 403})


@dataclass(frozen=True)
class Delivery:
    """The outcome of one attempt: ``delivered``, ``retry``, ``auth`` or ``rejected``."""

    outcome: str
    status: int | None
    reason: str


@dataclass
class FlushReport:
    """What one pass over the spool did."""

    delivered: list[str] = field(default_factory=list)
    retrying: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    deferred: int = 0
    auth_error: str | None = None
    last_error: str | None = None


def _reason(response: httpx.Response) -> str:
    """The problem+json title/detail when there is one, else the start of the body."""
    try:
        body = response.json()
    except ValueError:
        return f"HTTP {response.status_code}: {response.text[:1000]}"
    if isinstance(body, dict):
        parts = [str(body[k]) for k in ("title", "detail") if body.get(k)]
        if body.get("extra") or body.get("errors"):
            parts.append(json.dumps(body.get("extra") or body.get("errors"))[:2000])
        if parts:
            return f"HTTP {response.status_code}: " + " — ".join(parts)
    return f"HTTP {response.status_code}: {json.dumps(body)[:1000]}"


class ServiceClient:
    """The agent's HTTP client for the service (inject ``transport`` to fake it in tests)."""

    def __init__(self, api_url: str, token: str | None, *, timeout_s: float = 30.0,
                 transport: httpx.BaseTransport | None = None):
        headers = {"User-Agent": f"whichgpu-bench-agent/{__version__}"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.api_url = api_url.rstrip("/")
        self._http = httpx.Client(base_url=self.api_url, headers=headers, timeout=timeout_s,
                                  transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ServiceClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def send(self, payload: dict[str, Any]) -> Delivery:
        """POST one run; the ``run_id`` doubles as the idempotency key of a re-send."""
        try:
            idempotency = {"Idempotency-Key": payload["run_id"]}
            response = self._http.post("/v1/benchmarks", json=payload, headers=idempotency)
        except httpx.HTTPError as exc:
            return Delivery("retry", None, f"{type(exc).__name__}: {exc}")
        status = response.status_code
        if 200 <= status < 300 or status == 409:
            return Delivery("delivered", status, "already delivered" if status == 409 else "accepted")
        if status in AUTH_STATUSES:
            return Delivery("auth", status, _reason(response))
        if 400 <= status < 500 and status not in RETRY_STATUSES:
            return Delivery("rejected", status, _reason(response))
        return Delivery("retry", status, _reason(response))

    def reachable(self) -> dict[str, Any]:
        """``GET /healthz``: whether the service answers, and how."""
        started = time.perf_counter()
        try:
            response = self._http.get("/healthz", timeout=5.0)
        except httpx.HTTPError as exc:
            return {"url": self.api_url, "reachable": False, "error": f"{type(exc).__name__}: {exc}"}
        return {
            "url": self.api_url,
            "reachable": response.status_code < 500,
            "status": response.status_code,
            "latency_ms": round((time.perf_counter() - started) * 1000, 1),
        }


def flush(spool: Spool, client: ServiceClient, *, now: float | None = None,
          force: bool = False) -> FlushReport:
    """Try every due payload once (every pending one with ``force``), oldest first."""
    now = time.time() if now is None else now
    report = FlushReport()
    entries = spool.pending() if force else spool.due(now)
    report.deferred = len(spool.pending()) - len(entries)
    for entry in entries:
        try:
            payload = entry.payload()
        except (OSError, ValueError) as exc:  # unreadable file: set it aside, do not block the rest
            spool.reject(entry, 0, f"unreadable spool file: {exc}")
            report.rejected.append(entry.run_id)
            continue
        result = client.send(payload)
        if result.outcome == "delivered":
            spool.delivered(entry)
            report.delivered.append(entry.run_id)
        elif result.outcome == "rejected":
            spool.reject(entry, result.status or 0, result.reason)
            report.rejected.append(entry.run_id)
        elif result.outcome == "auth":
            spool.failed(entry, result.reason, now)
            report.auth_error = result.reason
            report.retrying.append(entry.run_id)
            break
        else:
            spool.failed(entry, result.reason, now)
            report.retrying.append(entry.run_id)
            report.last_error = result.reason
            if result.status is None:  # the service is down: the others would fail the same way
                report.deferred += len(entries) - entries.index(entry) - 1
                break
    return report
