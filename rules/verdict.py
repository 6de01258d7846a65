"""The verdict of an answer and its one-paragraph summary: buy, wait, CPU and cloud, or why nothing works."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal, Sequence

from rules.answer import MemoryNeed, Pick
from rules.choose import BUDGET_SLACK, Choice
from rules.job import POOLING, job_for
from rules.messages import say, term
from rules.money import Pricing
from rules.question import PRECISIONS
from rules.registry import Context, Rulings

__all__ = ["verdict", "fit_first"]

Verdict = tuple[Literal["buy", "wait", "over-budget", "too-large", "cpu-and-cloud"], str, tuple[str, ...]]  # (verdict, summary, suggestions)


def verdict(ctx: Context, rulings: Rulings, choice: Choice, picks: Sequence[Pick], pricing: Pricing, need: MemoryNeed) -> Verdict:
    wait = rulings.first("wait")
    if wait:
        return "wait", wait.reason, (wait.suggestion,)
    if choice.top is None:
        verdict, summary, suggestions = _impossible(ctx, choice, pricing, need)
        instead = next((p for p in ctx.personas if p.verdict), None)
        if verdict == "over-budget" and instead is not None and instead.verdict:  # almost no money: the seed's CPU + notebooks, what would work named
            return instead.verdict, summary, ((instead.suggestion,) if instead.suggestion else ()) + suggestions
        return verdict, summary, suggestions
    top, lang = picks[0], ctx.language
    count = f"{top.count} × " if top.count > 1 else "1 × "
    summary = say("summary.buy", lang, count=count, name=top.name, price=f"{top.unit_price.amount:,.0f}", currency=pricing.currency,
                  kind=term("price.kind", top.unit_price.kind or "", lang), date=top.unit_price.seen,
                  relative=f"{top.relative_performance:.2f}", reference=ctx.reference.name,
                  workload=term("workload", ctx.label, lang), per_1000=f"{top.performance_per_1000:.2f}")
    instead = next((p for p in ctx.personas if p.verdict), None)
    if instead is not None and instead.verdict:
        return instead.verdict, summary, (instead.suggestion,) if instead.suggestion else ()
    if ctx.owned is not None:
        summary += ctx.say("verdict.owned_ratio", ratio=f"{top.relative_performance / max(ctx.speed(ctx.owned), 1e-9):.1f}", name=ctx.owned.name)
    return "buy", summary, ()


def fit_first(summary: str, named: Sequence[dict[str, Any]], intent: str, card_memory_gb: float | None,
              language: str | None = None) -> str:
    """"Will X fit on Y" is answered first, in so many words: the job's need once, and one clause for the cards
    the same verdict holds for ("one 24 GB RTX 3090 or RTX 4090 does not hold it; two do")."""
    entries = [e for e in named if not e.get("owned")]
    if entries and (intent == "fit" or card_memory_gb):
        return _said_once(entries, language) + ". " + summary[:1].upper() + summary[1:]
    return summary


def _said_once(entries: Sequence[dict[str, Any]], language: str | None) -> str:
    """The named cards' reasons with a shared "{need}: " said once and cards of one verdict named together."""
    need = {e["reason"].split(": ", 1)[0] for e in entries}
    if len(need) != 1 or any(": " not in e["reason"] for e in entries):
        return "; ".join(e["reason"] for e in entries)
    clauses: dict[str, list[str]] = {}
    for e in entries:
        rest = e["reason"].split(": ", 1)[1]
        key = rest.replace(e["name"], "\0") if e.get("name") and e["name"] in rest else rest
        names = clauses.setdefault(key, [])
        if e.get("name") and e["name"] not in names:
            names.append(e["name"])
    said = [key.replace("\0", _either(names, language)) for key, names in clauses.items()]
    return next(iter(need)) + ": " + "; ".join(said)


def _either(names: Sequence[str], language: str | None) -> str:
    """"A", "A or B", "A, B or C" in the asker's language."""
    if len(names) < 2:
        return names[0] if names else ""
    return say("named.either", language, first=", ".join(names[:-1]), last=names[-1])


def _impossible(ctx: Context, choice: Choice, pricing: Pricing, need: MemoryNeed) -> Verdict:
    """No configuration works: say why and what would."""
    question, suggestions = ctx.question, []
    cheapest = choice.over_budget[0] if choice.over_budget else None
    used = choice.alternatives.get("used")
    if cheapest is not None:
        price = pricing.money(cheapest.total_usd)
        summary = ctx.say("verdict.over_budget", budget=f"{question.budget or 0:,.0f}", currency=pricing.currency, count=cheapest.count,
                          name=cheapest.gpu.name, price=f"{price.amount:,.0f}")
        if used is not None:
            summary += ctx.say("verdict.used_does", count=used.count, name=used.gpu.name, price=f"{pricing.money(used.total_usd).amount:,.0f}",
                               currency=pricing.currency)
        suggestions += [*_second_card(ctx, pricing),
                        ctx.say("verdict.raise_budget", price=f"{price.amount:,.0f}", currency=pricing.currency),
                        ctx.say("verdict.consider_used" if not question.used_ok else "verdict.rent_by_hour")]
        verdict: Literal["over-budget", "too-large"] = "over-budget"
    else:
        summary = ctx.say("verdict.too_large", date=ctx.as_of.isoformat(), gb=f"{need.gb:.0f}", how=need.how)
        verdict = "too-large"
        for precision in ("16-bit", "8-bit", "4-bit"):
            if precision != question.precision and PRECISIONS.index(precision) > PRECISIONS.index(question.precision or "16-bit"):
                smaller = job_for(question.refined(precision=precision), ctx.rulebook).need
                suggestions.append(ctx.say("verdict.at_precision", precision=precision, gb=f"{smaller.gb:.0f}"))
        if question.gpus == 1:
            suggestions.append(ctx.say("verdict.more_gpus"))
        suggestions.append(ctx.say("verdict.smaller_model"))
    if question.cloud_ok:
        suggestions.append(ctx.say("verdict.rent_cloud"))
    return verdict, summary, tuple(suggestions)


def _second_card(ctx: Context, pricing: Pricing) -> list[str]:
    """An owner whose card holds a job that splits across cards: a second one of the same doubles the memory for
    a fraction of any upgrade (a used RTX 3090 beside the one owned: 48 GB for 70B models at 4-bit)."""
    owned, job = ctx.owned, ctx.job
    if owned is None or job.pooling == "none" or not owned.purchasable:
        return []
    point = replace(pricing, used_ok=True).best_price(owned)
    if point is None or (ctx.budget_usd is not None and point.price_usd > ctx.budget_usd * BUDGET_SLACK):
        return []
    money = pricing.money(point.price_usd, point)
    return [ctx.say("verdict.second_card", name=owned.name, price=f"{money.amount:,.0f}", currency=money.currency,
                    kind=term("price.kind", point.kind, ctx.language), gb=f"{2 * owned.memory_gb:g}",
                    how=term("pooling", POOLING[job.pooling], ctx.language))]
