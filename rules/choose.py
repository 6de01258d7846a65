"""Stage 6 of an answer: the judgement — which configuration to recommend, and the alternatives.

The budget is what the person is ready to spend. Among the configurations that hold
the job, clear the workload's memory floor and fit the budget, the pick maximises

    worth − λ × price,   λ = threshold × (worth per dollar of the market's best value)

where worth is the speed, scaled for memory-bound jobs by how much of the job's class the
configuration's memory holds (rule ``memory-value``; the speed itself for every other job),
so a pricier option wins only while each extra dollar buys at least ``threshold``
times the worth a dollar buys on the best-value option (rule ``cost-efficiency``:
diminishing returns, the seed's TL;DR taking the RTX 2070 over the more
cost-efficient RTX 2060). A budget far beyond the best value lowers λ to
``threshold × most worth affordable / budget``: whoever sets aside that much
values speed more. λ never rises with the budget, so a larger budget never gives a pick of less
worth: never slower, unless roomier for a memory-bound job. CUDA leads when it is close (rule
``vendor-nvidia``), and a card the question names is answered first (:func:`asked_first`).

This module is the stage's entry: it weighs CUDA and the asked card, keeps the alternatives that still
beat a top they changed, and labels the picks the answer shows; the ranking itself, with the ladder and the
labelled alternatives, is in :mod:`rules.ranking`, over the terms in :mod:`rules.objective`, with the
notes in :mod:`rules.choice_notes` and the used-card policy in :mod:`rules.used_cards`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from rules.configurations import Configuration
from rules.contract.answer import NamedCard
from rules.knowledge.messages import Phrase
from rules.objective import Allowed, Choice, Note, Objective
from rules.ranking import BETTER, choose, labelled_alternatives

if TYPE_CHECKING:
    from rules.knowledge.parameters import VendorNvidia
    from rules.knowledge.records import Gpu
    from rules.stages import Stages

__all__ = ["asked_first", "choice_for", "chosen", "ranked", "shown", "side_by_side", "still_better"]


def chosen(
    stages: Stages,
    configs: Sequence[Configuration],
    objective: Objective,
    vendor: VendorNvidia,
    intent: str,
    named: Sequence[NamedCard],
) -> Choice:
    """The stage: the choice among the configurations the rules keep (``configs``), CUDA's place in it, a
    shared server for training weighed side by side with one card, the card asked for first."""
    question, job = stages.question, stages.job
    any_stack = job.is_llm and job.method == "inference"
    choice = choice_for(configs, objective, vendor, any_stack)
    if question.setting == "server" and question.shared and question.task == "training":
        choose_among = partial(choice_for, objective=objective, vendor=vendor, any_stack=any_stack)
        choice = side_by_side(choice, configs, choose_among, objective.headline)
    return asked_first(choice, configs, objective, intent, named, stages.terms.boards_for)


def choice_for(
    configs: Sequence[Configuration], objective: Objective, vendor: VendorNvidia, any_stack: bool = False
) -> Choice:
    """The choice under the rules' terms, then CUDA's place in it (rule ``vendor-nvidia``): the safe stack
    leads when it is close in speed and, asked for the cheapest of a job every stack runs alike
    (``any_stack``: LLM inference, llama.cpp's backends), in price too; a CUDA pick's alternatives come from
    CUDA too, the best card outside it under its own label."""
    safe_stack = vendor.safe_stack
    choice = choose(configs, objective)
    top = choice.top
    if top is None:
        return choice

    def is_safe(c: Configuration) -> bool:
        return bool(c.gpu.software == safe_stack)

    if is_safe(top):
        if choice.best_value is not None and not is_safe(choice.best_value):
            # the seed weighs a step up against the best value of the stack it recommends (RTX 2070 over
            # RTX 2060): a cheap card outside CUDA would set the price of speed for a CUDA pick, and name a
            # card the answer hides
            cuda = choose(configs, objective, is_safe)
            if cuda.top is not None:
                return _with_outside(cuda, _outside(choice, is_safe))
        return _safe_alternatives(choice, is_safe)
    cuda = choose(configs, objective, is_safe)
    floor = objective.floor
    if (
        cuda.top is None
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


def side_by_side(
    choice: Choice,
    configs: Sequence[Configuration],
    choose_among: Callable[[Sequence[Configuration]], Choice],
    may_lead: Allowed,
) -> Choice:
    """A shared training server runs its people's experiments side by side (rule ``separate-experiments``):
    where the choice is one card and several cards within the budget that may lead the answer, each holding
    the job alone, run at least as much work at once (their cards' speeds summed), the best of those leads,
    and the answer says so."""
    top = choice.top
    if top is None or top.count > 1:
        return choice
    several = choose_among([c for c in configs if c.count > 1 and not c.fit.sharded and may_lead(c)])
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


def _safe_alternatives(choice: Choice, is_safe: Allowed) -> Choice:
    """A CUDA pick's best value, fastest and roomiest come from CUDA too; the best card outside it is shown
    under its own label, 'outside CUDA', so that 'best value' never quietly means a ROCm card."""
    outside = _outside(choice, is_safe)
    if outside is None:
        return choice
    alternatives = alternatives_among(choice, is_safe)
    if "used" in choice.alternatives:
        alternatives["used"] = choice.alternatives["used"]
    return _with_outside(replace(choice, alternatives=alternatives), outside)


def asked_first(
    choice: Choice,
    configs: Sequence[Configuration],
    objective: Objective,
    intent: str,
    named: Sequence[NamedCard],
    boards_for: Callable[[Gpu], tuple[int, ...] | None],
) -> Choice:
    """A card the question names ("a server with 8 H100", "will llama 70b fit on a 3090 or a 4090") is the
    configuration answered first, as many of it as hold the job (a module: as many as the fewest whole
    boards that do), when it can be placed and fits the budget; the engine's own choice follows as the
    runner-up."""
    ids = {e.gpu for e in named if e.gpu and e.owned is not True}
    if (
        intent not in ("recommend", "fit", "rent-or-buy")
        or not ids
        or choice.top is None
        or choice.top.gpu.id in ids
    ):
        return choice
    theirs = Objective(objective.budget_usd, None, objective.threshold, True, objective.pricing)
    fewest: dict[str, int] = {}  # as many as hold the job: a count the question did not ask is not bought
    for c in configs:
        boards = boards_for(c.gpu)
        if c.gpu.id in ids and (not boards or c.count in boards):
            fewest[c.gpu.id] = min(fewest.get(c.gpu.id, c.count), c.count)
    mine = choose(configs, theirs, lambda c: fewest.get(c.gpu.id) == c.count)
    if mine.top is None:
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
