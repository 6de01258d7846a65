"""OpenAI-compatible chat: ``POST /v1/chat/completions`` and ``GET /v1/models`` (model ``whichgpu``).

The last user message is answered; the user messages before it are read in order,
each refining the question so far, so a chat client's history acts as the
conversation. ``max_tokens`` (or ``max_completion_tokens``) caps the answer: the short
answer comes first, so a cap keeps it, cut at a line or a word, with ``finish_reason``
``length``; "why?" (or "почему?") gets the full form of the answer before it. Other
OpenAI parameters (temperature, tools …) are accepted and ignored.
``"stream": true`` answers with server-sent ``chat.completion.chunk`` events and a final
``data: [DONE]``; ``stream_options.include_usage`` adds a last chunk with the token counts.
Refusals on these routes are in OpenAI's error shape (:func:`service.problems.openai_error`).
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
from typing import Annotated

import msgspec
from litestar import Controller, Response, get, post
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Schema
from litestar.params import FromPath
from litestar.response import Stream

from rules.advisor import Advisor
from rules.ask import held_by
from rules.contract.question import Question
from rules.contract.text import MAX_TEXT_CHARS, check_text
from rules.errors import QuestionError
from rules.understand import parse
from service.api import off_loop, today
from service.api.docs import also_served_as, described_body, openai_errors
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
    FinishReason,
    Model,
    ModelList,
    Usage,
)
from service.metrics import ApiMetrics
from service.problems import InvalidInput, NotFound, PayloadTooLarge
from service.snapshot import Snapshot

__all__ = ["MODEL", "ChatController", "complete", "within_tokens"]

CREATED = 1_735_689_600  # 2025-01-01, when the model id was first published
CHUNK_CHARS = 160
CHARS_PER_TOKEN = 4  # the estimate behind ``usage`` and ``max_tokens``
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
    return max(1, -(-len(text) // CHARS_PER_TOKEN)) if text else 0


def within_tokens(answer: str, limit: int | None) -> tuple[str, FinishReason]:
    """The answer as far as ``limit`` tokens reach, and why it ends. Answers lead with the short form, so it
    survives a cap; a bold phrase cut open is closed within the cap, so a client renders it as bold."""
    room = limit * CHARS_PER_TOKEN if limit is not None else len(answer)
    if len(answer) <= room:
        return answer, "stop"
    cut = _cut(answer, room)
    if cut.count("**") % 2:
        cut = _cut(answer, room - 2)
        if cut.count("**") % 2:  # open: close it, or leave out a mark that opens nothing
            cut = cut[:-2].rstrip() if cut.endswith("**") else cut + "**"
    return cut, "length"


def _cut(text: str, room: int) -> str:
    """At most ``room`` characters of ``text``: after the last whole line that fits, or after the last whole
    word when that keeps more than half again as much; a first word longer than the room is cut where the
    room ends."""
    head = text[: room + 1]  # one more: a break just past the room still ends a whole word or line
    line_end = head.rfind("\n")
    word_end = max(head.rfind(" "), line_end)
    if line_end > 0 and line_end * 3 >= word_end * 2:
        return text[:line_end].rstrip()
    if word_end > 0:
        return text[:word_end].rstrip()
    return text[: max(room, 0)]


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
# A turn that asks for the whole reasoning behind the answer before it (English and Russian, as answered).
WHY_WORDS = frozenset(
    {"why", "why so", "explain", "details", "full answer", "почему", "объясни", "подробнее", "полный ответ"}
)


def asks_why(text: str) -> bool:
    """Whether the turn asks "why?" of the previous answer: it then gets that answer's full form."""
    return " ".join(text.lower().replace("?", " ").replace("!", " ").split()).strip(" .…") in WHY_WORDS


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
    answered, detail = len(users) - 1, "short"
    if asks_why(users[-1][1]):  # the full form of the answer before, if there was one
        earlier = [n for n, (_, t) in enumerate(users[:-1]) if not asks_why(t)]
        answered, detail = (earlier[-1], "full") if earlier else (answered, detail)
    previous = HISTORY.question([t for _, t in users[:answered]], today, snapshot)
    index, text = users[answered]
    try:
        reply = snapshot.asked(text, previous, today, detail)
    except QuestionError as exc:
        raise InvalidInput(
            exc.message, [{"field": f"messages.{index}.content", "message": f"{exc.field}: {exc.message}"}]
        ) from None
    if reply.workload is not None:
        metrics.recommendations.labels(reply.workload, "chat").inc()
    return reply.markdown, sum(_tokens(t) for _, t in users)


