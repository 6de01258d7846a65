"""Conversations of ``POST /v1/ask``, kept in the database so every server process shares them.

A conversation holds the last question understood (``Question.to_dict()``) and the
turns so far; a follow-up ("what about 2 of them?") is parsed against that question.
"""

from __future__ import annotations

import threading
import uuid
from datetime import date, datetime, timezone
from typing import Any

from rules.question import Question
from service.db import session_scope
from service.models import Conversation

__all__ = ["ConversationNotFound", "load_question", "save_turn", "MAX_TURNS"]

MAX_TURNS = 50
# SQLite takes one writer at a time and makes the others sleep-and-retry (with growing
# sleeps): queueing this process's writers on a lock instead keeps the latency tail short.
_SQLITE_WRITES = threading.Lock()


class ConversationNotFound(LookupError):
    """No conversation has this id."""


def load_question(url: str, conversation_id: str, today: date | None = None) -> Question | None:
    """The conversation's last question (None before one was understood); raises if unknown."""
    with session_scope(url) as session:
        conversation = session.get(Conversation, conversation_id)
        if conversation is None:
            raise ConversationNotFound(conversation_id)
        stored = dict(conversation.question)
    return Question.from_dict(stored, today) if stored else None


def save_turn(url: str, conversation_id: str | None, question: Question | None, turn: dict[str, Any]) -> str:
    """Record one turn (creating the conversation when ``conversation_id`` is None); returns the id."""
    if url.startswith("sqlite"):
        with _SQLITE_WRITES:
            return _save(url, conversation_id, question, turn)
    return _save(url, conversation_id, question, turn)


def _save(url: str, conversation_id: str | None, question: Question | None, turn: dict[str, Any]) -> str:
    now = datetime.now(timezone.utc)
    with session_scope(url) as session:
        conversation = session.get(Conversation, conversation_id) if conversation_id else None
        if conversation is None:
            conversation = Conversation(id=conversation_id or uuid.uuid4().hex, created_at=now)
        if question is not None:
            conversation.question = question.to_dict()
        conversation.turns = [*conversation.turns, {**turn, "at": now.isoformat()}][-MAX_TURNS:]
        conversation.updated_at = now
        session.add(conversation)
        return conversation.id
