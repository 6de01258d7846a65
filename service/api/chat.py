"""OpenAI-compatible chat: ``POST /v1/chat/completions`` and ``GET /v1/models`` (model ``whichgpu``).

The last user message is answered; the user messages before it are read in order,
each refining the question so far, so a chat client's history acts as the
conversation. Other OpenAI parameters (temperature, max_tokens, tools …) are
accepted and ignored. ``"stream": true`` answers with server-sent
``chat.completion.chunk`` events and a final ``data: [DONE]``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterator
from datetime import date
from typing import Annotated, Literal

import msgspec
from litestar import Controller, Response, get, post
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Schema
from litestar.response import Stream

from rules.advisor import Advisor
from rules.ask import held_by
from rules.contract.question import MAX_TEXT_CHARS, Question, check_text
from rules.errors import QuestionError
from rules.understand import parse
from service.api import off_loop, today
from service.api.docs import also_served_as, described_body, problems
from service.api.inputs import checked_body
from service.contract.chat import (
    MODEL,
    AssistantMessage,
    ChatCompletion,
    ChatCompletionChunk,
    ChatMessage,
    ChatRequest,
    ChunkChoice,
    CompletionChoice,
    Delta,
    Model,
    ModelList,
    Usage,
)
from service.metrics import ApiMetrics
from service.problems import InvalidInput, NotFound, PayloadTooLarge
from service.snapshot import Snapshot

__all__ = ["MODEL", "ChatController", "complete"]

CREATED = 1_735_689_600  # 2025-01-01, when the model id was first published
CHUNK_CHARS = 160
MAX_CONVERSATION_CHARS = 60_000  # every message's content together
MAX_USER_CHARS = 8_000  # the user text parsed per request, at most (four full-length questions)
EVENT_STREAM = Schema(
    description="Server-sent events: with `stream: true` the `data` of each is a "
    "[chat-completion-chunk.json](/v1/schemas/chat-completion-chunk.json), "
    "and the last is `[DONE]`"
)
COMPLETION = ResponseSpec(
    ChatCompletion,
    generate_examples=False,
    description="The answer as Markdown; with `stream: true`, as server-sent events",
)
Body = Annotated[ChatRequest, described_body("chat-completion-request")]


def _tokens(text: str) -> int:
    """A rough token count (about four characters a token), for the usage block."""
    return max(1, (len(text) + 3) // 4) if text else 0


def _too_long(detail: str, message: str) -> PayloadTooLarge:
    return PayloadTooLarge(detail + "; start a new conversation", [{"field": "messages", "message": message}])


def _check_size(messages: list[ChatMessage], users: list[tuple[int, str]]) -> None:
    """The caps that bound one request's work: the newest question (earlier turns may be longer: only
    their first characters are read), all contents, the user text read."""
    index, text = users[-1]
    try:
        check_text(text)
    except QuestionError:
        raise InvalidInput(
            f"the last user message is over {MAX_TEXT_CHARS} characters",
            [{"field": f"messages.{index}.content", "message": f"at most {MAX_TEXT_CHARS} characters"}],
        ) from None
    total = sum(len(m.text) for m in messages)
    if total > MAX_CONVERSATION_CHARS:
        raise _too_long(
            f"the conversation has {total} characters; at most {MAX_CONVERSATION_CHARS} are read",
            f"at most {MAX_CONVERSATION_CHARS} characters in all messages together",
        )
    asked = sum(len(t) for _, t in users)
    if asked > MAX_USER_CHARS:
        raise _too_long(
            f"the user messages have {asked} characters; at most {MAX_USER_CHARS} are read",
            f"at most {MAX_USER_CHARS} characters in all user messages together",
        )


class History:
    """The question the earlier user turns add up to, each distinct history parsed once.

    Chat clients resend the whole conversation every turn; the folded question of
    every prefix is kept under a digest of that prefix, so turn n parses only the
    turns it has not seen (a least-recently-used cache of ``size`` prefixes).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._folded: OrderedDict[bytes, Question | None] = OrderedDict()
        self._lock = threading.Lock()

    def question(self, texts: list[str], today: date, snapshot: Snapshot) -> Question | None:
        """``snapshot`` answers a 'more memory?' among the turns (more than its previous answer showed)."""
        digest = hashlib.blake2b(
            f"{today.isoformat()}|{snapshot.measurements_version}|{snapshot.built_at}".encode(),
            digest_size=16,
        )
        keys = []
        for text in texts:
            digest.update(len(text).to_bytes(4, "big") + text.encode("utf-8", "surrogatepass"))
            keys.append(digest.copy().digest())
        start, previous = 0, None
        with self._lock:
            for i in range(len(keys) - 1, -1, -1):
                if keys[i] in self._folded:
                    start, previous = i + 1, self._folded[keys[i]]
                    self._folded.move_to_end(keys[i])
                    break
        for i in range(start, len(texts)):
            previous = _refine(texts[i], previous, today, snapshot.advisor)
            with self._lock:
                self._folded[keys[i]] = previous
                while len(self._folded) > self.size:
                    self._folded.popitem(last=False)
        return previous


