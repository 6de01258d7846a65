"""Conversations of ``POST /v1/ask``, kept in the database so every server process shares them.

A conversation holds the last question understood (``msgspec.to_builtins`` of the :class:`Question`) and the
turns so far; a follow-up ("what about 2 of them?") is parsed against that question.

Turns are written by :class:`ConversationWriter` with group commit: one thread writes
the turns of all concurrent requests in one transaction, and each request answers only
once its own turn is committed, so a follow-up on any process always finds it.

Conversations expire: one untouched for ``keep_days`` is deleted by
:func:`purge_expired`, which the service runs at start and the writer thread every
tenth of ``keep_days``, at most every ``PURGE_EVERY_S`` seconds (``0`` days keeps them
forever), so the table holds about ``keep_days`` of conversations however busy the service.

Conversations are bounded in number too (:class:`Quota`): each knows the client that started it
(its address key, IPv6 per /64), one client keeps at most ``per_client`` and the table at most
``total``; starting one beyond either drops the oldest first (of that client, then of all). A
person never keeps hundreds going; a script filling the disk only turns over its own.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import msgspec
from sqlalchemy import delete, func, insert, select, update
from sqlmodel import SQLModel

from rules.contract.question import Question
from service.db import make_engine
from service.models import Conversation

__all__ = [
    "MAX_TURNS",
    "ConversationNotFound",
    "ConversationWriter",
    "Quota",
    "load_question",
    "purge_expired",
    "purge_interval_s",
    "save_turn",
]

MAX_TURNS = 50
PURGE_EVERY_S = 3600.0
TABLE = SQLModel.metadata.tables[Conversation.__tablename__]
log = logging.getLogger("whichgpu.conversations")


@dataclass(frozen=True)
class Quota:
    """How many conversations one client, and all together, may keep (the oldest go first)."""

    per_client: int = 200
    total: int = 50_000


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
    new, conversation_id = conversation_id is None, conversation_id or uuid.uuid4().hex
    with make_engine(url).begin() as connection:
        _write(connection, conversation_id, question, turn, new)
    return conversation_id


def purge_expired(url: str, keep_days: float, now: datetime | None = None) -> int:
    """Delete conversations untouched for ``keep_days`` (none when it is 0); returns how many."""
    if keep_days <= 0:
        return 0
    cutoff = (now or datetime.now(UTC)) - timedelta(days=keep_days)
    with make_engine(url).begin() as connection:
        deleted = connection.execute(delete(TABLE).where(TABLE.c.updated_at < cutoff)).rowcount
    if deleted:
        log.info("deleted %d conversations untouched for %g days", deleted, keep_days)
    return deleted


def purge_interval_s(keep_days: float) -> float:
    """Seconds between clean-ups: a tenth of the retention (a conversation outlives its days by
    at most that), between 1 s and ``PURGE_EVERY_S``."""
    if keep_days <= 0:
        return PURGE_EVERY_S
    return min(PURGE_EVERY_S, max(1.0, keep_days * 86400 / 10))


class ConversationWriter:
    """Group commit of conversation turns: one writer thread, one transaction per batch;
    between batches the same thread deletes expired conversations every ``purge_every_s``."""

    def __init__(
        self,
        url: str,
        max_batch: int = 256,
        keep_days: float = 0.0,
        purge_every_s: float | None = None,
        quota: Quota | None = None,
    ) -> None:
        self.url = url
        self.quota = quota or Quota()
        self.max_batch = max_batch
        self.keep_days = keep_days
        self.purge_every_s = purge_interval_s(keep_days) if purge_every_s is None else purge_every_s
        self._purged_at = time.monotonic()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self.batches = 0

    async def save(
        self,
        conversation_id: str | None,
        question: Question | None,
        turn: dict[str, Any],
        client: str | None = None,
    ) -> str:
        """Queue the turn and wait until it is committed; returns the conversation id. ``client`` (the
        address key that starts a conversation) is counted against the quota."""
        self._ensure_thread()
        loop = asyncio.get_running_loop()
        done: asyncio.Future = loop.create_future()
        new_id = conversation_id or uuid.uuid4().hex
        self._queue.put((new_id, conversation_id is None, question, turn, client, loop, done))
        return await done

    def _ensure_thread(self) -> None:
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="conversation-writer", daemon=True)
                    self._thread.start()

    def close(self) -> None:
        """Stop the writer thread once the turns queued so far are written."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=10)
            self._thread = None

    def _run(self) -> None:
        while True:
            self._purge_when_due()
            try:
                first = self._queue.get(timeout=self.purge_every_s)
            except queue.Empty:
                continue
            if first is None:
                return
            batch = [first]
            while len(batch) < self.max_batch:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:  # close() asked: write what came before it, then stop
                    self._queue.put(None)
                    break
                batch.append(item)
            self._commit(batch)

    def _purge_when_due(self) -> None:
        if self.keep_days <= 0 or time.monotonic() - self._purged_at < self.purge_every_s:
            return
        self._purged_at = time.monotonic()
        try:
            purge_expired(self.url, self.keep_days)
        except Exception:  # a failed clean-up is retried next time; turns keep flowing
            log.warning(
                "could not delete expired conversations; retrying in %g s", self.purge_every_s, exc_info=True
            )

    def _commit(self, batch: list[tuple]) -> None:
        try:
            with make_engine(self.url).begin() as connection:
                for conversation_id, new, question, turn, client, _, _ in batch:
                    _write(connection, conversation_id, question, turn, new, client)
                _keep_to(connection, self.quota, {item[4] for item in batch if item[1]})
            outcomes = [(item, item[0]) for item in batch]
        except Exception:  # one bad turn must not fail its neighbours: write each alone
            outcomes = [(item, self._alone(item)) for item in batch]
        self.batches += 1
        for (*_, loop, done), outcome in outcomes:
            loop.call_soon_threadsafe(_settle, done, outcome)

    def _alone(self, item: tuple) -> str | BaseException:
        conversation_id, new, question, turn, client, _, _ = item
        try:
            with make_engine(self.url).begin() as connection:
                _write(connection, conversation_id, question, turn, new, client)
                _keep_to(connection, self.quota, {client} if new else set())
            return conversation_id
        except Exception as exc:  # handed to the waiting request
            return exc


