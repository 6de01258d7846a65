"""What the rules read to explain one answer, and what each rule says."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rules.configurations import applies, set_aside
from rules.contract.answer import Finding, NamedCard
from rules.knowledge.messages import Text, say, spoken

if TYPE_CHECKING:
    from rules.asker import Asker
    from rules.configurations import Configuration, Left, Sizing
    from rules.contract.question import Question
    from rules.job import Job
    from rules.knowledge import Gpu, Rulebook
    from rules.money import Pricing
    from rules.objective import Choice
    from rules.performance import PerformanceModel
    from rules.terms import Terms

__all__ = ["Evidence", "Lines", "RuleLines", "each", "kept"]


@dataclass(frozen=True)
class Evidence:
    """One answer as the rules see it once it is made."""

    question: Question  # with the engine's defaults filled in
    asker: Asker
    job: Job  # its need raised to the personas' memory
    terms: Terms
    sizing: Sizing
    rulebook: Rulebook
    performance: PerformanceModel
    reference: Gpu
    work: str  # the performance model's workload
    label: str  # the workload in words
    configs: tuple[Configuration, ...]  # every configuration that holds the job
    choice: Choice | None  # None: the named cards side by side
    shown: tuple[Configuration, ...]  # the configurations the answer shows as picks, in order
    named: tuple[NamedCard, ...]
    excluded: tuple[Left, ...]  # cards no allowed count of which holds the job
    cheaper: frozenset[str]  # the cards left out for memory that cost less than the top pick
    pricing: Pricing  # the answer's: an amount a finding names is in the asker's currency

    @property
    def language(self) -> str | None:
        return self.question.language

    def say(self, key: str, **values: Any) -> str:
        return say(key, self.question.language, **values)

    def spoken(self, text: Text) -> str:
        return spoken(text, self.question.language)


@dataclass(frozen=True)
class Lines:
    """What one rule says about one answer, each part where the answer shows it."""

    asker: tuple[Finding, ...] = ()  # who is asking
    kept: tuple[Finding, ...] = ()  # what its filter kept
    plan: tuple[Finding, ...] = ()  # the cards, the cloud, the date
    need: tuple[Finding, ...] = ()  # the job's memory
    choice: tuple[Finding, ...] = ()  # the choice made
    cards: tuple[tuple[Finding, ...], ...] = ()  # one entry per configuration shown (empty: nothing to say)
    named: tuple[Finding | None, ...] = ()  # one entry per card named (empty: nothing to say)
    left_out: tuple[Left, ...] | None = None  # the cards left out worth naming, where the rule decides them


RuleLines = Callable[[Evidence], Lines]


def each(
    evidence: Evidence, card: Callable[[Configuration], Sequence[Finding]]
) -> tuple[tuple[Finding, ...], ...]:
    """A rule's lines on every configuration shown."""
    return tuple(tuple(card(c)) for c in evidence.shown)


def kept(evidence: Evidence, rule_id: str) -> tuple[Finding, ...]:
    """The line of the rule's filter, where it applies to the configurations."""
    found = []
    for keep in evidence.terms.keeps:
        if keep.rule != rule_id:
            continue
        if applies(keep, evidence.configs):
            found.append(Finding(rule_id, "applied", evidence.spoken(keep.reason)))
        elif keep.aside is not None and set_aside(keep, evidence.configs):
            found.append(Finding(rule_id, "info", evidence.spoken(keep.aside)))
    return tuple(found)
