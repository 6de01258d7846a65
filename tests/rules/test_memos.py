"""What the engine memoises per question but for its budget (rulings, picks, rent vs buy, the filtered
configurations, their Markdown) never leaks into another answer: an advisor that has answered other
budgets, currencies and shapes first answers each question exactly as a fresh advisor does."""

from __future__ import annotations

import dataclasses
import gc

import msgspec

from rules import job as jobs
from rules.ask import ask
from rules.engine import Advisor
from rules.question import Question
from rules.rulebook import load_rulebook
from tests.rules.conftest import TODAY

TEXTS = ("nlp ${}", "cv ${} 2 gpus", "llm ${} used ok", "kaggle ${} beginner", "rl ${} in EUR", "learning ${} server",
         "llama 13b qlora ${}", "transformers ${} i have a rtx 3060", "nlp ${} cheapest", "cv ${} as of 2019",
         "compare 3090 4090 for nlp ${}", "deep learning ${} 10 hours a week")
# Each side of the two money personas' limits ($150 and $350, rules.json), and far above them.
BUDGETS = (90, 140, 160, 300, 340, 360, 800, 2500, 15000)


def test_an_answer_is_the_same_whatever_was_asked_before(catalog):
    warm = Advisor(catalog)
    for text in TEXTS:
        for budget in BUDGETS:
            asked = text.format(budget)
            after_others = msgspec.json.encode(ask(warm, asked, today=TODAY))
            alone = msgspec.json.encode(ask(Advisor(catalog), asked, today=TODAY))
            assert after_others == alone, asked


# A value other than the default for each field a job does not read.
UNREAD = {"budget": 5000.0, "currency": "EUR", "gpus": 4, "gpus_fixed": True, "used_ok": True, "cloud_ok": False,
          "hours_per_week": 30.0, "experience": "researcher", "owned_gpu": "rtx 3060", "compare": ("rtx 4090",),
          "objective": "cheapest", "card_memory_gb": 8.0, "as_of": TODAY}


def test_a_job_reads_only_the_fields_it_is_memoised_by():
    """job_for is memoised by the fields a job reads: a question differing in any other field has an equal job,
    counted afresh, so a job that starts reading another field fails here."""
    keyed = {f.name for f in dataclasses.fields(Question)
             if jobs._JOB_FIELDS(dataclasses.replace(Question(), **{f.name: _Unequal()})) != jobs._JOB_FIELDS(Question())}
    assert {f.name for f in dataclasses.fields(Question)} - keyed == set(UNREAD)  # a new field: does a job read it?
    rulebook = load_rulebook()
    base = Question(workload="llm", model="llama-13b", task="training", budget=900)
    for name, value in UNREAD.items():
        jobs._CACHE.clear()
        jobs._SAME.clear()
        expected = jobs.job_for(base, rulebook)
        jobs._CACHE.clear()
        jobs._SAME.clear()
        assert jobs.job_for(dataclasses.replace(base, **{name: value}), rulebook) == expected, name


class _Unequal:
    """Equal to nothing: put in a field, it changes a key only if the key reads that field."""

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__


def test_memo_entries_dropped_leave_no_cycle_garbage(catalog, monkeypatch):
    """The memos empty at their limits; what they held must be freed by reference counting, not left in reference
    cycles for the collector (whose passes over a server's heap are what stall requests)."""
    from rules import engine

    for limit in ("SHAPES_KEPT", "PICKS_KEPT", "CONFIGURATIONS_KEPT"):
        monkeypatch.setattr(engine, limit, 3)
    advisor = Advisor(catalog)
    texts = [text.format(budget) for text in TEXTS for budget in BUDGETS]
    for asked in texts[:20]:  # first use builds module-level caches and types
        msgspec.json.encode(ask(advisor, asked, today=TODAY))
    gc.collect()
    gc.disable()
    try:
        for asked in texts:
            msgspec.json.encode(ask(advisor, asked, today=TODAY))
        garbage = gc.collect()
    finally:
        gc.enable()
    assert garbage == 0
