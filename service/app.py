"""The app factory: ``create_app(settings)`` returns the whole Litestar app, ready to serve.

At creation it migrates the database and builds the in-memory snapshot the handlers
answer from; nothing reads the environment at import time. ``uvicorn --factory
service.app:create_app`` and ``whichgpu serve`` both start it.
"""

from __future__ import annotations

import logging
from datetime import date
from typing import Any

import msgspec
from litestar import Litestar
from litestar.datastructures import State

from rules.contract.question import Question
from service.api import ApiState
from service.api.ask import AskController
from service.api.benchmarks import BenchmarkController
from service.api.chat import ChatController
from service.api.docs import (
    EncodedSchemas,
    docs_assets,
    document_example,
    document_rate_limit,
    document_types,
    openapi_config,
)
from service.api.gpus import GpuController
from service.api.health import HealthController
from service.api.lab_prices import LabPriceController, LabPriceItemController
from service.api.recommendations import RecommendationController
from service.api.rules import RuleController
from service.api.schemas import SchemaController
from service.charts import ChartCache
from service.contract import Encoded
from service.conversations import ConversationWriter, Quota, purge_expired
from service.db import migrate
from service.metrics import ApiMetrics
from service.problems import exception_handlers
from service.ratelimit import rate_limit_middleware
from service.settings import Settings, get_settings
from service.snapshot import SnapshotHolder
from service.storage import StorageWatch
from service.web import web_routes

__all__ = ["create_app"]

log = logging.getLogger("whichgpu.app")
EXAMPLE_QUESTION = Question(workload="transformer", budget=800, as_of=date(2023, 6, 1))


def _extra_routes(settings: Settings, holder: SnapshotHolder, metrics: ApiMetrics) -> list[Any]:
    """Routes other parts contribute: Slack's endpoint when configured, and the web pages."""
    routes: list[Any] = []
    if settings.bot.http_enabled:
        from bot.http import slack_routes
        from service.slack import DatabaseReplays, EngineAnswers

        routes += slack_routes(  # answered in-process; replays refused across replicas
            settings.bot,
            answers=EngineAnswers(holder, metrics),
            replays=DatabaseReplays(settings.resolved_database_url),
        )
    return routes + web_routes()


def _live_example(app: Litestar, holder: SnapshotHolder) -> None:
    """Put a real answer into the OpenAPI docs (the docs then show what the API returns today)."""
    try:
        answer = msgspec.to_builtins(
            holder.get().advisor.recommend(EXAMPLE_QUESTION, today=EXAMPLE_QUESTION.as_of)
        )
    except Exception:  # examples are documentation; never stop the app for them
        log.exception("could not compute the OpenAPI example answer")
        return
    document_example(app.openapi_schema, "/v1/recommendations", "post", answer)


def create_app(settings: Settings | None = None) -> Litestar:
    """Migrate, build the snapshot, and wire controllers, dependencies, errors, metrics and docs."""
    settings = settings or get_settings()
    url = settings.resolved_database_url
    migrate(url)
    purge_expired(url, settings.conversation_days)
    holder = SnapshotHolder(url, settings.electricity_price)
    holder.get()
    holder.start()  # from now on the data are looked at off the event loop
    metrics = ApiMetrics()
    quota = Quota(per_client=settings.conversations_per_client, total=settings.max_conversations)
    writer = ConversationWriter(url, keep_days=settings.conversation_days, quota=quota)
    api = ApiState(settings, url, holder, metrics, writer, ChartCache(), StorageWatch(settings.data_dir))
    app = Litestar(
        route_handlers=[
            RecommendationController,
            AskController,
            ChatController,
            GpuController,
            RuleController,
            SchemaController,
            HealthController,
            BenchmarkController,
            LabPriceController,
            LabPriceItemController,
            docs_assets(),
            *_extra_routes(settings, holder, metrics),
        ],
        dependencies=api.dependencies(),
        exception_handlers=exception_handlers(),
        middleware=[metrics.middleware, *rate_limit_middleware(settings.rate_limit)],
        request_max_body_size=settings.max_body_bytes,
        on_shutdown=[writer.close, holder.stop],
        state=State({"api": api}),  # what the app is made of, for its operators; handlers get it by Provide
        openapi_config=openapi_config(),
        plugins=[EncodedSchemas()],
        type_encoders={Encoded: Encoded.raw},
    )
    document_types(app.openapi_schema)
    document_rate_limit(app.openapi_schema)
    _live_example(app, holder)
    return app
