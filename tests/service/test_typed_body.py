"""A request body the typed decoder accepts is exactly one the published schema accepts.

``checked_body`` decodes a valid body straight into its msgspec type and leaves the JSON Schema
(the published contract, and the wording of every problem) to bodies the type refuses; this
holds only while the two agree, body by body, including at every limit.
"""

from __future__ import annotations

import json
from datetime import date

import msgspec
import pytest

from rules.contract.question import Question, RecommendationRequest
from rules.contract.text import MAX_TEXT_CHARS, AskRequest
from rules.errors import QuestionError
from service.api.inputs import schema_errors

BODIES = [
    '{"text": "nlp $800"}',
    '{"text": ""}',
    '{"text": "nlp", "start_conversation": true}',
    '{"text": "nlp", "start_conversation": false, "conversation_id": null}',
    '{"text": "more?", "conversation_id": "3f2a9c"}',
    '{"text": "x", "conversation_id": "' + "a" * 64 + '"}',
    '{"text": "x", "conversation_id": "' + "a" * 65 + '"}',
    '{"text": "x", "conversation_id": ""}',
    '{"text": "x", "conversation_id": "a b"}',
    '{"text": "x", "conversation_id": "abc\\n"}',
    '{"text": "x", "conversation_id": "äbc"}',
    '{"text": "x", "conversation_id": 12}',
    '{"text": "' + "a" * MAX_TEXT_CHARS + '"}',
    '{"text": "' + "a" * (MAX_TEXT_CHARS + 1) + '"}',
    '{"text": "' + "ы" * MAX_TEXT_CHARS + '"}',
    '{"text": "' + "ы" * (MAX_TEXT_CHARS + 1) + '"}',
    '{"text": "' + "🙂" * MAX_TEXT_CHARS + '"}',
    '{"text": null}',
    '{"text": 800}',
    '{"text": ["nlp"]}',
    "{}",
    "[]",
    '"nlp"',
    "null",
    '{"text": "nlp", "extra": 1}',
    '{"text": "nlp", "start_conversation": 1}',
    '{"text": "nlp", "start_conversation": "yes"}',
    '{"text": "nlp", "start_conversation": null}',
    '{"text": "a", "text": "b"}',
    '{"Text": "nlp"}',
    '{"text": "\\u0000"}',
]


QUESTIONS = [
    "{}",
    '{"workload": "cnn", "budget": 800, "currency": "eur"}',
    '{"workload": "astrology"}',
    '{"budget": 0}',
    '{"budget": -5}',
    '{"budget": 1200000000}',
    '{"budget": 1200000001}',
    '{"budget": "800"}',
    '{"budget": null}',
    '{"currency": "dollars"}',
    '{"gpus": 16}',
    '{"gpus": 17}',
    '{"gpus": true}',
    '{"precision": null}',
    '{"precision": "fp16"}',
    '{"model": ""}',
    '{"model": "' + "m" * 100 + '"}',
    '{"model": "' + "m" * 101 + '"}',
    '{"params_b": 2000}',
    '{"params_b": 2000.5}',
    '{"hours_per_week": 0}',
    '{"as_of": "2024-02-29"}',
    '{"as_of": "2023-02-29"}',
    '{"as_of": "2009-12-31"}',
    '{"as_of": "yesterday"}',
    '{"compare": ["3090", "4090"]}',
    '{"compare": ["a", "b", "c", "d", "e", "f", "g"]}',
    '{"compare": [""]}',
    '{"compare": "3090"}',
    '{"intent": "fit"}',
    '{"intent": null}',
    '{"used_ok": "yes"}',
    '{"context_tokens": 2000001}',
    '{"batch": 0}',
    '{"colour": "red"}',
    "[]",
    "null",
]


@pytest.mark.parametrize(
    ("request_type", "schema", "body"),
    [(AskRequest, "ask-request", body) for body in BODIES]
    + [(RecommendationRequest, "recommendation-request", body) for body in QUESTIONS],
)
def test_each_request_type_and_its_schema_accept_the_same_bodies(
    request_type: type, schema: str, body: str
) -> None:
    try:
        msgspec.json.decode(body, type=request_type)
        typed = True
    except msgspec.ValidationError:
        typed = False
    assert typed == (not schema_errors(schema, json.loads(body))), body


def test_a_whole_float_is_an_integer_to_the_schema_alone() -> None:
    """Why checked_body asks the type again after the schema passes: 2.0 where a count is due."""
    assert schema_errors("recommendation-request", {"gpus": 2.0}) == []
    with pytest.raises(msgspec.ValidationError, match=r"\$\.gpus"):
        msgspec.json.decode(b'{"gpus": 2.0}', type=RecommendationRequest)


EDGES = {
    "gpus": [0, 1, 16, 17],
    "params_b": [0, 0.1, 2000, 2000.5],
    "active_params_b": [0, 3, 2000, 2000.5],
    "memory_gb": [0, 4096, 4097],
    "card_memory_gb": [4096, 4097],
    "hours_per_week": [0, 168, 169],
    "context_tokens": [0, 1, 2_000_000, 2_000_001],
    "batch": [0, 4096, 4097],
    "model": ["", "m" * 100, "m" * 101],
    "owned_gpu": ["", "g" * 101],
    "compare": [["a"] * 6, ["a"] * 7, [""], ["c" * 101]],
    "workload": ["rl", "astrology"],
    "precision": ["fp8", "fp16"],
    "method": ["qlora", "dpo"],
    "setting": ["cloud", "moon"],
    "language": ["ru", "fr"],
    "runtime": ["vllm", "llama.cpp", "ollama"],
    "objective": ["cheapest", "fastest"],
    "experience": ["hobby", "guru"],
    "task": ["inference", "serving"],
    "used_ok": [True, "yes"],
    "currency": ["GBP", "XYZ"],
    "budget": [0, 0.01, 1e7],
    "as_of": ["2010-01-01", "2009-12-31"],
}


@pytest.mark.parametrize("field, value", [(f, v) for f, values in EDGES.items() for v in values])
def test_the_question_check_and_the_request_schema_draw_the_same_lines(field: str, value) -> None:
    """Question.check reads its limits from RecommendationRequest: each face refuses what the schema does."""
    try:
        Question.from_dict({field: value}, date(2026, 1, 1))
        checked = True
    except QuestionError as error:
        assert error.field == field
        checked = False
    assert checked == (not schema_errors("recommendation-request", {field: value})), (field, value)


def test_an_active_part_larger_than_the_model_is_refused_by_name() -> None:
    """A mixture of experts reads part of its parameters a token: more than all of them is a mistake."""
    Question.from_dict({"params_b": 80, "active_params_b": 3}, date(2026, 1, 1))
    with pytest.raises(QuestionError) as refused:
        Question.from_dict({"params_b": 8, "active_params_b": 30}, date(2026, 1, 1))
    assert refused.value.field == "active_params_b" and "at most params_b" in str(refused.value)
