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

import time

import msgspec
from anyio import to_thread
from sqlalchemy import delete, insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

from bot.api import QuestionRejected, Reply
from bot.blocks import Conversation
from rules.contract.question import Question
from rules.errors import QuestionError
from service.api import off_loop, today
from service.db import make_engine
from service.metrics import ApiMetrics
from service.models import SlackRequest
from service.problems import InvalidInput
from service.snapshot import Asked, SnapshotHolder

__all__ = ["DatabaseReplays", "EngineAnswers"]

TABLE = SQLModel.metadata.tables[SlackRequest.__tablename__]
PER_QUESTION_CHARS = 100  # an earlier question of a chain costs about a parse of this much text


class EngineAnswers:
    """The bot's answer source inside the service (see :class:`bot.answers.AnswerSource`)."""

    def __init__(self, holder: SnapshotHolder, metrics: ApiMetrics | None = None) -> None:
        self.holder = holder
        self.metrics = metrics

    async def answer(self, conversation: Conversation, ask: str | None) -> tuple[Reply, Conversation]:
        questions = (*conversation.questions, ask) if ask else conversation.questions
        snapshot, day = self.holder.get(), today()

        def replay() -> Asked:
            """Each question read against what the ones before it understood, as /v1/ask stores it."""
            previous: Question | None = None
            for text in questions[:-1]:
                previous = snapshot.asked(text, previous, day).question
            return snapshot.asked(questions[-1], previous, day)

        # a long chain goes to the worker thread in one hop (each extra question weighs a short parse)
        weight = sum(len(q) for q in questions) + PER_QUESTION_CHARS * (len(questions) - 1)
        try:
            asked = await off_loop(weight, replay)
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


class DatabaseReplays:
    """Slack signatures already answered, in the database every replica shares (``slack_request``).

    A signature is remembered by inserting it: the primary key refuses a second insert from any
    replica. Rows older than Slack's 5-minute window are deleted now and then by whoever inserts.
    """

    def __init__(self, database_url: str, window_s: int = 300) -> None:
        self.database_url = database_url
        self.window_s = window_s
        self._purged_at = 0.0

    async def first_time(self, signature: str, stamp: int) -> bool:
        return await to_thread.run_sync(self._remember, signature, stamp)

    def _remember(self, signature: str, stamp: int) -> bool:
        engine = make_engine(self.database_url)
        try:
            with engine.begin() as connection:
                connection.execute(insert(TABLE).values(signature=signature[:80], stamp=stamp))
        except IntegrityError:
            return False
        if time.monotonic() - self._purged_at > 60:
            self._purged_at = time.monotonic()
            with engine.begin() as connection:
                connection.execute(delete(TABLE).where(TABLE.c.stamp < int(time.time()) - self.window_s))
        return True
