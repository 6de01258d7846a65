"""The question in plain words: its length limit, its one check and the body of ``POST /v1/ask``."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from rules.contract.values import DETAIL_TEXT, AnswerDetail
from rules.errors import QuestionError

# A question in plain words, on every face (parser, /v1/ask, chat's newest message, the page, Slack, the CLI):
# long enough for a paragraph, short enough that parsing it stays a few milliseconds.
MAX_TEXT_CHARS = 2000


def check_text(text: Any) -> str:
    """The one check of a question in plain words: a string of at most :data:`MAX_TEXT_CHARS` characters.

    Every face calls it (or, for ``/v1/ask``, enforces the schema generated from the same limit) and
    words the :class:`QuestionError` for its own field."""
    if not isinstance(text, str):
        raise QuestionError("text", "text must be a string")
    if len(text) > MAX_TEXT_CHARS:
        raise QuestionError("text", f"text is {len(text)} characters; at most {MAX_TEXT_CHARS} are read")
    return text


class AskRequest(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """POST /v1/ask: free text, optionally continuing a conversation;
    its published JSON Schema is generated from this type."""

    text: Annotated[
        str,
        msgspec.Meta(max_length=MAX_TEXT_CHARS, description="The question in plain words, e.g. 'nlp $800'."),
    ]
    conversation_id: (
        Annotated[
            str,
            msgspec.Meta(
                pattern="^[A-Za-z0-9_-]{1,64}$",
                description="Continue this conversation: the text refines its last question.",
            ),
        ]
        | None
    ) = None
    start_conversation: Annotated[
        bool,
        msgspec.Meta(
            description="Keep this question so follow-ups sent with the returned conversation_id refine it. "
            "Without it (and without conversation_id) the question is answered and nothing is stored."
        ),
    ] = False
    detail: Annotated[AnswerDetail, msgspec.Meta(description=f"The answer's Markdown: {DETAIL_TEXT}")] = (
        "short"
    )
    skypilot: Annotated[
        bool,
        msgspec.Meta(
            description="For a training run with its tokens ('pretrain a 1b model on 20b tokens'): add "
            "`skypilot_task`, a SkyPilot task YAML whose resources are the rentals in order of what the "
            "whole job costs. A question without a run is refused (422)."
        ),
    ] = False


