"""The workload vocabulary every face shares: `ask`, `catalog`, `chart`, ``GET /v1/gpus`` and the page offer
the same names and accept the same words, so a workload one face shows is never refused by another.

A parameter is a listed name, or any words the free-text reader maps to a workload and nothing else ("nlp"
is transformer, "stable diffusion" image generation), read by :func:`rules.understand.parse` as a question is.
"""

from __future__ import annotations

from rules.contract.values import LISTED_WORKLOADS
from rules.errors import QuestionError
from rules.job_defaults import workload_key

__all__ = ["LISTED_WORKLOADS", "workload_named"]

# The fields words naming a kind of work may set ("whisper" names a model, hence speech, for inference).
_WHAT_THE_WORK_IS = frozenset({"workload", "task", "method", "model", "params_b"})


def workload_named(text: str, field: str = "workload") -> str:
    """The listed workload ``text`` names; a :class:`QuestionError` on ``field`` listing them when none."""
    from rules.understand import parse  # the reader imports this package's modules first

    name = text.strip().lower()
    if name in LISTED_WORKLOADS:
        return name
    try:
        read = parse(name.replace("_", " ")) if name and len(name) <= 60 else None
    except QuestionError:
        read = None
    named = read is not None and not read.unknown and "workload" in read.changed
    if read is not None and named and set(read.changed) <= _WHAT_THE_WORK_IS:
        return workload_key(read.question.workload, read.question.task)
    raise QuestionError(field, f"unknown workload {text!r}; one of {', '.join(LISTED_WORKLOADS)}")
