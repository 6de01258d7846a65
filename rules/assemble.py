"""Stage 9 of an answer: the typed :class:`~rules.answer.Answer` — verdict, summary, picks, alternatives, the
lines that explain them, rent or buy — from what the stages before made.

The verdict is buy, wait, CPU and cloud, or why nothing works (over budget, too large); "will X fit on Y" is
answered first, in so many words; named cards asked to be compared are answered side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, NamedTuple

import msgspec

from rules.asked_line import need_asked, power_first
from rules.compare_line import compare_first
from rules.configurations import Configuration, Left
from rules.contract.answer import (
    Answer,
    Excluded,
    Finding,
    JobCost,
    MemoryNeed,
    Money,
    NamedCard,
    PerformanceBasis,
    Pick,
    RentVsBuy,
    RunsOn,
    ServingCost,
    Speed,
)
from rules.contract.values import PRECISIONS
from rules.headline import Firsts, dated_words, headline, said_once
from rules.job import METHOD_NAMES, POOLING, job_for
from rules.job_line import job_first
from rules.knowledge.messages import Cased, Joined, Phrase, Term, Text, spoken
from rules.money import BUDGET_SLACK
from rules.objective import Choice, Note

if TYPE_CHECKING:
    from rules.explain import Explained
    from rules.knowledge import Gpu
    from rules.money import Pricing
    from rules.stages import Known, Stages

__all__ = ["SHOWN_EXCLUSIONS", "Made", "assembled", "compared"]

SHOWN_EXCLUSIONS = 8
SpeedUnit = Literal["tokens/s", "images/s", "sequences/s"]
TRAINING_UNITS: dict[str, SpeedUnit] = {"images/s": "images/s", "sequences/s": "sequences/s"}
Verdict = tuple[Literal["buy", "wait", "over-budget", "too-large", "cpu-and-cloud"], Text, tuple[Text, ...]]


@dataclass(frozen=True)
class Made:
    """What the stages made for one question, what they read, and the named cards and renting weighed."""

    stages: Stages
    known: Known
    intent: str
    named: tuple[NamedCard, ...]
    rent: RentVsBuy | None
    serving: ServingCost | None = None  # a model served to its users: bought against rented, for the period
    job_cost: JobCost | None = None  # a training run or a transcription: its hours and cost each way
    runs_on: tuple[RunsOn, ...] = ()  # "what can I run on …": the models each card runs
    # a lighter fine-tuning method answered in place of the engine's: the engine's method and its need (GB)
    instead: tuple[str, float] | None = None

    @property
    def language(self) -> str | None:
        return self.stages.question.language


def pick(made: Made, c: Configuration, label: str | None, findings: tuple[Finding, ...]) -> Pick:
    """One configuration as the answer shows it, with every rule's line about it."""
    pricing, measured = made.stages.pricing, made.known.performance.measured(c.gpu.id)
    return Pick(
        gpu=c.gpu.id,
        name=c.gpu.name if c.system is None else f"{c.gpu.name} ({c.system.system.name})",
        vendor=c.gpu.vendor,
        count=c.count,
        unit_price=unit_price(pricing, c),
        total_price=pricing.money(c.total_usd),
        relative_performance=c.speed,
        performance_per_1000=c.speed / (c.total_usd * pricing.per_usd) * 1000,
        memory_gb=c.gpu.memory_gb,
        effective_memory_gb=c.fit.effective_gb
        if c.fit.sharded
        else c.gpu.memory_gb * made.stages.sizing.factor,
        performance_basis=PerformanceBasis(
            "measured" if measured else "estimated", measured.hosts if measured else 0
        ),
        findings=findings,
        tokens_per_second=c.tokens_per_second,
        speed=speed(made, c),
        form_factor=c.gpu.form_factor,
        label=label,
        condition=c.offer.condition,
    )


def unit_price(pricing: Pricing, c: Configuration) -> Money:
    """One card's price: its share of the server it is bought in, dated as the server's; else its own."""
    if c.system is not None:
        return pricing.money(c.total_usd / c.count, c.system.point)
    return pricing.money(c.offer.unit_usd, c.offer.point)


def speed(made: Made, c: Configuration) -> Speed | None:
    """What the job gets in its own units, with the band the calibration's measured error gives (rule
    workload-priorities): tokens a second for LLM inference; images or sequences a second for training a
    model a published benchmark measured at 16 bit; None where only the relative figure exists."""
    params = made.known.rulebook.workload_priorities
    if c.tokens_per_second:
        users = (
            made.stages.job.batch if made.stages.job.serving_need and made.stages.job.batch > 1 else None
        )  # when several share
        return _banded(c.tokens_per_second, params.llm_decode.measured_error, "tokens/s", users)
    job, throughput = made.stages.job, params.training_throughput
    if throughput is None or job.model is None or job.method != "train" or job.compute_precision != "16-bit":
        return None
    scale = throughput.models.get(job.model.id)
    if scale is None or scale.unit not in TRAINING_UNITS:
        return None
    return _banded(c.speed * scale.per_reference, throughput.measured_error, TRAINING_UNITS[scale.unit])


