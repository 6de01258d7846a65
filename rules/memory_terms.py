"""Memory's terms: the dated floor a card should have for the workload (rule ``memory-floor``) and what
memory is worth for a memory-bound job (rule ``memory-value``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING

from rules.job import GIB_IN_GB, Job
from rules.knowledge.messages import Cited, Phrase, Term, Text

if TYPE_CHECKING:
    from rules.contract.question import Question
    from rules.knowledge import Rulebook

__all__ = [
    "Floor",
    "MemoryWorth",
    "floor_for",
    "inference_floor",
    "memory_floor",
    "named_floor",
]


@dataclass(frozen=True)
class Floor:
    """Memory a card should have for the workload on the date (rule ``memory-floor``)."""

    gb: float
    reason: Text
    for_inference: bool = False  # a floor for running models people have not named yet
    # where nothing with the floor's memory fits the budget: the job's own need, held before all else
    need_gb: float = 0.0


@dataclass(frozen=True)
class MemoryWorth:
    """Memory-bound jobs (rule ``memory-value``): a configuration is worth its speed scaled by how much of the
    job's class it holds — the named model with headroom, else the largest open model class fine-tuned on the
    date."""

    job: Job
    target_gb: float
    name: Text
    share: float

    def held(self, memory_gb: float, count: int) -> float:
        """The share of the reference job N cards of this size hold (each card's part,
        when the method shards it)."""
        job = self.job
        pools = job.pooling != "none" and job.shardable_gb > 0
        per_card = (job.need.gb - job.shardable_gb * (1 - 1 / count)) if pools else job.need.gb
        per_card *= self.target_gb / job.need.gb
        return min(1.0, memory_gb * GIB_IN_GB / per_card)

    def worth(self, memory_gb: float, count: int) -> float:
        return self.share + (1 - self.share) * self.held(memory_gb, count)


def floor_for(
    question: Question,
    job: Job,
    rulebook: Rulebook,
    as_of: date,
    reference: tuple[Job, float, Text] | None,
    learning: bool,
) -> Floor | None:
    """The question's memory floor (rule ``memory-floor``): the date's for the work, none where the memory is
    asked, lowered to a named job's own need with headroom (:func:`named_floor`, :func:`inference_floor`).
    Someone starting out (``learning``) runs more than the model they name first: the date's inference floor
    speaks for that, so a small named model leaves it in place."""
    q = question
    floor = None if q.memory_gb else memory_floor(rulebook, as_of, q.workload, q.task, q.experience)
    if reference is not None:
        floor = named_floor(floor, job, reference[1])
    named = q.model is not None and not learning
    floor = inference_floor(floor, job, named, rulebook.memory_value.named_headroom)
    if floor is None or job.need.gb / GIB_IN_GB >= floor.gb:
        return floor
    return replace(floor, need_gb=math.ceil(job.need.gb / GIB_IN_GB * 10) / 10)


def memory_floor(
    rulebook: Rulebook, as_of: date, workload: str, task: str, experience: str | None
) -> Floor | None:
    """The latest floor row for the workload, task and experience on the date, worded
    (rule ``memory-floor``)."""
    best = None
    for row in rulebook.memory_floor.floors:
        if (
            row.workload == workload
            and row.task in ("any", task)
            and row.from_ <= as_of
            and row.experience in (None, experience)
        ) and (best is None or (row.from_, row.gb) > (best.from_, best.gb)):
            best = row
    if best is None:
        return None
    what = Phrase(
        f"rule.memory_floor.what_{best.task}" if best.task != "any" else "rule.memory_floor.what_work",
        {"workload": Term("task", workload)},
    )
    return Floor(
        best.gb,
        Phrase(
            "rule.memory_floor.floor",
            {
                "gb": f"{best.gb:g}",
                "what": what,
                "since": best.from_.isoformat()[:7],
                "source": Cited(best.source.name),
            },
        ),
        for_inference=best.task == "inference",
    )


def named_floor(floor: Floor | None, job: Job, reference_gb: float) -> Floor | None:
    """The floor where the asker named the model: the dated floor speaks for work not yet known (Dettmers'
    24 GB for transformers, 2023), so a named job that needs less, with the rule memory-value's headroom for
    longer contexts and batches, sets the floor at that need instead. A floor is only ever lowered here."""
    if floor is None or job.model is None or job.need.parts is None:
        return floor
    needed = reference_gb / GIB_IN_GB  # as cards are labelled
    if needed >= floor.gb:
        return floor
    return Floor(
        math.ceil(needed * 10) / 10,
        Phrase(
            "rule.memory_floor.named",
            {"name": job.model.name, "need": f"{reference_gb:.1f}", "floor": f"{floor.gb:g}"},
        ),
    )


def inference_floor(floor: Floor | None, job: Job, named: bool, headroom: float) -> Floor | None:
    """An inference floor (12 GB in 2026) speaks for the 8B-class models a newcomer runs at a comfortable
    context: a model that needs more than it sets its own terms, so the floor is dropped; a named model that
    needs less lowers it to that need with headroom (:func:`named_floor`); a size alone keeps it."""
    if floor is None or not floor.for_inference or job.model is None or job.need.parts is None:
        return floor
    needed_gb = job.need.gb * (1 + headroom)
    if needed_gb / GIB_IN_GB >= floor.gb:
        return None
    return named_floor(floor, job, needed_gb) if named else floor
