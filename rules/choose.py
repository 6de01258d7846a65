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

:func:`chosen` is the stage: the ranking with CUDA's place in it (:mod:`rules.ranking`, over the terms in
:mod:`rules.objective`), a shared training server's cards side by side, then the card asked for first. The
picks the answer shows, in order, are :mod:`rules.shown`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from rules.choice_notes import worded
from rules.configurations import Configuration, Sizing
from rules.contract.answer import NamedCard
from rules.knowledge.messages import Phrase
from rules.objective import Allowed, Choice, Note, Objective
from rules.ranking import choice_for, choose, still_better

if TYPE_CHECKING:
    from rules.contract.question import Question
    from rules.knowledge.parameters import VendorNvidia
    from rules.knowledge.records import Gpu
    from rules.market import Offer
    from rules.stages import Stages

__all__ = ["asked_first", "chosen", "named_configurations", "side_by_side"]


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
    choice = asked_first(choice, configs, objective, intent, named, stages.terms.boards_for)
    return worded(choice)  # the ranking's notes, said once the choice is made


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


def named_configurations(
    question: Question, offers: Iterable[Offer], named: Iterable[NamedCard], sizing: Sizing
) -> tuple[tuple[Configuration, str], ...]:
    """The named cards asked to be compared, each with its status, at the count that holds the job: the
    count asked ("2x 3090 vs a 5090": each card at its own) where it holds, else the fewest that do; a new
    price first, a used one where no new price is known."""
    priced: dict[str, Offer] = {}
    for o in offers:
        if o.gpu.id not in priced or o.condition == "new":
            priced[o.gpu.id] = o
    configs: list[tuple[Configuration, str]] = []
    for entry in named:
        offer = priced.get(entry.gpu) if entry.gpu else None
        if offer is None or entry.status == "not-released" or any(c.gpu.id == entry.gpu for c, _ in configs):
            continue
        asked = question.count_of(entry.asked)
        if asked is None or not sizing.fit(offer.gpu.memory_gb, asked).fits:
            asked = None  # a count that does not hold the job is said so; shown at one that does
        count = asked or entry.cards_needed or max(question.gpus, 1)
        fit = sizing.fit(offer.gpu.memory_gb, count)
        relative = sizing.relative(offer.gpu)
        speed = relative * (1.0 if fit.serial else sizing.speedup(count))
        tokens = sizing.tokens_per_second(offer.gpu, count)
        configs.append(
            (Configuration(offer, count, offer.unit_usd * count, relative, speed, fit, tokens), entry.status)
        )
    return tuple(configs)
