"""The picks an answer shows, in order and labelled: the top (or the ladder) and the runners-up, then the
alternatives; read from the choice once it is made."""

from __future__ import annotations

from rules.configurations import Configuration
from rules.objective import Choice

__all__ = ["ranked", "shown"]


def ranked(choice: Choice, cheapest: bool = False) -> list[tuple[Configuration, str]]:
    """(configuration, label) for the picks: the top, then the ladder or the runners-up."""
    if choice.top is None:
        return []
    if choice.ladder:
        order = ("sweet spot", "entry", "no compromise")
        return [(choice.ladder[k], k) for k in order if k in choice.ladder]
    first = "as asked" if choice.asked else "cheapest that does the job" if cheapest else "best within budget"
    return [(choice.top, first)] + [(c, "runner-up") for c in choice.runners_up]


def shown(choice: Choice, cheapest: bool) -> tuple[tuple[Configuration, str], ...]:
    """(configuration, label) of every pick the answer shows: the ranked picks, then the alternatives."""
    return tuple(ranked(choice, cheapest)) + tuple((c, label) for label, c in choice.alternatives.items())
