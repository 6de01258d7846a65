"""OpenAI-compatible chat: the request this service reads, the completion, its streamed chunks, the models.

Only what the service reads is declared; a chat client's other parameters (temperature,
tools …) are accepted and ignored, so the request types allow unknown fields.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec
from msgspec import UNSET, UnsetType

from rules.contract.text import MAX_TEXT_CHARS

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
    "ErrorDetail",
    "FinishReason",
    "Model",
    "ModelList",
    "OpenAIError",
    "StreamOptions",
    "Usage",
]

MODEL: Final = "whichgpu"
Served = Literal["whichgpu"]  # the one model: MODEL
MAX_MESSAGES = 100
MAX_PARTS = 20
MAX_TOKENS_LIMIT = 1_000_000  # far above any answer; bounds the number a client may send
FinishReason = Literal["stop", "length"]  # "length": the answer was cut at the client's max_tokens


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


class StreamOptions(msgspec.Struct, frozen=True):
    """OpenAI's ``stream_options``: ``include_usage`` adds a last chunk with the token counts."""

    include_usage: bool | None = None


TokenLimit = Annotated[
    int,
    msgspec.Meta(
        ge=1,
        le=MAX_TOKENS_LIMIT,
        description="At most this many tokens (about four characters each) of the answer; the short "
        "answer comes first, and a longer one is cut at a line or word with finish_reason `length`.",
    ),
]


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
    stream_options: StreamOptions | None = None
    max_tokens: TokenLimit | None = None
    max_completion_tokens: TokenLimit | None = None

    @property
    def token_limit(self) -> int | None:
        """The cap on the answer: ``max_completion_tokens`` (OpenAI's newer name) or ``max_tokens``."""
        return self.max_completion_tokens if self.max_completion_tokens is not None else self.max_tokens

    @property
    def wants_usage(self) -> bool:
        """A streamed answer ends with a usage chunk only when the client asks for one."""
        return bool(self.stream_options and self.stream_options.include_usage)


class AssistantMessage(msgspec.Struct, frozen=True):
    """The answer, as Markdown."""

    role: Literal["assistant"]
    content: str


class CompletionChoice(msgspec.Struct, frozen=True):
    index: int
    message: AssistantMessage
    finish_reason: FinishReason


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
    finish_reason: FinishReason | None


class ChatCompletionChunk(msgspec.Struct, kw_only=True, frozen=True):
    """One server-sent event of a streamed chat completion; with ``stream_options.include_usage`` every
    chunk has ``usage`` (null) and one last chunk, with no choices, carries the counts."""

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: Served
    choices: list[ChunkChoice]
    usage: Usage | UnsetType | None = UNSET


class Model(msgspec.Struct, kw_only=True, frozen=True):
    id: Served
    object: Literal["model"]
    created: int
    owned_by: str


class ModelList(msgspec.Struct, frozen=True):
    """GET /v1/models (OpenAI-compatible): the one model, `whichgpu`."""

    object: Literal["list"]
    data: list[Model]


class ErrorDetail(msgspec.Struct, frozen=True):
    """What went wrong, as OpenAI's clients read it: ``code`` a stable word, ``param`` the field."""

    message: str
    type: str
    code: str | None
    param: str | None


class OpenAIError(msgspec.Struct, frozen=True):
    """A refusal on the OpenAI-compatible routes (``/v1/chat/*``, ``/v1/models``): OpenAI's error shape."""

    error: ErrorDetail
