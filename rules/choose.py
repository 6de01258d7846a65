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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from rules.configurations import Configuration
from rules.contract.answer import Finding, NamedCard
from rules.knowledge.messages import say

if TYPE_CHECKING:
    from rules.money import Pricing
    from rules.terms import Floor

__all__ = [
    "BUDGET_SLACK",
    "Choice",
    "Objective",
    "alternatives_among",
    "asked_first",
    "choice_for",
    "choose",
    "ranked",
    "still_better",
]

BUDGET_SLACK = 1.0001
Allowed = Callable[[Configuration], bool]


def _every(c: Configuration) -> bool:
    return True


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
    notes: tuple[Finding, ...] = ()  # why the choice is what it is, each under its rule
    asked: bool = False  # the top is the card the question named ("a server with 8 H100")
    within: tuple[
        Configuration, ...
    ] = ()  # what could lead, within the budget, best first (for alternatives_among)


@dataclass(frozen=True)
class Objective:
    """The terms of one choice.

    ``headline`` says what may lead the answer (the top pick, the ladder, the labelled alternatives) while something
    else can; ``cheapest``: the least that does the job, not the best within the budget; ``used_when_short``: used
    cards are picked when no new one holds the job within the budget (one card for a desk; several cards stay new and
    show the used option beside the answer, rule ``used-cards``); ``used_for_floor``: used cards join when new ones
    with enough memory cost this many times more; ``used_saving``: a used card that joins unasked saves at least this
    share of the same cards new; ``pricing``: the answer's, for the money its notes name, in the asker's currency.
    """

    budget_usd: float | None
    floor: Floor | None
    threshold: float
    used_ok: bool
    pricing: Pricing
    headline: Allowed = _every
    used_for_floor: float | None = None
    cheapest: bool = False
    language: str | None = None
    used_when_short: bool = True
    used_saving: float = 0.0

    @property
    def limit(self) -> float:
        """What the budget affords, with its slack."""
        return math.inf if self.budget_usd is None else self.budget_usd * BUDGET_SLACK

    def with_used(self) -> Objective:
        """The same choice with used cards in, as a last resort (the market's own terms for them set aside)."""
        return replace(self, used_ok=True, used_for_floor=None, used_when_short=True, used_saving=0.0)


def _key(config: Configuration, lam: float) -> tuple[Any, ...]:
    return (-(config.worth - lam * config.total_usd), config.total_usd, config.gpu.id, config.offer.condition)


def _worth_buying_used(configs: Sequence[Configuration], saving: float) -> Allowed:
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
    point = config.system.point if config.system is not None else config.offer.point
    return bool(getattr(point, "estimate", False))


def _worth_per_usd(config: Configuration) -> float:
    return config.worth / config.total_usd


@dataclass(frozen=True)
class _Pool:
    """The configurations one choice weighs: those allowed, which may lead, new (or used where they count)."""

    usable: list[Configuration]
    heads: set[int]  # ids of the configurations that may lead, asked once per configuration
    new_or_used: list[Configuration]
    floor_note: Finding | None


def choose(configs: Sequence[Configuration], objective: Objective, allowed: Allowed = _every) -> Choice:
    """Rank ``configs`` for the question; ``allowed`` carries the persona and upgrade constraints."""
    pool = _pool(configs, objective, allowed)
    floor, limit = objective.floor, objective.limit
    floored = (
        pool.new_or_used if floor is None else [c for c in pool.new_or_used if c.gpu.memory_gb >= floor.gb]
    )
    if (
        not pool.new_or_used and pool.usable
    ):  # no new configuration is on sale at any price: the used market is it
        return _noted(
            choose(configs, objective.with_used(), allowed), say("choice.used_only", objective.language)
        )
    weighed = floored
    if (
        floor is not None
        and not any(c.total_usd <= limit for c in floored)
        and any(c.total_usd <= limit for c in pool.new_or_used)
    ):
        weighed = (
            pool.new_or_used
        )  # nothing above the floor fits the budget: the best below it, and the answer says so
    if not any(c.total_usd <= limit for c in weighed):
        short = _nothing_within(configs, objective, allowed, pool, floored)
        return short
    return _ranked_choice(objective, pool, weighed, floored)


def _pool(configs: Sequence[Configuration], objective: Objective, allowed: Allowed) -> _Pool:
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
    return _Pool(usable, heads, new_or_used, floor_note)


