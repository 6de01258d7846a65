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
``vendor-nvidia``), and a card the question names is answered first.

:func:`chosen` is the stage: every ranking it needs first (:mod:`rules.ranking`, over the terms in
:mod:`rules.objective`), then who leads (:mod:`rules.leading`): CUDA's place, a shared training server's
cards side by side, the card asked for first. The picks the answer shows, in order, are
:mod:`rules.shown`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from rules.choice_notes import worded
from rules.configurations import Configuration, Sizing
from rules.contract.answer import NamedCard
from rules.leading import asked_first, cuda_placed, side_by_side
from rules.objective import BUDGET_SLACK, Choice, Objective
from rules.ranking import choose, rankings_for

if TYPE_CHECKING:
    from rules.contract.question import Question
    from rules.knowledge.parameters import VendorNvidia
    from rules.knowledge.records import Gpu
    from rules.market import Offer
    from rules.stages import Stages

__all__ = ["HELD_AT_COUNT", "HOLDING", "bought_first", "chosen", "named_configurations"]

# the intents a card the question names is answered first for
_ASKING = ("recommend", "fit", "rent-or-buy")
# A compared card's status where it holds the job: fitted to the model named, or holding the typical need of
# the work where no model is named (a card that does not is "does-not-fit")
HOLDING = frozenset({"fits", "compared"})
HELD_AT_COUNT = "as many as hold it"  # a named card shown at a count other than the one asked


def chosen(
    stages: Stages,
    configs: Sequence[Configuration],
    objective: Objective,
    vendor: VendorNvidia,
    intent: str,
    named: Sequence[NamedCard],
) -> Choice:
    """The stage: the choice among the configurations the rules keep (``configs``), CUDA's place in it, a
    shared server for training weighed side by side with one card, the card asked for first: every ranking
    they need made first (:mod:`rules.ranking`), who leads decided on them after (:mod:`rules.leading`)."""
    question, job = stages.question, stages.job
    any_stack = job.is_llm and job.method == "inference"
    shared = question.setting == "server" and question.shared and question.task == "training"
    ids = {e.gpu for e in named if e.gpu and e.owned is not True} if intent in _ASKING else set()
    fewest = _fewest_named(configs, ids, stages.terms.boards_for)

    def apart(c: Configuration) -> bool:
        """Several of one card, each holding the job alone, that may lead the answer."""
        return c.count > 1 and not c.fit.sharded and objective.headline(c)

    ranked = rankings_for(configs, objective, vendor.safe_stack)
    several = rankings_for(configs, objective, vendor.safe_stack, apart) if shared else None
    theirs = Objective(objective.budget_usd, None, objective.threshold, True, objective.pricing)
    mine = choose(configs, theirs, lambda c: fewest.get(c.gpu.id) == c.count) if fewest else None
    choice = cuda_placed(ranked, objective, vendor, any_stack)
    if several is not None:
        choice = side_by_side(choice, cuda_placed(several, objective, vendor, any_stack))
    choice = asked_first(choice, mine, ids)
    return worded(choice)  # the ranking's notes, said once the choice is made


def _fewest_named(
    configs: Sequence[Configuration], ids: set[str], boards_for: Callable[[Gpu], tuple[int, ...] | None]
) -> dict[str, int]:
    """Each card the question names at as many as hold the job (a module: as many as the fewest whole
    boards that do): a count the question did not ask is not bought."""
    fewest: dict[str, int] = {}
    if not ids:
        return fewest
    for c in configs:
        boards = boards_for(c.gpu)
        if c.gpu.id in ids and (not boards or c.count in boards):
            fewest[c.gpu.id] = min(fewest.get(c.gpu.id, c.count), c.count)
    return fewest


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


def bought_first(
    stages: Stages, side: Sequence[tuple[Configuration, str]], named: Sequence[NamedCard]
) -> tuple[tuple[tuple[Configuration, str], ...], bool]:
    """The named cards compared, each labelled with its status at the count asked (else as held at another),
    best speed for the money first, then the one to buy first leading (rule cost-efficiency): the best value,
    unless the fastest's extra speed per extra 1000 USD is at least the threshold × the best value's; within
    the budget where one is; for someone starting out, among the NVIDIA cards where one holds the job (rule
    vendor-nvidia). True where that rule set another maker's better value aside."""
    question, asker, per_usd = stages.question, stages.asker, stages.pricing.per_usd
    asked = {e.gpu: question.count_of(e.asked) or max(question.gpus, 1) for e in named if e.gpu}
    order = sorted(
        ((c, status if c.count == asked.get(c.gpu.id) else HELD_AT_COUNT) for c, status in side),
        key=lambda p: (-(p[0].speed / (p[0].total_usd * per_usd) * 1000), p[0].gpu.id),
    )
    holding = [p for p in order if p[1] in HOLDING]
    budget = asker.budget_usd
    fitting = [p for p in holding if budget is None or p[0].total_usd <= budget * BUDGET_SLACK] or holding
    cuda_first = False
    if asker.cuda_only and any(c.gpu.vendor == "nvidia" for c, _ in fitting):
        cuda_first = fitting[0][0].gpu.vendor != "nvidia"
        fitting = [p for p in fitting if p[0].gpu.vendor == "nvidia"]
        order = [*fitting, *(p for p in order if p not in fitting)]
    if len(fitting) < 2:  # one holds the job within the budget (and the stack): it leads
        return (*fitting, *(p for p in order if p not in fitting)), cuda_first
    # the job's own speed (tokens a second) where every card has one, else the multiple of the reference card
    timed = all(c.tokens_per_second for c, _ in fitting)

    def speed(c: Configuration) -> float:
        return c.tokens_per_second or 0.0 if timed else c.speed

    def per_1000(c: Configuration) -> float:
        return speed(c) / max(c.total_usd, 1e-9) * 1000

    value = max(fitting, key=lambda p: (per_1000(p[0]), p[0].gpu.id))
    fastest = max(fitting, key=lambda p: (speed(p[0]), p[0].gpu.id))
    extra_usd = fastest[0].total_usd - value[0].total_usd
    gain_per_1000 = (speed(fastest[0]) - speed(value[0])) / extra_usd * 1000 if extra_usd > 0 else 0.0
    first = fastest if gain_per_1000 >= stages.terms.threshold * per_1000(value[0]) > 0 else value
    return (first, *(p for p in order if p is not first)), cuda_first
