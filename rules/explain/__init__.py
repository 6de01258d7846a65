"""Stage 8 of an answer: the lines that explain it, each under the rule that made it.

Every rule id of ``rules/data/rules.json`` has one function here (:data:`REGISTRY`): it reads the typed
:class:`Evidence` of one answer — the question, who is asking, the job, the rules' terms, the configurations
and the choice made — and returns its :class:`Lines`: who is asking, what the filters kept, the plan, the
job's memory, the choice, each configuration shown and each card named. Nothing here changes the answer; it
says why it is so. The rules speak in the order of :data:`ORDER`,
which is also the order their lines take within each part.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class Explained:
    """Every rule's lines on one answer, gathered part by part in :data:`ORDER`: what the answer shows
    under each part, each configuration shown and each card named."""

    asker: tuple[Finding, ...]  # who is asking
    kept: tuple[Finding, ...]  # what the filters kept
    plan: tuple[Finding, ...]  # the cards, the cloud, the date
    need: tuple[Finding, ...]  # the job's memory
    choice: tuple[Finding, ...]  # the choice made
    cards: tuple[tuple[Finding, ...], ...]  # every rule's lines on each configuration shown, in order
    named: tuple[Finding, ...]  # the lines on the cards named: card by card, each in rule order
    left_out: tuple[Left, ...] | None  # the cards left out worth naming (rule memory-caveat); None: all


def explain(evidence: Evidence) -> Explained:
    """The explain stage: every rule's lines, read from the answer's evidence once."""
    said = tuple(REGISTRY[rule_id](evidence) for rule_id in ORDER)
    return Explained(
        asker=tuple(line for lines in said for line in lines.asker),
        kept=tuple(line for lines in said for line in lines.kept),
        plan=tuple(line for lines in said for line in lines.plan),
        need=tuple(line for lines in said for line in lines.need),
        choice=tuple(line for lines in said for line in lines.choice),
        cards=tuple(
            tuple(line for lines in said if lines.cards for line in lines.cards[index])
            for index in range(len(evidence.shown))
        ),
        named=tuple(
            line
            for index in range(len(evidence.named))
            for lines in said
            if lines.named and (line := lines.named[index]) is not None
        ),
        left_out=next((lines.left_out for lines in said if lines.left_out is not None), None),
    )


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
        if e.rule == "memory-fit"
        and top is not None
        and (point := best.get(e.gpu)) is not None
        and point.price_usd < top.offer.unit_usd
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
