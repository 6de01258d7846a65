"""How used cards enter a choice (rule ``used-cards``): which configurations one choice weighs, when used
cards join because new ones with enough memory cost much more (the used option shown beside a new pick is
the ranking's, :func:`rules.ranking.better_used`).

The market decides here, not the ranking: :mod:`rules.ranking` weighs the pool this module builds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.configurations import Configuration
from rules.knowledge.messages import Phrase
from rules.objective import Allowed, Note, Objective, every

__all__ = ["Pool", "pool_for"]


def _worth_buying_used(configs: Sequence[Configuration], saving: float) -> Allowed:
    """A used configuration saves at least ``saving`` of the same cards new: wear and no warranty are not
    worth less (a used RTX 4090 at $1,490 beside new ones at $1,599 in mid-2023)."""
    new_usd: dict[tuple[str, int], float] = {}
    for c in configs:
        if c.offer.condition == "new":
            key = (c.gpu.id, c.count)
            new_usd[key] = min(new_usd.get(key, c.total_usd), c.total_usd)
    return lambda used: used.total_usd <= new_usd.get((used.gpu.id, used.count), float("inf")) * (1 - saving)


@dataclass(frozen=True)
class Pool:
    """The configurations one choice weighs: those allowed, which may lead, new (or used where they count)."""

    usable: list[Configuration]
    heads: set[int]  # ids of the configurations that may lead, asked once per configuration
    new_or_used: list[Configuration]
    floor_note: Note | None


def pool_for(configs: Sequence[Configuration], objective: Objective, allowed: Allowed) -> Pool:
    """The pool of one choice: new cards, and used ones where the objective or the market lets them in."""
    usable = [c for c in configs if allowed(c)]
    heads = {id(c) for c in usable if objective.headline(c)}
    new_or_used = list(usable) if objective.used_ok else [c for c in usable if c.offer.condition == "new"]
    floor_note = None
    if (
        not objective.used_ok
        and objective.used_for_floor
        and (objective.floor is not None or objective.budget_usd is not None)
    ):  # the market, not the budget, decides
        joined, floor_note = _used_for_floor(usable, heads, objective)
        new_or_used += joined
    return Pool(usable, heads, new_or_used, floor_note)


def _used_for_floor(
    usable: list[Configuration], heads: set[int], objective: Objective
) -> tuple[list[Configuration], Note | None]:
    """Used cards join when new ones with enough memory cost much more: enough memory is the floor of the
    date, or, where the workload has none, the job held by one card or else by the cards a desk takes (two
    used RTX 3090s for a 70B model); without a budget the ladder stays new."""
    floor, pricing = objective.floor, objective.pricing
    tests: list[tuple[str, Allowed]] = (
        [("floor", lambda c: c.gpu.memory_gb >= floor.gb)]
        if floor is not None
        else [("one_card", lambda c: c.count == 1), ("any_count", every)]
    )
    for test_name, counts in tests:
        roomy = [c for c in usable if id(c) in heads and counts(c)]
        # judged on CUDA cards where one is sold new: a cheap new card outside CUDA (a $900 RX 7900 XTX) says
        # little about what a used RTX 3090 is worth to someone who will run CUDA code on it
        market = [c for c in roomy if c.gpu.software == "cuda"]
        market = market if any(c.offer.condition == "new" for c in market) else roomy
        new = min((c.total_usd for c in market if c.offer.condition == "new"), default=None)
        used = min((c.total_usd for c in market if c.offer.condition == "used"), default=None)
        if used is not None and (new is None or new > (objective.used_for_floor or 0) * used):
            worth_it = _worth_buying_used(usable, objective.used_saving)
            joined = [c for c in roomy if c.offer.condition == "used" and worth_it(c)]
            new_price = pricing.text(new) if new else Phrase("choice.no_current_price")
            reason = (
                Phrase(
                    "choice.used_for_floor",
                    {
                        "gb": f"{min(c.gpu.memory_gb for c in market):g}",
                        "used": pricing.text(used),
                        "new": new_price,
                    },
                )
                if floor is not None
                else Phrase(f"choice.used_for_{test_name}", {"used": pricing.text(used), "new": new_price})
            )
            return joined, Note("used-cards", "applied", reason)
    return [], None
