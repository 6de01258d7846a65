"""The ranking of an answer: the choice as the rules shape it, the card asked for first, and the picks.

:func:`rules.choose.choose` does the judgement over configurations; here the rules' terms are
fed in (threshold, memory floor, what may lead, a preferred stack) and each chosen
configuration becomes a :class:`~rules.answer.Pick` carrying every rule's line about it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence

from rules.answer import Finding, PerformanceBasis, Pick
from rules.choose import Choice, choose, still_better
from rules.configurations import Configuration
from rules.money import Pricing
from rules.performance import Measured
from rules.registry import Context, Rulings

__all__ = ["choice_for", "asked_first", "ranked", "pick"]

Allowed = Callable[[Configuration], bool]


def choice_for(ctx: Context, rulings: Rulings, configs: Sequence[Configuration], used_ok: bool, allowed: Allowed) -> Choice:
    """The choice under the rules' terms, then each rule's preference (vendor-nvidia: CUDA leads when close)."""
    floor, used_over, threshold = ctx.floor, rulings.first("used_over"), rulings.first("threshold")
    headline = rulings.first("headline") or (lambda c: True)
    cheapest = ctx.question.objective == "cheapest"
    used_when_short = not rulings.first("new_only")
    used_saving = ctx.param("used-cards", "used_min_saving")

    def rechoose(extra: Allowed) -> Choice:
        return choose(configs, ctx.budget_usd, floor, threshold, used_ok, lambda c: allowed(c) and extra(c), headline, used_over, cheapest,
                      ctx.language, used_when_short, used_saving, pricing=ctx.pricing)

    choice = choose(configs, ctx.budget_usd, floor, threshold, used_ok, allowed, headline, used_over, cheapest, ctx.language, used_when_short,
                    used_saving, pricing=ctx.pricing)
    for ruling in rulings:
        if ruling.prefer is not None:
            choice = ruling.prefer(choice, rechoose)
    return choice


def asked_first(ctx: Context, rulings: Rulings, intent: str, named: list[dict[str, Any]], choice: Choice,
                configs: Sequence[Configuration], allowed: Allowed) -> Choice:
    """A card the question names ("a server with 8 H100", "will llama 70b fit on a 3090 or a 4090") is the
    configuration answered first, as many of it as hold the job, when it can be placed and fits the budget; the
    engine's own choice follows as the runner-up."""
    ids = {e["gpu"] for e in named if e.get("gpu") and not e.get("owned")}
    if intent not in ("recommend", "fit") or not ids or choice.top is None or choice.top.gpu.id in ids:
        return choice
    mine = choose(configs, ctx.budget_usd, None, rulings.first("threshold"), True, lambda c: allowed(c) and c.gpu.id in ids,
                  language=ctx.language, pricing=ctx.pricing)
    if mine.top is None:
        return choice
    theirs = [choice.top, *choice.ladder.values(), *choice.runners_up]
    runners = tuple({c.gpu.id: c for c in theirs if c.gpu.id not in ids}.values())[:2]
    alternatives = still_better({k: c for k, c in choice.alternatives.items() if c.gpu.id not in ids}, mine.top)
    note = Finding("cost-efficiency", "applied", ctx.say("choice.as_asked", count=mine.top.count, name=mine.top.gpu.name,
                                                  own_count=choice.top.count, own_name=choice.top.gpu.name))
    return replace(choice, top=mine.top, runners_up=runners, ladder={}, alternatives=alternatives, asked=True,
                   under_floor=None, notes=(note, *choice.notes))


def ranked(choice: Choice, cheapest: bool = False) -> list[tuple[Configuration, str]]:
    """(configuration, label) for the picks: the top, then the ladder or the runners-up."""
    if choice.top is None:
        return []
    if choice.ladder:
        order = ("sweet spot", "entry", "no compromise")
        return [(choice.ladder[k], k) for k in order if k in choice.ladder]
    first = "as asked" if choice.asked else "cheapest that does the job" if cheapest else "best within budget"
    return [(choice.top, first)] + [(c, "runner-up") for c in choice.runners_up]


def pick(c: Configuration, rulings: Rulings, pricing: Pricing, measured: Measured | None, label: str | None = None,
         factor: float = 1.0) -> Pick:
    """One configuration as the answer shows it; ``factor``: how much more a card holds in the need's terms."""
    return Pick(
        gpu=c.gpu.id, name=c.gpu.name, vendor=c.gpu.vendor, count=c.count, unit_price=pricing.money(c.offer.unit_usd, c.offer.point),
        total_price=pricing.money(c.total_usd), relative_performance=c.speed,
        performance_per_1000=c.speed / (c.total_usd * pricing.per_usd) * 1000,
        memory_gb=c.gpu.memory_gb, effective_memory_gb=c.fit.effective_gb if c.fit.sharded else c.gpu.memory_gb * factor,
        performance_basis=PerformanceBasis("measured" if measured else "estimated", measured.hosts if measured else 0),
        findings=tuple(rulings.each("card", c)),
        tokens_per_second=c.tokens_per_second, form_factor=c.gpu.form_factor, label=label, condition=c.offer.condition,
    )
