"""``POST /v1/ask``: free text in, Markdown and structured answer out, optionally within a conversation.

A one-shot question (no ``conversation_id``, no ``start_conversation``) is answered
and nothing is stored; a conversation's turns are kept until they expire
(``WHICHGPU_CONVERSATION_DAYS``), as many per client as ``WHICHGPU_CONVERSATIONS_PER_CLIENT``.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from anyio import to_thread
from litestar import Controller, Request, post
from litestar.di import NamedDependency

from rules.contract.answer import JobCost, Reply
from rules.contract.text import AskRequest
from rules.render.skypilot import skypilot_task
from service.api import in_process, off_loop, today
from service.api.docs import described_body, problems
from service.api.inputs import checked_body
from service.contract import Encoded
from service.conversations import ConversationWriter, load_question
from service.metrics import ApiMetrics
from service.problems import InvalidInput
from service.ratelimit import client_key
from service.settings import Settings
from service.snapshot import Snapshot

__all__ = ["AskController"]

Body = Annotated[AskRequest, described_body("ask-request")]


class AskController(Controller):
    path = "/v1/ask"
    tags = ("advice",)

    @post(
        "",
        operation_id="ask",
        status_code=200,
        summary="Ask in plain words (with follow-ups)",
        responses=problems(400, 404, 413, 415, 422),
        before_request=checked_body("ask-request", AskRequest),
    )
    async def ask(
        self,
        data: Body,
        snapshot: NamedDependency[Snapshot],
        settings: NamedDependency[Settings],
        metrics: NamedDependency[ApiMetrics],
        conversations: NamedDependency[ConversationWriter],
        request: Request[Any, Any, Any],
    ) -> Encoded[Reply]:
        """Answers 'nlp $800'; with `start_conversation` and then `conversation_id`, 'what about 2 of them?'
        refines the last question. Text it cannot use gets a clarifying reply (200, intent 'clarify')."""
        text, conversation_id = data.text, data.conversation_id
        database_url, previous = settings.resolved_database_url, None
        if conversation_id and in_process(settings):
            previous = load_question(database_url, conversation_id, today())
        elif conversation_id:
            previous = await to_thread.run_sync(load_question, database_url, conversation_id, today())
        reply = await off_loop(len(text), snapshot.asked, text, previous, today(), data.detail)
        if conversation_id or data.start_conversation:
            turn = {"text": text, "intent": reply.intent}
            client = client_key(request.client.host if request.client else None)
            conversation_id = await conversations.save(conversation_id, reply.question, turn, client)
        if reply.workload is not None:
            metrics.recommendations.labels(reply.workload, "ask").inc()
        body = reply.json_with(conversation_id)
        if data.skypilot:
            task = msgspec.json.encode(skypilot_task_of(body, text))
            body = body[:-1] + b',"skypilot_task":' + task + b"}"
        return Encoded(body)


def skypilot_task_of(body: bytes, title: str) -> str:
    """The SkyPilot task of the answer's priced training run; 422 when the answer has none."""
    answer = msgspec.json.decode(body).get("recommendation") or {}
    job = answer.get("job_cost")
    refusal = (
        "the answer has no training run to launch; ask for one with its size and tokens, "
        "e.g. 'pretrain a 1b model on 20b tokens'"
    )
    if not job:
        raise InvalidInput(f"skypilot: {refusal}", [{"field": "skypilot", "message": refusal}])
    try:
        return skypilot_task(msgspec.convert(job, JobCost), title)
    except ValueError as exc:
        raise InvalidInput(f"skypilot: {exc}", [{"field": "skypilot", "message": str(exc)}]) from None
