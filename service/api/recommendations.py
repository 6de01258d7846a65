"""``POST /v1/recommendations``: the structured question in, the engine's answer out."""

from __future__ import annotations

from litestar import Controller, MediaType, Request, Response, post
from litestar.di import NamedDependency

from rules.question import Question
from service.api import ApiState, today
from service.api.docs import documented
from service.api.inputs import read_json

__all__ = ["RecommendationController"]


class RecommendationController(Controller):
    path = "/v1/recommendations"
    tags = ["advice"]

    @post("", operation_id="recommend", status_code=200, summary="Recommend GPUs for a structured question",
          operation_class=documented("answer", "recommendation-request", (400, 413, 415, 422)))
    async def recommend(self, request: Request, api: NamedDependency[ApiState]) -> Response:
        """Ranked picks within the budget, the rules behind each, warnings, and rent-vs-buy."""
        body = await read_json(request, "recommendation-request", api.settings.max_body_bytes)
        intent = body.pop("intent", None) or "recommend"
        question = Question.from_dict(body, today())
        encoded, workload = api.holder.get().answer_json(question, intent, today())
        api.metrics.recommendations.labels(workload, "recommendations").inc()
        return Response(encoded, media_type=MediaType.JSON)
