"""How the choice ranks the configurations.

Among the configurations that hold the job, clear the memory floor and fit the budget, :func:`choose` picks
the one that maximises worth − λ × price (the objective :mod:`rules.choose` describes; an estimated price
never leads alone, and a roomier or faster configuration for about the same money takes the top), with the
configurations ranked behind it, the ladder without a budget (entry, sweet spot, no compromise), the
labelled alternatives (best value, fastest, roomiest, each better than the top on its own measure), a used
option beside a new top, and what the notes that say why will say (:class:`~rules.objective.Why`); when
nothing fits the budget, what would, and a used option when there is one. :func:`rankings_for` makes the
rankings CUDA's place is decided on (:mod:`rules.leading`). Every ranking a question needs runs here, in one
module, asked for by the stage before it decides who leads, so that a question enters it once.

Which configurations one ranking weighs is its pool (:func:`pool_for`, rule ``used-cards``): new cards, and
used ones where the objective lets them in or the market does, when new ones with enough memory cost much
more; the market decides that, not the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Any

from rules.configurations import Configuration
from rules.knowledge.messages import Phrase, Text
from rules.objective import BUDGET_SLACK, Allowed, Choice, Note, Objective, Why, every

__all__ = ["BETTER", "Rankings", "choose", "rankings_for"]


@dataclass(frozen=True)
class Rankings:
    """The rankings CUDA's place is decided on (rule ``vendor-nvidia``): every configuration's, the safe
    stack's alone, and the safe stack's best value, fastest and roomiest beside the first one's picks."""

    every: Choice
    cuda: Choice | None  # None where the first ranking's top and best value are both in the safe stack
    cuda_alternatives: dict[str, Configuration]  # empty where the first ranking's top is outside it
    is_safe: Allowed


def rankings_for(
    configs: Sequence[Configuration], objective: Objective, safe_stack: str, allowed: Allowed = every
) -> Rankings:
    """The choice among the configurations ``allowed`` and, where CUDA's place can turn on it, the choice
    within the safe stack, made before either leads: only a top or a best value outside the stack asks for
    the stack's own ranking, only a top inside it for the stack's own alternatives."""

    def is_safe(c: Configuration) -> bool:
        return allowed(c) and c.gpu.software == safe_stack

    choice = choose(configs, objective, allowed)
    top, best = choice.top, choice.best_value
    outside = top is not None and (not is_safe(top) or (best is not None and not is_safe(best)))
    cuda = choose(configs, objective, is_safe) if outside else None
    alternatives = alternatives_among(choice, is_safe) if top is not None and is_safe(top) else {}
    return Rankings(choice, cuda, alternatives, is_safe)


def alternatives_among(choice: Choice, keep: Callable[[Configuration], bool]) -> dict[str, Configuration]:
    """Best value, fastest and roomiest among the configurations ``keep`` passes, with the choice's top and
    picks as they are."""
    if choice.top is None:
        return {}
    taken = {c.gpu.id for c in (choice.top, *choice.ladder.values(), *choice.runners_up)}
    return labelled_alternatives(choice.top, [c for c in choice.within if keep(c)], taken)


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


def choose(configs: Sequence[Configuration], objective: Objective, allowed: Allowed = every) -> Choice:
    """Rank ``configs`` for the question; ``allowed`` carries the persona and upgrade constraints."""
    pool = pool_for(configs, objective, allowed)
    floor, limit = objective.floor, objective.limit
    floored = (
        pool.new_or_used if floor is None else [c for c in pool.new_or_used if c.gpu.memory_gb >= floor.gb]
    )
    if (
        not pool.new_or_used and pool.usable
    ):  # no new configuration is on sale at any price: the used market is it
        return noted(choose(configs, objective.with_used(), allowed), Phrase("choice.used_only"))
    weighed = floored
    if (
        floor is not None
        and not any(c.total_usd <= limit for c in floored)
        and any(c.total_usd <= limit for c in pool.new_or_used)
    ):
        # nothing above the floor fits the budget: the best below it that holds the job's own need, else the
        # best below it, and the answer says so
        holding = [c for c in pool.new_or_used if c.gpu.memory_gb >= floor.need_gb]
        weighed = holding if any(c.total_usd <= limit for c in holding) else pool.new_or_used
    if not any(c.total_usd <= limit for c in weighed):
        short = _nothing_within(configs, objective, allowed, pool, floored)
        return short
    return _ranked_choice(objective, pool, weighed, floored)


