"""OpenAI-compatible chat: the request this service reads, the completion, its streamed chunks, the models.

Only what the service reads is declared; a chat client's other parameters (temperature,
tools …) are accepted and ignored, so the request types allow unknown fields.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec
from msgspec import UNSET, UnsetType

from rules.contract.question import MAX_TEXT_CHARS

__all__ = [
    "MODEL",
    "AssistantMessage",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatMessage",
    "ChatRequest",
    "ChunkChoice",
    "CompletionChoice",
    "ContentPart",
    "Delta",
    "Model",
    "ModelList",
    "Usage",
]

MODEL: Final = "whichgpu"
Served = Literal["whichgpu"]  # the one model: MODEL
MAX_MESSAGES = 100
MAX_PARTS = 20


class ContentPart(msgspec.Struct, frozen=True):
    """One part of a message's content (OpenAI's `{"type": "text", "text": ...}`); others carry no text."""

    type: str
    text: str | UnsetType = UNSET


NewestText = Annotated[
    str,
    msgspec.Meta(
        description=(
            f"The newest user message may have at most {MAX_TEXT_CHARS} characters; earlier turns (the "
            "service's own long answers among them) may be longer, within the conversation's cap."
        )
    ),
]


class ChatMessage(msgspec.Struct, frozen=True):
    """One turn of the conversation; only user turns are read."""

    role: Annotated[str, msgspec.Meta(max_length=40)]
    content: NewestText | Annotated[list[ContentPart], msgspec.Meta(max_length=MAX_PARTS)] | None = None

    @property
    def text(self) -> str:
        """The message's words: its content, or its text parts joined by lines."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text for p in self.content or () if isinstance(p.text, str))


AT_LEAST_ONE_USER = {
    "type": "object",
    "required": ["role"],
    "properties": {"role": {"const": "user"}},
    "description": "at least one message with role 'user': the last one is answered",
}


class ChatRequest(msgspec.Struct, frozen=True):
    """What this service reads of an OpenAI chat request; the other parameters are accepted and ignored."""

    model: Annotated[str, msgspec.Meta(max_length=200)]
    messages: Annotated[
        list[ChatMessage],
        msgspec.Meta(
            min_length=1, max_length=MAX_MESSAGES, extra_json_schema={"contains": AT_LEAST_ONE_USER}
        ),
    ]
    stream: bool | None = None


class AssistantMessage(msgspec.Struct, frozen=True):
    """The answer, as Markdown."""

    role: Literal["assistant"]
    content: str


class CompletionChoice(msgspec.Struct, frozen=True):
    index: int
    message: AssistantMessage
    finish_reason: Literal["stop"]


class Usage(msgspec.Struct, frozen=True):
    """Token counts, estimated at about four characters a token."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(msgspec.Struct, kw_only=True, frozen=True):
    """OpenAI-compatible chat completion."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: Served
    choices: list[CompletionChoice]
    usage: Usage


class Delta(msgspec.Struct, frozen=True):
    """What a chunk adds: the role first, then pieces of the content; nothing in the last chunk."""

    role: Literal["assistant"] | UnsetType = UNSET
    content: str | UnsetType = UNSET


class ChunkChoice(msgspec.Struct, frozen=True):
    index: int
    delta: Delta
    finish_reason: Literal["stop"] | None


class ChatCompletionChunk(msgspec.Struct, kw_only=True, frozen=True):
    """One server-sent event of a streamed chat completion."""

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: Served
    choices: list[ChunkChoice]


class Model(msgspec.Struct, kw_only=True, frozen=True):
    id: Served
    object: Literal["model"]
    created: int
    owned_by: str


class ModelList(msgspec.Struct, frozen=True):
    """GET /v1/models (OpenAI-compatible): the one model, `whichgpu`."""

    object: Literal["list"]
    data: list[Model]
