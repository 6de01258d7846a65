"""The advisor: the best configuration for a question, and why.

:class:`Advisor` holds one snapshot of what the engine knows — the catalog, the
rulebook, lab measurements, the electricity price — and answers questions over
it without I/O, so the service can keep one in memory and rebuild it only when
the data change. A question flows one way: every rule's ruling on it (rules.advice,
through rules.registry) → offers on the date (rules.offers) → configurations of 1-8
cards that hold the job (rules.configurations) → the choice within the budget
(rules.ranking over rules.choose) → the verdict (rules.verdict), or the named cards
side by side (rules.compare), and rent or buy (rules.rent).
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import date
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Mapping

import msgspec

from rules import compare, ranking
from rules.answer import Answer, CardRow, Excluded, Finding, NamedCard, Pick, RentVsBuy
from rules.configurations import Configuration, Sizing, configure
from rules.job import POOLING, Job, but_budget, fit_on, job_for
from rules.memo import remember
from rules.memory import Fit, MemoryModel
from rules.messages import say, term
from rules.money import Pricing
from rules.offers import Offer, fits_setting, is_server_only, offers_at
from rules.performance import Measured, PerformanceModel, workload_key
from rules.question import Question
from rules.registry import SHAPES, Context, Rulings, apply
from rules.rent import Renting
from rules.rulebook import Rulebook, load_rulebook
from rules.verdict import fit_first, verdict

if TYPE_CHECKING:
    from rules.catalog import Catalog, Gpu, PricePoint

__all__ = ["Advisor"]

SHOWN_EXCLUSIONS = 8
# The question's parts the configurations read besides the job and the date: the setting (the offers, the counts,
# the build rules), the counts asked, memory asked, the language of the fit texts, and what names the job. The
# budget, currency, used cards, hours, objective, experience, owned and compared cards only weigh configurations.
_SHAPE = attrgetter("setting", "gpus", "gpus_fixed", "memory_gb", "language", "workload", "task", "model", "params_b",
                    "precision", "method", "context_tokens", "batch", "runtime")
CONFIGURATIONS_KEPT = 512  # questions (budget aside) whose configurations stay memoised, least recently used first out
SHAPES_KEPT = 8192  # questions (budget aside, its band kept) numbered for the memos of what follows from their rulings
PICKS_KEPT = 8192  # configurations shown as picks, with their rules' lines and prices


class Advisor:
    def __init__(self, catalog: Catalog, measurements: Mapping[str, Measured] | None = None,
                 electricity_usd_per_kwh: float = 0.15, rulebook: Rulebook | None = None) -> None:
        self.catalog = catalog
        self.rulebook = rulebook or load_rulebook()
        self.electricity = electricity_usd_per_kwh
        reference_id = self.rulebook.param("workload-priorities", "reference_gpu")
        self.reference = catalog.gpu(reference_id)
        self.performance = PerformanceModel(self.rulebook, self.reference, measurements, gpu_of=catalog.gpu)
        self.memory = MemoryModel(self.rulebook)
        self.renting = Renting(catalog, self.rulebook, self.performance, electricity_usd_per_kwh)
        self._price_cache: dict[tuple[date, bool], dict[str, PricePoint | None]] = {}
        self._pricings: dict[tuple[date, str, bool], Pricing] = {}
        self._defaults: dict[tuple[Any, ...], dict[str, Any]] = {}  # question but its budget -> what _settled fills in
        self._offer_table: dict[tuple[date, str | None], tuple[Offer, ...]] = {}
        self._refusals: dict[tuple[str, int, bool, str | None], str | None] = {}
        self._midrange_cache: dict[tuple[date, str, str], float] = {}
        self._largest: dict[int, tuple[tuple[Offer, ...], float]] = {}
        self._configurations: OrderedDict[tuple[Any, ...], tuple[Job, tuple[Configuration, ...], tuple[dict[str, Any], ...]]] = OrderedDict()
        self._shapes: dict[tuple[Any, ...], int] = {}
        self._picks: dict[tuple[Any, ...], tuple[Configuration, Pick]] = {}
        self._kept_table: dict[tuple[int, int], tuple[tuple[Configuration, ...], tuple[Configuration, ...], tuple[Finding, ...]]] = {}
        self._rents: dict[tuple[Any, ...], tuple[Configuration | None, RentVsBuy | None]] = {}
        self._labels = {k: v["label"] for k, v in self.rulebook.param("workload-priorities", "classes").items()}

    # -- public faces -------------------------------------------------------------------------

    def recommend(self, question: Question, intent: str = "recommend", today: date | None = None) -> Answer:
        """The best configuration within the budget, its alternatives and every named card; never raises
        for an impossible question, says so instead."""
        as_of = question.as_of or today or date.today()
        question = self._settled(question)
        work = workload_key(question.workload, question.task)
        pricing = self.pricing(as_of, question.currency, question.used_ok)
        ctx = self._context(question, as_of, pricing, work)
        try:
            answer = self._answer(ctx, intent, pricing)
        finally:
            ctx.release()
        return self._with_adapters(question, intent, today, answer)

    def _with_adapters(self, question: Question, intent: str, today: date | None, answer: Answer) -> Answer:
        """Fine-tuning a named model with no method said: when full training fits no configuration within the budget
        and LoRA does, the answer is for LoRA and says so, as an adviser would (Whisper large: ~59 GB in full, ~21 GB
        with LoRA on a 16-bit base)."""
        if (answer.verdict != "over-budget" or question.method is not None or question.task != "training" or intent != "recommend"
                or answer.memory_need.method not in ("train", "full") or answer.memory_need.model is None):
            return answer
        lighter = self.recommend(question.refined(method="lora"), intent, today)
        if lighter.verdict != "buy":
            return answer
        line = Finding("memory-fit", "applied", say("fit.adapters_instead", question.language, full=f"{answer.memory_need.gb:.0f}",
                                                    lora=f"{lighter.memory_need.gb:.0f}"))
        return msgspec.structs.replace(lighter, findings=(line, *lighter.findings))

    def _answer(self, ctx: Context, intent: str, pricing: Pricing) -> Answer:
        question, as_of, work = ctx.question, ctx.as_of, ctx.work
        rulings = self._ruled(ctx)
        # used cards lead when asked for, for the cheapest way, and for a persona short on money or starting out on a
        # budget (rule used-cards): a question with no budget says nothing about money, so its ladder is priced new
        on_a_budget = ctx.budget_usd is not None and any(p.consider_used for p in ctx.personas)
        used_ok = question.used_ok or on_a_budget or question.objective == "cheapest"
        job = ctx.job
        need = msgspec.structs.replace(job.need, method=job.method, assumptions=job.assumptions)
        placeable = self.offers(as_of, question.setting)
        sizing = self._sizing(question, job, work, rulings, self._largest_gb(as_of, question.setting))
        max_count = self.rulebook.param("one-machine", "gpus_per_machine" if question.setting in (None, "desktop") else "gpus_per_server")
        configs, excluded = self._configured(question, job, as_of, placeable, sizing, max_count)
        named = compare.named_cards(self, question, as_of, self.offers(as_of), sizing) + compare.card_memory(question, sizing)
        if intent == "compare" and question.compare:
            return compare.compared(self, ctx, rulings, pricing, need, sizing, named)

        kept, findings = self._kept(rulings, configs)
        findings = rulings.asker() + findings
        # the choice among the configurations every filter passes is the choice among all with the filters as ``allowed``
        choice = ranking.choice_for(ctx, rulings, kept, used_ok, _every)
        choice = ranking.asked_first(ctx, rulings, intent, named, choice, kept, _every)
        findings += rulings.lines("plan") + rulings.lines("need")
        findings += [*choice.notes, *rulings.each("choice", choice)]
        picks = tuple(self._pick(c, rulings, pricing, label, sizing.factor)
                      for c, label in ranking.ranked(choice, question.objective == "cheapest"))
        alternatives: dict[str, Pick | None] = {label: self._pick(c, rulings, pricing, label, sizing.factor)
                                                for label, c in choice.alternatives.items()}
        said, summary, suggestions = verdict(ctx, rulings, choice, picks, pricing, need)
        summary = fit_first(summary, named, intent, question.card_memory_gb, question.language)
        top = choice.top
        rent = self.rent(rulings, question, pricing, work, sizing, top)
        warnings = _unique([f for pick in picks[:1] for f in pick.findings if f.verdict == "warning"]
                           + [f for f in findings if f.verdict == "warning"])
        if top is not None and (left_out := rulings.first("left_out")):
            excluded = left_out(list(excluded), lambda gpu_id: self._cheaper_than(gpu_id, top, pricing))
        return Answer(
            question=question, intent=intent, verdict=said, summary=summary, as_of=as_of.isoformat(),
            catalog_version=self.catalog.version, currency=pricing.describe(), reference_gpu=self.reference.id,
            workload=work, memory_need=need, picks=picks, alternatives=alternatives, findings=_unique(findings),
            warnings=warnings, excluded=tuple(Excluded(**e) for e in sorted(excluded, key=lambda e: e["gpu"])[:SHOWN_EXCLUSIONS]),
            rent_vs_buy=rent, suggestions=suggestions, named=NamedCard.all_of(named),
        )

    def card_rows(self, workload: str, as_of: date, currency: str = "USD", used_ok: bool = False,
                  precision: str = "16-bit", task: str = "training") -> tuple[CardRow, ...]:
        """Every released card's relative performance, price and performance per 1000 units (the chart data)."""
        pricing = self.pricing(as_of, currency, used_ok)
        work = workload_key(workload, task)
        rows = []
        for gpu in self.catalog.released_by(as_of):
            relative = self.performance.relative(gpu, work, precision)
            point = self._best_price(pricing, gpu)
            price = pricing.money(point.price_usd, point) if point else None
            rows.append(CardRow(
                gpu=gpu.id, name=gpu.name, vendor=gpu.vendor, memory_gb=gpu.memory_gb,
                relative_performance=round(relative, 3),
                performance_basis="measured" if self.performance.is_measured(gpu.id) else "estimated",
                price=price, performance_per_1000=round(relative / price.amount * 1000, 3) if price else None,
            ))
        return tuple(sorted(rows, key=lambda r: (-r.relative_performance, r.gpu)))

    # -- what the stages share ----------------------------------------------------------------

    def offers(self, as_of: date, setting: str | None = "any") -> tuple[Offer, ...]:
        """Every card on sale on the date, new and used, priced in USD, that can live in ``setting``; cached."""
        key = (as_of, setting if setting == "any" else "server" if setting in ("server", "cloud") else "desktop")
        if key not in self._offer_table:
            if setting == "any":
                offers = offers_at(self.catalog, as_of, self.pricing(as_of, "USD", False), self.pricing(as_of, "USD", True))
            else:
                offers = tuple(o for o in self.offers(as_of) if fits_setting(o.gpu, setting))
            remember(self._offer_table, key, offers, 64)
        return self._offer_table[key]

    def _largest_gb(self, as_of: date, setting: str | None) -> float:
        """The largest card's memory among ``offers(as_of, setting)``; cached with them."""
        offers = self.offers(as_of, setting)
        largest = self._largest.get(id(offers))
        if largest is None or largest[0] is not offers:
            largest = remember(self._largest, id(offers), (offers, max((o.gpu.memory_gb for o in offers), default=0.0)), 64)
        return largest[1]

    def resolve(self, name: str) -> tuple[Gpu | None, str | None]:
        """(gpu or None, a note when the name was guessed)."""
        found = self.catalog.resolve(name)
        return found.gpu, (None if found.exact else found.note)

    def pricing(self, as_of: date, currency: str, used_ok: bool) -> Pricing:
        """Prices on the date in the currency; one immutable object per date, currency and new/used choice."""
        key = (as_of, currency, used_ok)
        pricing = self._pricings.get(key)
        if pricing is None:
            pricing = remember(self._pricings, key, Pricing.for_question(self.catalog, as_of, currency, used_ok, self.rulebook), 256)
        return pricing

    def rent(self, rulings: Rulings, question: Question, pricing: Pricing, work: str, sizing: Sizing,
             top: Configuration | None) -> RentVsBuy | None:
        """Rent vs buy against the configuration to buy (None: the best rental on its own), when a rule asks for it."""
        if not rulings.first("rent"):
            return None
        # Memoised by what renting reads: the sizing's shape (the job, the setting, the count, the language...), the
        # date, the cards named, the hours and the currency; never the budget or the other wishes, so questions that
        # differ only in those share one answer. The configuration is identity-checked, so a recycled id never hits.
        key = (sizing.same, pricing.as_of, work, question.compare, question.hours_per_week, pricing.currency, pricing.per_usd, id(top))
        hit = self._rents.get(key)
        if hit is not None and hit[0] is top:
            return hit[1]
        rent = self.renting.rent_or_buy(question, pricing, work, lambda gb, n: sizing.fit(gb, n).fits, top, same=sizing.same)
        return remember(self._rents, key, (top, rent), PICKS_KEPT)[1]

    # -- stages -------------------------------------------------------------------------------

    def _settled(self, question: Question) -> Question:
        """The question with the engine's defaults filled in (the job stage takes this over); what is filled in reads
        nothing of the budget, so it is worked out once per question but for its budget."""
        key = but_budget(question)
        changes = self._defaults.get(key)
        if changes is None:
            changes = remember(self._defaults, key, self._defaults_for(question), SHAPES_KEPT)
        return question.refined(**changes) if changes else question

    def _defaults_for(self, question: Question) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        if question.precision is None:  # the job's usual precision (4-bit for local LLM inference, else 16-bit)
            changes["precision"] = job_for(question, self.rulebook).precision
        spec = self.memory.model_for(question.refined(**changes) if changes else question)
        if spec and spec.workload and question.workload == "general":
            changes["workload"] = spec.workload
        if question.setting is None and question.gpus > self.rulebook.param("one-machine", "gpus_per_machine"):
            changes["setting"] = "server"
        return changes

    def _context(self, question: Question, as_of: date, pricing: Pricing, work: str) -> Context:
        owned = self.resolve(question.owned_gpu)[0] if question.owned_gpu else None
        return Context(question=question, rulebook=self.rulebook, as_of=as_of,
                       budget_usd=pricing.to_usd(question.budget) if question.budget is not None else None,
                       work=work, label=self._label(work), reference=self.reference, performance=self.performance, owned=owned,
                       gpu=self.catalog.gpu, pricing=pricing,
                       midrange=lambda on: self._midrange(on, work, job_for(question, self.rulebook).compute_precision))

    def _sizing(self, question: Question, job: Job, work: str, rulings: Rulings, largest_gb: float = 0.0) -> Sizing:
        """How the job meets a card: memory (as asked, or the job's need), speed, speed-up, build rules.

        Memory asked beyond the largest card on offer can only mean memory in all: for inference,
        cards then pool it by splitting the model's layers (``largest_gb``: the largest card placeable).
        """
        asked, lang = question.memory_gb, question.language
        in_all = asked is not None and bool(asked) and job.method == "inference" and asked > largest_gb
        if asked:
            def fit(memory_gb: float, count: int) -> Fit:
                if memory_gb >= asked:
                    return Fit(True, memory_gb, False, say("fit.asked_holds", lang, asked=f"{asked:g}", gb=f"{memory_gb:g}"))
                if in_all and count > 1 and memory_gb * count >= asked:
                    return Fit(True, memory_gb * count, True, say("fit.asked_in_all", lang, asked=f"{asked:g}", count=count, gb=f"{memory_gb:g}",
                                                                  how=term("pooling", POOLING["layer-split"], lang)), serial=True)
                return Fit(False, memory_gb, False, say("fit.asked_short", lang, asked=f"{asked:g}", gb=f"{memory_gb:g}"))
        else:
            def fit(memory_gb: float, count: int) -> Fit:
                return fit_on(job, memory_gb, count)
        server = question.setting in ("server", "cloud")

        def build(gpu: Gpu, count: int) -> str | None:  # the same for every question of the setting and language: cached
            key = (gpu.id, count, server, lang)
            if key not in self._refusals:
                self._refusals[key] = rulings.refusal(gpu, count)
            return self._refusals[key]
        decode = job.is_llm and job.method == "inference"
        return Sizing(
            fit=fit,
            relative=lambda gpu: self.performance.relative(gpu, work, job.compute_precision),
            speedup=lambda count: self.performance.speedup(work, count),
            tokens_per_second=(lambda gpu, count: self.performance.tokens_per_second(gpu, job, count)) if decode else (lambda gpu, count: None),
            factor=1.0 if question.memory_gb else job.memory_factor,
            build=build,
            same=(job, largest_gb, _SHAPE(question)),
            **({"memory_value": worth} if (worth := rulings.first("worth")) else {}),
        )

    def _configured(self, question: Question, job: Job, as_of: date, placeable: tuple[Offer, ...], sizing: Sizing,
                    max_count: int) -> tuple[tuple[Configuration, ...], tuple[dict[str, Any], ...]]:
        """``configure`` over the offers, memoised: the configurations follow from the job (itself raised by the
        personas), the date and the question's shape (:data:`_SHAPE`), never from the budget, the currency or
        the other wishes, so every budget asked for the same job shares one set. Tuples, so no answer can
        change another's, and one object per set, so what follows from a set is memoised by it (:meth:`_kept`)."""
        key = (id(job), as_of, _SHAPE(question))
        hit = self._configurations.get(key)
        if hit is not None and hit[0] is job:
            self._configurations.move_to_end(key)
            return hit[1], hit[2]
        configs, excluded = configure(placeable, sizing, question.gpus, max_count if not question.gpus_fixed else question.gpus,
                                      every_count=question.setting == "server")
        made = self._configurations[key] = (job, tuple(configs), tuple(excluded))
        if len(self._configurations) > CONFIGURATIONS_KEPT:
            self._configurations.popitem(last=False)
        return made[1], made[2]

    def _kept(self, rulings: Rulings, configs: tuple[Configuration, ...]) -> tuple[tuple[Configuration, ...], list[Finding]]:
        """(the configurations every rule's filter passes, the lines that say so), memoised per rulings (:meth:`_ruled`)
        and set of configurations (:meth:`_configured`): the choice for each budget then starts from them."""
        key = (rulings.shape, id(configs))
        hit = self._kept_table.get(key)
        if hit is None or hit[0] is not configs:
            allowed, lines = rulings.keeps(configs)
            hit = remember(self._kept_table, key, (configs, tuple(c for c in configs if allowed(c)), tuple(lines)), CONFIGURATIONS_KEPT)
        return hit[1], list(hit[2])

    def _ruled(self, ctx: Context) -> Rulings:
        """Every rule's ruling on the question, numbered by what they read (:attr:`Rulings.shape`): the question but
        for its budget, its date and its budget band (:attr:`Context.budget_band`, all the rules read of the budget).
        Every budget in a band gets rulings of one number, so what follows from the rulings alone (the filtered
        configurations, the picks' lines, rent vs buy) is memoised by it. The rulings themselves are not kept: their
        hooks are some two hundred objects, which the collector would walk on every pass."""
        key = (ctx.as_of, ctx.budget_band, but_budget(ctx.question))
        shape = self._shapes.get(key)
        if shape is None:
            shape = remember(self._shapes, key, next(SHAPES), SHAPES_KEPT)
        return apply(ctx, shape)

    def _pick(self, c: Configuration, rulings: Rulings, pricing: Pricing, label: str, factor: float) -> Pick:
        """One configuration as a pick, memoised per rulings (:meth:`_ruled`: a question but for its budget) and
        configuration (one object per job shape, :meth:`_configured`): its rules' lines read nothing else, and its
        prices only the currency and its rate. The configuration is identity-checked, so a recycled id never hits."""
        key = (rulings.shape, id(c), label, factor, pricing.currency, pricing.per_usd)
        hit = self._picks.get(key)
        if hit is not None and hit[0] is c:
            return hit[1]
        made = ranking.pick(c, rulings, pricing, self.performance.measured(c.gpu.id), label, factor)
        return remember(self._picks, key, (c, made), PICKS_KEPT)[1]

    def _midrange(self, as_of: date, work: str, precision: str) -> float:
        """Median speed of the new desktop cards on sale on the date: the market's mid-range."""
        key = (as_of, work, precision)
        if key not in self._midrange_cache:
            speeds = sorted(self.performance.relative(o.gpu, work, precision) for o in self.offers(as_of)
                            if o.condition == "new" and not is_server_only(o.gpu))
            self._midrange_cache[key] = speeds[len(speeds) // 2] if speeds else 1.0
        return self._midrange_cache[key]

    def _cheaper_than(self, gpu_id: str, top: Configuration, pricing: Pricing) -> bool:
        point = self._best_price(pricing, self.catalog.gpu(gpu_id))
        return point is not None and point.price_usd < top.offer.unit_usd

    def _best_price(self, pricing: Pricing, gpu: Gpu) -> PricePoint | None:
        """``pricing.best_price(gpu)``, looked up once per date and new/used choice for the whole catalog."""
        key = (pricing.as_of, pricing.used_ok)
        table = self._price_cache.get(key)
        if table is None:
            table = remember(self._price_cache, key, {g.id: pricing.best_price(g) for g in self.catalog.gpus}, 64)
        return table[gpu.id] if gpu.id in table else pricing.best_price(gpu)

    def _label(self, work: str) -> str:
        mix = self.rulebook.param("workload-priorities", "workloads")[work]
        if len(mix) == 1:
            return str(self._labels[next(iter(mix))])
        return {"general": "general deep learning", "kaggle": "Kaggle work", "rl": "reinforcement learning",
                "llm_inference": "LLM inference"}.get(work, work)


def _every(c: Configuration) -> bool:
    return True


def _unique(findings: list[Finding]) -> tuple[Finding, ...]:
    seen, out = set(), []
    for f in findings:
        if (f.rule, f.reason) not in seen:
            seen.add((f.rule, f.reason))
            out.append(f)
    return tuple(out)
