"""What the API answers from: one in-memory snapshot of catalog, rulebook and advisor.

Building an :class:`~rules.engine.Advisor` costs milliseconds and reads the
measurements from the database, so it is not done per request. :class:`SnapshotHolder`
keeps the current :class:`Snapshot` and rebuilds it only when the catalog version
or the measurements version changes; it looks at most once per ``check_every``
seconds (one cheap query), and at once after :meth:`SnapshotHolder.invalidate`
(called on benchmark ingest). Readers never wait for a rebuild in progress: they
get the previous snapshot until the new one is swapped in.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

import msgspec

from rules.advisor import Advisor
from rules.ask import ask
from rules.contract.answer import Answer, CardRow, Detail
from rules.contract.question import Question
from rules.knowledge.catalog import Catalog, load_catalog
from rules.knowledge.rulebook import Rulebook, load_rulebook
from rules.render.short import MAX_PICKS, deciding
from service.benchmarks import load_measurements, measurements_version
from service.db import session_scope
from service.lab_prices import lab_quotes, prices_version

__all__ = ["ANSWER_CACHE_SIZE", "Asked", "Snapshot", "SnapshotHolder", "short_answer"]

ANSWER_CACHE_SIZE = 4096


def short_answer(answer: Answer) -> Answer:
    """The structured answer cut as the short Markdown answer is: at most three picks, the findings that
    decided it, no list of cards left out; warnings, alternatives and rent or buy kept whole."""
    return msgspec.structs.replace(
        answer,
        picks=answer.picks[:MAX_PICKS],
        findings=tuple(f for f in deciding(answer) if f in answer.findings),
        excluded=(),
    )


@dataclass(frozen=True, slots=True)
class Asked:
    """A reply to free text as the faces use it, already encoded: the memo keeps bytes and
    strings (which the garbage collector never walks), not the answer's object graph."""

    markdown: str
    encoded: bytes  # the reply's JSON object without ``conversation_id``
    question: Question | None
    intent: str
    workload: str | None  # set when the reply carries a recommendation

    def json_with(self, conversation_id: str | None) -> bytes:
        """The encoded reply with ``conversation_id`` as its last member."""
        return self.encoded[:-1] + b',"conversation_id":' + msgspec.json.encode(conversation_id) + b"}"


@dataclass
class Snapshot:
    """The catalog, rulebook and advisor at one catalog and measurements version."""

    catalog: Catalog
    rulebook: Rulebook
    advisor: Advisor
    measurements_version: str
    built_at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        # The advisor is pure over this snapshot, so answers are memoised per snapshot:
        # a rebuilt snapshot starts with empty caches, and nothing stale is ever served.
        self.answer_json = lru_cache(maxsize=ANSWER_CACHE_SIZE)(self._answer_json)
        self.asked = lru_cache(maxsize=ANSWER_CACHE_SIZE)(self._asked)
        self.card_rows = lru_cache(maxsize=256)(self._card_rows)  # the table behind /v1/gpus, per snapshot

    def _answer_json(
        self, question: Question, intent: str, today: date, detail: Detail = "full"
    ) -> tuple[bytes, str]:
        """The encoded answer in ``detail`` and the workload it was ranked for."""
        answer = self.advisor.recommend(question, intent=intent, today=today)
        shown = answer if detail == "full" else short_answer(answer)
        return msgspec.json.encode(shown), answer.question.workload

    def _asked(self, text: str, previous: Question | None, today: date, detail: Detail = "short") -> Asked:
        reply = ask(self.advisor, text, previous=previous, today=today, detail=detail)
        workload = (
            reply.question.workload
            if reply.recommendation is not None and reply.question is not None
            else None
        )
        return Asked(reply.text, msgspec.json.encode(reply), reply.question, reply.intent, workload)

    @property
    def catalog_version(self) -> str:
        return self.catalog.version

    def _card_rows(self, workload: str, as_of: date, currency: str, used_ok: bool) -> tuple[CardRow, ...]:
        """The advisor's per-card rows (the table behind /v1/gpus)."""
        return self.advisor.card_rows(workload, as_of, currency, used_ok)


class SnapshotHolder:
    """The current snapshot for one database; cheap to call on every request."""

    def __init__(
        self,
        database_url: str,
        electricity_usd_per_kwh: float = 0.15,
        check_every: float = 1.0,
        catalog_loader: Callable[[], Catalog] = load_catalog,
    ) -> None:
        self.database_url = database_url
        self.electricity = electricity_usd_per_kwh
        self.check_every = check_every
        self._load_catalog = catalog_loader
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._checked = 0.0
        self._stale = True
        self.builds = 0

    def get(self) -> Snapshot:
        """The snapshot, rebuilt first if the data changed since the last look."""
        snapshot = self._snapshot
        if snapshot is not None and not self._stale and time.monotonic() - self._checked < self.check_every:
            return snapshot
        if snapshot is not None and not self._lock.acquire(blocking=False):
            return snapshot  # another thread is checking; serve what we have
        if snapshot is None:
            self._lock.acquire()
        try:
            return self._refresh()
        finally:
            self._lock.release()

    @property
    def current(self) -> Snapshot | None:
        """The snapshot in use, without looking for changes (None before the first build)."""
        return self._snapshot

    def invalidate(self) -> None:
        """Look at the versions on the next :meth:`get` (e.g. after storing benchmark results)."""
        self._stale = True

    def _refresh(self) -> Snapshot:
        self._stale = False
        catalog = self._load_catalog()
        with session_scope(self.database_url) as session:
            version = measurements_version(session)
            quoted = prices_version(session)  # the deployment's own prices change its catalog
            expected = f"{catalog.version}+{quoted}" if quoted else catalog.version
            current = self._snapshot
            if (
                current is None
                or current.catalog_version != expected
                or current.measurements_version != version
            ):
                catalog = catalog.with_quotes(lab_quotes(session, catalog), quoted)
                rulebook = load_rulebook()
                advisor = Advisor(catalog, load_measurements(session), self.electricity, rulebook=rulebook)
                current = self._snapshot = Snapshot(catalog, rulebook, advisor, version)
                self.builds += 1
        self._checked = time.monotonic()
        return current
