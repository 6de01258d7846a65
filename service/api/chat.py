"""OpenAI-compatible chat: ``POST /v1/chat/completions`` and ``GET /v1/models`` (model ``whichgpu``).

The last user message is answered; the user messages before it are read in order,
each refining the question so far, so a chat client's history acts as the
conversation. Other OpenAI parameters (temperature, max_tokens, tools …) are
accepted and ignored. ``"stream": true`` answers with server-sent
``chat.completion.chunk`` events and a final ``data: [DONE]``.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.response import Stream

from rules.parser import parse
from rules.question import Question, QuestionError
from service.api import ApiState, api_state, today
from service.api.docs import documented
from service.api.inputs import read_json
from service.problems import InvalidInput, NotFound

__all__ = ["ChatController", "MODEL", "complete"]

MODEL = "whichgpu"
CREATED = 1_735_689_600  # 2025-01-01, when the model id was first published
CHUNK_CHARS = 160


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _tokens(text: str) -> int:
    """A rough token count (about four characters a token), for the usage block."""
    return max(1, (len(text) + 3) // 4) if text else 0


def complete(api: ApiState, messages: list[dict[str, Any]]) -> tuple[str, int]:
    """The answer to the last user message, the earlier ones refining it; and the prompt token count."""
    users = [(i, _text(m.get("content"))) for i, m in enumerate(messages) if m.get("role") == "user"]
    if not users:
        raise InvalidInput("no user message to answer", [{"field": "messages", "message": "needs at least one message with role 'user'"}])
    if len(users[-1][1]) > 2000:
        index = users[-1][0]
        raise InvalidInput("the last user message is over 2000 characters",
                           [{"field": f"messages.{index}.content", "message": "at most 2000 characters"}])
    previous: Question | None = None
    for _, text in users[:-1]:
        try:
            parsed = parse(text[:2000], previous=previous, today=today())
        except QuestionError:
            continue  # an earlier turn with an unusable value refines nothing
        if parsed.intent != "help" and not parsed.needs_clarification:
            previous = parsed.question
    index, text = users[-1]
    try:
        reply = api.holder.get().reply(text, previous, today())
    except QuestionError as exc:
        raise InvalidInput(exc.message, [{"field": f"messages.{index}.content", "message": f"{exc.field}: {exc.message}"}]) from None
    if reply.recommendation is not None and reply.question is not None:
        api.metrics.recommendations.labels(reply.question.workload, "chat").inc()
    return reply.text, sum(_tokens(t) for _, t in users)


def _chunk(completion_id: str, created: int, delta: dict[str, str], finish: str | None) -> bytes:
    body = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": MODEL,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body, ensure_ascii=False).encode() + b"\n\n"


def _events(completion_id: str, created: int, answer: str) -> Iterator[bytes]:
    yield _chunk(completion_id, created, {"role": "assistant", "content": ""}, None)
    for start in range(0, len(answer), CHUNK_CHARS):
        yield _chunk(completion_id, created, {"content": answer[start:start + CHUNK_CHARS]}, None)
    yield _chunk(completion_id, created, {}, "stop")
    yield b"data: [DONE]\n\n"


class ChatController(Controller):
    path = "/v1"
    tags = ["openai-compatible"]

    @get("/models", operation_id="listModels", summary="Models (OpenAI-compatible)", sync_to_thread=False,
         operation_class=documented("model-list"))
    def models(self) -> dict[str, Any]:
        """The one model, `whichgpu`."""
        return {"object": "list", "data": [{"id": MODEL, "object": "model", "created": CREATED, "owned_by": "whichgpu"}]}

    @post("/chat/completions", operation_id="createChatCompletion", status_code=200,
          summary="Chat completion (OpenAI-compatible)",
          operation_class=documented("chat-completion-response", "chat-completion-request", (400, 404, 413, 415, 422)))
    async def completions(self, request: Request) -> Response:
        """Answers the last user message as Markdown; `stream: true` gives `chat.completion.chunk` events."""
        api = api_state(request)
        body = await read_json(request, "chat-completion-request", api.settings.max_body_bytes)
        if body["model"] != MODEL:
            raise NotFound(f"model {body['model']!r} does not exist; use {MODEL!r}",
                           [{"field": "model", "message": f"only {MODEL!r} is served"}])
        answer, prompt_tokens = complete(api, body["messages"])
        completion_id = f"chatcmpl-{uuid.uuid4().hex}"
        created = int(time.time())
        if body.get("stream"):
            return Stream(_events(completion_id, created, answer), media_type="text/event-stream",
                          headers={"cache-control": "no-cache"})
        completion_tokens = _tokens(answer)
        return Response({
            "id": completion_id, "object": "chat.completion", "created": created, "model": MODEL,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        })