def _banded(value: float, error: float, unit: SpeedUnit, users: int | None = None) -> Speed:
    return Speed(value, value * (1 - error), value * (1 + error), unit, users)


def assembled(
    made: Made,
    choice: Choice,
    order: Sequence[tuple[Configuration, str]],
    explained: Explained,
    excluded: Sequence[Left],
) -> Answer:
    """The answer to a question to buy (or fit): the picks (``order``: every configuration shown, labelled,
    the alternatives last), the alternatives and why."""
    ranked_count = len(order) - len(choice.alternatives)
    made_picks = [pick(made, c, label, explained.cards[i]) for i, (c, label) in enumerate(order)]
    picks, alternatives = (
        tuple(made_picks[:ranked_count]),
        dict(zip(choice.alternatives, made_picks[ranked_count:], strict=True)),
    )
    said, summary, suggestions = verdict(made, choice, picks)
    summary = fit_first(summary, made.named, made.intent, made.stages.question.card_memory_gb)
    left_out = list(excluded if choice.top is None or explained.left_out is None else explained.left_out)
    shown_out = sorted(left_out, key=lambda e: e.gpu)[:SHOWN_EXCLUSIONS]
    lead = _instead(made)
    words = _said(made, summary, suggestions, (*lead, *choice.notes), shown_out)
    findings = [*words.notes[: len(lead)], *explained.asker, *explained.kept, *explained.plan]
    findings += [*explained.need, *words.notes[len(lead) :]]
    findings += explained.choice
    warnings = unique(
        [f for p in picks[:1] for f in p.findings if f.verdict == "warning"]
        + [f for f in findings if f.verdict == "warning"]
    )
    return headlined(
        made,
        Answer(
            question=made.stages.question,
            intent=made.intent,
            verdict=said,
            summary=words.summary,
            as_of=made.stages.as_of.isoformat(),
            catalog_version=made.known.catalog.version,
            currency=made.stages.pricing.describe(),
            reference_gpu=made.known.reference.id,
            workload=made.stages.work,
            memory_need=words.need,
            picks=picks,
            alternatives=dict(alternatives),
            findings=unique(findings),
            warnings=warnings,
            excluded=words.excluded,
            rent_vs_buy=made.rent,
            suggestions=words.suggestions,
            named=made.named,
            job_cost=made.job_cost,
            serving_cost=made.serving,
            runs_on=made.runs_on,
        ),
    )


def _instead(made: Made) -> tuple[Note, ...]:
    """Where a lighter fine-tuning method is answered in place of the one the engine chose (nothing held it
    within the budget), why, said first (rule memory-fit)."""
    if made.instead is None:
        return ()
    heavier, need = made.instead
    job = made.stages.job
    said = Phrase(
        f"fit.{job.method}_instead",
        {
            "heavier": Term("method", METHOD_NAMES[heavier]),
            "need": f"{need:.0f}",
            "light": f"{job.need.gb:.0f}",
        },
    )
    return (Note("memory-fit", "applied", said),)


class _Words(NamedTuple):
    """What the stages said of one answer, in the asker's language."""

    summary: str
    suggestions: tuple[str, ...]
    notes: list[Finding]
    need: MemoryNeed
    excluded: tuple[Excluded, ...]


def _said(
    made: Made, summary: Text, suggestions: Sequence[Text], notes: Sequence[Note], left: Sequence[Left] = ()
) -> _Words:
    """The answer's words said once, in the asker's language: the summary, what would work, the choice's
    notes, how the memory need was counted and why the cards shown as left out were."""
    need, job, lang = made.stages.job.need, made.stages.job, made.language
    return _Words(
        spoken(summary, lang),
        tuple(spoken(s, lang) for s in suggestions),
        [Finding(n.rule, n.verdict, spoken(n.reason, lang)) for n in notes],
        MemoryNeed(
            need.gb,
            spoken(need.how, lang),
            need.model,
            job.method,
            tuple(spoken(said, lang) for said in job.assumptions),
            need.parts,
        ),
        tuple(Excluded(e.gpu, e.rule, spoken(e.reason, lang)) for e in left),
    )


