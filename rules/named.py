"""The cards a question names, each answered: compared, fitted, or why it cannot be.

"compare 3090 4090", "will llama 70b fit on a 3090 or a 4090", "I have a 3060": every card named is judged by
the same sizing as the configurations (its memory under the method's pooling, its speed, the build rules) and
comes back as a :class:`~rules.answer.NamedCard` whose ``reason`` says what became of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from msgspec import UNSET
from msgspec.structs import replace as with_changes

from rules.configurations import fit_on
from rules.contract.answer import NamedCard, NamedPrice
from rules.headline import dated_words
from rules.job import GIB_IN_GB, METHOD_NAMES, Job, job_for
from rules.knowledge.messages import Counted, Joined, Phrase, Term, Text, spare_text, spoken
from rules.market import TpuChip
from rules.money import BUDGET_SLACK
from rules.need import Need
from rules.render.figures import memory_words

if TYPE_CHECKING:
    from rules.configurations import Sizing
    from rules.contract.question import Question
    from rules.knowledge import Catalog, Gpu, Rulebook
    from rules.market import Market, Offer
    from rules.money import Pricing
    from rules.stages import Stages

__all__ = [
    "NamedContext",
    "card_memory",
    "named_cards",
    "named_units",
    "sold_alone",
    "tpu_chips",
    "tpu_named",
]


@dataclass(frozen=True)
class NamedContext:
    """What judging a named card reads."""

    question: Question
    market: Market
    pricing: Pricing  # the answer's: its currency and rate
    sizing: Sizing
    catalog: Catalog
    rulebook: Rulebook
    reference: Gpu
    rentable: frozenset[str]  # names that mean a Cloud TPU (rented only, never in the GPU catalog)
    # the job's need at the lower precisions people use, where the asker left the precision to the engine
    lower_needs: tuple[tuple[str, Need], ...]

    @property
    def language(self) -> str | None:
        return self.question.language


def named_cards(ctx: NamedContext) -> tuple[NamedCard, ...]:
    """Every card the question names, answered: compared, fitted, or why it cannot be."""
    question = ctx.question
    names = list(question.compare) + ([question.owned_gpu] if question.owned_gpu else [])
    if not names:
        return ()
    priced: dict[str, Offer] = {}
    for offer in ctx.market.offers:
        if offer.condition == "new" or question.used_ok or offer.gpu.id not in priced:
            priced[offer.gpu.id] = offer
    drafts = [
        _named_one(ctx, asked, priced, asked == question.owned_gpu and asked not in question.compare)
        for asked in names
    ]
    lang = ctx.language
    return tuple(NamedCard(**{**draft, "reason": spoken(draft["reason"], lang)}) for draft in drafts)


Draft = dict[str, Any]  # a named card's fields, its reason still words to be said


def _named_one(ctx: NamedContext, asked: str, priced: dict[str, Offer], owned: bool) -> Draft:
    found = ctx.catalog.resolve(asked)
    gpu, mine = found.gpu, True if owned else UNSET
    if gpu is None and asked in ctx.rentable:
        return {
            "asked": asked,
            "gpu": None,
            "name": asked,
            "status": "compared",
            "reason": Phrase("named.rented_only", {"name": asked}),
            "owned": mine,
        }
    if gpu is None:
        return {
            "asked": asked,
            "gpu": None,
            "name": asked,
            "status": "not-in-catalog",
            "reason": Phrase("named.not_in_catalog", {"name": asked, "date": ctx.market.as_of.isoformat()}),
            "owned": mine,
        }
    card: dict[str, Any] = {
        "asked": asked,
        "gpu": gpu.id,
        "name": gpu.name,
        "memory_gb": gpu.memory_gb,
        "form_factor": gpu.form_factor,
        "relative_performance": round(ctx.sizing.relative(gpu), 3),
        "guessed": None if found.exact else found.note,
        "owned": mine,
    }
    if gpu.released > ctx.market.as_of:
        return dict(
            card,
            status="not-released",
            reason=Phrase(
                "named.not_released",
                {
                    "name": gpu.name,
                    "released": gpu.released.isoformat(),
                    "date": ctx.market.as_of.isoformat(),
                },
            ),
        )
    return _judged(ctx, gpu, card, priced.get(gpu.id))


def _judged(ctx: NamedContext, gpu: Gpu, card: dict[str, Any], offer: Offer | None) -> Draft:
    """A released card: does it hold the job at the count asked (else how many would), how fast, at what
    price."""
    question, sizing = ctx.question, ctx.sizing
    count = question.count_of(card["asked"]) or max(question.gpus, 1)  # "2x 3090 vs a 5090": each its own
    if gpu.withdrawn is not None and gpu.withdrawn <= ctx.market.as_of:
        card["withdrawn"] = gpu.withdrawn.isoformat()
    fit = sizing.fit(gpu.memory_gb, count)
    enough = (
        (count if fit.fits else None)  # a whole computer: a second one's memory does not pool with it
        if gpu.unified_memory
        else next((n for n in range(count, 9) if sizing.fit(gpu.memory_gb, n).fits), None)
    )
    tps = sizing.tokens_per_second(gpu, enough or count)
    card["cards_needed"] = enough
    if enough is None and (sizing.job.pooling == "none" or gpu.unified_memory):
        card["splits"] = False
    card["tokens_per_second"] = round(tps, 1) if tps else UNSET
    built = enough or count
    refused = sizing.build(gpu, built) if built > 1 else None
    unbuildable: Text = (
        Phrase("named.refused", {"count": built, "name": gpu.name, "why": refused}) if refused else ""
    )
    sibling = _buildable_form(ctx, gpu, built) if refused else None
    if sibling is not None:  # the Max-Q or Server Edition of an open-air workstation card
        card["built_as"] = sibling.name
        unbuildable += Phrase("named.built_as", {"count": built, "name": sibling.name})
    if offer is not None:
        card["price"] = NamedPrice(round(offer.unit_usd, 2), offer.point.seen.isoformat(), offer.point.kind)
    cards: dict[str, Text] = {
        "need": _need_text(ctx),
        "count": Counted(count),
        "gb": f"{gpu.memory_gb:g}",
        "name": gpu.name,
    }
    if not fit.fits:
        return _not_held(ctx, gpu, card, (count, enough, fit.sharded), cards, unbuildable)
    speed = Phrase(
        "named.speed", {"relative": f"{card['relative_performance']:.2f}", "reference": ctx.reference.name}
    ) + (Joined((", ", Phrase("pick.tokens", {"tokens": f"{tps:.0f}"}))) if tps else "")
    unpriced = "" if offer is not None else _unpriced(ctx, gpu)
    if question.model or question.params_b or question.memory_gb:  # a fit question: the fit is the answer
        holds: Text = Phrase("named.holds" if count == 1 else "named.hold", {**cards})
        if fit.headroom < ctx.rulebook.memory_fit.tight_headroom:  # nothing to spare: "only just", not "yes"
            card["spare"] = round(max(fit.headroom, 0.0), 3)
            holds += Phrase("named.only_just", {"spare": spare_text(card["spare"])})
        priced_said: Text = Joined(("; ", unpriced)) if unpriced else ""
        return dict(card, status="fits", reason=Joined((holds, " (", speed, priced_said, ")", unbuildable)))
    room = _room(ctx, gpu.memory_gb, count)
    if offer is None:
        reason = Joined((gpu.name, ": ", unpriced, "; ", speed, room, unbuildable))
        return dict(card, status="no-current-price", reason=reason)
    memory = memory_words(gpu.memory_gb)
    reason = Joined((gpu.name, ": ", speed, ", ", memory, room, _priced(ctx, offer, count), unbuildable))
    return dict(card, status="compared", reason=reason)


def _not_held(
    ctx: NamedContext,
    gpu: Gpu,
    card: dict[str, Any],
    counts: tuple[int, int | None, bool],
    cards: dict[str, Text],
    unbuildable: Text,
) -> Draft:
    """A card that does not hold the job at the count asked (``counts``: asked, enough, sharded): how many
    would, the lower precision one card holds where the engine chose it, and for a mixture of experts run
    by llama.cpp that its experts can stay in system RAM (--cpu-moe / --n-cpu-moe, 2025-08)."""
    count, enough, sharded = counts
    job = ctx.sizing.job
    many = (
        Phrase("named.enough", {"count": Counted(enough)})
        if enough
        else (Phrase("named.not_even_eight") if count < 8 and sharded and not gpu.unified_memory else "")
    )
    lower = held_lower(ctx.lower_needs, ctx.rulebook, job, gpu.memory_gb) if count == 1 else None
    held: Text = ""
    if lower is not None:
        card["at_lower"], card["at_lower_gb"] = lower.precision, round(lower.gb, 1)
        if lower.offloaded:
            card["offloaded"] = True
        key = "named.held_offloaded" if lower.offloaded else "named.held_lower"
        held = Phrase(key, {"precision": lower.precision, "gb": f"{lower.gb:.0f}"})
    if job.experts_in_ram and not gpu.unified_memory:  # a unified-memory computer has no other RAM to use
        card["experts_in_ram"] = True
        held += Phrase("named.moe_offload")
    key = "named.does_not_hold" if count == 1 else "named.do_not_hold"
    reason = Phrase(key, {"many": many, **cards}) + held + unbuildable
    return dict(card, status="does-not-fit", reason=reason)


def _buildable_form(ctx: NamedContext, gpu: Gpu, count: int) -> Gpu | None:
    """Another form of the card (a blower or passive version), released by the date, that ``count`` of go in
    one machine, or None."""
    as_of = ctx.market.as_of
    forms = ctx.catalog.other_forms(gpu)
    return next((g for g in forms if g.released <= as_of and not ctx.sizing.build(g, count)), None)


def _unpriced(ctx: NamedContext, gpu: Gpu) -> Text:
    """Why a named card has no current price: its last price seen and when, or that none was ever known."""
    last = ctx.pricing.last_known(gpu)
    if not last:
        return Phrase("named.no_price")
    return Phrase(
        "named.last_seen",
        {
            "date": last.seen.isoformat(),
            "price": ctx.pricing.text(last.price_usd, last),
            "kind": Term("price.kind", last.kind),
        },
    )


def _priced(ctx: NamedContext, offer: Offer, count: int) -> Text:
    """ "; 2,550 USD (new), 50 USD over the budget": a named card's price is half of what the asker weighs; an
    aged, estimated or quoted one says what it is and how old, as the picks' prices do."""
    question, pricing = ctx.question, ctx.pricing
    total = offer.unit_usd * count
    money = pricing.money(total, offer.point)
    kind: Text = Term("price.kind", offer.point.kind)
    if money.age_months is not None or money.estimate or money.kind == "quote":  # never shown as today's
        kind = Joined(dated_words(money), ", ")
    text: Text = Phrase(
        "named.price",
        {
            "count": f"{count} × " if count > 1 else "",
            "amount": f"{money.amount:,.0f}",
            "currency": money.currency,
            "kind": kind,
        },
    )
    if question.budget and total > pricing.to_usd(question.budget) * BUDGET_SLACK:
        text += Phrase(
            "named.over_budget",
            {"over": f"{money.amount - question.budget:,.0f}", "currency": money.currency},
        )
    return text


