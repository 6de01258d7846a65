"""The model table, and the memory questions the engine asks of a job.

Models people name ("llama 3 8b", "sdxl") come from rules/data/models.json with
their architecture (layers, heads, KV heads, experts) and its source.
:class:`MemoryModel` answers the engine's memory questions through
:mod:`rules.job`, where the per-method counting lives (rule ``memory-fit``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.answer import MemoryNeed
from rules.knowledge.models import ModelSpec, find_model, load_models
from rules.question import Question
from rules.rulebook import Rulebook

__all__ = ["ModelSpec", "Fit", "MemoryModel", "load_models", "find_model"]


@dataclass(frozen=True)
class Fit:
    """Whether a card count holds the job, the memory it offers, and how (if sharded)."""

    fits: bool
    effective_gb: float
    sharded: bool
    reason: str
    headroom: float = float("inf")  # spare share where memory binds: the card, or each card's part of a split job
    serial: bool = False  # the cards hold parts of the model that run one after another (layer or pipeline split): no speed-up


class MemoryModel:
    """The engine's memory questions, answered by :mod:`rules.job` (one home for the arithmetic)."""

    def __init__(self, rulebook: Rulebook) -> None:
        from rules import job  # rules.job builds on this module's ModelSpec and Fit

        self._job, self._rulebook = job, rulebook
        self._models = load_models()

    def find_model(self, name: str | None) -> ModelSpec | None:
        return find_model(name)

    def model_for(self, question: Question) -> ModelSpec | None:
        return self._job.job_for(question, self._rulebook).model

    def need(self, question: Question, floor_gb: float | None = None) -> MemoryNeed:
        """Memory the job needs on one card; with no model named, at least ``floor_gb``."""
        need = self._job.job_for(question, self._rulebook).need
        if floor_gb is not None and need.model is None and not question.memory_gb and floor_gb > need.gb:
            return MemoryNeed(float(floor_gb), f"typical {question.workload} work needs about {floor_gb:g} GB")
        return need

    def fit(self, question: Question, need: MemoryNeed, memory_gb: float, gpus: int) -> Fit:
        """Does ``gpus`` cards of ``memory_gb`` each hold the job?"""
        job = self._job.job_for(question, self._rulebook)
        if need.gb != job.need.gb:  # a floor raised the need
            job = self._job.raised(job, need.gb, lambda: need)
        return self._job.fit_on(job, memory_gb, gpus)

    def describe(self) -> dict[str, Any]:
        return {"models": sorted({spec.id for spec in self._models.values()})}
