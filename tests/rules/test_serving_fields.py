"""The serving fields of a question: people served at once, the speed each needs, the runtime's backend."""

from __future__ import annotations

from datetime import date

import msgspec
import pytest

from rules.contract.question import Question, QuestionError, RecommendationRequest
from rules.contract.values import BACKENDS
from service.api.inputs import schema_errors

TODAY = date(2026, 11, 26)

EDGES = {
    "users": [0, 1, 100_000, 100_001, 2.5, True],
    "tokens_per_user": [0, 0.5, 1000, 1000.5, "fast"],
    "backend": [*BACKENDS, "opencl", "CUDA"],
}


@pytest.mark.parametrize("field, value", [(f, v) for f, values in EDGES.items() for v in values])
def test_the_check_and_the_schema_agree_on_the_serving_fields(field: str, value: object) -> None:
    try:
        Question.from_dict({field: value}, TODAY)
        checked = True
    except QuestionError as error:
        assert error.field == field
        checked = False
    assert checked == (not schema_errors("recommendation-request", {field: value})), (field, value)


def test_a_request_carries_the_serving_fields_into_the_question() -> None:
    body = b'{"users": 30, "tokens_per_user": 15, "backend": "rocm", "task": "inference"}'
    question = msgspec.json.decode(body, type=RecommendationRequest).question(TODAY)
    assert (question.users, question.tokens_per_user, question.backend) == (30, 15, "rocm")


def test_the_serving_fields_default_to_none() -> None:
    question = Question.from_dict({}, TODAY)
    assert (question.users, question.tokens_per_user, question.backend) == (None, None, None)
