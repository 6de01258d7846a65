"""The advisor: the best configuration for a question, and why.

:class:`Advisor` holds one snapshot of what the engine knows — the catalog, the rulebook, lab measurements,
the electricity price — and answers questions over it without I/O, so the service can keep one in memory and
rebuild it only when the data change. :meth:`Advisor.recommend` runs the stages in this order:

    asker -> job -> market -> terms -> configurations -> named cards -> choice -> rent -> explain -> assemble

The only thing remembered between questions is the market of each date asked about
(:class:`~rules.market.Markets`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from functools import partial
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec.structs import replace as with_changes

from rules.asker import Asker, asker_for
from rules.assemble import Made, assembled, compared, shown
from rules.choose import asked_first, choice_for, side_by_side
from rules.configurations import Configuration, Left, Sizing, configure, sizing_for
from rules.contract.answer import Answer, CardRow, Finding, JobCost, ServingCost
from rules.contract.question import Question
from rules.explain import Evidence, explain
from rules.headline import headline
from rules.job import METHOD_NAMES, Fit, Job, fit_on, job_for, raised, settled
from rules.job_defaults import workload_key
from rules.jobcost import JobAsked, measured_share, priced_job, serving_cost, transcription
from rules.knowledge.loaded import load_rulebook
from rules.knowledge.messages import Phrase, say, term
from rules.knowledge.rulebook import Rulebook
from rules.market import Market, Markets, representative_rentals
from rules.named import NamedContext, card_memory, named_cards, sold_alone
from rules.need import Need
from rules.objective import Choice, Objective
from rules.performance import Measured, PerformanceModel
from rules.rent import Renting, tpu_chips, tpu_named
from rules.runs_on import runs_on_asked
from rules.terms import Keep, Terms, TermsContext, kept_configurations, terms_for, workload_label

if TYPE_CHECKING:
    from rules.contract.answer import MemoryNeed
    from rules.knowledge import Catalog
    from rules.money import Pricing

__all__ = ["Advisor"]

# The lighter fine-tuning methods to fall back to, in order, where the budget buys nothing for the one chosen.
LIGHTER_METHODS = {"train": ("lora", "qlora"), "full": ("lora", "qlora"), "lora": ("qlora",)}


@dataclass(frozen=True)
class _Stages:
    """What one question's stages made, up to the configurations."""

    question: Question
    as_of: date
    market: Market
    asker: Asker
    job: Job
    work: str
    terms: Terms
    sizing: Sizing
    configs: tuple[Configuration, ...]
    excluded: tuple[Left, ...]
    pricing: Pricing  # the market's prices in the asker's currency, new only or also used as asked


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
        self.renting = Renting(self.rulebook, electricity_usd_per_kwh)
        chips = tpu_chips(catalog)
        self.markets = Markets(
            catalog, self.rulebook, lambda cat, rules, day: representative_rentals(cat, rules, day, chips)
        )
        self.memory = _MemoryFit(self.rulebook)

    def recommend(self, question: Question, intent: str = "recommend", today: date | None = None) -> Answer:
        """The best configuration within the budget, its alternatives and every named card; never raises
        for an impossible question, says so instead."""
        answer = self._answer(question, intent, question.as_of or today or date.today())
        if intent == "what-runs-on":
            runs = runs_on_asked(question, self.catalog, self.rulebook, self.performance, self.lab_gpus)
            answer = with_changes(answer, runs_on=runs)
            answer = with_changes(answer, headline=self._headline(answer))
        return self._with_adapters(question, intent, today, answer)

    def _answer(self, question: Question, intent: str, as_of: date) -> Answer:
        stages = self._sized(settled(self._placed(question), self.rulebook), as_of)
        asked, question, market, sizing = question, stages.question, stages.market, stages.sizing
        pricing = stages.pricing
        rentable = frozenset(name for name in question.compare if tpu_named(self.catalog, name) is not None)
        judged = NamedContext(question, market, pricing, sizing, self.catalog, self.rulebook, self.reference,
                              rentable, asked)  # fmt: skip
        named = named_cards(judged) + card_memory(question, sizing, self.rulebook, asked)
        if intent == "compare" and question.compare:
            return self._compared(stages, named)
        kept = kept_configurations(stages.configs, stages.terms.keeps)
        objective = self._objective(stages)
        params = self.rulebook.vendor_nvidia
        any_stack = stages.job.is_llm and stages.job.method == "inference"
        choice = choice_for(kept, objective, params, any_stack)
        if question.setting == "server" and question.shared and question.task == "training":
            choose_among = partial(choice_for, objective=objective, vendor=params, any_stack=any_stack)
            choice = side_by_side(choice, kept, choose_among, objective.headline)
        alone = sold_alone(self.catalog, asked, named, stages.terms.boards_for)
        choice = asked_first(choice, kept, objective, intent, alone, stages.terms.boards_for)
        # renting only, as asked: the rental that holds the job for least, weighed against nothing bought
        bought = None if question.setting == "cloud" else choice.top
        renting = self.renting
        rent = renting.rent_or_buy(market, question, pricing, sizing, bought) if stages.terms.rent else None
        made = self._made(stages, intent, named, rent)
        top = choice.top
        explained = explain(
            self._evidence(
                stages,
                choice,
                tuple(c for c, _ in shown(choice, objective.cheapest)),
                named,
                lambda gpu_id: top is not None and self._cheaper(market, pricing.used_ok, gpu_id, top),
            )
        )
        answer = assembled(made, choice, explained, stages.excluded)
        serving = self._served(stages, choice.top, pricing)
        if serving is not None:
            answer = with_changes(answer, serving_cost=serving)
        job_cost = self._priced_job(stages, choice.top, pricing)
        if job_cost is None:
            return answer
        answer = with_changes(answer, job_cost=job_cost)
        return with_changes(answer, headline=self._headline(answer))

    def _served(self, stages: _Stages, top: Configuration | None, pricing: Pricing) -> ServingCost | None:
        """A model served to its users: the pick bought against the same cards rented, for the period."""
        question = stages.question
        if not question.users or stages.job.method != "inference" or top is None:
            return None
        rental = next((r for r in stages.market.rentals if r.unit.id == top.gpu.id), None)
        power = self.renting.power_usd_per_hour(top.gpu, top.count)
        return serving_cost(
            (top.gpu, top.count, top.total_usd),
            rental,
            users=question.users,
            tokens_per_user=question.tokens_per_user
            or self.rulebook.workload_priorities.llm_decode.reading_tokens_per_second,
            months=question.service_months or 12,
            hours_per_week=question.hours_per_week or self.rulebook.rent_vs_buy.server_hours_per_week,
            pricing=pricing,
            power_usd_per_hour=power,
        )

    def _priced_job(self, stages: _Stages, top: Configuration | None, pricing: Pricing) -> JobCost | None:
        """A training run's tokens or a transcription's audio: its hours and cost on each way to run it."""
        question, job = stages.question, stages.job
        params_b = job.model.params_b if job.model is not None else question.params_b
        tokens_b, per_example = question.training_tokens_b, None
        if not tokens_b and question.examples:  # "on 50k examples for 3 epochs"
            per_example = self.rulebook.job_cost.tokens_per_example
            tokens_b = question.examples * per_example * (question.epochs or 1) / 1e9
        transcribed = transcription(question, job, self.rulebook.job_cost, self.catalog)
        work, basis = transcribed if transcribed is not None else (None, None)
        if work is None and (not tokens_b or not params_b or job.method == "inference"):
            return None
        owned = self.catalog.resolve(question.owned_gpu).gpu if question.owned_gpu else None
        point = None if owned is None else stages.market.best_price(owned, used_ok=True)
        asked = JobAsked(
            params_b=params_b or 0.0,
            tokens_b=tokens_b or 0.0,
            method=job.method,
            model=job.model,
            top=None if top is None else (top.gpu, top.count, top.total_usd),
            owned=owned,
            owned_count=question.gpus if owned is not None else 1,
            owned_price_usd=None if point is None else point.price_usd,
            hours_per_week=self.renting.hours_per_week(question)[0],
            named=tuple(
                (gpu, question.gpus)
                for name in question.compare
                if (gpu := self.catalog.find(name)) is not None
            ),
            work=work,
        )
        sizing = stages.sizing
        priced = priced_job(
            asked,
            rulebook=self.rulebook,
            pricing=pricing,
            rentals=stages.market.rentals,
            fit=lambda memory_gb, count: sizing.fit(memory_gb, count).fits,
            electricity_usd_per_kwh=self.electricity,
            tpu_suits=question.workload in self.rulebook.tpu_fit.good_for,
            measured=measured_share(self.performance, self.rulebook),
        )
        if basis is not None:
            return with_changes(priced, basis=basis)
        if per_example is None:
            return priced
        return with_changes(
            priced, examples=question.examples, tokens_per_example=per_example, epochs=question.epochs or 1
        )

    def _placed(self, question: Question) -> Question:
        """Cards named that only a server takes ("rent or buy an h100") place the question in a server."""
        if question.setting is not None or not question.compare:
            return question
        cards = [self.catalog.find(name) for name in question.compare]
        if all(gpu is not None and gpu.server_only for gpu in cards):
            return dataclasses.replace(question, setting="server")
        return question

    def _sized(self, question: Question, as_of: date) -> _Stages:
        """The stages, in a server when no desk build holds the job and the question named no place or
        count: 600 GB of weights is an 8-GPU server's job, not 'nothing holds it' (rule one-machine)."""
        stages = self._configured(question, as_of)
        if stages.configs or question.setting is not None or question.gpus_fixed:
            return stages
        server = self._configured(question.refined(setting="server"), as_of)
        if not server.configs:
            return stages
        need, desk = f"{stages.job.need.gb:,.0f}", self.rulebook.one_machine.gpus_per_machine
        said = Phrase("rule.one_machine.no_desk", {"need": need, "gpus": desk})
        line = Keep("one-machine", lambda c: True, said, when="always")
        terms = dataclasses.replace(server.terms, keeps=(*server.terms.keeps, line))
        return dataclasses.replace(server, terms=terms)

    def _configured(self, question: Question, as_of: date) -> _Stages:
        """The stages up to the configurations: who asks, the job, the market, the rules' terms,
        what holds the job."""
        market = self.markets.on(as_of)
        if question.new_only:
            market = market.new_only()
        pricing = market.pricing(question.currency, question.used_ok)
        owned = self.catalog.resolve(question.owned_gpu).gpu if question.owned_gpu else None
        asker = asker_for(question, pricing, self.rulebook, owned)
        floors = tuple(p.min_memory_gb for p in asker.personas if p.min_memory_gb)
        job = job_for(question, self.rulebook, floors)
        work = workload_key(question.workload, question.task)
        days = (self.rulebook.persona_already_own.seed_date, as_of) if owned is not None else ()
        speed = partial(self.performance.relative, workload=work, precision=job.compute_precision)
        midrange = {day: self.markets.on(day).midrange(speed) for day in days}
        terms = terms_for(
            TermsContext(
                question,
                asker,
                job,
                as_of,
                self.rulebook,
                self.performance,
                work,
                self.catalog.gpu,
                midrange,
            )
        )
        largest = market.largest_gb(question.setting)
        sizing = sizing_for(question, job, work, terms, self.performance, largest, systems=market.systems)
        machine = self.rulebook.one_machine
        most = machine.gpus_per_machine if question.setting in (None, "desktop") else machine.gpus_per_server
        configs, excluded = configure(
            market.placeable(question.setting),
            sizing,
            question.gpus,
            question.gpus if question.gpus_fixed else most,
            # a server is built to hold several; users' speed may need more cards than the fewest that hold
            every_count=question.setting == "server" or bool(job.serving_need),
        )
        return _Stages(
            question,
            as_of,
            market,
            asker,
            job,
            work,
            terms,
            sizing,
            tuple(configs),
            tuple(excluded),
            pricing,
        )

    def _objective(self, stages: _Stages) -> Objective:
        """The choice's terms: used cards lead when asked for, for the cheapest way, and for a persona short
        on money or starting out on a budget (rule used-cards); a question with no budget prices its ladder
        new."""
        question, terms = stages.question, stages.terms
        used_ok = question.used_ok or stages.asker.on_a_budget or question.objective == "cheapest"
        return Objective(
            stages.asker.budget_usd,
            terms.floor,
            terms.threshold,
            used_ok,
            stages.pricing,
            terms.headline,
            terms.used.used_over,
            question.objective == "cheapest",
            not terms.used.new_only,
            terms.used.saving,
            self.rulebook.memory_value.roomier_premium,
            self.rulebook.cost_efficiency.same_price_share,
            self.rulebook.cost_efficiency.same_speed_share,
        )

    def _compared(self, stages: _Stages, named: tuple[Any, ...]) -> Answer:
        """The named cards side by side, each at the count that holds the job, a new price first."""
        question, sizing = stages.question, stages.sizing
        offers: dict[str, Any] = {}
        for o in stages.market.offers:  # a new price wins; a used one stands in when no new price is known
            if o.gpu.id not in offers or o.condition == "new":
                offers[o.gpu.id] = o
        configs: list[tuple[Configuration, str]] = []
        for entry in named:
            offer = offers.get(entry.gpu) if entry.gpu else None
            if (
                offer is None
                or entry.status == "not-released"
                or any(c.gpu.id == entry.gpu for c, _ in configs)
            ):
                continue
            asked = question.count_of(entry.asked)  # "2x 3090 vs a 5090": each card at its own count
            if asked is None or not sizing.fit(offer.gpu.memory_gb, asked).fits:
                asked = None  # a count that does not hold the job is said so; shown at one that does
            count = asked or entry.cards_needed or max(question.gpus, 1)
            fit = sizing.fit(offer.gpu.memory_gb, count)
            relative = sizing.relative(offer.gpu)
            speed = relative * (1.0 if fit.serial else sizing.speedup(count))
            configs.append(
                (
                    Configuration(
                        offer,
                        count,
                        offer.unit_usd * count,
                        relative,
                        speed,
                        fit,
                        sizing.tokens_per_second(offer.gpu, count),
                    ),
                    entry.status,
                )
            )
        pricing = stages.pricing
        top = max((c for c, _ in configs), key=lambda c: (c.relative, c.gpu.id)) if configs else None
        rent = (
            self.renting.rent_or_buy(stages.market, question, pricing, sizing, top)
            if stages.terms.rent
            else None
        )
        explained = explain(
            self._evidence(stages, None, tuple(c for c, _ in configs), named, lambda gpu_id: False)
        )
        return compared(self._made(stages, "compare", named, rent), configs, explained)

    def _made(self, stages: _Stages, intent: str, named: tuple[Any, ...], rent: Any) -> Made:
        question = stages.question
        return Made(
            question,
            intent,
            stages.as_of,
            stages.asker,
            stages.job,
            stages.pricing,
            stages.terms,
            self.rulebook,
            self.performance,
            self.reference,
            self.catalog.version,
            stages.work,
            workload_label(self.rulebook, stages.work),
            named,
            stages.sizing.factor,
            rent,
        )

    def _evidence(
        self,
        stages: _Stages,
        choice: Choice | None,
        shown_configs: tuple[Configuration, ...],
        named: tuple[Any, ...],
        cheaper: Any,
    ) -> Evidence:
        return Evidence(
            stages.question,
            stages.asker,
            stages.job,
            stages.terms,
            stages.sizing,
            self.rulebook,
            self.performance,
            self.reference,
            stages.work,
            workload_label(self.rulebook, stages.work),
            stages.configs,
            choice,
            shown_configs,
            named,
            stages.excluded,
            cheaper,
            stages.pricing,
        )

    def _with_adapters(self, question: Question, intent: str, today: date | None, answer: Answer) -> Answer:
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
            lighter = self.recommend(question.refined(method=method), intent, today)
            if lighter.verdict == "buy":
                said = say(
                    f"fit.{method}_instead",
                    question.language,
                    heavier=term("method", METHOD_NAMES[heavier], question.language),
                    need=f"{answer.memory_need.gb:.0f}",
                    light=f"{lighter.memory_need.gb:.0f}",
                )
                line = Finding("memory-fit", "applied", said)
                return msgspec.structs.replace(lighter, findings=(line, *lighter.findings))
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

    def _headline(self, answer: Answer) -> str:
        return headline(answer, self.reference.name, self.rulebook.cost_efficiency.same_speed_share)

    @staticmethod
    def _cheaper(market: Market, used_ok: bool, gpu_id: str, top: Configuration) -> bool:
        point = market.best_price(market.catalog.gpu(gpu_id), used_ok)
        return point is not None and point.price_usd < top.offer.unit_usd


@dataclass(frozen=True)
class _MemoryFit:
    """Whether N cards of a size hold a question's job (the page's chart marks the cards that do)."""

    rulebook: Rulebook

    def fit(self, question: Question, need: MemoryNeed, memory_gb: float, gpus: int) -> Fit:
        job = job_for(question, self.rulebook)
        if need.gb != job.need.gb:  # a floor raised the need
            job = raised(job, Need(need.gb, need.how, need.model, need.parts))
        return fit_on(job, memory_gb, gpus)