def _keep_to(connection: Any, quota: Quota, clients: set[str | None]) -> None:
    """Drop the oldest conversations over the quota: of each client that just started one, then of all."""
    if not clients:
        return
    for client in sorted(c for c in clients if c is not None):
        over = (
            select(TABLE.c.id)
            .where(TABLE.c.client == client)
            .order_by(TABLE.c.updated_at.desc(), TABLE.c.id)
            .offset(quota.per_client)
            .limit(1000)
        )
        ids = [row.id for row in connection.execute(over)]
        if ids:
            connection.execute(delete(TABLE).where(TABLE.c.id.in_(ids)))
    count = connection.execute(select(func.count()).select_from(TABLE)).scalar_one()
    if count > quota.total:
        oldest = select(TABLE.c.id).order_by(TABLE.c.updated_at, TABLE.c.id).limit(count - quota.total)
        ids = [row.id for row in connection.execute(oldest)]
        connection.execute(delete(TABLE).where(TABLE.c.id.in_(ids)))
        log.info("conversation cap %d reached: dropped the %d oldest", quota.total, len(ids))


def _settle(done: asyncio.Future, outcome: str | BaseException) -> None:
    if done.done():
        return
    if isinstance(outcome, BaseException):
        done.set_exception(outcome)
    else:
        done.set_result(outcome)


def _write(
    connection: Any,
    conversation_id: str,
    question: Question | None,
    turn: dict[str, Any],
    new: bool,
    client: str | None = None,
) -> None:
    """One INSERT for a new conversation, SELECT + UPDATE for a follow-up (SQL core: the ORM cost 5× more)."""
    now = datetime.now(UTC)
    turn = {**turn, "at": now.isoformat()}
    row = (
        None
        if new
        else connection.execute(
            select(TABLE.c.question, TABLE.c.turns).where(TABLE.c.id == conversation_id).with_for_update()
        ).first()
    )
    if row is None:
        connection.execute(
            insert(TABLE).values(
                id=conversation_id,
                question=msgspec.to_builtins(question) if question else {},
                turns=[turn],
                client=client,
                created_at=now,
                updated_at=now,
            )
        )
    else:
        connection.execute(
            update(TABLE)
            .where(TABLE.c.id == conversation_id)
            .values(
                question=msgspec.to_builtins(question) if question is not None else row.question,
                turns=[*row.turns, turn][-MAX_TURNS:],
                updated_at=now,
            )
        )
