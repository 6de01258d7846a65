"""What an answer shows beside its top pick: the ladder without a budget (entry, sweet spot, no compromise),
the labelled alternatives (best value, fastest, roomiest), each better than the top on its own measure, and
the labels the picks are shown under.

Apart from the ranking (:mod:`rules.ranking`) because they are read again after it: a card the question
names, or CUDA's place, changes the top, and the alternatives must still beat the new one.
"""

from __future__ import annotations

from collections.abc import Callable

from rules.configurations import Configuration
from rules.objective import Choice

__all__ = [
    "BETTER",
    "alternatives_among",
    "labelled_alternatives",
    "ladder_for",
    "ranked",
    "shown",
    "still_better",
]


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


def alternatives_among(choice: Choice, keep: Callable[[Configuration], bool]) -> dict[str, Configuration]:
    """Best value, fastest and roomiest among the configurations ``keep`` passes, with the choice's top and
    picks as they are."""
    if choice.top is None:
        return {}
    taken = {c.gpu.id for c in (choice.top, *choice.ladder.values(), *choice.runners_up)}
    return labelled_alternatives(choice.top, [c for c in choice.within if keep(c)], taken)


def ladder_for(
    top: Configuration, within: list[Configuration], every: list[Configuration]
) -> dict[str, Configuration]:
    """Without a budget: the least that does the job, the sweet spot, and the fastest. ``every``: all
    configurations within reach, leading or not, for the fewest cards of each that hold the job (a module
    holds it alone, though it leads only as a board of eight)."""
    ladder = {"sweet spot": top}
    entry = min(within, key=lambda c: (c.total_usd, -c.speed, c.gpu.id))
    fewest: dict[str, int] = {}
    for c in every:
        fewest[c.gpu.id] = min(fewest.get(c.gpu.id, c.count), c.count)
    # the fastest card in as few as hold the job: more of them is always faster, never the sensible top rung
    # (8 x H200 NVL for $256,000 to serve a 32B model to ten people)
    roof = max(
        (c for c in within if c.count == fewest[c.gpu.id]),
        key=lambda c: (c.speed, -c.total_usd, c.gpu.id),
        default=top,
    )
    for label, config in (("entry", entry), ("no compromise", roof)):
        if all(config.gpu.id != c.gpu.id for c in ladder.values()):
            ladder[label] = config
    return ladder


def _room(c: Configuration) -> float:
    """The memory the job sees: every card's where the model is split across them, one card's otherwise."""
    return c.gpu.memory_gb * c.count if c.fit.sharded else c.gpu.memory_gb


Beats = Callable[[Configuration, Configuration], bool]
BETTER: dict[str, Beats] = {  # what each labelled alternative must beat the top pick on
    "best value": lambda c, top: c.worth_per_usd > top.worth_per_usd,
    "fastest": lambda c, top: c.speed > top.speed,
    "roomiest": lambda c, top: _room(c) > _room(top),
}
Measure = Callable[[Configuration], tuple[float, ...]]


def still_better(alternatives: dict[str, Configuration], top: Configuration) -> dict[str, Configuration]:
    """The alternatives that still beat ``top`` on their own measure, each card once (a new top, such as the
    card asked for)."""
    kept: dict[str, Configuration] = {}
    for label, c in alternatives.items():
        if (
            c.gpu.id != top.gpu.id
            and all(c.gpu.id != k.gpu.id for k in kept.values())
            and (label not in BETTER or BETTER[label](c, top))
        ):
            kept[label] = c
    return kept


def labelled_alternatives(
    top: Configuration, within: list[Configuration], taken: set[str]
) -> dict[str, Configuration]:
    """Best value, fastest and roomiest: each a different card, each better than the top on its own measure.
    Value is worth per dollar, the measure the choice steps up from (for memory-bound work, a card that holds
    more of the job is worth more); a shown card that beats every other on it is the best value already, and
    none is added."""
    measures: dict[str, Measure] = {
        "best value": lambda c: (c.worth_per_usd, -c.total_usd),
        "fastest": lambda c: (c.speed, -c.total_usd),
        "roomiest": lambda c: (_room(c), c.speed, -c.total_usd),
    }
    found: dict[str, Configuration] = {}
    value_shown = (
        bool(within) and max(within, key=lambda c: (*measures["best value"](c), c.gpu.id)).gpu.id in taken
    )
    for label, rank in measures.items():
        if label == "best value" and value_shown:
            continue
        rest = [c for c in within if c.gpu.id not in taken and BETTER[label](c, top)]
        if rest:
            found[label] = max(rest, key=lambda c: (*rank(c), c.gpu.id))
            taken.add(found[label].gpu.id)
    return found
