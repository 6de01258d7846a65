"""``POST /v1/recommendations``: the structured question in, the engine's answer out."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, post
from litestar.di import NamedDependency

from rules.contract.answer import Answer
from rules.contract.question import RecommendationRequest
from service.api import today
from service.api.docs import described_body, problems
from service.api.inputs import checked_body
from service.contract import Encoded
from service.metrics import ApiMetrics
from service.snapshot import Snapshot

__all__ = ["RecommendationController"]

Body = Annotated[RecommendationRequest, described_body("recommendation-request")]


class RecommendationController(Controller):
    path = "/v1/recommendations"
    tags = ("advice",)

    @post(
        "",
        operation_id="recommend",
        status_code=200,
        summary="Recommend GPUs for a structured question",
        responses=problems(400, 413, 415, 422),
        before_request=checked_body("recommendation-request", RecommendationRequest),
    )
    async def recommend(
        self, data: Body, snapshot: NamedDependency[Snapshot], metrics: NamedDependency[ApiMetrics]
    ) -> Encoded[Answer]:
        """Ranked picks within the budget, the rules behind each, warnings, and rent-vs-buy; `detail: "full"`
        for every finding and every card left out, else what decided the answer."""
        question = data.question(today())
        encoded, workload = snapshot.answer_json(question, data.intent, today(), data.detail)
        metrics.recommendations.labels(workload, "recommendations").inc()
        return Encoded(encoded)
