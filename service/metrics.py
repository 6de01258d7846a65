"""Prometheus metrics of one app: requests and latency per route template, answers by workload.

Each app has its own :class:`~prometheus_client.CollectorRegistry` (tests build many
apps in one process); ``GET /metrics`` renders it. The middleware labels by the
route *template* (``/v1/gpus/{gpu_id:str}``), never the raw path, so label
cardinality stays bounded; unmatched paths count under ``"unmatched"``.
"""

from __future__ import annotations

import time

from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

__all__ = ["CONTENT_TYPE_LATEST", "ApiMetrics"]

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class ApiMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "whichgpu_http_requests",
            "HTTP requests by route template, method and status.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "whichgpu_http_request_duration_seconds",
            "Time to answer, by route template and method.",
            ["route", "method"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.recommendations = Counter(
            "whichgpu_recommendations",
            "Answers given, by workload and face.",
            ["workload", "face"],
            registry=self.registry,
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def middleware(self, app: ASGIApp) -> ASGIApp:
        """ASGI middleware timing every HTTP request of the app."""

        async def timed(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            start = time.perf_counter()
            status = [500]

            async def watch(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status[0] = message["status"]
                await send(message)

            try:
                await app(scope, receive, watch)
            finally:
                route = scope.get("path_template") or "unmatched"
                method = scope.get("method", "")
                self.requests.labels(route, method, str(status[0])).inc()
                self.latency.labels(route, method).observe(time.perf_counter() - start)

        return timed