def _used_for_floor(
    usable: list[Configuration], heads: set[int], objective: Objective
) -> tuple[list[Configuration], Finding | None]:
    """Used cards join when new ones with enough memory cost much more: enough memory is the floor of the date, or,
    where the workload has none, the job held by one card or else by the cards a desk takes (two used RTX 3090s for
    a 70B model); without a budget the ladder stays new."""
    floor, pricing, language = objective.floor, objective.pricing, objective.language
    tests: list[tuple[str, Allowed]] = (
        [("floor", lambda c: c.gpu.memory_gb >= floor.gb)]
        if floor is not None
        else [("one_card", lambda c: c.count == 1), ("any_count", _every)]
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
            new_price = pricing.text(new) if new else say("choice.no_current_price", language)
            reason = (
                say(
                    "choice.used_for_floor",
                    language,
                    gb=f"{min(c.gpu.memory_gb for c in market):g}",
                    used=pricing.text(used),
                    new=new_price,
                )
                if floor is not None
                else say(f"choice.used_for_{test_name}", language, used=pricing.text(used), new=new_price)
            )
            return joined, Finding("used-cards", "applied", reason)
    return [], None


def _noted(choice: Choice, reason: str) -> Choice:
    return replace(choice, notes=(Finding("used-cards", "applied", reason), *choice.notes))


def _nothing_within(
    configs: Sequence[Configuration],
    objective: Objective,
    allowed: Allowed,
    pool: _Pool,
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
        return _noted(
            choose(configs, objective.with_used(), allowed),
            say("choice.used_within_budget", objective.language),
        )
    lam = objective.threshold * max((_worth_per_usd(c) for c in used_ones), default=0.0)
    used = {"used": min(used_ones, key=lambda c: _key(c, lam))} if used_ones and not objective.used_ok else {}
    return Choice(None, alternatives=used, over_budget=tuple(least))


def _ranked_choice(
    objective: Objective, pool: _Pool, weighed: list[Configuration], floored: list[Configuration]
) -> Choice:
    """The pick within the budget, the configurations ranked behind it and why it sits where it does."""
    floor, limit, cheapest = objective.floor, objective.limit, objective.cheapest
    leading = [c for c in weighed if id(c) in pool.heads] or weighed
    best_value = max(leading, key=lambda c: (_worth_per_usd(c), -c.total_usd, c.gpu.id))
    lam = objective.threshold * _worth_per_usd(best_value)
    if objective.budget_usd:
        lam = min(lam, objective.threshold * _budget_value(leading, objective.budget_usd))
    keyed = sorted(((_key(c, lam), c) for c in weighed if c.total_usd <= limit), key=itemgetter(0))
    ranked_all = [c for _, c in keyed]
    within = [c for c in ranked_all if id(c) in pool.heads] or ranked_all
    by_price = sorted(within, key=lambda c: (c.total_usd, -c.speed, c.gpu.id))
    top = _sourced(by_price[0], by_price, False) if cheapest else _sourced(within[0], within, True)
    notes = (
        [Finding("cost-efficiency", "applied", say("choice.cheapest", objective.language))]
        if cheapest
        else _explain(top, best_value, within, lam, objective)
        if top.need_met is None
        else _serving_notes(top, objective.language)
    )
    top_key = _key(top, lam)
    # ranked above the top, yet not headline: ranked_all is in key order, so only its first can be
    if not cheapest and keyed[0][0] < top_key:
        demoted = ranked_all[0]
        notes.append(
            Finding(
                "product-lines",
                "applied",
                say(
                    "rule.product_lines.demoted",
                    objective.language,
                    count=demoted.count,
                    name=demoted.gpu.name,
                ),
            )
        )
    under = None
    if weighed is floored and floor is not None:
        below = [
            (k, c)
            for c in pool.new_or_used
            if c.total_usd <= limit and c.gpu.memory_gb < floor.gb and (k := _key(c, lam)) < top_key
        ]
        under = min(below, key=itemgetter(0))[1] if below else None
    ladder = _ladder(top, within, ranked_all) if objective.budget_usd is None and not cheapest else {}
    taken = {c.gpu.id for c in ladder.values()} | {top.gpu.id}
    alternatives = _alternatives(top, within, taken)
    used = _better_used(objective, pool, top, taken, lam)
    if used is not None:
        alternatives["used"] = used
        taken.add(used.gpu.id)
    runners: list[Configuration] = []
    for c in within[1:]:
        if c.gpu.id not in taken and len(runners) < 2:
            runners.append(c)
            taken.add(c.gpu.id)
    notes += [pool.floor_note] if pool.floor_note else []
    return Choice(
        top,
        tuple(runners),
        alternatives,
        ladder,
        lam,
        best_value,
        under,
        (),
        tuple(notes),
        within=tuple(within),
    )


def _better_used(
    objective: Objective, pool: _Pool, top: Configuration, taken: set[str], lam: float
) -> Configuration | None:
    """The used option shown beside a new top: better value (or, where the top misses the floor, roomy enough)."""
    if objective.used_ok or top.offer.condition != "new":  # a used top is the used option already
        return None
    floor, limit = objective.floor, objective.limit
    floor_unmet = floor is not None and top.gpu.memory_gb < floor.gb
    top_value = _worth_per_usd(top)
    better = [
        c
        for c in pool.usable
        if c.offer.condition == "used"
        and c.total_usd <= limit
        and c.gpu.id not in taken
        and id(c) in pool.heads
        and (floor is None or c.gpu.memory_gb >= floor.gb)
        and (floor_unmet or _worth_per_usd(c) > top_value)
    ]
    return min(better, key=lambda c: _key(c, lam)) if better else None


def choice_for(
    configs: Sequence[Configuration],
    objective: Objective,
    safe_stack: str,
    cuda_leads_within: float,
) -> Choice:
    """The choice under the rules' terms, then CUDA's place in it (rule ``vendor-nvidia``): the safe stack leads when
    it is close, and a CUDA pick's alternatives come from CUDA too, the best card outside it under its own label."""
    choice = choose(configs, objective)
    top = choice.top
    if top is None:
        return choice

    def is_safe(c: Configuration) -> bool:
        return bool(c.gpu.software == safe_stack)

    if is_safe(top):
        if choice.best_value is not None and not is_safe(choice.best_value):
            # the seed weighs a step up against the best value of the stack it recommends (RTX 2070 over RTX 2060):
            # a cheap card outside CUDA would set the price of speed for a CUDA pick, and name a card the answer hides
            cuda = choose(configs, objective, is_safe)
            if cuda.top is not None:
                return _with_outside(cuda, _outside(choice, is_safe))
        return _safe_alternatives(choice, is_safe)
    cuda = choose(configs, objective, is_safe)
    floor = objective.floor
    if (
        cuda.top is None
        or cuda.top.speed < cuda_leads_within * top.speed
        or (floor and cuda.top.gpu.memory_gb < floor.gb <= top.gpu.memory_gb)
        or cuda.top.memory_value < top.memory_value
    ):  # for memory-bound work, close in speed but holding less is not close
        return choice
    note = Finding(
        "vendor-nvidia",
        "applied",
        say(
            "rule.vendor_nvidia.leads",
            objective.language,
            cuda=cuda.top.gpu.name,
            count=top.count,
            name=top.gpu.name,
            software=top.gpu.software,
            share=f"{cuda.top.speed / top.speed:.0%}",
        ),
    )
    return replace(_with_outside(cuda, top), notes=(note, *cuda.notes))


def _outside(choice: Choice, is_safe: Allowed) -> Configuration | None:
    """Where a card outside CUDA beats the pick on value, speed or room: the one the choice ranks first outside it."""
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
) -> Choice:
    """A card the question names ("a server with 8 H100", "will llama 70b fit on a 3090 or a 4090") is the
    configuration answered first, as many of it as hold the job, when it can be placed and fits the budget; the
    engine's own choice follows as the runner-up."""
    ids = {e.gpu for e in named if e.gpu and e.owned is not True}
    if intent not in ("recommend", "fit", "rent-or-buy") or not ids or choice.top is None or choice.top.gpu.id in ids:
        return choice
    theirs = Objective(
        objective.budget_usd, None, objective.threshold, True, objective.pricing, language=objective.language
    )
    fewest: dict[str, int] = {}  # as many as hold the job: a count the question did not ask is not bought
    for c in configs:
        if c.gpu.id in ids:
            fewest[c.gpu.id] = min(fewest.get(c.gpu.id, c.count), c.count)
    mine = choose(configs, theirs, lambda c: fewest.get(c.gpu.id) == c.count)
    if mine.top is None:
        return choice
    others = [choice.top, *choice.ladder.values(), *choice.runners_up]
    runners = tuple({c.gpu.id: c for c in others if c.gpu.id not in ids}.values())[:2]
    alternatives = still_better(
        {k: c for k, c in choice.alternatives.items() if c.gpu.id not in ids}, mine.top
    )
    note = Finding(
        "cost-efficiency",
        "applied",
        say(
            "choice.as_asked",
            objective.language,
            count=mine.top.count,
            name=mine.top.gpu.name,
            own_count=choice.top.count,
            own_name=choice.top.gpu.name,
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
    return next(
        (
            c
            for c in within
            if not _estimated(c)
            and (not as_good or (c.speed >= top.speed and c.gpu.memory_gb >= top.gpu.memory_gb))
        ),
        top,
    )


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


def _ladder(
    top: Configuration, within: list[Configuration], every: list[Configuration]
) -> dict[str, Configuration]:
    """Without a budget: the least that does the job, the sweet spot, and the fastest. ``every``: all configurations
    within reach, leading or not, for the fewest cards of each that hold the job (a module holds it alone, though it
    leads only as a board of eight)."""
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
    return c.gpu.memory_gb * c.count if c.fit.sharded else c.gpu.memory_gb


Beats = Callable[[Configuration, Configuration], bool]
BETTER: dict[str, Beats] = {  # what each labelled alternative must beat the top pick on
    "best value": lambda c, top: _worth_per_usd(c) > _worth_per_usd(top),
    "fastest": lambda c, top: c.speed > top.speed,
    "roomiest": lambda c, top: _room(c) > _room(top),
}
Measure = Callable[[Configuration], tuple[float, ...]]


def still_better(alternatives: dict[str, Configuration], top: Configuration) -> dict[str, Configuration]:
    """The alternatives that still beat ``top`` on their own measure, each card once (a new top, such as the card asked for)."""
    kept: dict[str, Configuration] = {}
    for label, c in alternatives.items():
        if (
            c.gpu.id != top.gpu.id
            and all(c.gpu.id != k.gpu.id for k in kept.values())
            and (label not in BETTER or BETTER[label](c, top))
        ):
            kept[label] = c
    return kept


def _alternatives(
    top: Configuration, within: list[Configuration], taken: set[str]
) -> dict[str, Configuration]:
    """Best value, fastest and roomiest: each a different card, each better than the top on its own measure. Value is
    worth per dollar, the measure the choice steps up from (for memory-bound work, a card that holds more of the job
    is worth more); a shown card that beats every other on it is the best value already, and none is added."""
    measures: dict[str, Measure] = {
        "best value": lambda c: (_worth_per_usd(c), -c.total_usd),
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


def _serving_notes(top: Configuration, language: str | None) -> list[Finding]:
    """Why a serving pick sits where it does: the least that delivers the users' need in all (speed beyond it is
    not paid for), or, where nothing within reach delivers it, the closest for the money."""
    key = "choice.serving_enough" if top.need_met == 1.0 else "choice.serving_short"
    said = say(key, language, share=f"{top.need_met or 0:.0%}")
    return [Finding("cost-efficiency", "applied", said)]


def _explain(
    top: Configuration,
    best_value: Configuration,
    within: list[Configuration],
    lam: float,
    objective: Objective,
) -> list[Finding]:
    """Why the pick sits where it does on the price/speed ladder, in the asker's money: amounts as the picks' prices,
    speed for money per the round step of the currency the picks' own figure is given per (:attr:`Pricing.step`)."""
    threshold, pricing, language = objective.threshold, objective.pricing, objective.language
    notes: list[Finding] = []
    # where memory weighs in (rule memory-value), the gains are of worth, not of the speed the picks show
    weighed = top.worth != top.speed or best_value.worth != best_value.speed
    measure = say("choice.measure.worth" if weighed else "choice.measure.speed", language)
    if top.gpu.id != best_value.gpu.id and top.total_usd > best_value.total_usd:
        gain = pricing.per_step((top.worth - best_value.worth) / (top.total_usd - best_value.total_usd))
        notes.append(
            Finding(
                "cost-efficiency",
                "applied",
                say(
                    "choice.stepped_up",
                    language,
                    name=best_value.gpu.name,
                    gain=f"{gain:.2f}",
                    measure=measure,
                    threshold=f"{threshold:g}",
                    value=f"{pricing.per_step(_worth_per_usd(best_value)):.2f}",
                    step=pricing.step_text(),
                ),
            )
        )
    if within and within[0] is not top and _estimated(within[0]):
        notes.append(
            Finding(
                "cost-efficiency",
                "applied",
                say("choice.sourced_first", language, count=within[0].count, name=within[0].gpu.name),
            )
        )
    faster = [
        c
        for c in within
        if c.speed > top.speed
        and c.total_usd > top.total_usd  # the next step up the price ladder
        and not _estimated(c)
    ]
    if faster:
        nxt = min(faster, key=lambda c: (c.total_usd, c.gpu.id))
        gain = pricing.per_step((nxt.worth - top.worth) / max(nxt.total_usd - top.total_usd, 1e-9))
        notes.append(
            Finding(
                "cost-efficiency",
                "applied",
                say(
                    "choice.stopped_before",
                    language,
                    count=nxt.count,
                    name=nxt.gpu.name,
                    measure=measure,
                    faster=f"{nxt.speed / top.speed - 1:.0%}",
                    more=pricing.text(nxt.total_usd - top.total_usd),
                    gain=f"{gain:.2f}",
                    worth=f"{pricing.per_step(lam):.2f}",
                    step=pricing.step_text(),
                ),
            )
        )
    return notes
