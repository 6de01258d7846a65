"""A request body the typed decoder accepts is exactly one the published schema accepts.

``checked_body`` decodes a valid body straight into its msgspec type and leaves the JSON Schema
(the published contract, and the wording of every problem) to bodies the type refuses; this
holds only while the two agree, body by body, including at every limit.
"""

from __future__ import annotations

import json

import msgspec
import pytest

from rules.question import MAX_TEXT_CHARS, AskRequest
from service.api.inputs import schema_errors

BODIES = [
    '{"text": "nlp $800"}', '{"text": ""}', '{"text": "nlp", "start_conversation": true}',
    '{"text": "nlp", "start_conversation": false, "conversation_id": null}',
    '{"text": "more?", "conversation_id": "3f2a9c"}', '{"text": "x", "conversation_id": "' + "a" * 64 + '"}',
    '{"text": "x", "conversation_id": "' + "a" * 65 + '"}', '{"text": "x", "conversation_id": ""}',
    '{"text": "x", "conversation_id": "a b"}', '{"text": "x", "conversation_id": "abc\\n"}', '{"text": "x", "conversation_id": "äbc"}',
    '{"text": "x", "conversation_id": 12}', '{"text": "' + "a" * MAX_TEXT_CHARS + '"}', '{"text": "' + "a" * (MAX_TEXT_CHARS + 1) + '"}',
    '{"text": "' + "ы" * MAX_TEXT_CHARS + '"}', '{"text": "' + "ы" * (MAX_TEXT_CHARS + 1) + '"}', '{"text": "' + "🙂" * MAX_TEXT_CHARS + '"}',
    '{"text": null}', '{"text": 800}', '{"text": ["nlp"]}', '{}', '[]', '"nlp"', 'null', '{"text": "nlp", "extra": 1}',
    '{"text": "nlp", "start_conversation": 1}', '{"text": "nlp", "start_conversation": "yes"}', '{"text": "nlp", "start_conversation": null}',
    '{"text": "a", "text": "b"}', '{"Text": "nlp"}', '{"text": "\\u0000"}',
]


@pytest.mark.parametrize("body", BODIES)
def test_the_type_and_the_schema_accept_the_same_bodies(body: str) -> None:
    try:
        msgspec.json.decode(body, type=AskRequest)
        typed = True
    except msgspec.ValidationError:
        typed = False
    assert typed == (not schema_errors("ask-request", json.loads(body))), body
