"""Stage 8 of an answer: the lines that explain it, each under the rule that made it.

Every rule id of ``rules/data/rules.json`` has one function here (:data:`REGISTRY`): it reads the typed
:class:`Evidence` of one answer — the question, who is asking, the job, the rules' terms, the configurations
and the choice made — and returns its :class:`Lines`: who is asking, what the filters kept, the plan, the
job's memory, the choice, each configuration shown and each card named. Nothing here changes the answer; it
says why it is so. The rules speak in the order of :data:`ORDER`,
which is also the order their lines take within each part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.configurations import Configuration, Left
from rules.contract.answer import Finding
from rules.explain.evidence import Evidence, Lines, RuleLines
from rules.explain.hardware import HARDWARE
from rules.explain.memory import MEMORY
from rules.explain.money import MONEY
from rules.explain.people import PEOPLE
from rules.explain.plan import PLAN

if TYPE_CHECKING:
    from rules.contract.answer import NamedCard
    from rules.objective import Choice
    from rules.stages import Known, Stages

__all__ = ["ORDER", "REGISTRY", "Evidence", "Explained", "Lines", "evidence_for", "explain"]

# The order the rules speak in, within each part of an answer.
ORDER = (
    "persona-not-serious",
    "persona-beginner",
    "persona-kaggle",
    "persona-nlp-researcher",
    "persona-cv-mt-researcher",
    "persona-almost-no-money",
    "persona-little-money",
    "software-support",
    "training-limits",
    "workload-priorities",
    "memory-fit",
    "multi-gpu-speedup",
    "separate-experiments",
    "memory-floor",
    "used-cards",
    "memory-value",
    "cost-efficiency",
    "16-bit-memory",
    "16-bit-speed",
    "vendor-nvidia",
    "vendor-amd",
    "vendor-intel",
    "product-lines",
    "multi-gpu-heat",
    "power-and-slots",
    "geforce-licence",
    "one-machine",
    "persona-already-own",
    "cloud-role",
    "tpu-fit",
    "no-unreleased-chips",
    "memory-caveat",
    "spec-dimensions",
    "rent-vs-buy",
    "job-cost",
)
REGISTRY: dict[str, RuleLines] = {
    rule_id: function
    for family in (PEOPLE, MEMORY, MONEY, HARDWARE, PLAN)
    for rule_id, function in family.items()
}


class Explained:
    """Every rule's lines on one answer, gathered part by part in :data:`ORDER`."""

    def __init__(self, evidence: Evidence) -> None:
        self._lines = tuple(REGISTRY[rule_id](evidence) for rule_id in ORDER)

    def part(self, name: str) -> list[Finding]:
        """The findings of one part ("asker", "kept", "plan", "need", "choice") from every rule, in order."""
        return [line for lines in self._lines for line in getattr(lines, name)]

    def card(self, index: int) -> tuple[Finding, ...]:
        """Every rule's lines on the ``index``-th configuration shown."""
        return tuple(line for lines in self._lines if lines.cards for line in lines.cards[index])

    def named(self, count: int) -> list[Finding]:
        """The lines on the ``count`` named cards: card by card, each in rule order."""
        return [
            line
            for index in range(count)
            for lines in self._lines
            if lines.named and (line := lines.named[index]) is not None
        ]

    def excluded(self, excluded: list[Left]) -> list[Left]:
        """The cards left out worth naming, as the rules that speak of them say (rule ``memory-caveat``)."""
        for lines in self._lines:
            if lines.left_out is not None:
                return list(lines.left_out)
        return excluded


def explain(evidence: Evidence) -> Explained:
    return Explained(evidence)


def evidence_for(
    stages: Stages,
    known: Known,
    choice: Choice | None,
    shown: tuple[Configuration, ...],
    named: tuple[NamedCard, ...],
) -> Evidence:
    """What the rules read of one answer: the stages, the choice made (None: the named cards side by side)
    and the configurations shown."""
    top = choice.top if choice is not None else None
    best = stages.market.best_any if stages.pricing.used_ok else stages.market.best_new
    cheaper = frozenset(
        e.gpu
        for e in stages.excluded
        if top is not None and (point := best.get(e.gpu)) is not None and point.price_usd < top.offer.unit_usd
    )
    return Evidence(
        stages.question,
        stages.asker,
        stages.job,
        stages.terms,
        stages.sizing,
        known.rulebook,
        known.performance,
        known.reference,
        stages.work,
        stages.terms.label,
        stages.configs,
        choice,
        shown,
        named,
        stages.excluded,
        cheaper,
        stages.pricing,
    )