def compared(
    made: Made, configs: Sequence[tuple[Configuration, str]], cuda_first: bool, explained: Explained
) -> Answer:
    """The named cards side by side, in the order :func:`rules.choose.bought_first` put them (``cuda_first``:
    the NVIDIA card leads though another maker's is better value): each priced one as a pick, every one in
    ``named``."""
    pricing = made.stages.pricing
    picks = [pick(made, c, label, explained.cards[i]) for i, (c, label) in enumerate(configs)]
    summary = _compare_summary(made, picks)
    set_aside = (  # the card to buy is the NVIDIA one, and the reasons say why
        (Note("vendor-nvidia", "applied", Phrase("rule.vendor_nvidia.compare", {"name": picks[0].name})),)
        if cuda_first
        else ()
    )
    rent = made.rent
    if rent and not picks and any(o.named for o in rent.options):
        summary = rent.reason
    words = _said(made, summary, (), set_aside)
    return headlined(
        made,
        Answer(
            question=made.stages.question,
            intent="compare",
            verdict="compare",
            summary=words.summary,
            as_of=made.stages.as_of.isoformat(),
            catalog_version=made.known.catalog.version,
            currency=pricing.describe(),
            reference_gpu=made.known.reference.id,
            workload=made.stages.work,
            memory_need=words.need,
            picks=tuple(picks),
            findings=(*explained.named, *words.notes),
            named=made.named,
            rent_vs_buy=rent,
        ),
    )


def _compare_summary(made: Made, picks: list[Pick]) -> Text:
    """The fastest of the cards compared and the best value, with what cannot be priced."""
    pricing = made.stages.pricing
    unpriced = [e for e in made.named if e.status in ("no-current-price", "not-in-catalog", "not-released")]
    if len(picks) >= 2:
        fastest = max(picks, key=lambda p: (p.relative_performance, p.gpu))
        thriftiest = max(picks, key=lambda p: (p.performance_per_1000, p.gpu))
        summary: Text = Phrase(
            "summary.compare",
            {
                "fastest": fastest.name,
                "workload": Term("workload", made.stages.terms.label),
                "relative": f"{fastest.relative_performance:.2f}",
                "reference": made.known.reference.name,
                "thriftiest": thriftiest.name,
                "currency": pricing.currency,
                "per_step": f"{thriftiest.performance_per_1000 * pricing.step / 1000:.2f}",
                "step": pricing.step_text(),
            },
        )
    elif picks:
        summary = Phrase("summary.compare_one", {"name": picks[0].name})
    else:
        summary = Phrase("summary.compare_none")
    if unpriced:
        summary += Joined(("; ", "; ".join(e.reason for e in unpriced)))
    return summary


def headlined(made: Made, answer: Answer) -> Answer:
    """The answer with its first line: what the modules that word the figure asked for, the run's cost and the
    comparison say, made first and handed to the line for the question's intent."""
    same_speed = made.known.rulebook.cost_efficiency.same_speed_share
    job = answer.job_cost
    firsts = Firsts(
        power_first(answer),
        need_asked(answer),
        job_first(job) if job is not None and job.options else None,
        compare_first(answer, same_speed) if answer.intent == "compare" else None,
    )
    return msgspec.structs.replace(answer, headline=headline(answer, made.known.reference.name, firsts))


def unique(findings: list[Finding]) -> tuple[Finding, ...]:
    """Each line once, at its first place."""
    seen, out = set(), []
    for f in findings:
        if (f.rule, f.reason) not in seen:
            seen.add((f.rule, f.reason))
            out.append(f)
    return tuple(out)


def verdict(made: Made, choice: Choice, picks: Sequence[Pick]) -> Verdict:
    """Buy, wait (rule persona-already-own), CPU and cloud (almost no money), or why nothing works."""
    wait, instead = made.stages.wait, made.stages.asker.instead
    if wait:
        return "wait", wait.reason, (wait.suggestion,)
    if choice.top is None:
        said, summary, suggestions = _impossible(made, choice)
        if said == "over-budget" and instead is not None and instead.verdict:
            # almost no money: the seed's CPU and notebooks, what would work named
            return (
                instead.verdict,
                summary,
                ((instead.suggestion,) if instead.suggestion else ()) + suggestions,
            )
        return said, summary, suggestions
    top, pricing = picks[0], made.stages.pricing
    count = f"{top.count} × " if top.count > 1 else "1 × "
    summary = Phrase(
        "summary.buy",
        {
            "count": count,
            "name": top.name,
            "price": f"{top.unit_price.amount:,.0f}",
            "currency": pricing.currency,
            "kind": dated_words(top.unit_price)[0],
            "date": dated_words(top.unit_price)[1],
            "relative": f"{top.relative_performance:.2f}",
            "reference": made.known.reference.name,
            "workload": Term("workload", made.stages.terms.label),
            "per_step": f"{top.performance_per_1000 * pricing.step / 1000:.2f}",
            "step": pricing.step_text(),
        },
    )
    if instead is not None and instead.verdict:
        return instead.verdict, summary, (instead.suggestion,) if instead.suggestion else ()
    owned = made.stages.asker.owned
    if owned is not None:
        return "buy", summary + _beside_owned(made, owned, top), ()
    return "buy", summary, ()


