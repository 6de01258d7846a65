"""``POST /v1/recommendations``: the structured question in, the engine's answer out."""

from __future__ import annotations

from litestar import Controller, MediaType, Response, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from rules.question import RecommendationRequest
from service.api import ApiState, today
from service.api.docs import documented
from service.api.inputs import checked_body

__all__ = ["RecommendationController"]


class RecommendationController(Controller):
    path = "/v1/recommendations"
    tags = ["advice"]

    @post("", operation_id="recommend", status_code=200, summary="Recommend GPUs for a structured question",
          operation_class=documented("answer", "recommendation-request", (400, 413, 415, 422)),
          before_request=checked_body("recommendation-request", RecommendationRequest))
    async def recommend(self, data: JSONBody[RecommendationRequest], api: NamedDependency[ApiState]) -> Response:
        """Ranked picks within the budget, the rules behind each, warnings, and rent-vs-buy."""
        question = data.question(today())
        encoded, workload = api.holder.get().answer_json(question, data.intent, today())
        api.metrics.recommendations.labels(workload, "recommendations").inc()
        return Response(encoded, media_type=MediaType.JSON)
