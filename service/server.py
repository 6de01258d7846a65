"""How `whichgpu serve` runs the app: uvicorn with limits on every connection.

uvicorn's own defaults leave a connection unbounded before its first request and while its
head arrives, and its httptools parser keeps every header line it is sent. The protocol here
is uvicorn's httptools protocol with the limits it lacks, each a setting (``ConnectionLimits``):

- a request head over ``max_header_bytes`` (request line and headers) or ``max_headers`` lines
  gets 431 problem+json and the connection is closed, before any of it reaches the app;
- a connection must send a complete request head within ``header_timeout_s`` of opening (or of
  its first byte after an idle keep-alive) and its body within ``body_timeout_s`` after the head;
  an idle keep-alive connection is closed after ``keep_alive_s`` (uvicorn's own timer);
- beyond ``max_connections`` open connections, or ``max_connections_per_client`` from one address
  (IPv6: its /64; reverse proxies in ``trusted_proxies`` are exempt), a new one gets 503
  problem+json at once and is closed, so one client's idle sockets cannot take every slot; the
  total is kept under the process's open-file limit, raised to its hard limit at start
  (systemd's ``LimitNOFILE``), so the database and files always have descriptors.

Internet-facing installs still put a reverse proxy in front (deploy/README.md): it buffers slow
clients and terminates TLS; these limits are what the server does without one.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import resource
from dataclasses import dataclass
from typing import Any

import msgspec
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from service.problems import PROBLEM_JSON
from service.ratelimit import client_key

__all__ = ["FILES_KEPT_FREE", "BoundedProtocol", "ConnectionLimits", "bounded_protocol", "raise_file_limit"]

log = logging.getLogger("whichgpu.server")
FILES_KEPT_FREE = 64  # descriptors left for the database pool, logs, data files
_PER_CLIENT: dict[str, int] = {}  # open connections per client key (the event loop is the one writer)


@dataclass(frozen=True)
class ConnectionLimits:
    """The per-connection limits of the server (see the module docstring)."""

    max_header_bytes: int = 16_384
    max_headers: int = 100
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    keep_alive_s: float = 5.0
    max_connections: int = 1000
    max_connections_per_client: int = 64
    trusted_proxies: frozenset[str] = frozenset()  # peers exempt from the per-client cap


def raise_file_limit(wanted_connections: int) -> int:
    """Raise the soft open-file limit to the hard one; the connections the server may hold under it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, wanted_connections + FILES_KEPT_FREE)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    allowed = max(1, min(wanted_connections, soft - FILES_KEPT_FREE))
    if allowed < wanted_connections:
        log.warning(
            "open-file limit %d allows %d connections, not %d: raise LimitNOFILE",
            soft,
            allowed,
            wanted_connections,
        )
    return allowed


def _problem_response(status: int, reason: str, title: str, detail: str, field: str) -> bytes:
    """A whole HTTP/1.1 response with a problem+json body, then the connection closes."""
    body = msgspec.json.encode(
        {
            "type": "https://whichgpu.dev/problems/" + title.lower().replace(" ", "-"),
            "title": title,
            "status": status,
            "detail": detail,
            "instance": "",
            "errors": [{"field": field, "message": detail}],
        }
    )
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: {PROBLEM_JSON}\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def _listed(peer: str, networks: frozenset[str]) -> bool:
    """Whether ``peer`` is one of ``networks`` (addresses or CIDR networks)."""
    try:
        address = ipaddress.ip_address(peer)
        return any(address in ipaddress.ip_network(n, strict=False) for n in networks)
    except ValueError:
        return peer in networks


class _HeadTooLarge(Exception):
    """Raised from a parser callback: httptools stops parsing and uvicorn calls send_400_response."""


class BoundedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits of ``limits`` (set by :func:`bounded_protocol`)."""

    limits = ConnectionLimits()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_bytes = 0
        self._refusal: bytes | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._peer: str | None = None  # the client key this connection counts against

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        peer = self.client[0] if self.client else ""
        self._peer = None if _listed(peer, self.limits.trusted_proxies) else client_key(peer)
        held = 0
        if self._peer is not None:
            held = _PER_CLIENT[self._peer] = _PER_CLIENT.get(self._peer, 0) + 1
        if len(self.connections) > self.limits.max_connections:
            detail = f"the server holds {self.limits.max_connections} connections already; retry shortly"
        elif held > self.limits.max_connections_per_client:
            detail = f"this address holds {self.limits.max_connections_per_client} connections already"
        else:
            self._arm(self.limits.header_timeout_s, "no complete request head")
            return
        log.warning("refusing a connection from %s with 503: %s", peer, detail)
        transport.write(
            _problem_response(503, "Service Unavailable", "Too many connections", detail, "connection")
        )
        transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._peer is not None:
            left = _PER_CLIENT.get(self._peer, 1) - 1
            if left > 0:
                _PER_CLIENT[self._peer] = left
            else:
                _PER_CLIENT.pop(self._peer, None)
            self._peer = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        if self._deadline is None:  # the first byte after an idle keep-alive
            self._arm(self.limits.header_timeout_s, "no complete request head")

    def on_url(self, url: bytes) -> None:
        self._count(len(url), 0)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4, 1)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._arm(self.limits.body_timeout_s, "no complete request body")
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        if self._refusal is None:
            super().send_400_response(msg)
            return
        self.transport.write(self._refusal)
        self.transport.close()

    def _count(self, size: int, lines: int) -> None:
        self._head_bytes += size
        if (
            self._head_bytes > self.limits.max_header_bytes
            or len(self.headers or ()) + lines > self.limits.max_headers
        ):
            limits = self.limits
            detail = f"the request head is over {limits.max_header_bytes} bytes or {limits.max_headers} lines"
            self._refusal = _problem_response(
                431,
                "Request Header Fields Too Large",
                "Request header fields too large",
                detail,
                "headers",
            )
            raise _HeadTooLarge(detail)

    def _arm(self, seconds: float, missing: str) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._expire, seconds, missing)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self, seconds: float, missing: str) -> None:
        self._deadline = None
        if self.transport is not None and not self.transport.is_closing():
            log.info("closing a connection from %s: %s within %g s", self.client, missing, seconds)
            self.transport.close()


def bounded_protocol(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """The protocol class with ``limits``, for ``uvicorn.Config(http=...)``."""
    return type("BoundedProtocol", (BoundedProtocol,), {"limits": limits})
