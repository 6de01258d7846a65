"""The advisor: the best configuration for a question, and why.

:class:`Advisor` holds one snapshot of what the engine knows — the catalog, the rulebook, lab measurements,
the electricity price — and answers questions over it without I/O, so the service can keep one in memory and
rebuild it only when the data change. :meth:`Advisor.recommend` runs the stages in this order, each once:

    market -> asker -> job -> terms -> configurations (:mod:`rules.stages`) -> named cards -> choice
    -> electricity -> rent -> explain -> what the pick costs to run -> assemble

The only thing remembered between questions is the market of each date asked about
(:class:`~rules.market.Markets`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from rules.assemble import Made, assembled, compared
from rules.choose import bought_first, chosen, named_configurations
from rules.configurations import Fit, fit_on
from rules.contract.answer import Answer, CardRow
from rules.contract.question import Question
from rules.explain import evidence_for, explain
from rules.job import job_for, raised, settled
from rules.job_defaults import workload_key
from rules.jobcost import running_costs
from rules.knowledge.loaded import load_rulebook
from rules.knowledge.messages import Phrase
from rules.knowledge.rulebook import Rulebook
from rules.market import Markets, representative_rentals
from rules.named import NamedContext, card_memory, named_cards, named_units, sold_alone, tpu_chips, tpu_named
from rules.need import Need
from rules.objective import Choice, objective_for
from rules.performance import Measured, PerformanceModel
from rules.rent import electricity_for, rent_or_buy
from rules.runs_on import runs_on_asked
from rules.shown import shown
from rules.stages import Known, Stages, configured
from rules.terms import Keep

if TYPE_CHECKING:
    from rules.contract.answer import MemoryNeed
    from rules.knowledge import Catalog

__all__ = ["Advisor"]

# The lighter fine-tuning methods to fall back to, in order, where the budget buys nothing for the one chosen.
LIGHTER_METHODS = {"train": ("lora", "qlora"), "full": ("lora", "qlora"), "lora": ("qlora",)}


class Advisor:
    def __init__(
        self,
        catalog: Catalog,
        measurements: Mapping[str, Measured] | None = None,
        electricity_usd_per_kwh: float = 0.15,
        rulebook: Rulebook | None = None,
    ) -> None:
        self.catalog = catalog
        self.rulebook = rulebook or load_rulebook()
        self.electricity = electricity_usd_per_kwh
        self.reference = catalog.gpu(self.rulebook.workload_priorities.reference_gpu)
        self.performance = PerformanceModel(self.rulebook, self.reference, measurements, gpu_of=catalog.gpu)
        self.lab_gpus = tuple(sorted(measurements or ()))  # the cards the lab's hosts measured
        chips = tpu_chips(catalog)
        self.markets = Markets(
            catalog, self.rulebook, lambda cat, rules, day: representative_rentals(cat, rules, day, chips)
        )
        self.memory = _MemoryFit(self.rulebook)
        self.known = Known(
            catalog,
            self.rulebook,
            self.performance,
            self.reference,
            self.markets,
            self.electricity,
        )

    def recommend(self, question: Question, intent: str = "recommend", today: date | None = None) -> Answer:
        """The best configuration within the budget, its alternatives and every named card; never raises
        for an impossible question, says so instead."""
        as_of = question.as_of or today or date.today()
        return self._with_adapters(question, intent, as_of, self._answer(question, intent, as_of))

    def _answer(
        self, question: Question, intent: str, as_of: date, instead: tuple[str, float] | None = None
    ) -> Answer:
        """The stages in order, each once: what holds the job, the cards named, the choice (or the named cards
        side by side), renting, the explanation, what serving and the run cost, the answer (``instead``: the
        method a lighter one is answered in place of, and its need)."""
        stages = self._staged(question, as_of)
        asked, question, market, sizing = question, stages.question, stages.market, stages.sizing
        rentable = frozenset(name for name in question.compare if tpu_named(self.catalog, name) is not None)
        units = named_units(self.catalog, question.compare)  # the GPUs and TPUs named, as catalog ids
        judged = NamedContext(
            question,
            market,
            stages.pricing,
            sizing,
            self.catalog,
            self.rulebook,
            self.reference,
            rentable,
            stages.lower_needs,
        )
        named = named_cards(judged) + card_memory(stages, self.rulebook)
        alone = sold_alone(self.catalog, asked, named, stages.terms.boards_for)
        choice: Choice | None = None
        objective = objective_for(stages, self.rulebook)  # what the choice weighs
        if intent == "compare" and question.compare:
            side, cuda_first = bought_first(
                stages, named_configurations(question, market.offers, named, sizing), named
            )
            shown_configs = tuple(c for c, _ in side)
            top = max(shown_configs, key=lambda c: (c.relative, c.gpu.id)) if side else None
        else:
            choice = chosen(stages, stages.kept, objective, self.rulebook.vendor_nvidia, intent, alone)
            picks = shown(choice, objective.cheapest)
            shown_configs = tuple(c for c, _ in picks)
            top = None if question.setting == "cloud" else choice.top
        bought = (top, choice.top if choice is not None else None)  # what renting, serving and the run weigh
        electricity = electricity_for(stages, self.known, bought)
        rent = rent_or_buy(stages, self.known, top, electricity, units) if stages.terms.rent else None
        explained = explain(evidence_for(stages, self.known, choice, shown_configs, named))
        # what serving and the run cost, and what runs on the cards, for the pick (a comparison weighs none)
        serving, job_cost = (
            running_costs(stages, self.known, choice.top, electricity) if choice is not None else (None, None)
        )
        runs = (
            runs_on_asked(question, self.catalog, self.rulebook, self.performance, self.lab_gpus)
            if intent == "what-runs-on"
            else ()
        )
        made = Made(stages, self.known, intent, named, rent, serving, job_cost, runs, instead)
        return (
            compared(made, side, cuda_first, explained)
            if choice is None
            else assembled(made, choice, picks, explained, stages.excluded)
        )

    def _placed(self, question: Question) -> Question:
        """Cards named that only a server takes ("rent or buy an h100") place the question in a server."""
        if question.setting is not None or not question.compare:
            return question
        cards = [self.catalog.find(name) for name in question.compare]
        if all(gpu is not None and gpu.server_only for gpu in cards):
            return dataclasses.replace(question, setting="server")
        return question

    def _staged(self, question: Question, as_of: date) -> Stages:
        """The stages, in a server when no desk build holds the job and the question named no place or
        count: 600 GB of weights is an 8-GPU server's job, not 'nothing holds it' (rule one-machine)."""
        asked = question  # before the engine's defaults: the precision the asker left open
        placed = self._placed(question)
        question = settled(placed, self.rulebook)
        free = question.setting is None and not question.gpus_fixed
        made: list[Stages] = []
        for tried in (question, question.refined(setting="server")) if free else (question,):
            made.append(configured(tried, as_of, self.known, asked))
            if made[0].configs:
                break
        desk, server = made[0], made[-1]
        if desk.configs or not server.configs or server is desk:
            return desk
        need, cards = f"{desk.job.need.gb:,.0f}", self.rulebook.one_machine.gpus_per_machine
        said = Phrase("rule.one_machine.no_desk", {"need": need, "gpus": cards})
        line = Keep("one-machine", lambda c: True, said, when="always")
        terms = dataclasses.replace(server.terms, keeps=(*server.terms.keeps, line))
        return dataclasses.replace(server, terms=terms)

    def _with_adapters(self, question: Question, intent: str, as_of: date, answer: Answer) -> Answer:
        """Fine-tuning a named model with no method said: when the method the engine chose fits nothing within
        the budget, the answer is for the next lighter one that does, and says so, as an adviser would
        (Whisper large: ~59 GB in full, ~21 GB with LoRA on a 16-bit base; an 8B model: ~18 GB with LoRA,
        ~6 GB with QLoRA on a 4-bit base)."""
        heavier = answer.memory_need.method
        if (
            answer.verdict != "over-budget"
            or question.method is not None
            or question.task != "training"
            or intent != "recommend"
            or heavier not in LIGHTER_METHODS
            or answer.memory_need.model is None
        ):
            return answer
        for method in LIGHTER_METHODS[heavier]:
            instead = (heavier, answer.memory_need.gb)
            lighter = self._answer(question.refined(method=method), intent, as_of, instead)
            if lighter.verdict == "buy":
                return lighter
        return answer

    def card_rows(
        self,
        workload: str,
        as_of: date,
        currency: str = "USD",
        used_ok: bool = False,
        precision: str = "16-bit",
        task: str = "training",
    ) -> tuple[CardRow, ...]:
        """Every released card's relative performance, price and performance per 1000 units
        (the chart data)."""
        market = self.markets.on(as_of)
        pricing = market.pricing(currency, used_ok)
        work = workload_key(workload, task)
        rows = []
        for gpu in self.catalog.released_by(as_of):
            relative = self.performance.relative(gpu, work, precision)
            point = market.best_price(gpu, used_ok)
            price = pricing.money(point.price_usd, point) if point else None
            rows.append(
                CardRow(
                    gpu=gpu.id,
                    name=gpu.name,
                    vendor=gpu.vendor,
                    memory_gb=gpu.memory_gb,
                    relative_performance=round(relative, 3),
                    performance_basis="measured" if self.performance.is_measured(gpu.id) else "estimated",
                    price=price,
                    performance_per_1000=round(relative / price.amount * 1000, 3) if price else None,
                )
            )
        return tuple(sorted(rows, key=lambda r: (-r.relative_performance, r.gpu)))


@dataclass(frozen=True)
class _MemoryFit:
    """Whether N cards of a size hold a question's job (the page's chart marks the cards that do)."""

    rulebook: Rulebook

    def fit(self, question: Question, need: MemoryNeed, memory_gb: float, gpus: int) -> Fit:
        job = job_for(question, self.rulebook)
        if need.gb != job.need.gb:  # a floor raised the need
            job = raised(job, Need(need.gb, need.how, need.model, need.parts))
        return fit_on(job, memory_gb, gpus)
