"""The stages of one question up to what holds its job, made once and handed on as one value.

:func:`configured` runs them in order: the market of the date, who asks, the job (with what a memory-bound
job's memory is valued against, its needs at lower precisions where cards are judged, and its memory floor),
the rules' terms, the configurations that hold the job (with those the rules keep, whether cards of a memory
the question said hold it, and the rentals that hold it where renting is weighed). Everything after (the
named cards, the choice, renting, the explanation, the answer) reads the :class:`Stages` it returns and the
:class:`Known` it was made from, and calls nothing back here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import partial
from typing import TYPE_CHECKING

from rules.asker import Asker, asker_for
from rules.configurations import (
    Configuration,
    Fit,
    Left,
    Rentable,
    Sizing,
    configure,
    fit_on,
    kept_configurations,
    rentables,
    sizing_for,
)
from rules.contract.values import MAX_GPUS
from rules.job import Job, job_for, lower_needs, memory_reference
from rules.job_defaults import workload_key
from rules.memory_terms import floor_for
from rules.terms import Terms, TermsContext, Wait, terms_for

if TYPE_CHECKING:
    from rules.contract.question import Question
    from rules.knowledge import Catalog, Gpu, Rulebook
    from rules.market import Market, Markets, Offer
    from rules.money import Pricing
    from rules.need import Need
    from rules.performance import PerformanceModel

__all__ = ["Known", "Stages", "configured"]


@dataclass(frozen=True)
class Known:
    """What every question reads and none changes: one snapshot of the engine's knowledge."""

    catalog: Catalog
    rulebook: Rulebook
    performance: PerformanceModel
    reference: Gpu  # the card every speed is relative to
    markets: Markets
    electricity_usd_per_kwh: float


@dataclass(frozen=True)
class Stages:
    """What one question's stages made, up to the configurations."""

    question: Question  # with the engine's defaults filled in
    as_of: date
    market: Market
    asker: Asker
    job: Job
    work: str  # the performance model's workload
    terms: Terms
    sizing: Sizing
    configs: tuple[Configuration, ...]  # every configuration that holds the job
    kept: tuple[Configuration, ...]  # those every filter of the rules that applies to them passes
    excluded: tuple[Left, ...]  # cards no allowed count of which holds the job
    pricing: Pricing  # the market's prices in the asker's currency, new only or also used as asked
    # the job's need at the 8- and 4-bit precisions below the engine's, where the asker left it open
    lower_needs: tuple[tuple[str, Need], ...] = ()
    card_fit: Fit | None = (
        None  # whether cards of the memory the question said hold the job, as many as asked
    )
    rentable: tuple[Rentable, ...] = ()  # where the rules weigh renting: the rentals that hold the job
    # rule persona-already-own: keep the card you have, the more so where it holds the model asked about
    wait: Wait | None = None


def configured(question: Question, as_of: date, known: Known, asked: Question | None = None) -> Stages:
    """The stages up to the configurations: the market, who asks, the job, the rules' terms, what holds the
    job; ``asked``: the question before the engine's defaults (the precision the asker left open)."""
    market, largest, placeable, pricing = _market(question, as_of, known)
    rulebook, catalog, machine = known.rulebook, known.catalog, known.rulebook.one_machine
    owned = catalog.resolve(question.owned_gpu).gpu if question.owned_gpu else None
    asker = asker_for(question, pricing, rulebook, owned)
    job = job_for(question, rulebook, tuple(p.min_memory_gb for p in asker.personas if p.min_memory_gb))
    reference = memory_reference(question, job, rulebook, as_of)  # what a memory-bound job's memory is worth
    judged = question.compare or question.owned_gpu or question.card_memory_gb  # at lower precisions too
    lower = lower_needs(asked or question, rulebook) if judged else ()
    learning = any(p.rule == "persona-beginner" for p in asker.personas)  # runs more than the model named
    floor = floor_for(question, job, rulebook, as_of, reference, learning)
    work = workload_key(question.workload, question.task)
    days = (rulebook.persona_already_own.seed_date, as_of) if owned is not None else ()
    speed = partial(known.performance.relative, workload=work, precision=job.compute_precision)
    midrange = {day: known.markets.on(day).midrange(speed) for day in days}
    terms = terms_for(
        TermsContext(
            question,
            asker,
            job,
            as_of,
            rulebook,
            known.performance,
            work,
            catalog.gpu,
            midrange,
            reference,
            floor,
        )
    )
    sizing = sizing_for(question, job, work, terms, known.performance, largest, systems=market.systems)
    most = machine.gpus_per_machine if question.setting in (None, "desktop") else machine.gpus_per_server
    # a server is built to hold several; users' speed may need more cards than the fewest that hold
    every = question.setting == "server" or bool(job.serving_need)
    counts = question.gpus if question.gpus_fixed else most  # the most cards a configuration may have
    configs, excluded = configure(placeable, sizing, question.gpus, counts, every_count=every)
    gb = question.card_memory_gb  # "will llama 13b fit on 8 GB": whether cards of that memory hold the job
    card = sizing.fit(gb, max(question.gpus, 1)) if gb else None
    holds = owned is not None and terms.wait_holding is not None and fit_on(job, owned.memory_gb, 1).fits
    rentable = rentables(market.rentals, sizing, MAX_GPUS) if terms.rent else ()
    return Stages(
        question,
        as_of,
        market,
        asker,
        job,
        work,
        terms,
        sizing,
        tuple(configs),
        kept_configurations(configs, terms.keeps),
        tuple(excluded),
        pricing,
        lower,
        card,
        rentable,
        terms.wait_holding if holds else terms.wait,
    )


def _market(
    question: Question, as_of: date, known: Known
) -> tuple[Market, float, tuple[Offer, ...], Pricing]:
    """The market of the question's date (new cards only, where asked), the most memory a card of its setting
    has, the offers it can place, and the prices in the asker's currency."""
    market = known.markets.on(as_of)
    if question.new_only:
        market = market.new_only()
    largest, placeable = market.largest_gb(question.setting), market.placeable(question.setting)
    return market, largest, placeable, market.pricing(question.currency, question.used_ok)
