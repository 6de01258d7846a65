"""What the API answers from: one in-memory snapshot of catalog, rulebook and advisor.

Building an :class:`~rules.engine.Advisor` costs milliseconds and reads the
measurements from the database, so it is not done per request. :class:`SnapshotHolder`
keeps the current :class:`Snapshot` and rebuilds it only when the catalog version
or the measurements version changes; it looks once per ``check_every`` seconds
(one cheap query), and at once after :meth:`SnapshotHolder.invalidate`
(called on benchmark ingest). The looks and rebuilds run on a refresher thread; readers
never wait for one: they get the previous snapshot until the new one is swapped in.
"""

from __future__ import annotations

import logging
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
from rules.knowledge.catalog import Catalog
from rules.knowledge.loaded import load_catalog, load_rulebook
from rules.knowledge.rulebook import Rulebook
from rules.render.short import MAX_PICKS, deciding
from service.benchmarks import load_measurements, measurements_version
from service.db import session_scope
from service.lab_prices import lab_quotes, prices_version

__all__ = ["ANSWER_CACHE_SIZE", "Asked", "Snapshot", "SnapshotHolder", "short_answer"]

ANSWER_CACHE_SIZE = 4096
log = logging.getLogger("whichgpu.snapshot")


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
    """The current snapshot for one database; :meth:`get` is a memory read, safe on the event loop.

    After the first build (at start-up) nothing a request calls touches the database: a
    refresher thread (:meth:`start`) looks at the versions every ``check_every`` seconds, or at
    once after :meth:`invalidate`, rebuilds off the loop and swaps the new snapshot in. A stalled
    or unreachable database only delays that swap; answers keep coming from the snapshot in memory,
    and :meth:`database_ok` turns false once no look has succeeded for ``stale_after`` seconds.
    """

    def __init__(
        self,
        database_url: str,
        electricity_usd_per_kwh: float = 0.15,
        check_every: float = 1.0,
        catalog_loader: Callable[[], Catalog] = load_catalog,
        stale_after: float = 3.0,
    ) -> None:
        self.database_url = database_url
        self.electricity = electricity_usd_per_kwh
        self.check_every = check_every
        self.stale_after = stale_after
        self._load_catalog = catalog_loader
        self._lock = threading.Lock()  # one look at a time
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._snapshot: Snapshot | None = None
        self._reached_at: float | None = None  # monotonic time of the last look that reached the database
        self.builds = 0

    def get(self) -> Snapshot:
        """The snapshot in memory; built here only the first time (start-up), never per request."""
        return self._snapshot or self.refresh()

    @property
    def current(self) -> Snapshot | None:
        """The snapshot in use (None before the first build)."""
        return self._snapshot

    def invalidate(self) -> None:
        """Have the refresher look at the versions now (e.g. after storing benchmark results)."""
        self._wake.set()

    def rebuild_now(self) -> None:
        """Rebuild on the calling worker thread (after a write whose writer reads again at once: an agent's
        run, an admin's price); other requests keep the old snapshot meanwhile. The write is stored
        already: a failed rebuild is left to the refresher."""
        try:
            self.refresh()
        except Exception as exc:
            log.warning("snapshot rebuild after a write failed; the refresher will retry: %s", exc)
            self.invalidate()

    def database_ok(self) -> bool:
        """Whether a look at the database succeeded within the last ``stale_after`` seconds."""
        reached = self._reached_at
        return reached is not None and time.monotonic() - reached <= max(
            self.stale_after, self.check_every * 2
        )

    def start(self) -> None:
        """Start the refresher thread (a daemon: it never keeps the process alive)."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="snapshot-refresher", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.check_every)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.refresh()
            except Exception as exc:  # the database is down or stalled: keep serving what we have
                log.warning("snapshot refresh failed, answering from the snapshot in memory: %s", exc)

    def refresh(self) -> Snapshot:
        """Look at the versions now and rebuild when they changed (blocking: call off the event loop)."""
        with self._lock:
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
                    measured = load_measurements(session)
                    advisor = Advisor(catalog, measured, self.electricity, rulebook=rulebook)
                    current = self._snapshot = Snapshot(catalog, rulebook, advisor, version)
                    self.builds += 1
            self._reached_at = time.monotonic()
            return current
