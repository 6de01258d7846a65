"""Conversations of ``POST /v1/ask``, kept in the database so every server process shares them.

A conversation holds the last question understood (``Question.to_dict()``) and the
turns so far; a follow-up ("what about 2 of them?") is parsed against that question.
"""

from __future__ import annotations

import threading
import uuid
from datetime import date, datetime, timezone
from typing import Any

from sqlalchemy import insert, select, update

from rules.question import Question
from service.db import make_engine
from service.models import Conversation

__all__ = ["ConversationNotFound", "load_question", "save_turn", "MAX_TURNS"]

MAX_TURNS = 50
# SQLite takes one writer at a time and makes the others sleep-and-retry (with growing
# sleeps): queueing this process's writers on a lock instead keeps the latency tail short.
_SQLITE_WRITES = threading.Lock()
TABLE = Conversation.__table__


class ConversationNotFound(LookupError):
    """No conversation has this id."""


def load_question(url: str, conversation_id: str, today: date | None = None) -> Question | None:
    """The conversation's last question (None before one was understood); raises if unknown."""
    with make_engine(url).connect() as connection:
        row = connection.execute(select(TABLE.c.question).where(TABLE.c.id == conversation_id)).first()
    if row is None:
        raise ConversationNotFound(conversation_id)
    stored = dict(row.question or {})
    return Question.from_dict(stored, today) if stored else None


def save_turn(url: str, conversation_id: str | None, question: Question | None, turn: dict[str, Any]) -> str:
    """Record one turn (creating the conversation when ``conversation_id`` is None); returns the id."""
    if url.startswith("sqlite"):
        with _SQLITE_WRITES:
            return _save(url, conversation_id, question, turn)
    return _save(url, conversation_id, question, turn)


def _save(url: str, conversation_id: str | None, question: Question | None, turn: dict[str, Any]) -> str:
    """One INSERT for a new conversation, SELECT + UPDATE for a follow-up (SQL core: the ORM cost 5× more)."""
    now = datetime.now(timezone.utc)
    turn = {**turn, "at": now.isoformat()}
    with make_engine(url).begin() as connection:
        row = None
        if conversation_id:
            row = connection.execute(select(TABLE.c.question, TABLE.c.turns).where(TABLE.c.id == conversation_id)
                                     .with_for_update()).first()
        if row is None:
            conversation_id = conversation_id or uuid.uuid4().hex
            connection.execute(insert(TABLE).values(id=conversation_id, question=question.to_dict() if question else {},
                                                    turns=[turn], created_at=now, updated_at=now))
        else:
            connection.execute(update(TABLE).where(TABLE.c.id == conversation_id).values(
                question=question.to_dict() if question is not None else row.question,
                turns=[*row.turns, turn][-MAX_TURNS:], updated_at=now))
    return conversation_id