class Streamed:
    """The chunks of one streamed completion; with ``usage`` set, each carries ``usage: null`` and a last
    chunk without choices carries the counts (OpenAI's ``stream_options.include_usage``)."""

    def __init__(self, completion_id: str, created: int, usage: Usage | None) -> None:
        self.completion_id, self.created, self.usage = completion_id, created, usage

    def chunk(self, choices: list[ChunkChoice], usage: Usage | None = None) -> bytes:
        """One server-sent event; its JSON written as chat clients have always read it from this service."""
        chunk = ChatCompletionChunk(
            id=self.completion_id,
            object="chat.completion.chunk",
            created=self.created,
            model=MODEL,
            choices=choices,
            usage=msgspec.UNSET if self.usage is None else usage,
        )
        return b"data: " + json.dumps(msgspec.to_builtins(chunk), ensure_ascii=False).encode() + b"\n\n"

    def events(self, answer: str, finish: FinishReason) -> Iterator[bytes]:
        yield self.chunk([ChunkChoice(0, Delta(role="assistant", content=""), None)])
        for start in range(0, len(answer), CHUNK_CHARS):
            yield self.chunk([ChunkChoice(0, Delta(content=answer[start : start + CHUNK_CHARS]), None)])
        yield self.chunk([ChunkChoice(0, Delta(), finish)])
        if self.usage is not None:
            yield self.chunk([], self.usage)
        yield b"data: [DONE]\n\n"


class ModelNotFound(NotFound):
    """A model other than ``whichgpu`` (OpenAI's code for it: ``model_not_found``)."""

    slug = "model-not-found"


def _unknown_model(name: str) -> ModelNotFound:
    return ModelNotFound(
        f"model {name!r} does not exist; use {MODEL!r}",
        [{"field": "model", "message": f"only {MODEL!r} is served"}],
    )


THE_MODEL = Model(id=MODEL, object="model", created=CREATED, owned_by="whichgpu")


class ChatController(Controller):
    path = "/v1"
    tags = ("openai-compatible",)

    @get("/models", operation_id="listModels", summary="Models (OpenAI-compatible)", sync_to_thread=False)
    def models(self) -> ModelList:
        """The one model, `whichgpu`."""
        return ModelList("list", [THE_MODEL])

    @get(
        "/models/{model_id:str}",
        operation_id="retrieveModel",
        summary="One model (OpenAI-compatible)",
        sync_to_thread=False,
        responses=openai_errors(400, 404),
    )
    def model(self, model_id: FromPath[str]) -> Model:
        """`whichgpu`; any other id is a 404 with code `model_not_found`."""
        if model_id != MODEL:
            raise _unknown_model(model_id)
        return THE_MODEL

    @post(
        "/chat/completions",
        operation_id="createChatCompletion",
        status_code=200,
        summary="Chat completion (OpenAI-compatible)",
        responses={**openai_errors(400, 404, 413, 415, 422), 200: COMPLETION},
        operation_class=also_served_as({"text/event-stream": EVENT_STREAM}),
        before_request=checked_body("chat-completion-request"),
    )
    async def completions(
        self, data: Body, snapshot: NamedDependency[Snapshot], metrics: NamedDependency[ApiMetrics]
    ) -> Response[ChatCompletion] | Stream:
        """Answers the last user message as Markdown, within `max_tokens`; `stream: true` gives
        `chat.completion.chunk` events."""
        if data.model != MODEL:
            raise _unknown_model(data.model)
        messages = data.messages
        full, prompt_tokens = await off_loop(
            sum(len(m.text) for m in messages if m.role == "user"),
            complete,
            snapshot,
            metrics,
            messages,
            today(),
        )
        answer, finish = within_tokens(full, data.token_limit)
        completion_tokens = _tokens(answer)
        usage = Usage(prompt_tokens, completion_tokens, prompt_tokens + completion_tokens)
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        created = int(time.time())
        if data.stream:
            streamed = Streamed(completion_id, created, usage if data.wants_usage else None)
            return Stream(
                streamed.events(answer, finish),
                media_type="text/event-stream",
                headers={"cache-control": "no-cache"},
            )
        return Response(
            ChatCompletion(
                id=completion_id,
                object="chat.completion",
                created=created,
                model=MODEL,
                choices=[CompletionChoice(0, AssistantMessage("assistant", answer), finish)],
                usage=usage,
            )
        )
