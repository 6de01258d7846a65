"""Stage 1 of an answer: who is asking — the seed's personas, the card they own, their budget in dollars.

Persona rules come first because everything after reads them: the memory a beginner's card should have,
whether used cards are worth suggesting to someone short of money, whether CUDA is the only stack to offer,
and the verdict "CPU and the cloud" for almost no money (003, "General GPU Recommendations" and the TL;DR).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rules.knowledge.messages import Phrase, Text

if TYPE_CHECKING:
    from rules.contract.question import Question
    from rules.knowledge import Gpu, Rulebook
    from rules.money import Pricing

__all__ = ["Asker", "Persona", "asker_for"]


@dataclass(frozen=True)
class Persona:
    """Who is asking, as one persona rule sees it: its line, the memory it asks for, and preferences."""

    rule: str
    reason: Text
    min_memory_gb: float | None = None
    consider_used: bool = False
    verdict: Literal["cpu-and-cloud"] | None = None  # no card to buy at all
    suggestion: Text | None = None  # what to do instead, with that verdict
    cuda_only: bool = False  # starting out: only the stack every tutorial assumes


@dataclass(frozen=True)
class Asker:
    """The asker as the rules see them."""

    budget_usd: float | None
    personas: tuple[Persona, ...]
    owned: Gpu | None  # the card they already have, when the catalog knows it
    hours_per_week: float  # the hours a week they will use the cards: said, else the rule's default
    hours_assumed: Text  # why those hours, where the question said none

    @property
    def on_a_budget(self) -> bool:
        """A budget, and a persona short on money or starting out: used cards lead (rule ``used-cards``)."""
        return self.budget_usd is not None and any(p.consider_used for p in self.personas)

    @property
    def cuda_only(self) -> bool:
        return any(p.cuda_only for p in self.personas)

    @property
    def instead(self) -> Persona | None:
        """The persona whose verdict replaces buying a card (almost no money: CPU and the cloud)."""
        return next((p for p in self.personas if p.verdict), None)


def asker_for(question: Question, pricing: Pricing, rulebook: Rulebook, owned: Gpu | None) -> Asker:
    """The personas that fit the question, in rule order."""
    budget = pricing.to_usd(question.budget) if question.budget is not None else None
    found = [
        _not_serious(question, rulebook),
        _beginner(question, rulebook),
        _kaggle(question, rulebook),
        *_researcher(question, rulebook),
        *_money(question, budget, rulebook),
    ]
    hours, assumed = _hours_per_week(question, rulebook)
    return Asker(budget, tuple(p for p in found if p is not None), owned, hours, assumed)


def _hours_per_week(question: Question, rulebook: Rulebook) -> tuple[float, Text]:
    """The asker's hours a week, else the rule's default (rule ``rent-vs-buy``): higher for a server, several
    cards or several users; and why, where the question said none."""
    params = rulebook.rent_vs_buy
    if question.hours_per_week:
        return question.hours_per_week, ""
    if question.setting == "server" or question.gpus > 1 or (question.users or 0) > 1:
        hours = f"{params.server_hours_per_week:g}"
        return params.server_hours_per_week, Phrase("rent.server_hours", {"hours": hours})
    hours = f"{params.default_hours_per_week:g}"
    return params.default_hours_per_week, Phrase("rent.personal_hours", {"hours": hours})


def _not_serious(q: Question, rulebook: Rulebook) -> Persona | None:
    if q.experience != "hobby":
        return None
    return Persona(
        "persona-not-serious",
        Phrase("rule.persona_not_serious.reason"),
        rulebook.persona_not_serious.min_memory_gb,
    )


def _says_its_job(q: Question) -> bool:
    """A question that names its model, its memory, several cards, a server or the users served is not
    someone starting out, though it names no workload ("team of 10 serving a 70b model")."""
    return bool(
        q.params_b or q.model or q.memory_gb or q.setting in ("server", "cloud") or q.batch or q.gpus > 1
    )


def _beginner(q: Question, rulebook: Rulebook) -> Persona | None:
    if not (
        q.experience == "beginner"
        or (q.workload == "general" and q.experience is None and not _says_its_job(q))
    ):
        return None
    params = rulebook.persona_beginner
    used = params.suggest_used and not q.new_only  # "new cards only" is not told that used is fine
    return Persona(
        "persona-beginner",
        Phrase("rule.persona_beginner.reason" if used else "rule.persona_beginner.reason_new"),
        params.min_memory_gb,
        consider_used=used,
        cuda_only=params.cuda_only,
    )


def _kaggle(q: Question, rulebook: Rulebook) -> Persona | None:
    if q.workload != "kaggle":
        return None
    params = rulebook.persona_kaggle
    return Persona(
        "persona-kaggle",
        Phrase("rule.persona_kaggle.reason"),
        params.min_memory_gb,
        cuda_only=params.cuda_only,
    )


def _researcher(q: Question, rulebook: Rulebook) -> list[Persona]:
    """Language research first; vision research where the NLP persona has not taken the question (transformers
    are in both)."""
    if q.experience != "researcher":
        return []
    nlp, vision = rulebook.persona_nlp_researcher, rulebook.persona_cv_mt_researcher
    if q.workload in nlp.workloads:
        return [
            Persona(
                "persona-nlp-researcher",
                Phrase("rule.persona_nlp_researcher.reason"),
                nlp.min_memory_gb,
            )
        ]
    if q.workload in vision.workloads:
        return [
            Persona(
                "persona-cv-mt-researcher",
                Phrase("rule.persona_cv_mt_researcher.reason"),
                vision.min_memory_gb,
            )
        ]
    return []


def _money(q: Question, budget: float | None, rulebook: Rulebook) -> list[Persona]:
    """Almost no money: a CPU and free notebooks; little money: used cards are worth a look."""
    if budget is None:
        return []
    if budget <= rulebook.persona_almost_no_money.budget_usd:
        return [
            Persona(
                "persona-almost-no-money",
                Phrase("rule.persona_almost_no_money.reason"),
                consider_used=True,
                verdict="cpu-and-cloud",
                suggestion=Phrase("rule.persona_almost_no_money.suggestion"),
            )
        ]
    if budget <= rulebook.persona_little_money.budget_usd:
        return [
            Persona(
                "persona-little-money",
                Phrase(
                    "rule.persona_little_money.new_only" if q.new_only else "rule.persona_little_money.reason"
                ),
                consider_used=not q.new_only,  # "new only" is the asker's call, budget or not
            )
        ]
    return []
