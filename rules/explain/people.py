"""Who is asking (the seed's personas) and the filters their rules and the toolkit's support set."""

from __future__ import annotations

from rules.contract.answer import Finding
from rules.explain.evidence import Evidence, Lines, RuleLines, kept

__all__ = ["PEOPLE"]


def _persona(evidence: Evidence, rule_id: str) -> Lines:
    """The persona's line, where its rule found the asker to be that persona."""
    said = tuple(
        Finding(p.rule, "applied", evidence.spoken(p.reason))
        for p in evidence.asker.personas
        if p.rule == rule_id
    )
    return Lines(asker=said)


def persona_not_serious(evidence: Evidence) -> Lines:
    """Not serious about deep learning: a card with little power draw (its filter), and its line."""
    lines = _persona(evidence, "persona-not-serious")
    return Lines(asker=lines.asker, kept=kept(evidence, "persona-not-serious"))


def persona_beginner(evidence: Evidence) -> Lines:
    return _persona(evidence, "persona-beginner")


def persona_kaggle(evidence: Evidence) -> Lines:
    return _persona(evidence, "persona-kaggle")


def persona_nlp_researcher(evidence: Evidence) -> Lines:
    return _persona(evidence, "persona-nlp-researcher")


def persona_cv_mt_researcher(evidence: Evidence) -> Lines:
    return _persona(evidence, "persona-cv-mt-researcher")


def persona_almost_no_money(evidence: Evidence) -> Lines:
    return _persona(evidence, "persona-almost-no-money")


def persona_little_money(evidence: Evidence) -> Lines:
    return _persona(evidence, "persona-little-money")


def persona_already_own(evidence: Evidence) -> Lines:
    """Only upgrades over the card owned (the verdict "wait" is the rule's term, said in the summary)."""
    return Lines(kept=kept(evidence, "persona-already-own"))


def software_support(evidence: Evidence) -> Lines:
    return Lines(kept=kept(evidence, "software-support"))


def training_limits(evidence: Evidence) -> Lines:
    return Lines(kept=kept(evidence, "training-limits"))


PEOPLE: dict[str, RuleLines] = {
    "persona-not-serious": persona_not_serious,
    "persona-beginner": persona_beginner,
    "persona-kaggle": persona_kaggle,
    "persona-nlp-researcher": persona_nlp_researcher,
    "persona-cv-mt-researcher": persona_cv_mt_researcher,
    "persona-almost-no-money": persona_almost_no_money,
    "persona-little-money": persona_little_money,
    "persona-already-own": persona_already_own,
    "software-support": software_support,
    "training-limits": training_limits,
}
