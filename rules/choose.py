"""Stage 5 of an answer: the judgement — which configuration to recommend, and the alternatives.

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
worth: never slower, unless roomier for a memory-bound job.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import TYPE_CHECKING, Callable, Sequence

from rules.answer import Finding
from rules.configurations import Configuration
from rules.messages import say

if TYPE_CHECKING:
    from rules.money import Pricing

__all__ = ["Floor", "Choice", "choose", "still_better", "alternatives_among"]

BUDGET_SLACK = 1.0001


@dataclass(frozen=True)
class Floor:
    """Memory a card should have for the workload on the date (rule ``memory-floor``)."""

    gb: float
    reason: str


@dataclass(frozen=True)
class Choice:
    top: Configuration | None
    runners_up: tuple[Configuration, ...] = ()
    alternatives: dict[str, Configuration] = field(default_factory=dict)
    ladder: dict[str, Configuration] = field(default_factory=dict)  # entry / sweet spot / no compromise, without a budget
    price_of_speed: float = 0.0  # λ: dollars of the pick's price worth one unit of speed, inverted
    best_value: Configuration | None = None
    under_floor: Configuration | None = None  # the best card the floor kept from the top
    over_budget: tuple[Configuration, ...] = ()  # the cheapest that would work, for "raise the budget"
    notes: tuple[Finding, ...] = ()  # why the choice is what it is, each under its rule
    asked: bool = False  # the top is the card the question named ("a server with 8 H100")
    within: tuple[Configuration, ...] = ()  # what could lead, within the budget, best first (for alternatives_among)


def _key(config: Configuration, lam: float):
    return (-(config.worth - lam * config.total_usd), config.total_usd, config.gpu.id, config.offer.condition)


def _worth_buying_used(configs: Sequence[Configuration], saving: float) -> Callable[[Configuration], bool]:
    """A used configuration saves at least ``saving`` of the same cards new: wear and no warranty are not worth less
    (a used RTX 4090 at $1,490 beside new ones at $1,599 in mid-2023)."""
    new_usd: dict[tuple[str, int], float] = {}
    for c in configs:
        if c.offer.condition == "new":
            key = (c.gpu.id, c.count)
            new_usd[key] = min(new_usd.get(key, c.total_usd), c.total_usd)
    return lambda used: used.total_usd <= new_usd.get((used.gpu.id, used.count), float("inf")) * (1 - saving)


def _estimated(config: Configuration) -> bool:
    """Priced only by an estimate, which never leads an answer by itself (:func:`_sourced`)."""
    return bool(getattr(config.offer.point, "estimate", False))


def _worth_per_usd(config: Configuration) -> float:
    return config.worth / config.total_usd


def choose(configs: Sequence[Configuration], budget_usd: float | None, floor: Floor | None, threshold: float,
           used_ok: bool, allowed: Callable[[Configuration], bool] = lambda c: True,
           headline: Callable[[Configuration], bool] = lambda c: True, used_for_floor: float | None = None,
           cheapest: bool = False, language: str | None = None, used_when_short: bool = True, used_saving: float = 0.0, *,
           pricing: Pricing) -> Choice:
    """Rank ``configs`` for the question.

    ``allowed`` carries the persona and upgrade constraints; ``headline`` says what may lead
    the answer (the top pick, the ladder, the labelled alternatives) while something else can;
    ``cheapest``: the asker wants the least that does the job, not the best within the budget;
    ``used_when_short``: used cards are picked when no new one holds the job within the budget (one card for a
    desk; several cards stay new and show the used option beside the answer, rule ``used-cards``);
    ``used_saving``: where the market lets used cards in unasked, a used card joins only when it saves at least this
    share of the same cards new; ``pricing``: the answer's, for the money its notes name, in the asker's currency.
    """
    usable = [c for c in configs if allowed(c)]
    heads = {id(c) for c in usable if headline(c)}  # what may lead, asked once per configuration
    new_or_used = list(usable) if used_ok else [c for c in usable if c.offer.condition == "new"]
    floor_note = None
    if not used_ok and used_for_floor and (floor is not None or budget_usd is not None):  # the market, not the budget, decides
        # Enough memory: the floor of the date, or, where the workload has none, the job held by one card or else by
        # the cards a desk takes (two used RTX 3090s for a 70B model); without a budget the ladder stays new.
        tests = [("floor", lambda c: c.gpu.memory_gb >= floor.gb)] if floor is not None else \
            [("one_card", lambda c: c.count == 1), ("any_count", lambda c: True)]
        for test_name, counts in tests:
            roomy = [c for c in usable if id(c) in heads and counts(c)]
            # judged on CUDA cards where one is sold new: a cheap new card outside CUDA (a $900 RX 7900 XTX) says
            # little about what a used RTX 3090 is worth to someone who will run CUDA code on it
            market = [c for c in roomy if c.gpu.software == "cuda"]
            market = market if any(c.offer.condition == "new" for c in market) else roomy
            new = min((c.total_usd for c in market if c.offer.condition == "new"), default=None)
            used = min((c.total_usd for c in market if c.offer.condition == "used"), default=None)
            if used is not None and (new is None or new > used_for_floor * used):
                worth_it = _worth_buying_used(usable, used_saving)
                new_or_used += [c for c in roomy if c.offer.condition == "used" and worth_it(c)]
                new_price = pricing.text(new) if new else say("choice.no_current_price", language)
                floor_note = Finding("used-cards", "applied",
                                     say("choice.used_for_floor", language, gb=f"{min(c.gpu.memory_gb for c in market):g}", used=pricing.text(used), new=new_price)
                                     if floor is not None else say(f"choice.used_for_{test_name}", language, used=pricing.text(used), new=new_price))
                break
    floored = new_or_used if floor is None else [c for c in new_or_used if c.gpu.memory_gb >= floor.gb]
    limit = math.inf if budget_usd is None else budget_usd * BUDGET_SLACK  # what the budget affords, with its slack
    if not new_or_used and usable:  # no new configuration is on sale at any price: the used market is the market
        choice = choose(configs, budget_usd, floor, threshold, True, allowed, headline, cheapest=cheapest, language=language, pricing=pricing)
        note = Finding("used-cards", "applied", say("choice.used_only", language))
        return replace(choice, notes=(note, *choice.notes))
    pool = floored
    if floor is not None and not any(c.total_usd <= limit for c in floored) and any(c.total_usd <= limit for c in new_or_used):
        pool = new_or_used  # nothing above the floor fits the budget: the best below it, and the answer says so
    if not any(c.total_usd <= limit for c in pool):  # nothing fits the budget: what would, and a used option when there is one
        least = sorted(floored or new_or_used, key=lambda c: (c.total_usd, c.gpu.id))[:1]
        used_ones = [c for c in usable if c.offer.condition == "used" and c.total_usd <= limit and (floor is None or c.gpu.memory_gb >= floor.gb)]
        used_ones = [c for c in used_ones if id(c) in heads] or used_ones
        if used_ones and not used_ok and used_when_short and not any(c.total_usd <= limit for c in new_or_used):
            # no new card holds the job within the budget
            choice = choose(configs, budget_usd, floor, threshold, True, allowed, headline, cheapest=cheapest, language=language, pricing=pricing)
            note = Finding("used-cards", "applied", say("choice.used_within_budget", language))
            return replace(choice, notes=(note, *choice.notes))
        lam = threshold * max((_worth_per_usd(c) for c in used_ones), default=0.0)
        return Choice(None, alternatives={"used": min(used_ones, key=lambda c: _key(c, lam))} if used_ones and not used_ok else {},
                      over_budget=tuple(least))
    leading = [c for c in pool if id(c) in heads] or pool
    best_value = max(leading, key=lambda c: (_worth_per_usd(c), -c.total_usd, c.gpu.id))
    lam = threshold * _worth_per_usd(best_value)
    if budget_usd:
        lam = min(lam, threshold * _budget_value(leading, budget_usd))
    keyed = sorted(((_key(c, lam), c) for c in pool if c.total_usd <= limit), key=itemgetter(0))
    ranked = [c for _, c in keyed]
    within = [c for c in ranked if id(c) in heads] or ranked
    top = min(within, key=lambda c: (c.total_usd, -c.speed, c.gpu.id)) if cheapest else within[0]
    top = _sourced(top, sorted(within, key=lambda c: (c.total_usd, -c.speed, c.gpu.id)), False) if cheapest else _sourced(top, within, True)
    notes = [Finding("cost-efficiency", "applied", say("choice.cheapest", language))] if cheapest else \
        _explain(top, best_value, within, lam, threshold, pricing, language)
    top_key = _key(top, lam)
    # ranked above the top, yet not headline: ranked is in key order, so only its first can be
    demoted = None if cheapest or keyed[0][0] >= top_key else ranked[0]
    if demoted is not None:
        notes.append(Finding("product-lines", "applied", say("rule.product_lines.demoted", language, count=demoted.count, name=demoted.gpu.name)))
    under = None
    if pool is floored and floor is not None:
        below = [(k, c) for c in new_or_used if c.total_usd <= limit and c.gpu.memory_gb < floor.gb and (k := _key(c, lam)) < top_key]
        under = min(below, key=itemgetter(0))[1] if below else None
    ladder = _ladder(top, within) if budget_usd is None and not cheapest else {}
    taken = {c.gpu.id for c in ladder.values()} | {top.gpu.id}
    alternatives = _alternatives(top, within, taken)
    floor_unmet = floor is not None and top.gpu.memory_gb < floor.gb
    if not used_ok and top.offer.condition == "new":  # a used top is the used option already
        top_value = _worth_per_usd(top)
        better_used = [c for c in usable if c.offer.condition == "used" and c.total_usd <= limit and c.gpu.id not in taken and id(c) in heads
                       and (floor is None or c.gpu.memory_gb >= floor.gb) and (floor_unmet or _worth_per_usd(c) > top_value)]
        if better_used:
            alternatives["used"] = min(better_used, key=lambda c: _key(c, lam))
            taken.add(alternatives["used"].gpu.id)
    runners: list[Configuration] = []
    for c in within[1:]:
        if c.gpu.id not in taken and len(runners) < 2:
            runners.append(c)
            taken.add(c.gpu.id)
    return Choice(top, tuple(runners), alternatives, ladder, lam, best_value, under, (), tuple(notes) + ((floor_note,) if floor_note else ()),
                  within=tuple(within))


def alternatives_among(choice: Choice, keep: Callable[[Configuration], bool]) -> dict[str, Configuration]:
    """Best value, fastest and roomiest among the configurations ``keep`` passes, with the choice's top and picks as they are."""
    if choice.top is None:
        return {}
    taken = {c.gpu.id for c in (choice.top, *choice.ladder.values(), *choice.runners_up)}
    return _alternatives(choice.top, [c for c in choice.within if keep(c)], taken)