def _nothing_within(
    configs: Sequence[Configuration],
    objective: Objective,
    allowed: Allowed,
    pool: Pool,
    floored: list[Configuration],
) -> Choice:
    """Nothing fits the budget: what would, and a used option when there is one."""
    floor, limit = objective.floor, objective.limit
    least = sorted(floored or pool.new_or_used, key=lambda c: (c.total_usd, c.gpu.id))[:1]
    used_ones = [
        c
        for c in pool.usable
        if c.offer.condition == "used"
        and c.total_usd <= limit
        and (floor is None or c.gpu.memory_gb >= floor.gb)
    ]
    used_ones = [c for c in used_ones if id(c) in pool.heads] or used_ones
    if (
        used_ones
        and not objective.used_ok
        and objective.used_when_short
        and not any(c.total_usd <= limit for c in pool.new_or_used)
    ):  # no new card holds the job within the budget
        return noted(
            choose(configs, objective.with_used(), allowed),
            Phrase("choice.used_within_budget"),
        )
    lam = objective.threshold * max((c.worth_per_usd for c in used_ones), default=0.0)
    used = (
        {"used": min(used_ones, key=lambda c: rank_key(c, lam))}
        if used_ones and not objective.used_ok
        else {}
    )
    return Choice(None, alternatives=used, over_budget=tuple(least))


def _ranked_choice(
    objective: Objective, pool: Pool, weighed: list[Configuration], floored: list[Configuration]
) -> Choice:
    """The pick within the budget, the configurations ranked behind it and why it sits where it does."""
    limit, cheapest = objective.limit, objective.cheapest
    leading = [c for c in weighed if id(c) in pool.heads] or weighed
    best_value = max(leading, key=lambda c: (c.worth_per_usd, -c.total_usd, c.gpu.id))
    lam = objective.threshold * best_value.worth_per_usd
    if objective.budget_usd:
        lam = min(lam, objective.threshold * _budget_value(leading, objective.budget_usd))
    keyed = sorted(((rank_key(c, lam), c) for c in weighed if c.total_usd <= limit), key=itemgetter(0))
    ranked_all = [c for _, c in keyed]
    within = [c for c in ranked_all if id(c) in pool.heads] or ranked_all
    by_price = sorted(within, key=lambda c: (c.total_usd, -c.speed, c.gpu.id))
    top = _sourced(by_price[0], by_price, False) if cheapest else _sourced(within[0], within, True)
    lean, top = top, top if cheapest else _roomier(top, within, objective.roomier_premium)
    slower, top = top, top if cheapest else _faster_for_the_same(top, within, objective.same_price)
    top_key = rank_key(lean, lam)
    under = _under_floor(pool, objective, lam, top_key) if weighed is floored else None
    ladder = ladder_for(top, within, ranked_all) if objective.budget_usd is None and not cheapest else {}
    taken = {c.gpu.id for c in ladder.values()} | {top.gpu.id}
    alternatives = labelled_alternatives(top, within, taken)
    used = better_used(objective, pool, top, taken, lam)
    if used is not None:
        alternatives["used"] = used
        taken.add(used.gpu.id)
    runners = _runners_up(within, [top, *ladder.values(), *alternatives.values()], objective)
    # ranked above the top, yet not headline: ranked_all is in key order, so only its first can be
    demoted = ranked_all[0] if not cheapest and keyed[0][0] < top_key else None
    why = Why(top, lean, slower, best_value, tuple(within), lam, objective, demoted, pool.floor_note)
    return Choice(
        top,
        runners,
        alternatives,
        ladder,
        lam,
        best_value,
        under,
        within=tuple(within),
        why=why,
    )


def _under_floor(
    pool: Pool, objective: Objective, lam: float, top_key: tuple[Any, ...]
) -> Configuration | None:
    """The best card the floor kept from the top: ranked above it, with less memory than the floor asks."""
    floor, limit = objective.floor, objective.limit
    if floor is None:
        return None
    below = [
        (k, c)
        for c in pool.new_or_used
        if c.total_usd <= limit and c.gpu.memory_gb < floor.gb and (k := rank_key(c, lam)) < top_key
    ]
    return min(below, key=itemgetter(0))[1] if below else None


def _runners_up(
    within: list[Configuration], shown: list[Configuration], objective: Objective
) -> tuple[Configuration, ...]:
    """The next two behind the top, each a card not shown already, and none that a configuration shown
    beside it leaves with nothing to offer (rule cost-efficiency: as new or as used, as roomy, as fast and as
    cheap within the rule's same-speed and same-price shares, and better on one)."""
    runners: list[Configuration] = []
    for c in within[1:]:
        if len(runners) == 2:
            break
        if any(s.gpu.id == c.gpu.id or _beats(s, c, objective) for s in shown):
            continue
        runners.append(c)
        shown.append(c)
    return tuple(runners)


