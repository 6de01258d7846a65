"""Which ranking leads the choice, decided on rankings already made: CUDA's place (rule ``vendor-nvidia``), a
shared training server's cards side by side (rule ``separate-experiments``), the card the question names
first.

Each step takes choices :mod:`rules.ranking` has made and returns one, ranking nothing itself, so that the
stage (:func:`rules.choose.chosen`) asks for every ranking first and decides who leads after.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rules.configurations import Configuration
from rules.knowledge.messages import Phrase
from rules.objective import Allowed, Choice, Note, Objective
from rules.ranking import BETTER, Rankings

if TYPE_CHECKING:
    from rules.knowledge.parameters import VendorNvidia

__all__ = ["asked_first", "cuda_placed", "side_by_side", "still_better"]


def cuda_placed(
    ranked: Rankings, objective: Objective, vendor: VendorNvidia, any_stack: bool = False
) -> Choice:
    """The choice under the rules' terms, then CUDA's place in it (rule ``vendor-nvidia``): the safe stack
    leads when it is close in speed and, asked for the cheapest of a job every stack runs alike
    (``any_stack``: LLM inference, llama.cpp's backends), in price too; a CUDA pick's alternatives come from
    CUDA too, the best card outside it under its own label."""
    choice, cuda, is_safe = ranked.every, ranked.cuda, ranked.is_safe
    top = choice.top
    if top is None:
        return choice
    if is_safe(top):
        if cuda is not None and cuda.top is not None:  # the best value is outside the stack
            # the seed weighs a step up against the best value of the stack it recommends (RTX 2070 over
            # RTX 2060): a cheap card outside CUDA would set the price of speed for a CUDA pick, and name a
            # card the answer hides
            return _with_outside(cuda, _outside(choice, is_safe))
        return _safe_alternatives(choice, is_safe, ranked.cuda_alternatives)
    floor = objective.floor
    if (
        cuda is None
        or cuda.top is None
        or cuda.top.speed < vendor.cuda_leads_within * top.speed
        or (
            any_stack
            and objective.cheapest
            and cuda.top.total_usd > (1 + vendor.cheapest_premium) * top.total_usd
        )
        or (floor and cuda.top.gpu.memory_gb < floor.gb <= top.gpu.memory_gb)
        or cuda.top.memory_value < top.memory_value
    ):  # for memory-bound work, close in speed but holding less is not close
        return choice
    note = Note(
        "vendor-nvidia",
        "applied",
        Phrase(
            "rule.vendor_nvidia.leads",
            {
                "cuda": cuda.top.gpu.name,
                "count": top.count,
                "name": top.gpu.name,
                "software": top.gpu.software,
                "share": f"{cuda.top.speed / top.speed:.0%}",
            },
        ),
    )
    return replace(_with_outside(cuda, top), notes=(note, *cuda.notes))


def _outside(choice: Choice, is_safe: Allowed) -> Configuration | None:
    """Where a card outside CUDA beats the pick on value, speed or room: the one the choice ranks first
    outside it."""
    if all(label == "used" or is_safe(c) for label, c in choice.alternatives.items()):
        return None
    return next((c for c in choice.within if not is_safe(c)), None)


def _with_outside(cuda: Choice, outside: Configuration | None) -> Choice:
    """A choice made within CUDA, with the best card outside it under its own label."""
    if cuda.top is None:
        return cuda
    alternatives = dict(cuda.alternatives)
    if outside is not None:
        alternatives.setdefault("outside CUDA", outside)
    return replace(cuda, alternatives=still_better(alternatives, cuda.top))


def _safe_alternatives(
    choice: Choice, is_safe: Allowed, cuda_alternatives: dict[str, Configuration]
) -> Choice:
    """A CUDA pick's best value, fastest and roomiest come from CUDA too (``cuda_alternatives``); the best
    card outside it is shown under its own label, 'outside CUDA', so that 'best value' never quietly means a
    ROCm card."""
    outside = _outside(choice, is_safe)
    if outside is None:
        return choice
    alternatives = dict(cuda_alternatives)
    if "used" in choice.alternatives:
        alternatives["used"] = choice.alternatives["used"]
    return _with_outside(replace(choice, alternatives=alternatives), outside)


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


def side_by_side(choice: Choice, several: Choice | None) -> Choice:
    """A shared training server runs its people's experiments side by side (rule ``separate-experiments``):
    where the choice is one card and the choice among several cards within the budget that may lead the
    answer (``several``), each holding the job alone, runs at least as much work at once (their cards' speeds
    summed), that one leads, and the answer says so."""
    top = choice.top
    if top is None or top.count > 1 or several is None:
        return choice
    if several.top is None or several.top.count * several.top.relative < top.relative:
        return choice
    note = Note(
        "separate-experiments",
        "applied",
        Phrase(
            "rule.separate_experiments.leads",
            {"count": several.top.count, "name": several.top.gpu.name, "single": top.gpu.name},
        ),
    )
    return replace(several, notes=(note, *several.notes))


def asked_first(choice: Choice, mine: Choice | None, ids: set[str]) -> Choice:
    """A card the question names (``ids``; "a server with 8 H100", "will llama 70b fit on a 3090 or a 4090")
    is the configuration answered first (``mine``: the choice among the named cards at the counts that hold
    the job) when it can be placed and fits the budget; the engine's own choice follows as the runner-up."""
    if mine is None or mine.top is None or choice.top is None or choice.top.gpu.id in ids:
        return choice
    others = [choice.top, *choice.ladder.values(), *choice.runners_up]
    runners = tuple({c.gpu.id: c for c in others if c.gpu.id not in ids}.values())[:2]
    alternatives = still_better(
        {k: c for k, c in choice.alternatives.items() if c.gpu.id not in ids}, mine.top
    )
    note = Note(
        "cost-efficiency",
        "applied",
        Phrase(
            "choice.as_asked",
            {
                "count": mine.top.count,
                "name": mine.top.gpu.name,
                "own_count": choice.top.count,
                "own_name": choice.top.gpu.name,
            },
        ),
    )
    return replace(
        choice,
        top=mine.top,
        runners_up=runners,
        ladder={},
        alternatives=alternatives,
        asked=True,
        under_floor=None,
        notes=(note, *choice.notes),
    )