def _sourced(top: Configuration, within: list[Configuration], as_good: bool) -> Configuration:
    """An estimated price is never the only basis of a top pick: the first configuration in ``within`` with a sourced
    price leads instead, when there is one (``as_good``: only one at least as fast and as roomy, so that a
    larger budget never gives a slower pick)."""
    if not _estimated(top):
        return top
    return next((c for c in within if not _estimated(c)
                 and (not as_good or (c.speed >= top.speed and c.gpu.memory_gb >= top.gpu.memory_gb))), top)


def _budget_value(configs: list[Configuration], budget_usd: float) -> float:
    """Speed per dollar the budget stands for: the fastest it buys over the budget, at its lowest up to this budget.

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


def _ladder(top: Configuration, within: list[Configuration]) -> dict[str, Configuration]:
    """Without a budget: the least that does the job, the sweet spot, and the fastest."""
    ladder = {"sweet spot": top}
    entry = min(within, key=lambda c: (c.total_usd, -c.speed, c.gpu.id))
    fewest: dict[str, int] = {}
    for c in within:
        fewest[c.gpu.id] = min(fewest.get(c.gpu.id, c.count), c.count)
    # the fastest card in as few as hold the job: more of them is always faster, never the sensible top rung
    # (8 x H200 NVL for $256,000 to serve a 32B model to ten people)
    roof = max((c for c in within if c.count == fewest[c.gpu.id]), key=lambda c: (c.speed, -c.total_usd, c.gpu.id))
    for label, config in (("entry", entry), ("no compromise", roof)):
        if all(config.gpu.id != c.gpu.id for c in ladder.values()):
            ladder[label] = config
    return ladder


def _room(c: Configuration) -> float:
    return c.gpu.memory_gb * c.count if c.fit.sharded else c.gpu.memory_gb


BETTER = {  # what each labelled alternative must beat the top pick on
    "best value": lambda c, top: _worth_per_usd(c) > _worth_per_usd(top),
    "fastest": lambda c, top: c.speed > top.speed,
    "roomiest": lambda c, top: _room(c) > _room(top),
}


def still_better(alternatives: dict[str, Configuration], top: Configuration) -> dict[str, Configuration]:
    """The alternatives that still beat ``top`` on their own measure, each card once (a new top, such as the card asked for)."""
    kept: dict[str, Configuration] = {}
    for label, c in alternatives.items():
        if c.gpu.id != top.gpu.id and all(c.gpu.id != k.gpu.id for k in kept.values()) \
                and (label not in BETTER or BETTER[label](c, top)):
            kept[label] = c
    return kept


def _alternatives(top: Configuration, within: list[Configuration], taken: set[str]) -> dict[str, Configuration]:
    """Best value, fastest and roomiest: each a different card, each better than the top on its own measure. Value is
    worth per dollar, the measure the choice steps up from (for memory-bound work, a card that holds more of the job
    is worth more); a shown card that beats every other on it is the best value already, and none is added."""
    measures = {
        "best value": lambda c: (_worth_per_usd(c), -c.total_usd),
        "fastest": lambda c: (c.speed, -c.total_usd),
        "roomiest": lambda c: (_room(c), c.speed, -c.total_usd),
    }
    found: dict[str, Configuration] = {}
    value_shown = bool(within) and max(within, key=lambda c: (*measures["best value"](c), c.gpu.id)).gpu.id in taken
    for label, rank in measures.items():
        if label == "best value" and value_shown:
            continue
        rest = [c for c in within if c.gpu.id not in taken and BETTER[label](c, top)]
        if rest:
            found[label] = max(rest, key=lambda c: (*rank(c), c.gpu.id))
            taken.add(found[label].gpu.id)
    return found


def _explain(top: Configuration, best_value: Configuration, within: list[Configuration], lam: float, threshold: float,
             pricing: Pricing, language: str | None = None) -> list[Finding]:
    """Why the pick sits where it does on the price/speed ladder, in the asker's money: amounts as the picks' prices,
    speed for money per the round step of the currency the picks' own figure is given per (:attr:`Pricing.step`)."""
    notes: list[Finding] = []
    # where memory weighs in (rule memory-value), the gains are of worth, not of the speed the picks show
    weighed = top.worth != top.speed or best_value.worth != best_value.speed
    measure = say("choice.measure.worth" if weighed else "choice.measure.speed", language)
    if top.gpu.id != best_value.gpu.id and top.total_usd > best_value.total_usd:
        gain = pricing.per_step((top.worth - best_value.worth) / (top.total_usd - best_value.total_usd))
        notes.append(Finding("cost-efficiency", "applied", say("choice.stepped_up", language, name=best_value.gpu.name, gain=f"{gain:.2f}", measure=measure,
                                                        threshold=f"{threshold:g}", value=f"{pricing.per_step(_worth_per_usd(best_value)):.2f}",
                                                        step=pricing.step_text())))
    if within and within[0] is not top and _estimated(within[0]):
        notes.append(Finding("cost-efficiency", "applied", say("choice.sourced_first", language, count=within[0].count,
                                                        name=within[0].gpu.name)))
    faster = [c for c in within if c.speed > top.speed and c.total_usd > top.total_usd  # the next step up the price ladder
              and not _estimated(c)]
    if faster:
        nxt = min(faster, key=lambda c: (c.total_usd, c.gpu.id))
        gain = pricing.per_step((nxt.worth - top.worth) / max(nxt.total_usd - top.total_usd, 1e-9))
        notes.append(Finding("cost-efficiency", "applied", say("choice.stopped_before", language, count=nxt.count, name=nxt.gpu.name, measure=measure,
                                                        faster=f"{nxt.speed / top.speed - 1:.0%}", more=pricing.text(nxt.total_usd - top.total_usd),
                                                        gain=f"{gain:.2f}", worth=f"{pricing.per_step(lam):.2f}", step=pricing.step_text())))
    return notes
