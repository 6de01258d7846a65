"""Where the bot's answers come from, and the answers it has shown.

An :class:`AnswerSource` answers the next question of a :class:`~bot.blocks.Conversation`.
Two kinds exist:

- inside the service (``POST /slack/events``), the service hands the bot a source that
  asks its own engine in-process (``service.slack.EngineAnswers``): no HTTP call back
  into the same process, and no conversation rows;
- ``whichgpu bot`` (Socket Mode, possibly on another host) asks the service's
  ``POST /v1/ask`` over HTTP: :class:`ServiceAnswers`.

:class:`ShownAnswers` keeps the answers the bot has shown, so "Share in channel"
posts the answer on screen instead of asking again.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol

import msgspec

from bot.api import QuestionRejected, Reply, WhichgpuAPI
from bot.blocks import Conversation

__all__ = ["AnswerSource", "ServiceAnswers", "ShownAnswers"]


class AnswerSource(Protocol):
    async def answer(self, conversation: Conversation, ask: str | None) -> tuple[Reply, Conversation]:
        """The answer to ``ask`` after the conversation's questions (to its last question when ``ask`` is
        None), and the conversation it belongs to; raises :class:`~bot.api.AskError` when there is none
        to show."""
        ...


class ServiceAnswers:
    """Answers from the service's ``POST /v1/ask`` over HTTP, following its stored conversations.

    A single question is one-shot (the service stores nothing); a follow-up continues the
    service's conversation, and when the service has forgotten it (restart, expiry) or
    never had one, the questions are asked again in order as a new conversation.
    """

    def __init__(self, api: WhichgpuAPI) -> None:
        self.api = api

    async def answer(self, conversation: Conversation, ask: str | None) -> tuple[Reply, Conversation]:
        if ask is None:  # the conversation as it stands: replay its questions from the start
            return await self._replay(conversation.questions)
        if conversation.conversation_id:
            try:
                reply = await self.api.ask(ask, conversation.conversation_id)
            except QuestionRejected as exc:
                if exc.status not in (404, 410):
                    raise
            else:
                if reply.intent not in ("help", "clarify"):
                    conversation_id = reply.conversation_id or conversation.conversation_id
                    return reply, conversation.then(ask, conversation_id)
        return await self._replay((*conversation.questions, ask))

    async def _replay(self, questions: tuple[str, ...]) -> tuple[Reply, Conversation]:
        """Ask the questions in order; a single question is one-shot (the service stores nothing)."""
        conversation_id: str | None = None
        for question in questions:
            reply = await self.api.ask(question, conversation_id, start=len(questions) > 1)
            conversation_id = reply.conversation_id or conversation_id
        return reply, Conversation(conversation_id, questions)


class ShownAnswers:
    """The answers this process has shown, by conversation, most recent last; bounded.

    A button carries only its conversation, so sharing looks the answer up here; after a
    restart (or on another replica) it is gone and the questions are answered again.
    Answers are kept encoded: bytes, which the garbage collector never walks.
    """

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._answers: OrderedDict[Conversation, bytes] = OrderedDict()

    def get(self, conversation: Conversation) -> Reply | None:
        encoded = self._answers.get(conversation)
        return None if encoded is None else msgspec.json.decode(encoded, type=Reply)

    def put(self, conversation: Conversation, reply: Reply) -> None:
        self._answers[conversation] = msgspec.json.encode(reply)
        self._answers.move_to_end(conversation)
        while len(self._answers) > self.size:
            self._answers.popitem(last=False)