def _room(ctx: NamedContext, memory_gb: float, count: int) -> Text:
    """For an LLM compare with no model named, the largest dense model the cards hold: speed alone hides the
    trade people weigh (an RTX 5090 is faster; a 128 GB DGX Spark holds models the 5090 cannot)."""
    question = ctx.question
    if question.workload != "llm" or question.model or question.params_b or question.memory_gb:
        return ""
    largest = _largest_model_b(ctx, memory_gb, count)
    if largest is None:
        return ""
    job = job_for(question.refined(params_b=largest), ctx.rulebook)
    return Phrase(
        "named.room",
        {
            "params": f"{largest:g}",
            "precision": Term("precision", job.precision),
            "method": Term("method", METHOD_NAMES[job.method]),
            "context": f"{job.context_tokens:,}",
        },
    )


def _largest_model_b(ctx: NamedContext, memory_gb: float, count: int) -> float | None:
    """Largest dense model size (billions, two significant figures) whose job, as asked, fits: fit grows with
    size from 1B, where a model is fine-tuned by the method of the larger ones (below it, in full)."""

    def fits(params_b: float) -> bool:
        return fit_on(job_for(ctx.question.refined(params_b=params_b), ctx.rulebook), memory_gb, count).fits

    low, high = 1.0, 2000.0
    if not fits(low):
        return None
    for _ in range(14):  # to well under 1 %: sizes then round down to two figures
        middle = (low * high) ** 0.5
        low, high = (middle, high) if fits(middle) else (low, middle)
    digits = 10 ** (len(str(int(low))) - 2) if low >= 100 else 1
    return float(int(low // digits * digits)) if low >= 10 else round(int(low * 10) / 10, 1)


def card_memory(stages: Stages, rulebook: Rulebook) -> tuple[NamedCard, ...]:
    """ "Will llama 13b fit on 8 GB": whether a card (or the cards asked for) of that memory holds the job
    (as the stages sized it); where it does not at the precision the engine chose, what the job needs at the
    lower ones people use."""
    question, fit, lower = stages.question, stages.card_fit, stages.lower_needs
    gb = question.card_memory_gb
    if not gb or fit is None:
        return ()
    count = max(question.gpus, 1)
    lang = question.language
    cards = (
        Phrase("fit.cards", {"count": count, "gb": f"{gb:g}"})
        if count > 1
        else Phrase("fit.one_card", {"gb": f"{gb:g}"})
    )
    verdict = Phrase(("fit.holds" if fit.fits else "fit.does_not_hold") + ("_many" if count > 1 else ""))
    held = None if fit.fits or count > 1 else held_lower(lower, rulebook, stages.sizing.job, gb)
    reason = Phrase("fit.card_memory", {"cards": cards, "verdict": verdict, "reason": fit.said}) + (
        "" if fit.fits else _at_lower_precisions(lower)
    )
    return (
        NamedCard(
            asked=f"{gb:g} GB",
            gpu=None,
            name=spoken(cards, lang),
            status="fits" if fit.fits else "does-not-fit",
            reason=spoken(reason, lang),
            at_lower=held.precision if held else UNSET,
            at_lower_gb=round(held.gb, 1) if held else UNSET,
            offloaded=True if held and held.offloaded else UNSET,
        ),
    )


def _at_lower_precisions(lower: tuple[tuple[str, Need], ...]) -> Text:
    """ "; at 8-bit it needs about 15 GB; at 4-bit it needs about 9 GB", for a model run at a precision the
    question as asked left to the engine."""
    said = [Phrase("verdict.at_precision", {"precision": p, "gb": f"{need.gb:.0f}"}) for p, need in lower]
    return Joined(tuple(Joined(("; ", s)) for s in said))


class HeldLower(NamedTuple):
    """A lower precision one card holds a job at: whole, or (an image model) with the rest in system RAM."""

    precision: str
    gb: float
    offloaded: bool


def held_lower(
    lower: tuple[tuple[str, Need], ...], rulebook: Rulebook, job: Job, memory_gb: float
) -> HeldLower | None:
    """The first lower precision one card of ``memory_gb`` holds, for a card that does not hold the job at the
    engine's precision ("is a 12 GB RTX 3060 enough for FLUX.1 dev?": yes, from a 4-bit checkpoint); for an
    image or video model that no precision fits whole, the lowest where the card holds enough of it to run
    the rest from system RAM (rule memory-fit, diffusion offload); None where none does or the asker set the
    precision."""
    card_gb = memory_gb * GIB_IN_GB
    held = next((HeldLower(p, need.gb, False) for p, need in lower if need.gb <= card_gb), None)
    if held is not None or not lower or job.model is None or job.model.kind != "diffusion":
        return held
    precision, need = lower[-1]
    if need.parts is None:
        return None
    share = rulebook.memory_fit.diffusion_offload_resident_share
    resident = need.parts.activations + need.parts.runtime + need.parts.weights * share
    return HeldLower(precision, need.gb, True) if resident <= card_gb else None


def _need_text(ctx: NamedContext) -> Text:
    question = ctx.question
    job = job_for(question, ctx.rulebook)
    what: Text = (
        job.model.name
        if job.model
        else (f"{question.params_b:g}B" if question.params_b else Phrase("named.the_job"))
    )
    return Phrase(
        "named.need",
        {
            "what": what,
            "method": Term("method", job.method),
            "precision": (question.weight_format if job.method == "inference" else None) or job.precision,
            "gb": f"{job.need.gb:.0f}",
        },
    )


def sold_alone(
    catalog: Catalog,
    question: Question,
    named: tuple[NamedCard, ...],
    boards_for: Callable[[Gpu], tuple[int, ...] | None],
) -> tuple[NamedCard, ...]:
    """A module named for fewer cards than a board holds, outside a server question ("rent or buy an
    h100"), means the card its chip is sold alone as (rule product-lines: modules come as whole boards)."""
    if question.setting == "server":
        return named
    read: list[NamedCard] = []
    for card in named:
        gpu = catalog.gpu(card.gpu) if card.gpu else None
        sizes = boards_for(gpu) if gpu is not None else None
        alone = catalog.card_forms(gpu) if gpu is not None and sizes else ()
        if sizes and question.gpus < min(sizes) and alone:
            read.extend(with_changes(card, gpu=form.id) for form in alone)
        else:
            read.append(card)
    return tuple(read)


def tpu_chips(catalog: Catalog) -> dict[str, TpuChip]:
    """Every Cloud TPU of the catalog as the performance model sees it."""
    chips = {}
    for tpu_id, spec in catalog.tpus.items():
        tensor = {"bf16": spec.bf16_tflops, "fp16": spec.bf16_tflops}
        if spec.int8_tops:
            tensor["int8"] = spec.int8_tops
        chips[tpu_id] = TpuChip(
            spec.id,
            spec.name,
            spec.hbm_gb,
            spec.bandwidth_gb_s or 0.0,
            MappingProxyType(tensor),
            spec.bf16_tflops / 3,
            spec.bf16_tflops,
        )
    return chips


def tpu_named(catalog: Catalog, name: str) -> TpuChip | None:
    """ "tpu v5e", "Cloud TPU v6e", "trillium" -> the chip."""
    key = _key(name).removeprefix("google").removeprefix("cloud")
    for chip in tpu_chips(catalog).values():
        nicknames = {_key(n) for n in re.findall(r"\((\w+)\)", chip.name)}
        if key and key in {_key(chip.id), _key(chip.name.split("(")[0]).removeprefix("cloud")} | nicknames:
            return chip
    return None


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def named_units(catalog: Catalog, names: Sequence[str]) -> frozenset[str]:
    """Catalog GPU and TPU ids of the accelerators the asker named."""
    found = ((tpu_named(catalog, name) or catalog.find(name)) for name in names or ())
    return frozenset(unit.id for unit in found if unit is not None)
