"""What one choice weighs and what it returns: the :class:`Objective` and the :class:`Choice` (the measures
every part of the choice reads alike, worth per dollar and an estimated price, are the configuration's own).

They sit below the ranking, the choose stage, who leads and the notes (:mod:`rules.ranking`,
:mod:`rules.choose`, :mod:`rules.leading`, :mod:`rules.choice_notes`), so that each of those reads one
definition and none imports another back.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, NamedTuple

from rules.configurations import Configuration
from rules.knowledge.messages import Text
from rules.money import BUDGET_SLACK

if TYPE_CHECKING:
    from rules.knowledge import Rulebook
    from rules.memory_terms import Floor
    from rules.money import Pricing
    from rules.stages import Stages

__all__ = [
    "BUDGET_SLACK",
    "Allowed",
    "Choice",
    "Note",
    "Objective",
    "every",
    "objective_for",
]

Allowed = Callable[[Configuration], bool]


class Note(NamedTuple):
    """Why the choice is what it is, under its rule: a finding before it has a language."""

    rule: str
    verdict: Literal["applied", "warning", "excluded", "info"]
    reason: Text


def every(c: Configuration) -> bool:
    """Allows every configuration: the default where the persona and the upgrade constrain nothing."""
    return True


@dataclass(frozen=True)
class Why:
    """What a ranking found that its notes say (:func:`rules.choice_notes.worded`): the top, what the ranking
    put first before memory (``lean``) or speed for the same money (``slower``) moved it, the best value, what
    could lead, λ, the terms, the configuration ranked above the top that may not lead it, and the used cards'
    note on the floor; worded once the stage has made its choice."""

    top: Configuration
    lean: Configuration
    slower: Configuration
    best_value: Configuration
    within: tuple[Configuration, ...]
    lam: float
    objective: Objective
    demoted: Configuration | None = None
    floor_note: Note | None = None


@dataclass(frozen=True)
class Choice:
    top: Configuration | None
    runners_up: tuple[Configuration, ...] = ()
    alternatives: dict[str, Configuration] = field(default_factory=dict)
    ladder: dict[str, Configuration] = field(
        default_factory=dict
    )  # entry / sweet spot / no compromise, without a budget
    price_of_speed: float = 0.0  # λ: dollars of the pick's price worth one unit of speed, inverted
    best_value: Configuration | None = None
    under_floor: Configuration | None = None  # the best card the floor kept from the top
    over_budget: tuple[Configuration, ...] = ()  # the cheapest that would work, for "raise the budget"
    notes: tuple[Note, ...] = ()  # why the choice is what it is, each under its rule
    asked: bool = False  # the top is the card the question named ("a server with 8 H100")
    within: tuple[
        Configuration, ...
    ] = ()  # what could lead, within the budget, best first (for alternatives_among)
    why: Why | None = None  # what the ranking found, for the notes said once the choice is made


@dataclass(frozen=True)
class Objective:
    """The terms of one choice.

    ``headline`` says what may lead the answer (the top pick, the ladder, the labelled alternatives) while
    something else can; ``cheapest``: the least that does the job, not the best within the budget;
    ``used_when_short``: used cards are picked when no new one holds the job within the budget (one card for a
    desk; several cards stay new and show the used option beside the answer, rule ``used-cards``);
    ``used_for_floor``: used cards join when new ones with enough memory cost this many times more;
    ``used_saving``: a used card that joins unasked saves at least this share of the same cards new;
    ``roomier_premium``: a configuration as fast as the pick with more memory leads when it costs at most
    this share more (rule ``memory-value``; 0 weighs memory no further);
    ``same_price``: configurations whose prices differ by at most this share cost the same, and the faster of
    two that do the job as well leads;
    ``same_speed``: configurations whose speeds differ by at most this share are as fast;
    ``pricing``: the answer's, for the money its notes name, in the asker's currency.
    """

    budget_usd: float | None
    floor: Floor | None
    threshold: float
    used_ok: bool
    pricing: Pricing
    headline: Allowed = every
    used_for_floor: float | None = None
    cheapest: bool = False
    used_when_short: bool = True
    used_saving: float = 0.0
    roomier_premium: float = 0.0
    same_price: float = 0.0
    same_speed: float = 0.0

    @property
    def limit(self) -> float:
        """What the budget affords, with its slack."""
        return math.inf if self.budget_usd is None else self.budget_usd * BUDGET_SLACK

    def with_used(self) -> Objective:
        """The same choice with used cards in, as a last resort (the market's own terms for them set
        aside)."""
        return replace(self, used_ok=True, used_for_floor=None, used_when_short=True, used_saving=0.0)


def objective_for(stages: Stages, rulebook: Rulebook) -> Objective:
    """The choice's terms: used cards lead when asked for, for the cheapest way, and for a persona short
    on money or starting out on a budget (rule used-cards); a question with no budget prices its ladder
    new."""
    question, terms = stages.question, stages.terms
    return Objective(
        stages.asker.budget_usd,
        terms.floor,
        terms.threshold,
        question.used_ok or stages.asker.on_a_budget or question.objective == "cheapest",
        stages.pricing,
        terms.headline,
        terms.used.used_over,
        question.objective == "cheapest",
        not terms.used.new_only,
        terms.used.saving,
        rulebook.memory_value.roomier_premium,
        rulebook.cost_efficiency.same_price_share,
        rulebook.cost_efficiency.same_speed_share,
    )
