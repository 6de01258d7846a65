"""The advisor: rank the catalog for a question and explain each step.

:class:`Advisor` holds one snapshot of what the engine knows — the catalog, the
rulebook, lab measurements, the electricity price — and answers questions over
it without I/O, so the service can keep one in memory and rebuild it only when
the data change. Ranking is by performance per dollar inside the budget
(rule ``cost-efficiency``) among cards that are released, priced, and hold the job.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Mapping

from rules import advice
from rules.answer import Answer, Finding, MemoryNeed, Pick
from rules.memory import MemoryModel
from rules.money import Pricing
from rules.performance import Measured, PerformanceModel, workload_key
from rules.question import Question
from rules.rent import Renting
from rules.rulebook import Rulebook, load_rulebook

__all__ = ["Advisor", "Candidate"]

SHOWN_EXCLUSIONS = 8


@dataclass(frozen=True)
class Candidate:
    """A card priced, sized and scored for one question."""

    gpu: object
    price: object
    unit_usd: float
    total_usd: float
    relative: float
    fit: object
    score: float


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
        self._price_cache: dict[tuple[date, bool], dict[str, object]] = {}
        self._labels = {k: v["label"] for k, v in self.rulebook.param("workload-priorities", "classes").items()}

    # -- public faces -------------------------------------------------------------------------

    def recommend(self, question: Question, intent: str = "recommend", today: date | None = None) -> Answer:
        """Ranked picks with reasons; never raises for an impossible question, says so instead."""
        as_of = question.as_of or today or date.today()
        if question.precision is None:
            question = question.refined(precision="16-bit")
        model_spec = self.memory.model_for(question)
        if model_spec and model_spec.workload and question.workload == "general":
            question = question.refined(workload=model_spec.workload)
        work = workload_key(question.workload, question.task)
        budget_usd = None
        pricing = self._pricing(as_of, question.currency, question.used_ok)
        if question.budget is not None:
            budget_usd = pricing.to_usd(question.budget)
        fired = advice.personas(self.rulebook, question, budget_usd)
        if any(p.consider_used for p in fired) and not question.used_ok:
            pricing = self._pricing(as_of, question.currency, True)
        floor = max([self.rulebook.param("memory-caveat", "min_memory_gb")[question.workload]]
                    + [p.min_memory_gb for p in fired if p.min_memory_gb])
        need = self.memory.need(question, floor)
        speedup = self.performance.speedup(work, question.gpus)

        if intent == "compare" and question.compare:  # any known price helps a comparison, used too
            return self._compare(question, as_of, self._pricing(as_of, question.currency, True), work, need, speedup)

        ranked, excluded, over_budget = self._rank(question, as_of, pricing, work, need, speedup, budget_usd)
        max_tdp = min((p.max_tdp_w for p in fired if p.max_tdp_w), default=None)
        findings = [p.finding for p in fired]
        if max_tdp:
            low_power = [c for c in ranked if (c.gpu.tdp_w or 0) <= max_tdp]
            if low_power:
                ranked = low_power
                findings.append(Finding("persona-not-serious", "applied", f"only cards drawing {max_tdp:g} W or less, which fit a standard desktop"))
        findings += advice.question_findings(self.rulebook, question, self._label(work), speedup)
        findings += self._memory_findings(question, need)
        if ranked:
            findings.append(Finding("cost-efficiency", "applied", "ranked by estimated performance per dollar inside the budget"))
        picks = tuple(self._pick(c, question, pricing, work, need) for c in ranked[:3])
        alternatives = self._alternatives(ranked, question, pricing, work, need)
        verdict, summary, suggestions = self._verdict(question, ranked, over_budget, picks, fired, pricing, need, work, as_of)
        rent = (self.renting.rent_or_buy(question, pricing, work, lambda gb, n: self.memory.fit(question, need, gb, n).fits,
                                         ranked[0] if ranked else None) if question.cloud_ok else None)
        warnings = _unique(f for pick in picks[:1] for f in pick.findings if f.verdict == "warning")
        return Answer(
            question=question.to_dict(), intent=intent, verdict=verdict, summary=summary, as_of=as_of.isoformat(),
            catalog_version=self.catalog.version, currency=pricing.describe(), reference_gpu=self.reference.id,
            workload=work, memory_need=need, picks=picks, alternatives=alternatives, findings=tuple(findings),
            warnings=warnings, excluded=tuple(excluded[:SHOWN_EXCLUSIONS]), rent_vs_buy=rent, suggestions=suggestions,
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

    # -- ranking ------------------------------------------------------------------------------

    def _candidate(self, gpu, question: Question, pricing: Pricing, work: str, need: MemoryNeed, speedup: float):
        """(Candidate, None) or (None, exclusion record)."""
        point = self._best_price(pricing, gpu)
        if point is None:
            return None, {"gpu": gpu.id, "rule": "cost-efficiency", "reason": f"no price known by {pricing.as_of.isoformat()}"}
        fit = self.memory.fit(question, need, gpu.memory_gb, question.gpus)
        if not fit.fits:
            return None, {"gpu": gpu.id, "rule": "memory-fit", "reason": f"{gpu.name}: {fit.reason}"}
        relative = self.performance.relative(gpu, work, question.precision)
        total = point.price_usd * question.gpus
        weight = self.rulebook.param("cost-efficiency", "speed_weight")
        score = (relative * speedup) ** weight / total
        if gpu.software != self.rulebook.param("vendor-nvidia", "safe_stack"):
            score *= self.rulebook.param("vendor-nvidia", "other_stack_score_factor")
        return Candidate(gpu, point, point.price_usd, total, relative, fit, score), None

    def _rank(self, question, as_of, pricing, work, need, speedup, budget_usd):
        ranked, excluded, over_budget = [], [], []
        for gpu in self.catalog.released_by(as_of):
            if not gpu.purchasable:
                continue
            candidate, why = self._candidate(gpu, question, pricing, work, need, speedup)
            if candidate is None:
                if why["rule"] == "memory-fit":
                    excluded.append(why)
                continue
            if budget_usd is not None and candidate.total_usd > budget_usd * 1.0001:
                over_budget.append(candidate)
                continue
            ranked.append(candidate)
        ranked.sort(key=lambda c: (-c.score, c.total_usd, c.gpu.id))
        if ranked:  # the memory caveat: cheaper, more cost-efficient cards left out for memory
            excluded = [e for e in excluded if self._cheaper_than(e["gpu"], ranked[0], pricing)]
            for record in excluded:
                record["rule"] = "memory-caveat"
        over_budget.sort(key=lambda c: (c.total_usd, c.gpu.id))
        return ranked, sorted(excluded, key=lambda e: e["gpu"]), over_budget

    def _cheaper_than(self, gpu_id: str, top: Candidate, pricing: Pricing) -> bool:
        point = self._best_price(pricing, self.catalog.gpu(gpu_id))
        return point is not None and point.price_usd < top.unit_usd

    def _pick(self, c: Candidate, question: Question, pricing: Pricing, work: str, need: MemoryNeed) -> Pick:
        measured = self.performance.measured(c.gpu.id)
        basis = "measured" if measured else "estimated"
        source = f"measured on {measured.hosts} lab host{'s' * (measured.hosts != 1)}" if measured else "estimated from specs"
        findings = [
            Finding("workload-priorities", "applied",
                    f"{c.relative:.2f}× the {self.reference.name} for {self._label(work)} at {question.precision} ({source})"),
            Finding("memory-fit", "applied", c.fit.reason),
        ]
        if question.task == "training" and question.precision == "16-bit":
            findings.append(Finding("16-bit-memory", "applied",
                                    f"{c.gpu.memory_gb:g} GB behaves like {c.gpu.memory_gb * self.memory.effective_factor(question):g} GB of 32-bit memory"))
        findings += advice.card_findings(self.rulebook, c.gpu, question)
        findings += advice.build_findings(self.rulebook, c.gpu, question.gpus)
        total = c.relative * self.performance.speedup(work, question.gpus)
        unit = pricing.money(c.unit_usd, c.price)
        return Pick(
            gpu=c.gpu.id, name=c.gpu.name, vendor=c.gpu.vendor, count=question.gpus, unit_price=unit,
            total_price=pricing.money(c.total_usd), relative_performance=total,
            performance_per_1000=total / (c.total_usd * pricing.per_usd) * 1000,
            memory_gb=c.gpu.memory_gb, effective_memory_gb=c.gpu.memory_gb * self.memory.effective_factor(question),
            basis=basis, hosts=measured.hosts if measured else 0, findings=tuple(findings),
        )

    def _alternatives(self, ranked, question, pricing, work, need) -> dict[str, Pick | None]:
        if not ranked:
            return {}
        top, shown = ranked[0], {c.gpu.id for c in ranked[:3]}
        rest = [c for c in ranked if c.gpu.id not in shown]
        cheaper = min((c for c in rest if c.total_usd < top.total_usd), key=lambda c: (c.total_usd, -c.score, c.gpu.id), default=None)
        roomier = max((c for c in rest if c.gpu.memory_gb > top.gpu.memory_gb), key=lambda c: (c.gpu.memory_gb, c.score, c.gpu.id), default=None)
        faster = max((c for c in rest if c.relative > top.relative), key=lambda c: (c.relative, c.score, c.gpu.id), default=None)
        return {name: self._pick(c, question, pricing, work, need) if c else None
                for name, c in (("cheaper", cheaper), ("roomier", roomier), ("faster", faster))}

    # -- verdicts -----------------------------------------------------------------------------

    def _verdict(self, question, ranked, over_budget, picks, fired, pricing, need, work, as_of):
        suggestions: list[str] = []
        owned = self.catalog.find(question.owned_gpu) if question.owned_gpu else None
        wait = self._should_wait(owned, question, work) if owned else None
        if wait:
            return "wait", wait, ("ask again if you move to large transformers",)
        if not ranked:
            return self._impossible(question, over_budget, pricing, need, as_of)
        top = picks[0]
        summary = (f"{top.count} × {top.name} at {top.unit_price.amount:,.0f} {pricing.currency} each "
                   f"({top.unit_price.kind}, {top.unit_price.seen}): {top.relative_performance:.2f}× the {self.reference.name} "
                   f"for {self._label(work)}, {top.performance_per_1000:.2f} per 1000 {pricing.currency}")
        if any(p.verdict == "cpu-and-cloud" for p in fired):
            suggestions.append("prototype on the CPU and use free notebooks (Colab, Kaggle) for training")
            return "cpu-and-cloud", summary, tuple(suggestions)
        if owned:
            summary += f" — {top.relative_performance / max(self.performance.relative(owned, work, question.precision), 1e-9):.1f}× your {owned.name}"
        return "buy", summary, tuple(suggestions)

    def _should_wait(self, owned, question: Question, work: str) -> str | None:
        params = self.rulebook["persona-already-own"].parameters
        if question.workload in params["unless_workloads"]:
            return None
        threshold = self.catalog.gpu(params["threshold_gpu"])
        mine = self.performance.relative(owned, work, question.precision)
        if mine >= self.performance.relative(threshold, work, question.precision):
            return (f"keep your {owned.name}: it is {mine:.2f}× the {self.reference.name} for {self._label(work)}, "
                    f"at or above the {threshold.name} — an upgrade pays off mainly for large transformers (rule persona-already-own)")
        return None

    def _impossible(self, question, over_budget, pricing, need, as_of):
        """No card works: say why and what would."""
        suggestions: list[str] = []
        cheapest = over_budget[0] if over_budget else None
        if cheapest is not None:
            price = pricing.money(cheapest.total_usd)
            summary = (f"nothing that holds the job fits a budget of {question.budget:,.0f} {pricing.currency}; "
                       f"the cheapest that does is {question.gpus} × {cheapest.gpu.name} at {price.amount:,.0f} {pricing.currency}")
            suggestions += [f"raise the budget to about {price.amount:,.0f} {pricing.currency}", "consider used cards" if not question.used_ok else "rent a cloud GPU by the hour"]
            verdict = "over-budget"
        else:
            summary = f"no single card released by {as_of.isoformat()} holds this job ({need.gb:.0f} GB needed: {need.how})"
            verdict = "too-large"
            for precision in ("16-bit", "8-bit", "4-bit"):
                if precision != question.precision and _order(precision) > _order(question.precision):
                    smaller = self.memory.need(question.refined(precision=precision))
                    suggestions.append(f"at {precision} it needs about {smaller.gb:.0f} GB")
            if question.gpus == 1:
                suggestions.append("ask for several GPUs: the states can be sharded across them")
            suggestions.append("a smaller model, or rent a multi-GPU cloud instance")
        if question.cloud_ok:
            suggestions.append("rent a cloud GPU or TPU for the runs (rule cloud-role)")
        return verdict, summary, tuple(suggestions)

    def _compare(self, question, as_of, pricing, work, need, speedup) -> Answer:
        picks, findings, bought = [], [], []
        for name in question.compare:
            gpu = self.catalog.find(name)
            if gpu is None and question.cloud_ok and name in self.renting.rentable(question.compare):
                continue  # a cloud-only accelerator (a TPU): compared in rent_vs_buy
            if gpu is None:
                findings.append(Finding("spec-dimensions", "info", f"'{name}' is not in the catalog"))
                continue
            if gpu.released > as_of:
                findings.append(Finding("no-unreleased-chips", "excluded", f"{gpu.name} was not released by {as_of.isoformat()}"))
                continue
            point = self._best_price(pricing, gpu)
            fit = self.memory.fit(question, need, gpu.memory_gb, question.gpus)
            relative = self.performance.relative(gpu, work, question.precision)
            unit = point.price_usd if point else float("nan")
            candidate = Candidate(gpu, point, unit, unit * question.gpus, relative, fit, relative / unit if point else 0.0)
            pick = self._pick(candidate, question, pricing, work, need) if point else None
            if pick is None:
                findings.append(Finding("cost-efficiency", "info", f"{gpu.name}: no price known by {as_of.isoformat()}"))
                continue
            picks.append(pick)
            bought.append(candidate)
        picks.sort(key=lambda p: (-p.performance_per_1000, p.gpu))
        if len(picks) >= 2:
            fastest = max(picks, key=lambda p: (p.relative_performance, p.gpu))
            thriftiest = picks[0]
            summary = (f"{fastest.name} is fastest for {self._label(work)} ({fastest.relative_performance:.2f}× the {self.reference.name}); "
                       f"{thriftiest.name} gives the most per {pricing.currency} ({thriftiest.performance_per_1000:.2f} per 1000)")
        elif picks:
            summary = f"only {picks[0].name} could be compared"
        else:
            summary = "none of the named cards could be compared"
        top = max(bought, key=lambda c: (c.relative, c.gpu.id)) if bought else None
        rent = self.renting.rent_or_buy(question, pricing, work, lambda gb, n: self.memory.fit(question, need, gb, n).fits,
                                        top) if question.cloud_ok else None
        if rent and not picks and any(o["named"] for o in rent.options):
            summary = rent.reason
        return Answer(
            question=question.to_dict(), intent="compare", verdict="compare", summary=summary, as_of=as_of.isoformat(),
            catalog_version=self.catalog.version, currency=pricing.describe(), reference_gpu=self.reference.id,
            workload=work, memory_need=need, picks=tuple(picks), findings=tuple(findings), rent_vs_buy=rent,
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
        if question.task == "training" and question.precision == "16-bit":
            found.append(Finding("16-bit-memory", "applied", "16-bit training counts each card as 1.5× its memory, not 2×"))
            found.append(Finding("16-bit-speed", "info", "if 16-bit training turns unstable, use loss scaling"))
        return found


def _order(precision: str) -> int:
    return ("fp32", "16-bit", "8-bit", "4-bit").index(precision)


def _unique(findings) -> tuple[Finding, ...]:
    seen, out = set(), []
    for f in findings:
        if (f.rule, f.reason) not in seen:
            seen.add((f.rule, f.reason))
            out.append(f)
    return tuple(out)