def _beats(one: Configuration, other: Configuration, objective: Objective) -> bool:
    as_fast = one.speed >= other.speed * (1 - objective.same_speed)
    as_cheap = one.total_usd <= other.total_usd * (1 + objective.same_price)
    return (
        one.offer.condition == other.offer.condition
        and one.gpu.memory_gb * one.count >= other.gpu.memory_gb * other.count
        and as_fast
        and as_cheap
        and (one.speed > other.speed or one.total_usd < other.total_usd)
    )


def _budget_value(configs: list[Configuration], budget_usd: float) -> float:
    """Speed per dollar the budget stands for: the fastest it buys over the budget, at its lowest up to this
    budget.

    A budget far above the best value says speed is worth more to this person; taking the running
    minimum keeps λ from rising with the budget, so a larger budget never picks slower.
    """
    ratio, fastest = float("inf"), 0.0
    for config in sorted(configs, key=lambda c: c.total_usd):
        if config.total_usd > budget_usd * BUDGET_SLACK:
            break
        if fastest > 0:
            ratio = min(ratio, fastest / config.total_usd)
        fastest = max(fastest, config.worth)
    return min(ratio, fastest / budget_usd) if fastest > 0 else ratio


def rank_key(config: Configuration, lam: float) -> tuple[Any, ...]:
    """Worth less λ × price, best first; ties go to the cheaper, then to card and
    condition, so that equal scores always rank alike."""
    return (-(config.worth - lam * config.total_usd), config.total_usd, config.gpu.id, config.offer.condition)


def noted(choice: Choice, reason: Text) -> Choice:
    """The choice with why used cards lead it as its first note."""
    return replace(choice, notes=(Note("used-cards", "applied", reason), *choice.notes))


def better_used(
    objective: Objective, pool: Pool, top: Configuration, taken: set[str], lam: float
) -> Configuration | None:
    """The used option shown beside a new top: better value (or, where the top misses the floor, roomy
    enough)."""
    if objective.used_ok or top.offer.condition != "new":  # a used top is the used option already
        return None
    floor, limit = objective.floor, objective.limit
    floor_unmet = floor is not None and top.gpu.memory_gb < floor.gb
    better = [
        c
        for c in pool.usable
        if c.offer.condition == "used"
        and c.total_usd <= limit
        and c.gpu.id not in taken
        and id(c) in pool.heads
        and (floor is None or c.gpu.memory_gb >= floor.gb)
        and (floor_unmet or c.worth_per_usd > top.worth_per_usd)
    ]
    return min(better, key=lambda c: rank_key(c, lam)) if better else None


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


def _sourced(top: Configuration, within: list[Configuration], as_good: bool) -> Configuration:
    """An estimated price is never the only basis of a top pick: the first configuration in ``within`` with a
    sourced price leads instead, when there is one (``as_good``: only one at least as fast and as roomy, so
    that a larger budget never gives a slower pick)."""
    if not top.estimated:
        return top
    return next(
        (
            c
            for c in within
            if not c.estimated
            and (not as_good or (c.speed >= top.speed and c.gpu.memory_gb >= top.gpu.memory_gb))
        ),
        top,
    )


def _roomier(top: Configuration, within: list[Configuration], premium: float) -> Configuration:
    """The same number of cards as fast as the top, with more memory and at most ``premium`` dearer: memory
    is worth money, and where the speed is the same it is all the difference (rule ``memory-value``: the
    16 GB RTX 5060 Ti beside the 8 GB one)."""
    roomier = [
        c
        for c in _like_for_like(top, within, premium)
        if c.count == top.count and c.gpu.memory_gb > top.gpu.memory_gb and c.speed >= top.speed
    ]
    return max(roomier, key=lambda c: (c.gpu.memory_gb, -c.total_usd, c.gpu.id), default=top)


def _faster_for_the_same(top: Configuration, within: list[Configuration], share: float) -> Configuration:
    """A faster configuration that does the job as well by the choice's measure, with as much memory, for a
    price within ``share`` of the top's: the same price, so the speed is free (rule cost-efficiency)."""
    faster = [
        c
        for c in _like_for_like(top, within, share)
        if c.speed > top.speed
        and c.worth >= top.worth
        and c.gpu.memory_gb * c.count >= top.gpu.memory_gb * top.count
    ]
    return max(faster, key=lambda c: (c.speed, -c.total_usd, c.gpu.id), default=top)


def _like_for_like(top: Configuration, within: list[Configuration], share: float) -> list[Configuration]:
    """What may stand in for the top: the same condition (new or used alike), at most ``share`` dearer, and
    never an estimated price in place of a sourced one."""
    return [
        c
        for c in within
        if c.offer.condition == top.offer.condition
        and c.total_usd <= top.total_usd * (1 + share)
        and (top.estimated or not c.estimated)
    ]
