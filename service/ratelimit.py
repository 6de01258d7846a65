"""Per-client rate limits for the anonymous endpoints (``WHICHGPU_RATE_LIMIT``, on by default).

Each client address has a token bucket: it holds up to ``per_minute`` requests and refills
at ``per_minute / 60`` a second, so a client may burst a page's worth of requests and then
keeps to its rate. A request over it is answered before its body is read, with 429 and
``Retry-After`` (problem+json; OpenAI's error shape on its routes). IPv6 clients are counted per /64,
the block one host usually gets, so rotating addresses inside it gains nothing. The address is the one the
server reports: behind a reverse proxy, list it in ``WHICHGPU_TRUSTED_PROXIES`` so its
``X-Forwarded-For`` names the client, or every client shares the proxy's bucket. From anyone
else the header is ignored: a client cannot name itself someone else.

Exempt: the operations endpoints (``/healthz``, ``/metrics``), Slack's endpoint (signed,
and every workspace arrives from Slack's few addresses) and agent reports (bearer token).
Buckets are kept for at most ``max_clients`` addresses; a bucket that has refilled is the
same as none, so those are dropped first, then the longest idle.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable

from litestar.types import ASGIApp, HTTPResponseBodyEvent, HTTPResponseStartEvent, Receive, Scope, Send

from service.problems import ApiError, error_body

__all__ = ["EXEMPT_PATHS", "RateLimiter", "TooManyRequests", "client_key", "limits", "rate_limit_middleware"]

EXEMPT_PATHS = frozenset({"/healthz", "/metrics", "/slack/events"})
EXEMPT_POSTS = frozenset({"/v1/benchmarks"})  # agents authenticate with their token


class TooManyRequests(ApiError):
    status, title, slug = 429, "Too many requests", "too-many-requests"

    def __init__(self, retry_after_s: float, per_minute: float) -> None:
        seconds = max(1, math.ceil(retry_after_s))
        super().__init__(
            f"more than {per_minute:g} requests a minute from this address; retry in {seconds} s",
            [{"field": "client", "message": f"rate limit {per_minute:g} requests a minute"}],
        )
        self.headers = {"Retry-After": str(seconds)}


def client_key(host: str | None) -> str:
    """The address a bucket counts: the IPv4 address, or the IPv6 /64 the address is in."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address.ipv4_mapped or address) if isinstance(address, ipaddress.IPv6Address) else str(address)


class RateLimiter:
    """Token buckets per client key; not thread-safe (the event loop is its one caller)."""

    def __init__(
        self, per_minute: float, max_clients: int = 100_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if per_minute <= 0:
            raise ValueError("per_minute must be positive")
        self.per_minute = per_minute
        self.capacity = max(per_minute, 1.0)
        self.rate = per_minute / 60.0
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when), least recently used first

    def wait_s(self, key: str) -> float:
        """0 when the request may go (a token is taken), else the seconds until one is free."""
        now = self.clock()
        tokens, at = self._buckets.pop(key, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - at) * self.rate)
        wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
        self._buckets[key] = (tokens - 1 if wait == 0 else tokens, now)
        if len(self._buckets) > self.max_clients:
            self._forget(now)
        return wait

    def __len__(self) -> int:
        return len(self._buckets)

    def _forget(self, now: float) -> None:
        for key in [
            k for k, (tokens, at) in self._buckets.items() if tokens + (now - at) * self.rate >= self.capacity
        ]:
            del self._buckets[key]
        while len(self._buckets) > self.max_clients:
            del self._buckets[next(iter(self._buckets))]


def limits(method: str, path: str) -> bool:
    """Whether the limit counts ``method path``: one rule for the middleware and the OpenAPI document."""
    return path not in EXEMPT_PATHS and not (method.upper() == "POST" and path in EXEMPT_POSTS)


def _limited(scope: Scope) -> bool:
    return scope["type"] == "http" and limits(str(scope.get("method", "")), scope["path"])


async def _refuse(scope: Scope, send: Send, error: TooManyRequests) -> None:
    """Answer 429 here: an exception raised in app middleware would pass the metrics as a 500."""
    body, media_type = error_body(error, scope.get("path", ""))
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", media_type.encode()),
        (b"content-length", str(len(body)).encode()),
        *((name.lower().encode(), value.encode()) for name, value in error.headers.items()),
    ]
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": error.status,
        "headers": headers,
    }
    end: HTTPResponseBodyEvent = {"type": "http.response.body", "body": body, "more_body": False}
    await send(start)
    await send(end)


def rate_limit_middleware(per_minute: float) -> list[Callable[[ASGIApp], ASGIApp]]:
    """The app's rate-limit middleware: none when ``per_minute`` is 0 (the default)."""
    if per_minute <= 0:
        return []
    limiter = RateLimiter(per_minute)

    def middleware(app: ASGIApp) -> ASGIApp:
        async def limited(scope: Scope, receive: Receive, send: Send) -> None:
            if _limited(scope):
                client = scope.get("client")
                wait = limiter.wait_s(client_key(client[0] if client else None))
                if wait > 0:
                    await _refuse(scope, send, TooManyRequests(wait, per_minute))
                    return
            await app(scope, receive, send)

        return limited

    return [middleware]
