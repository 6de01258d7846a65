"""Slack inside the service: the answers of ``POST /slack/events`` come from this process's engine.

The bot (``bot/``) knows nothing of the service; the service hands it
:class:`EngineAnswers`, which asks the same snapshot ``POST /v1/ask`` answers from,
so a Slack question costs no HTTP call back into this process. No conversation row is
written either: the questions so far travel in the bot's buttons and thread memory,
and each is read again in order (the snapshot memoises its replies, so a question
answered before costs a lookup). ``whichgpu bot`` (Socket Mode, maybe on another
host) still asks ``/v1/ask`` over HTTP.
"""

from __future__ import annotations

import msgspec

from bot.api import QuestionRejected, Reply
from bot.blocks import Conversation
from rules.contract.question import Question
from rules.errors import QuestionError
from service.api import off_loop, today
from service.metrics import ApiMetrics
from service.problems import InvalidInput
from service.snapshot import SnapshotHolder

__all__ = ["EngineAnswers"]


class EngineAnswers:
    """The bot's answer source inside the service (see :class:`bot.answers.AnswerSource`)."""

    def __init__(self, holder: SnapshotHolder, metrics: ApiMetrics | None = None) -> None:
        self.holder = holder
        self.metrics = metrics

    async def answer(self, conversation: Conversation, ask: str | None) -> tuple[Reply, Conversation]:
        questions = (*conversation.questions, ask) if ask else conversation.questions
        snapshot, day = self.holder.get(), today()
        previous: Question | None = None
        try:
            for text in questions[:-1]:  # what the conversation understood so far, as /v1/ask stores it
                previous = (await off_loop(len(text), snapshot.asked, text, previous, day)).question
            asked = await off_loop(len(questions[-1]), snapshot.asked, questions[-1], previous, day)
        except QuestionError as exc:  # what /v1/ask answers with a 422
            raise QuestionRejected(
                InvalidInput.status,
                InvalidInput.title,
                exc.message,
                [{"field": exc.field, "message": exc.message}],
            ) from None
        if self.metrics is not None and asked.workload is not None:
            self.metrics.recommendations.labels(asked.workload, "slack").inc()
        return msgspec.json.decode(asked.encoded, type=Reply), Conversation(None, questions)
