"""``POST /v1/ask``: free text in, Markdown and structured answer out, optionally within a conversation.

A one-shot question (no ``conversation_id``, no ``start_conversation``) is answered
and nothing is stored; a conversation's turns are kept until they expire
(``WHICHGPU_CONVERSATION_DAYS``).
"""

from __future__ import annotations

from anyio import to_thread
from litestar import Controller, MediaType, Response, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from rules.question import AskRequest
from service.api import ApiState, off_loop, today
from service.api.docs import documented
from service.api.inputs import checked_body
from service.conversations import load_question

__all__ = ["AskController"]


class AskController(Controller):
    path = "/v1/ask"
    tags = ["advice"]

    @post("", operation_id="ask", status_code=200, summary="Ask in plain words (with follow-ups)",
          operation_class=documented("ask-response", "ask-request", (400, 404, 413, 415, 422)),
          before_request=checked_body("ask-request", AskRequest))
    async def ask(self, data: JSONBody[AskRequest], api: NamedDependency[ApiState]) -> Response:
        """Answers 'nlp $800'; with `start_conversation` and then `conversation_id`, 'what about 2 of them?'
        refines the last question. Text the parser cannot use gets a clarifying reply (200, intent 'clarify')."""
        text, conversation_id = data.text, data.conversation_id
        previous = None
        if conversation_id and api.database_in_process:
            previous = load_question(api.database_url, conversation_id, today())
        elif conversation_id:
            previous = await to_thread.run_sync(load_question, api.database_url, conversation_id, today())
        reply = await off_loop(len(text), api.holder.get().asked, text, previous, today())
        if conversation_id or data.start_conversation:
            conversation_id = await api.conversations.save(conversation_id, reply.question, {"text": text, "intent": reply.intent})
        if reply.workload is not None:
            api.metrics.recommendations.labels(reply.workload, "ask").inc()
        return Response(reply.json_with(conversation_id), media_type=MediaType.JSON)