def _beside_owned(made: Made, owned: Gpu, top: Pick) -> Phrase:
    """How the pick compares with the card the asker has: a multiple only where that card holds the job alone,
    else that it does not (a speed of a model the card cannot hold means nothing)."""
    entry = next((e for e in made.named if e.owned is True and e.gpu == owned.id), None)
    if entry is not None and entry.cards_needed != 1:
        return Phrase("verdict.owned_short", {"name": owned.name, "gb": f"{owned.memory_gb:g}"})
    mine = made.known.performance.relative(owned, made.stages.work, made.stages.job.compute_precision)
    ratio = f"{top.relative_performance / max(mine, 1e-9):.1f}"
    return Phrase("verdict.owned_ratio", {"ratio": ratio, "name": owned.name})


def fit_first(
    summary: Text,
    named: Sequence[NamedCard],
    intent: str,
    card_memory_gb: float | None,
) -> Text:
    """ "Will X fit on Y" is answered first, in so many words: the job's need once, and one clause for the
    cards the same verdict holds for ("one 24 GB RTX 3090 or RTX 4090 does not hold it; two do")."""
    entries = [e for e in named if e.owned is not True]
    if entries and (intent == "fit" or card_memory_gb):
        return Joined((said_once(entries), ". ", Cased(summary)))
    return summary


def _impossible(made: Made, choice: Choice) -> Verdict:
    """No configuration works: say why and what would."""
    question, pricing, need = made.stages.question, made.stages.pricing, made.stages.job.need
    suggestions: list[Text] = []
    cheapest = choice.over_budget[0] if choice.over_budget else None
    used = choice.alternatives.get("used")
    verdict_said: Literal["over-budget", "too-large"]
    if cheapest is not None:
        price = pricing.money(cheapest.total_usd)
        summary: Text = Phrase(
            "verdict.over_budget",
            {
                "budget": f"{question.budget or 0:,.0f}",
                "currency": pricing.currency,
                "count": cheapest.count,
                "name": cheapest.gpu.name,
                "price": f"{price.amount:,.0f}",
            },
        )
        if used is not None:
            summary += Phrase(
                "verdict.used_does",
                {
                    "count": used.count,
                    "name": used.gpu.name,
                    "price": f"{pricing.money(used.total_usd).amount:,.0f}",
                    "currency": pricing.currency,
                },
            )
        suggestions += [
            *_second_card(made),
            Phrase("verdict.raise_budget", {"price": f"{price.amount:,.0f}", "currency": pricing.currency}),
            Phrase(
                "verdict.rent_by_hour" if question.used_ok or question.new_only else "verdict.consider_used"
            ),
        ]
        verdict_said = "over-budget"
    else:
        summary = Phrase(
            "verdict.too_large",
            {"date": made.stages.as_of.isoformat(), "gb": f"{need.gb:.0f}", "how": need.how},
        )
        verdict_said = "too-large"
        for precision in ("16-bit", "8-bit", "4-bit"):
            if precision != question.precision and PRECISIONS.index(precision) > PRECISIONS.index(
                question.precision or "16-bit"
            ):
                smaller = job_for(question.refined(precision=precision), made.known.rulebook).need
                suggestions.append(
                    Phrase("verdict.at_precision", {"precision": precision, "gb": f"{smaller.gb:.0f}"})
                )
        if question.gpus == 1:
            suggestions.append(Phrase("verdict.more_gpus"))
        suggestions.append(Phrase("verdict.smaller_model"))
    if question.cloud_ok:
        suggestions.append(Phrase("verdict.rent_cloud"))
    return verdict_said, summary, tuple(suggestions)


def _second_card(made: Made) -> list[Text]:
    """An owner whose card holds a job that splits across cards: a second one of the same doubles the memory
    for a fraction of any upgrade (a used RTX 3090 beside the one owned: 48 GB for 70B models at 4-bit)."""
    owned, job, pricing = made.stages.asker.owned, made.stages.job, made.stages.pricing
    if owned is None or job.pooling == "none" or not owned.purchasable:
        return []
    point = replace(pricing, used_ok=True).best_price(owned)
    budget = made.stages.asker.budget_usd
    if point is None or (budget is not None and point.price_usd > budget * BUDGET_SLACK):
        return []
    money = pricing.money(point.price_usd, point)
    return [
        Phrase(
            "verdict.second_card",
            {
                "name": owned.name,
                "price": f"{money.amount:,.0f}",
                "currency": money.currency,
                "kind": Term("price.kind", point.kind),
                "gb": f"{2 * owned.memory_gb:g}",
                "how": Term("pooling", POOLING[job.pooling]),
            },
        )
    ]
