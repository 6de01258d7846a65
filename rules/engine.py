"""The advisor: the best configuration for a question, and why.

:class:`Advisor` holds one snapshot of what the engine knows — the catalog, the
rulebook, lab measurements, the electricity price — and answers questions over
it without I/O, so the service can keep one in memory and rebuild it only when
the data change. A question flows one way: offers on the date (rules.offers) →
configurations of 1-8 cards that hold the job (rules.configurations) → the choice
within the budget with diminishing returns and memory floors (rules.choose) →
findings, each naming its rule.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING, Mapping

from rules import advice
from rules.answer import Answer, Finding, MemoryNeed, Pick
from rules.choose import Choice, Floor, choose, still_better
from rules.configurations import Configuration, Sizing, configure
from rules.job import fit_on, job_for
from rules.memory import Fit, MemoryModel
from rules.money import Pricing
from rules.messages import say, term
from rules.offers import Offer, fits_setting, is_server_only, offers_at
from rules.performance import Measured, PerformanceModel, workload_key
from rules.question import Question
from rules.rent import Renting
from rules.rulebook import Rulebook, load_rulebook

if TYPE_CHECKING:
    from rules.catalog import PricePoint

__all__ = ["Advisor"]

SHOWN_EXCLUSIONS = 8
COUNT_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def _count_word(count: int | None) -> str:
    return COUNT_WORDS[count] if count is not None and count < len(COUNT_WORDS) else str(count)


class Advisor:
    def __init__(self, catalog, measurements: Mapping[str, Measured] | None = None,
                 electricity_usd_per_kwh: float = 0.15, rulebook: Rulebook | None = None) -> None:
        self.catalog = catalog
        self.rulebook = rulebook or load_rulebook()
        self.electricity = electricity_usd_per_kwh
        reference_id = self.rulebook.param("workload-priorities", "reference_gpu")
        self.reference = catalog.gpu(reference_id)
        self.performance = PerformanceModel(self.rulebook, self.reference, measurements)
        self.memory = MemoryModel(self.rulebook)
        self.renting = Renting(catalog, self.rulebook, self.performance, electricity_usd_per_kwh)
        self._price_cache: dict[tuple[date, bool], dict[str, PricePoint | None]] = {}
        self._offer_table: dict[tuple, tuple] = {}
        self._refusals: dict[tuple, str | None] = {}
        self._midrange_cache: dict[tuple[date, str, str], float] = {}
        self._labels = {k: v["label"] for k, v in self.rulebook.param("workload-priorities", "classes").items()}

    # -- public faces -------------------------------------------------------------------------

    def recommend(self, question: Question, intent: str = "recommend", today: date | None = None) -> Answer:
        """The best configuration within the budget, its alternatives and every named card; never raises
        for an impossible question, says so instead."""
        as_of = question.as_of or today or date.today()
        question = self._settled(question)
        work = workload_key(question.workload, question.task)
        pricing = self._pricing(as_of, question.currency, question.used_ok)
        budget_usd = pricing.to_usd(question.budget) if question.budget is not None else None
        fired = advice.personas(self.rulebook, question, budget_usd)
        used_ok = question.used_ok or any(p.consider_used for p in fired) or question.objective == "cheapest"  # the cheapest way is often used
        floor_gb = max([self.rulebook.param("memory-caveat", "min_memory_gb")[question.workload]]
                       + [p.min_memory_gb for p in fired if p.min_memory_gb])
        job = self._job(question, floor_gb)
        need = replace(job.need, method=job.method, assumptions=job.assumptions)
        sizing = self._sizing(question, job, work)
        offers = self._offers(as_of)
        placeable = self._offers(as_of, question.setting)
        max_count = self.rulebook.param("one-machine", "gpus_per_machine" if question.setting in (None, "desktop") else "gpus_per_server")
        configs, excluded = configure(placeable, sizing, question.gpus, max_count)
        owned = self._resolve(question.owned_gpu)[0] if question.owned_gpu else None
        named = self._named(question, as_of, offers, sizing, work, owned) + self._card_memory(question, sizing)
        if intent == "compare" and question.compare:
            return self._compare(question, as_of, pricing, work, need, sizing, named)

        floor = self._floor(question, as_of)
        allowed, findings = self._constraints(question, configs, fired, owned, work, floor, as_of)
        choice = self._choose(question, configs, budget_usd, floor, used_ok, allowed)
        choice = self._asked_first(question, intent, named, choice, configs, budget_usd, used_ok, allowed)
        findings += advice.question_findings(self.rulebook, question, self._label(work), sizing.speedup(max(question.gpus, 1)))
        findings += self._memory_findings(question, need)
        findings += self._choice_findings(choice, floor, used_ok)
        picks = tuple(self._pick(c, question, pricing, work, label, sizing.factor)
                      for c, label in self._ranked(choice, question.objective == "cheapest"))
        alternatives: dict[str, Pick | None] = {label: self._pick(c, question, pricing, work, label, sizing.factor) for label, c in choice.alternatives.items()}
        verdict, summary, suggestions = self._verdict(question, choice, picks, fired, pricing, need, work, as_of, owned, floor)
        asked = [e["reason"] for e in named if not e.get("owned")]
        if asked and (intent == "fit" or question.card_memory_gb):  # "will X fit on Y" is answered first, in so many words
            summary = "; ".join(asked) + ". " + summary[:1].upper() + summary[1:]
        top = choice.top
        rent = self._rent(question, pricing, work, sizing, top)
        warnings = _unique([f for pick in picks[:1] for f in pick.findings if f.verdict == "warning"]
                           + [f for f in findings if f.verdict == "warning"])
        if top is not None:  # the memory caveat: cheaper cards left out for memory
            excluded = [e for e in excluded if e["rule"] != "memory-fit" or self._cheaper_than(e["gpu"], top, pricing)]
            excluded = [e | {"rule": "memory-caveat"} if e["rule"] == "memory-fit" else e for e in excluded]
        return Answer(
            question=question.to_dict(), intent=intent, verdict=verdict, summary=summary, as_of=as_of.isoformat(),
            catalog_version=self.catalog.version, currency=pricing.describe(), reference_gpu=self.reference.id,
            workload=work, memory_need=need, picks=picks, alternatives=alternatives, findings=tuple(findings),
            warnings=warnings, excluded=tuple(sorted(excluded, key=lambda e: e["gpu"])[:SHOWN_EXCLUSIONS]),
            rent_vs_buy=rent, suggestions=suggestions, named=tuple(named),
        )

    def card_rows(self, workload: str, as_of: date, currency: str = "USD", used_ok: bool = False,
                  precision: str = "16-bit", task: str = "training") -> list[dict]:
        """Every released card's relative performance, price and performance per 1000 units (the chart data)."""
        pricing = self._pricing(as_of, currency, used_ok)
        work = workload_key(workload, task)
        rows = []
        for gpu in self.catalog.released_by(as_of):
            relative = self.performance.relative(gpu, work, precision)
            point = self._best_price(pricing, gpu)
            price = pricing.money(point.price_usd, point) if point else None
            rows.append({
                "gpu": gpu.id, "name": gpu.name, "vendor": gpu.vendor, "memory_gb": gpu.memory_gb,
                "relative_performance": round(relative, 3),
                "performance_basis": "measured" if self.performance.is_measured(gpu.id) else "estimated",
                "price": price.to_dict() if price else None,
                "performance_per_1000": round(relative / price.amount * 1000, 3) if price else None,
            })
        return sorted(rows, key=lambda r: (-r["relative_performance"], r["gpu"]))

    # -- stages -------------------------------------------------------------------------------

    def _settled(self, question: Question) -> Question:
        """The question with the engine's defaults filled in (the job stage takes this over)."""
        if question.precision is None:  # the job's usual precision (4-bit for local LLM inference, else 16-bit)
            question = question.refined(precision=job_for(question, self.rulebook).precision)
        spec = self.memory.model_for(question)
        if spec and spec.workload and question.workload == "general":
            question = question.refined(workload=spec.workload)
        if question.setting is None and question.gpus > self.rulebook.param("one-machine", "gpus_per_machine"):
            question = question.refined(setting="server")
        return question

    def _job(self, question: Question, floor_gb: float):
        """The job (rules.job), its need raised to the persona's memory when no model or size was named."""
        job = job_for(question, self.rulebook)
        if job.model is None and not question.memory_gb and floor_gb > job.need.gb:
            job = replace(job, need=MemoryNeed(float(floor_gb), f"typical {question.workload} work needs about {floor_gb:g} GB"
                                               + (" in 32-bit terms" if job.memory_factor != 1.0 else "")),
                          shardable_gb=0.0)
        return job

    def _sizing(self, question: Question, job, work: str) -> Sizing:
        """How the job meets a card: memory (as asked, or the job's need), speed, speed-up, build rules."""
        if question.memory_gb:
            asked = question.memory_gb

            def fit(memory_gb: float, count: int) -> Fit:
                if memory_gb >= asked:
                    return Fit(True, memory_gb, False, f"{asked:g} GB asked, {memory_gb:g} GB on the card")
                return Fit(False, memory_gb, False, f"{asked:g} GB asked, the card has {memory_gb:g} GB")
        else:
            def fit(memory_gb: float, count: int) -> Fit:
                return fit_on(job, memory_gb, count)
        decode = job.is_llm and job.method == "inference"
        return Sizing(
            fit=fit,
            relative=lambda gpu: self.performance.relative(gpu, work, job.compute_precision),
            speedup=lambda count: self.performance.speedup(work, count),
            tokens_per_second=(lambda gpu, count: self.performance.tokens_per_second(gpu, job, count)) if decode else (lambda gpu, count: None),
            pools_for_speed=job.pooling != "layer-split",
            factor=1.0 if question.memory_gb else job.memory_factor,
            build=lambda gpu, count: self._build_refusal(gpu, count, question.setting),
        )

    def _offers(self, as_of: date, setting: str | None = "any") -> tuple:
        """Every card on sale on the date, new and used, priced in USD, that can live in ``setting``; cached."""
        key = (as_of, setting if setting == "any" else "server" if setting in ("server", "cloud") else "desktop")
        if key not in self._offer_table:
            if len(self._offer_table) > 64:
                self._offer_table.clear()
            if setting == "any":
                self._offer_table[key] = offers_at(self.catalog, as_of, self._pricing(as_of, "USD", False),
                                                   self._pricing(as_of, "USD", True))
            else:
                self._offer_table[key] = tuple(o for o in self._offers(as_of) if fits_setting(o.gpu, setting))
        return self._offer_table[key]

    def _build_refusal(self, gpu, count: int, setting: str | None) -> str | None:
        key = (gpu.id, count, setting in ("server", "cloud"))
        if key not in self._refusals:
            self._refusals[key] = advice.build_refusal(self.rulebook, gpu, count, setting)
        return self._refusals[key]

    def _resolve(self, name: str):
        """(gpu or None, a note when the name was guessed)."""
        resolve = getattr(self.catalog, "resolve", None)
        if resolve is not None:
            found = resolve(name)
            return found.gpu, (None if found.exact else found.note)
        return self.catalog.find(name), None

    def _floor(self, question: Question, as_of: date) -> Floor | None:
        """The memory floor of the workload on the date (rule ``memory-floor``), when no size was asked."""
        if question.memory_gb:
            return None
        best = None
        for row in self.rulebook.param("memory-floor", "floors"):
            if (row["workload"] == question.workload and row["task"] in ("any", question.task) and row["from"] <= as_of.isoformat()
                    and row.get("experience") in (None, question.experience)):
                if best is None or (row["from"], row["gb"]) > (best["from"], best["gb"]):
                    best = row
        if best is None:
            return None
        what = f"{question.workload} {'training' if best['task'] == 'training' else 'work'}"
        return Floor(best["gb"], f"{best['gb']:g} GB or more for {what} from {best['from'][:7]} ({best['source']['name']})")

    def _constraints(self, question, configs, fired, owned, work, floor, as_of):
        """(what a configuration must satisfy beyond budget and floor, the findings that say so)."""
        findings: list[Finding] = [p.finding for p in fired]
        checks = []
        max_tdp = min((p.max_tdp_w for p in fired if p.max_tdp_w), default=None)
        if max_tdp and any((c.gpu.tdp_w or 0) <= max_tdp for c in configs):
            checks.append(lambda c: (c.gpu.tdp_w or 0) <= max_tdp)
            findings.append(Finding("persona-not-serious", "applied", f"only cards drawing {max_tdp:g} W or less, which fit a standard desktop"))
        dropped = {(row["software"], arch): row for row in self.rulebook.param("software-support", "dropped")
                   if row["from"] <= as_of.isoformat() for arch in row["architectures"]}
        if any((c.gpu.software, c.gpu.architecture) in dropped for c in configs):
            checks.append(lambda c: (c.gpu.software, c.gpu.architecture) not in dropped)
            row = next(iter(dropped.values()))
            findings.append(Finding("software-support", "applied", f"{', '.join(row['architectures'])} cards are left out: "
                                                                   f"no longer supported since {row['from'][:7]} ({row['source']['name']})"))
        safe = self.rulebook.param("vendor-nvidia", "safe_stack")
        if any(p.cuda_only for p in fired) and any(c.gpu.software == safe for c in configs):
            checks.append(lambda c: c.gpu.software == safe)
            findings.append(Finding("vendor-nvidia", "applied", "starting out, every tutorial and library assumes CUDA: NVIDIA cards only"))
        if question.setting == "server" and question.gpus > self.rulebook.param("one-machine", "gpus_per_machine"):
            findings.append(Finding("one-machine", "applied", f"{question.gpus} GPUs do not fit a desktop: server parts are considered"))
        if owned is not None:
            mine = self.performance.relative(owned, work, job_for(question, self.rulebook).compute_precision)
            gain = self.rulebook.param("persona-already-own", "min_speedup")
            more_memory = question.workload in self.rulebook.param("persona-already-own", "memory_bound_workloads")
            checks.append(lambda c: c.speed >= mine and c.gpu.memory_gb >= owned.memory_gb
                          and (c.gpu.memory_gb > owned.memory_gb if more_memory else c.speed >= gain * mine or c.gpu.memory_gb > owned.memory_gb))
            findings.append(Finding("persona-already-own", "applied",
                                    f"only upgrades over your {owned.name} ({mine:.2f}×, {owned.memory_gb:g} GB): never slower or smaller"
                                    + (", and with more memory" if more_memory else f", and {gain:g}× faster or with more memory")))
        return (lambda c: all(check(c) for check in checks)), findings

    def _choose(self, question: Question, configs, budget_usd, floor, used_ok, allowed) -> Choice:
        """The choice, with the safe stack leading when it comes close (rule vendor-nvidia, stated)."""
        avoid = self.rulebook.param("product-lines", "poor_value_lines")
        threshold = self.rulebook.param("cost-efficiency", "step_up_threshold" if budget_usd is not None else "no_budget_threshold")

        def headline(c):
            return c.gpu.form_factor not in ("sxm", "oam") and (question.setting == "server" or c.gpu.line not in avoid)
        used_for_floor = self.rulebook.param("memory-floor", "used_when_new_costs_more_than")
        cheapest = question.objective == "cheapest"
        choice = choose(configs, budget_usd, floor, threshold, used_ok, allowed, headline, used_for_floor, cheapest)
        safe = self.rulebook.param("vendor-nvidia", "safe_stack")
        top = choice.top
        if top is None or top.gpu.software == safe:
            return choice
        cuda = choose(configs, budget_usd, floor, threshold, used_ok, lambda c: allowed(c) and c.gpu.software == safe, headline,
                      used_for_floor, cheapest)
        share = self.rulebook.param("vendor-nvidia", "cuda_leads_within")
        if cuda.top is None or cuda.top.speed < share * top.speed or (floor and cuda.top.gpu.memory_gb < floor.gb <= top.gpu.memory_gb):
            return choice
        note = ("vendor-nvidia", "applied", f"{cuda.top.gpu.name} leads although {top.count} × {top.gpu.name} ({top.gpu.software}) "
                                            f"scores higher: it reaches {cuda.top.speed / top.speed:.0%} of its speed on CUDA, the safe choice")
        alternatives = dict(cuda.alternatives)
        alternatives.setdefault("outside CUDA", top)
        alternatives = still_better(alternatives, cuda.top)
        return replace(cuda, alternatives=alternatives, notes=(note, *cuda.notes))

    def _asked_first(self, question, intent, named, choice: Choice, configs, budget_usd, used_ok, allowed) -> Choice:
        """A card the question names ("a server with 8 H100") is the configuration answered first, when it
        can be placed, holds the job and fits the budget; the engine's own choice follows as the runner-up."""
        ids = {e["gpu"] for e in named if e.get("gpu") and not e.get("owned")}
        if intent != "recommend" or not ids or choice.top is None or choice.top.gpu.id in ids:
            return choice
        threshold = self.rulebook.param("cost-efficiency", "step_up_threshold" if budget_usd is not None else "no_budget_threshold")
        mine = choose(configs, budget_usd, None, threshold, True, lambda c: allowed(c) and c.gpu.id in ids)
        if mine.top is None:
            return choice
        theirs = [choice.top, *choice.ladder.values(), *choice.runners_up]
        runners = tuple({c.gpu.id: c for c in theirs if c.gpu.id not in ids}.values())[:2]
        alternatives = still_better({k: c for k, c in choice.alternatives.items() if c.gpu.id not in ids}, mine.top)
        note = ("cost-efficiency", "applied", f"{mine.top.count} × {mine.top.gpu.name} as asked; "
                                    f"{choice.top.count} × {choice.top.gpu.name} would be the engine's own pick")
        return replace(choice, top=mine.top, runners_up=runners, ladder={}, alternatives=alternatives, asked=True,
                       under_floor=None, notes=(note, *choice.notes))

    def _choice_findings(self, choice: Choice, floor: Floor | None, used_ok: bool) -> list[Finding]:
        found = [Finding(rule, verdict, reason) for rule, verdict, reason in choice.notes]
        if floor is not None:
            found.append(Finding("memory-floor", "applied", floor.reason))
            if choice.under_floor is not None:
                c = choice.under_floor
                found.append(Finding("memory-floor", "applied", f"{c.gpu.name} would score higher but has {c.gpu.memory_gb:g} GB, under the floor"))
            if choice.top is not None and choice.top.gpu.memory_gb < floor.gb:
                found.append(Finding("memory-floor", "warning", f"no card with {floor.gb:g} GB fits the budget: {choice.top.gpu.name} "
                                                                 f"has {choice.top.gpu.memory_gb:g} GB, enough for smaller models only"))
        if choice.top is not None and not any("cheapest" in n[2] for n in choice.notes):
            found.append(Finding("cost-efficiency", "applied", "picked where extra speed stops being worth its price "
                                                              "(diminishing returns); best value, fastest and roomiest shown beside it"))
        return found

    def _ranked(self, choice: Choice, cheapest: bool = False) -> list:
        """(configuration, label) for the picks: the top, then the ladder or the runners-up."""
        if choice.top is None:
            return []
        if choice.ladder:
            order = ("sweet spot", "entry", "no compromise")
            return [(choice.ladder[k], k) for k in order if k in choice.ladder]
        first = "as asked" if choice.asked else "cheapest that does the job" if cheapest else "best within budget"
        return [(choice.top, first)] + [(c, "runner-up") for c in choice.runners_up]

    def _cheaper_than(self, gpu_id: str, top: Configuration, pricing: Pricing) -> bool:
        point = self._best_price(pricing, self.catalog.gpu(gpu_id))
        return point is not None and point.price_usd < top.offer.unit_usd

    def _pick(self, c: Configuration, question: Question, pricing: Pricing, work: str, label: str | None = None,
              factor: float = 1.0) -> Pick:
        """One configuration as the answer shows it; ``factor``: how much more a card holds in the need's terms."""
        measured = self.performance.measured(c.gpu.id)
        basis = "measured" if measured else "estimated"
        source = f"measured on {measured.hosts} lab host{'s' * (measured.hosts != 1)}" if measured else "estimated from specs"
        findings = [
            Finding("workload-priorities", "applied",
                    f"{c.relative:.2f}× the {self.reference.name} for {self._label(work)} at {job_for(question, self.rulebook).compute_precision} ({source})"),
            Finding("memory-fit", "applied", c.fit.reason),
        ]
        if c.count > 1:
            findings.append(Finding("multi-gpu-speedup", "applied", f"{c.count} cards: {c.speed / c.relative:.1f}× one card"
                                    + (" (split layers run one after another)" if c.fit.sharded and question.task != "training" else "")))
        if c.offer.condition == "used":
            findings.append(Finding("cost-efficiency", "info", f"used price, seen {c.offer.point.seen.isoformat()}: check the card before paying"))
        if factor != 1.0:  # 2019-style training, counted in 32-bit terms
            findings.append(Finding("16-bit-memory", "applied", f"{c.gpu.memory_gb:g} GB behaves like {c.gpu.memory_gb * factor:g} GB of 32-bit memory"))
        findings += advice.card_findings(self.rulebook, c.gpu, question)
        findings += advice.build_findings(self.rulebook, c.gpu, c.count)
        return Pick(
            gpu=c.gpu.id, name=c.gpu.name, vendor=c.gpu.vendor, count=c.count, unit_price=pricing.money(c.offer.unit_usd, c.offer.point),
            total_price=pricing.money(c.total_usd), relative_performance=c.speed,
            performance_per_1000=c.speed / (c.total_usd * pricing.per_usd) * 1000,
            memory_gb=c.gpu.memory_gb, effective_memory_gb=c.fit.effective_gb if c.fit.sharded else c.gpu.memory_gb * factor,
            basis=basis, hosts=measured.hosts if measured else 0, findings=tuple(findings),
            tokens_per_second=c.tokens_per_second, form_factor=c.gpu.form_factor, label=label, condition=c.offer.condition,
        )

    # -- named cards --------------------------------------------------------------------------

    def _named(self, question: Question, as_of: date, offers, sizing: Sizing, work: str, owned) -> list[dict]:
        """Every card the question names, answered: compared, fitted, or why it cannot be."""
        names = list(question.compare) + ([question.owned_gpu] if question.owned_gpu else [])
        if not names:
            return []
        priced: dict[str, Offer] = {}
        for offer in offers:
            if offer.condition == "new" or question.used_ok or offer.gpu.id not in priced:
                priced[offer.gpu.id] = offer
        entries = []
        for asked in names:
            entry = self._named_one(question, as_of, asked, priced, sizing)
            if asked == question.owned_gpu and asked not in question.compare:
                entry["owned"] = True
            entries.append(entry)
        return entries

    def _named_one(self, question: Question, as_of: date, asked: str, priced: dict, sizing: Sizing) -> dict:
        gpu, guessed = self._resolve(asked)
        if gpu is None and self.renting.rentable([asked]):
            return {"asked": asked, "gpu": None, "name": asked, "status": "compared",
                    "reason": f"{asked} is rented only (a Cloud TPU): compared under rent or buy"}
        if gpu is None:
            return {"asked": asked, "gpu": None, "name": asked, "status": "not-in-catalog", "reason": f"'{asked}' is not in the catalog"}
        entry = {"asked": asked, "gpu": gpu.id, "name": gpu.name, "memory_gb": gpu.memory_gb, "form_factor": gpu.form_factor,
                 "relative_performance": round(sizing.relative(gpu), 3), "guessed": guessed}
        if gpu.released > as_of:
            return entry | {"status": "not-released", "reason": f"{gpu.name} came out on {gpu.released.isoformat()}, after {as_of.isoformat()}"}
        count = max(question.gpus, 1)
        fit = sizing.fit(gpu.memory_gb, count)
        enough = next((n for n in range(count, 9) if sizing.fit(gpu.memory_gb, n).fits), None)
        entry["cards_needed"] = enough
        tps = sizing.tokens_per_second(gpu, enough or count)
        if tps:
            entry["tokens_per_second"] = round(tps, 1)
        offer = priced.get(gpu.id)
        if offer is not None:
            entry["price"] = {"usd": round(offer.unit_usd, 2), "date": offer.point.seen.isoformat(), "kind": offer.point.kind}
        if not fit.fits:
            many = f"; {_count_word(enough)} do" if enough else ("; not even eight do" if count < 8 and fit.sharded else "")
            return entry | {"status": "does-not-fit",
                            "reason": f"{self._need_text(question)}: {_count_word(count)} {gpu.memory_gb:g} GB {gpu.name} "
                                      f"{'does' if count == 1 else 'do'} not hold it{many}"}
        speed = f"{entry['relative_performance']:.2f}× the {self.reference.name}" + (f", ~{tps:.0f} tokens/s" if tps else "")
        unpriced = ""
        if offer is None:
            last = self._last_price(gpu, as_of)
            unpriced = f"no current price{f'; last seen {last.seen.isoformat()} at {last.price_usd:,.0f} USD ({last.kind})' if last else ''}"
        if question.model or question.params_b or question.memory_gb:  # a fit question: the fit is the answer
            holds = f"{self._need_text(question)}: {_count_word(count)} {gpu.memory_gb:g} GB {gpu.name} {'holds' if count == 1 else 'hold'} it"
            return entry | {"status": "fits", "reason": f"{holds} ({speed}{'; ' + unpriced if unpriced else ''})"}
        if offer is None:
            return entry | {"status": "no-current-price", "reason": f"{gpu.name}: {unpriced}; {speed}"}
        return entry | {"status": "compared", "reason": f"{gpu.name}: {speed}, {gpu.memory_gb:g} GB"}

    def _card_memory(self, question: Question, sizing: Sizing) -> list[dict]:
        """"Will llama 13b fit on 8 GB": whether a card (or the cards asked for) of that memory holds the job."""
        gb = question.card_memory_gb
        if not gb:
            return []
        count = max(question.gpus, 1)
        fit = sizing.fit(gb, count)
        lang = question.language
        cards = say("fit.cards", lang, count=count, gb=f"{gb:g}") if count > 1 else say("fit.one_card", lang, gb=f"{gb:g}")
        verdict = say("fit.holds" if fit.fits else "fit.does_not_hold", lang)
        return [{"asked": f"{gb:g} GB", "gpu": None, "name": cards, "status": "fits" if fit.fits else "does-not-fit",
                 "reason": say("fit.card_memory", lang, cards=cards, verdict=verdict, reason=fit.reason)}]

    def _need_text(self, question: Question) -> str:
        job = job_for(question, self.rulebook)
        what = job.model.name if job.model else (f"{question.params_b:g}B" if question.params_b else "the job")
        return f"{what} ({job.method} at {job.precision}) needs ~{job.need.gb:.0f} GB"

    def _last_price(self, gpu, as_of: date):
        last_known = getattr(self._pricing(as_of, "USD", True), "last_known", None)
        if last_known is not None:
            return last_known(gpu)
        points = [p for kind in ("new", "used") if (p := self.catalog.price(gpu, as_of, kind))]
        return max(points, key=lambda p: p.seen) if points else None

    # -- verdicts -----------------------------------------------------------------------------

    def _verdict(self, question, choice: Choice, picks, fired, pricing, need, work, as_of, owned, floor):
        suggestions: list[str] = []
        wait = self._should_wait(owned, question, work, floor, as_of) if owned else None
        if wait:
            return "wait", wait, ("ask again if you move to large transformers",)
        if choice.top is None:
            return self._impossible(question, choice, pricing, need, as_of)
        top = picks[0]
        count = f"{top.count} × " if top.count > 1 else "1 × "
        lang = question.language
        summary = say("summary.buy", lang, count=count, name=top.name, price=f"{top.unit_price.amount:,.0f}", currency=pricing.currency,
                      kind=term("price.kind", top.unit_price.kind or "", lang), date=top.unit_price.seen,
                      relative=f"{top.relative_performance:.2f}", reference=self.reference.name,
                      workload=term("workload", self._label(work), lang), per_1000=f"{top.performance_per_1000:.2f}")
        if any(p.verdict == "cpu-and-cloud" for p in fired):
            suggestions.append("prototype on the CPU and use free notebooks (Colab, Kaggle) for training")
            return "cpu-and-cloud", summary, tuple(suggestions)
        if owned:
            speed_precision = job_for(question, self.rulebook).compute_precision
            summary += f" — {top.relative_performance / max(self.performance.relative(owned, work, speed_precision), 1e-9):.1f}× your {owned.name}"
        return "buy", summary, tuple(suggestions)

    def _should_wait(self, owned, question: Question, work: str, floor: Floor | None, as_of: date) -> str | None:
        """Keep the owned card when it still sits where the seed's GTX 1070 sat in its market (rule persona-already-own)."""
        params = self.rulebook["persona-already-own"].parameters
        job = job_for(question, self.rulebook)
        if job.method == "inference" and job.model is not None and fit_on(job, owned.memory_gb, 1).fits:
            tps = self.performance.tokens_per_second(owned, job, 1) if job.is_llm else None
            return (f"keep your {owned.name}: it already holds {job.model.name} ({job.need.gb:.0f} GB at {job.precision})"
                    + (f" and runs it at about {tps:.0f} tokens/s" if tps else "") + " (rule persona-already-own)")
        if question.workload in params["unless_workloads"] or (floor is not None and owned.memory_gb < floor.gb):
            return None
        speed_precision = job.compute_precision
        mine = self.performance.relative(owned, work, speed_precision)
        then = self._midrange(date.fromisoformat(params["seed_date"]), work, speed_precision)
        now = self._midrange(as_of, work, speed_precision)
        threshold = self.performance.relative(self.catalog.gpu(params["threshold_gpu"]), work, speed_precision) / then
        if mine >= threshold * now:
            return (f"keep your {owned.name}: it is {mine:.2f}× the {self.reference.name} for {self._label(work)}, "
                    f"{mine / now:.0%} of a mid-range card of {as_of.year} — where the GTX 1070 stood in "
                    f"{params['seed_date'][:4]}; an upgrade pays off mainly for large transformers (rule persona-already-own)")
        return None

    def _midrange(self, as_of: date, work: str, precision: str) -> float:
        """Median speed of the new desktop cards on sale on the date: the market's mid-range."""
        key = (as_of, work, precision)
        if key not in self._midrange_cache:
            speeds = sorted(self.performance.relative(o.gpu, work, precision) for o in self._offers(as_of)
                            if o.condition == "new" and not is_server_only(o.gpu))
            self._midrange_cache[key] = speeds[len(speeds) // 2] if speeds else 1.0
        return self._midrange_cache[key]

    def _impossible(self, question, choice: Choice, pricing, need, as_of):
        """No configuration works: say why and what would."""
        suggestions: list[str] = []
        cheapest = choice.over_budget[0] if choice.over_budget else None
        used = choice.alternatives.get("used")
        if cheapest is not None:
            price = pricing.money(cheapest.total_usd)
            summary = (f"nothing that holds the job fits a budget of {question.budget:,.0f} {pricing.currency}; "
                       f"the cheapest that does is {cheapest.count} × {cheapest.gpu.name} at {price.amount:,.0f} {pricing.currency}")
            if used is not None:
                summary += (f"; used, {used.count} × {used.gpu.name} at {pricing.money(used.total_usd).amount:,.0f} "
                            f"{pricing.currency} does (see the used alternative)")
            suggestions += [f"raise the budget to about {price.amount:,.0f} {pricing.currency}",
                            "consider used cards" if not question.used_ok else "rent a cloud GPU by the hour"]
            verdict = "over-budget"
        else:
            summary = f"no configuration released by {as_of.isoformat()} holds this job ({need.gb:.0f} GB needed: {need.how})"
            verdict = "too-large"
            for precision in ("16-bit", "8-bit", "4-bit"):
                if precision != question.precision and _order(precision) > _order(question.precision):
                    smaller = job_for(question.refined(precision=precision), self.rulebook).need
                    suggestions.append(f"at {precision} it needs about {smaller.gb:.0f} GB")
            if question.gpus == 1:
                suggestions.append("ask for several GPUs: the states can be sharded across them")
            suggestions.append("a smaller model, or rent a multi-GPU cloud instance")
        if question.cloud_ok:
            suggestions.append("rent a cloud GPU or TPU for the runs (rule cloud-role)")
        return verdict, summary, tuple(suggestions)

    def _rent(self, question: Question, pricing: Pricing, work: str, sizing: Sizing, top: Configuration | None):
        """Rent vs buy against the configuration to buy (None: the best rental on its own)."""
        if not question.cloud_ok:
            return None
        return self.renting.rent_or_buy(question, pricing, work, lambda gb, n: sizing.fit(gb, n).fits, top)

    def _compare(self, question, as_of, pricing, work, need, sizing: Sizing, named: list[dict]) -> Answer:
        """The named cards side by side: each priced one as a pick, every one in ``named``."""
        offers: dict[str, Offer] = {}
        for o in self._offers(as_of):  # a new price wins; a used one stands in when no new price is known
            if o.gpu.id not in offers or o.condition == "new":
                offers[o.gpu.id] = o
        picks, shown, bought = [], set(), []
        for entry in named:
            offer = offers.get(entry["gpu"]) if entry["gpu"] else None
            if offer is None or entry["status"] in ("not-released",) or entry["gpu"] in shown:
                continue
            shown.add(entry["gpu"])
            count = entry.get("cards_needed") or max(question.gpus, 1)
            fit = sizing.fit(offer.gpu.memory_gb, count)
            relative = sizing.relative(offer.gpu)
            speed = relative * (sizing.speedup(count) if (not fit.sharded or sizing.pools_for_speed) else 1.0)
            config = Configuration(offer, count, offer.unit_usd * count, relative, speed, fit, sizing.tokens_per_second(offer.gpu, count))
            picks.append(self._pick(config, question, pricing, work, entry["status"], sizing.factor))
            bought.append(config)
        picks.sort(key=lambda p: (-p.performance_per_1000, p.gpu))
        unpriced = [e for e in named if e["status"] in ("no-current-price", "not-in-catalog", "not-released")]
        lang = question.language
        if len(picks) >= 2:
            fastest = max(picks, key=lambda p: (p.relative_performance, p.gpu))
            thriftiest = picks[0]
            summary = say("summary.compare", lang, fastest=fastest.name, workload=term("workload", self._label(work), lang),
                          relative=f"{fastest.relative_performance:.2f}", reference=self.reference.name,
                          thriftiest=thriftiest.name, currency=pricing.currency, per_1000=f"{thriftiest.performance_per_1000:.2f}")
        elif picks:
            summary = say("summary.compare_one", lang, name=picks[0].name)
        else:
            summary = say("summary.compare_none", lang)
        if unpriced:
            summary += "; " + "; ".join(e["reason"] for e in unpriced)
        findings = [f for f in map(_named_finding, named) if f is not None]
        rent = self._rent(question, pricing, work, sizing, max(bought, key=lambda c: (c.relative, c.gpu.id)) if bought else None)
        if rent and not picks and any(o["named"] for o in rent.options):
            summary = rent.reason
        return Answer(
            question=question.to_dict(), intent="compare", verdict="compare", summary=summary, as_of=as_of.isoformat(),
            catalog_version=self.catalog.version, currency=pricing.describe(), reference_gpu=self.reference.id,
            workload=work, memory_need=need, picks=tuple(picks), findings=tuple(findings), named=tuple(named), rent_vs_buy=rent,
        )

    # -- helpers ------------------------------------------------------------------------------

    def _best_price(self, pricing: Pricing, gpu):
        """``pricing.best_price(gpu)``, looked up once per date and new/used choice for the whole catalog."""
        key = (pricing.as_of, pricing.used_ok)
        table = self._price_cache.get(key)
        if table is None:
            if len(self._price_cache) > 64:
                self._price_cache.clear()
            table = self._price_cache[key] = {g.id: pricing.best_price(g) for g in self.catalog.gpus}
        return table.get(gpu.id) if gpu.id in table else pricing.best_price(gpu)

    def _pricing(self, as_of: date, currency: str, used_ok: bool) -> Pricing:
        return Pricing.for_question(self.catalog, as_of, currency, used_ok, self.rulebook)

    def _label(self, work: str) -> str:
        mix = self.rulebook.param("workload-priorities", "workloads")[work]
        if len(mix) == 1:
            return self._labels[next(iter(mix))]
        return {"general": "general deep learning", "kaggle": "Kaggle work", "rl": "reinforcement learning",
                "llm_inference": "LLM inference"}.get(work, work)

    def _memory_findings(self, question: Question, need: MemoryNeed) -> list[Finding]:
        found = [Finding("memory-fit", "applied", f"the job needs about {need.gb:.1f} GB: {need.how}")]
        if need.method == "train" and question.precision in ("16-bit", "fp8") and not question.memory_gb:  # 32-bit terms
            found.append(Finding("16-bit-memory", "applied", "16-bit training counts each card as 1.5× its memory, not 2×"))
            found.append(Finding("16-bit-speed", "info", "if 16-bit training turns unstable, use loss scaling"))
        return found


def _named_finding(entry: dict) -> Finding | None:
    """A named card that could not be compared, as a finding under the rule that kept it out."""
    status, reason = entry["status"], entry["reason"]
    if status == "not-in-catalog":
        return Finding("spec-dimensions", "info", reason)
    if status == "not-released":
        return Finding("no-unreleased-chips", "excluded", reason)
    if status == "no-current-price":
        return Finding("cost-efficiency", "info", reason)
    if status == "does-not-fit":
        return Finding("memory-fit", "warning", reason)
    return None


def _order(precision: str) -> int:
    return ("fp32", "16-bit", "fp8", "8-bit", "4-bit").index(precision)


def _unique(findings) -> tuple[Finding, ...]:
    seen, out = set(), []
    for f in findings:
        if (f.rule, f.reason) not in seen:
            seen.add((f.rule, f.reason))
            out.append(f)
    return tuple(out)