def _refine(text: str, previous: Question | None, today: date, advisor: Advisor) -> Question | None:
    try:
        shown = (lambda: held_by(advisor.recommend(previous, today=today))) if previous is not None else None
        parsed = parse(text[:MAX_TEXT_CHARS], previous=previous, today=today, held_gb=shown)
    except QuestionError:
        return previous  # an earlier turn with an unusable value refines nothing
    if parsed.intent != "help" and not parsed.needs_clarification:
        return parsed.question
    return previous


HISTORY = History()


def complete(
    snapshot: Snapshot, metrics: ApiMetrics, messages: list[ChatMessage], today: date
) -> tuple[str, int]:
    """The answer to the last user message, the earlier ones refining it; and the prompt token count."""
    users = [(i, m.text) for i, m in enumerate(messages) if m.role == "user"]
    if not users:
        raise InvalidInput(
            "no user message to answer",
            [{"field": "messages", "message": "needs at least one message with role 'user'"}],
        )
    _check_size(messages, users)
    previous = HISTORY.question([t for _, t in users[:-1]], today, snapshot)
    index, text = users[-1]
    try:
        reply = snapshot.asked(text, previous, today)
    except QuestionError as exc:
        raise InvalidInput(
            exc.message, [{"field": f"messages.{index}.content", "message": f"{exc.field}: {exc.message}"}]
        ) from None
    if reply.workload is not None:
        metrics.recommendations.labels(reply.workload, "chat").inc()
    return reply.markdown, sum(_tokens(t) for _, t in users)


def _chunk(completion_id: str, created: int, delta: Delta, finish: Literal["stop"] | None) -> bytes:
    """One server-sent event; its JSON written as chat clients have always read it from this service."""
    chunk = ChatCompletionChunk(
        id=completion_id,
        object="chat.completion.chunk",
        created=created,
        model=MODEL,
        choices=[ChunkChoice(0, delta, finish)],
    )
    return b"data: " + json.dumps(msgspec.to_builtins(chunk), ensure_ascii=False).encode() + b"\n\n"


def _events(completion_id: str, created: int, answer: str) -> Iterator[bytes]:
    yield _chunk(completion_id, created, Delta(role="assistant", content=""), None)
    for start in range(0, len(answer), CHUNK_CHARS):
        yield _chunk(completion_id, created, Delta(content=answer[start : start + CHUNK_CHARS]), None)
    yield _chunk(completion_id, created, Delta(), "stop")
    yield b"data: [DONE]\n\n"


class ChatController(Controller):
    path = "/v1"
    tags = ("openai-compatible",)

    @get("/models", operation_id="listModels", summary="Models (OpenAI-compatible)", sync_to_thread=False)
    def models(self) -> ModelList:
        """The one model, `whichgpu`."""
        return ModelList("list", [Model(id=MODEL, object="model", created=CREATED, owned_by="whichgpu")])

    @post(
        "/chat/completions",
        operation_id="createChatCompletion",
        status_code=200,
        summary="Chat completion (OpenAI-compatible)",
        responses={**problems(400, 404, 413, 415, 422), 200: COMPLETION},
        operation_class=also_served_as({"text/event-stream": EVENT_STREAM}),
        before_request=checked_body("chat-completion-request"),
    )
    async def completions(
        self, data: Body, snapshot: NamedDependency[Snapshot], metrics: NamedDependency[ApiMetrics]
    ) -> Response[ChatCompletion] | Stream:
        """Answers the last user message as Markdown; `stream: true` gives `chat.completion.chunk` events."""
        if data.model != MODEL:
            raise NotFound(
                f"model {data.model!r} does not exist; use {MODEL!r}",
                [{"field": "model", "message": f"only {MODEL!r} is served"}],
            )
        messages = data.messages
        answer, prompt_tokens = await off_loop(
            sum(len(m.text) for m in messages if m.role == "user"),
            complete,
            snapshot,
            metrics,
            messages,
            today(),
        )
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        created = int(time.time())
        if data.stream:
            return Stream(
                _events(completion_id, created, answer),
                media_type="text/event-stream",
                headers={"cache-control": "no-cache"},
            )
        completion_tokens = _tokens(answer)
        return Response(
            ChatCompletion(
                id=completion_id,
                object="chat.completion",
                created=created,
                model=MODEL,
                choices=[CompletionChoice(0, AssistantMessage("assistant", answer), "stop")],
                usage=Usage(prompt_tokens, completion_tokens, prompt_tokens + completion_tokens),
            )
        )
