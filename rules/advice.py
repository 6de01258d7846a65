"""The rules of thumb, applied: one function per rule id of ``rules/data/rules.json``.

Each function reads the question's :class:`~rules.registry.Context` and returns the
rule's :class:`~rules.registry.Ruling` — its lines, filters and choices in one place;
the parameters (thresholds, lines, counts) come from the rulebook, never from literals
here. The functions run in the order they are defined: persona rules first (every
later rule sees who is asking), then the others in the order their lines appear.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING, Any

from rules.answer import Finding
from rules.choose import Choice, Floor, alternatives_among, still_better
from rules.configurations import Configuration
from rules.job import GIB_IN_GB, METHOD_NAMES, Job, fit_on, job_for
from rules.memo import remember
from rules.messages import cited, say, term
from rules.registry import Context, Keep, Persona, Rechoose, Ruling, Wait, rule
from rules.rulebook import Rulebook

if TYPE_CHECKING:
    from rules.catalog import Gpu

__all__ = ["build_slots"]

NOTHING = Ruling()  # what a rule that does not apply to the question rules (shared: never changed)


# -- who is asking (the seed's general recommendations) ------------------------------------------

@rule("persona-not-serious")
def persona_not_serious(ctx: Context) -> Ruling:
    if ctx.question.experience != "hobby":
        return NOTHING
    max_tdp = ctx.param("persona-not-serious", "max_tdp_w")
    return Ruling(
        persona=Persona(ctx.say("rule.persona_not_serious.reason"), ctx.param("persona-not-serious", "min_memory_gb")),
        keep=Keep(lambda c: (c.gpu.tdp_w or 0) <= max_tdp, ctx.say("rule.persona_not_serious.keep", watts=f"{max_tdp:g}")))


def _says_its_job(q) -> bool:
    """A question that names its model, its memory, several cards, a server or the users served is not
    someone starting out, though it names no workload ("team of 10 serving a 70b model")."""
    return bool(q.params_b or q.model or q.memory_gb or q.setting in ("server", "cloud") or q.batch
                or q.gpus > 1)


@rule("persona-beginner")
def persona_beginner(ctx: Context) -> Ruling:
    q = ctx.question
    if not (q.experience == "beginner" or (q.workload == "general" and q.experience is None and not _says_its_job(q))):
        return NOTHING
    return Ruling(persona=Persona(ctx.say("rule.persona_beginner.reason"),
                                  ctx.param("persona-beginner", "min_memory_gb"),
                                  consider_used=ctx.param("persona-beginner", "suggest_used"),
                                  cuda_only=ctx.param("persona-beginner", "cuda_only")))


@rule("persona-kaggle")
def persona_kaggle(ctx: Context) -> Ruling:
    if ctx.question.workload != "kaggle":
        return NOTHING
    return Ruling(persona=Persona(ctx.say("rule.persona_kaggle.reason"),
                                  ctx.param("persona-kaggle", "min_memory_gb"), cuda_only=ctx.param("persona-kaggle", "cuda_only")))


@rule("persona-nlp-researcher")
def persona_nlp_researcher(ctx: Context) -> Ruling:
    if ctx.question.experience != "researcher" or ctx.question.workload not in ctx.param("persona-nlp-researcher", "workloads"):
        return NOTHING
    return Ruling(persona=Persona(ctx.say("rule.persona_nlp_researcher.reason"),
                                  ctx.param("persona-nlp-researcher", "min_memory_gb")))


@rule("persona-cv-mt-researcher")
def persona_cv_mt_researcher(ctx: Context) -> Ruling:
    """Vision research, where the NLP persona has not taken the question (transformers are in both)."""
    workload = ctx.question.workload
    if (ctx.question.experience != "researcher" or workload in ctx.param("persona-nlp-researcher", "workloads")
            or workload not in ctx.param("persona-cv-mt-researcher", "workloads")):
        return NOTHING
    return Ruling(persona=Persona(ctx.say("rule.persona_cv_mt_researcher.reason"),
                                  ctx.param("persona-cv-mt-researcher", "min_memory_gb")))


@rule("persona-almost-no-money")
def persona_almost_no_money(ctx: Context) -> Ruling:
    if ctx.budget_usd is None or ctx.budget_usd > ctx.param("persona-almost-no-money", "budget_usd"):
        return NOTHING
    return Ruling(persona=Persona(ctx.say("rule.persona_almost_no_money.reason"), consider_used=True, verdict="cpu-and-cloud",
                                  suggestion=ctx.say("rule.persona_almost_no_money.suggestion")))


@rule("persona-little-money")
def persona_little_money(ctx: Context) -> Ruling:
    budget = ctx.budget_usd
    if budget is None or budget <= ctx.param("persona-almost-no-money", "budget_usd") or budget > ctx.param("persona-little-money", "budget_usd"):
        return NOTHING
    return Ruling(persona=Persona(ctx.say("rule.persona_little_money.reason"), consider_used=True))


# -- the cards, the job and the choice --------------------------------------------------------------

@rule("software-support")
def software_support(ctx: Context) -> Ruling:
    """Architectures the toolkit dropped, and stacks the common tools for this job did not run on yet (rows 'limited')."""
    unsupported = _unsupported(ctx.rulebook, ctx.as_of, "inference" if ctx.job.method == "inference" else "training",
                               ctx.question.workload, ctx.job.precision, ctx.language)
    if unsupported is None:
        return NOTHING
    dropped, out, reasons = unsupported
    return Ruling(keep=Keep(lambda c: (c.gpu.software, c.gpu.architecture) not in dropped and c.gpu.software not in out,
                            reasons, when="some-fail"))


Unsupported = tuple[frozenset[tuple[str, str]], frozenset[str], str]
_UNSUPPORTED: dict[tuple[Any, ...], tuple[Rulebook, Unsupported | None]] = {}


def _unsupported(rulebook: Rulebook, as_of: date, task: str, workload: str, precision: str | None,
                 language: str | None) -> Unsupported | None:
    """(software and architecture pairs dropped, stacks that could not run the job yet, why) on the date, or None:
    memoised per rulebook, date and job, since every question of the job on the date reads the same rows."""
    key = (id(rulebook), as_of, task, workload, precision, language)
    hit = _UNSUPPORTED.get(key)
    if hit is not None and hit[0] is rulebook:
        return hit[1]
    dropped = {(row["software"], arch): row for row in rulebook.param("software-support", "dropped")
               if row["from"] <= as_of.isoformat() for arch in row["architectures"]}
    limited = _limited_support(rulebook, as_of, task, workload, precision, language)
    found = None
    if dropped or limited:
        reasons = [why for _, why in limited]
        if dropped:
            row = next(iter(dropped.values()))
            reasons.insert(0, say("rule.software_support.keep", language, architectures=", ".join(row["architectures"]),
                                  since=row["from"][:7], source=cited(row["source"]["name"], language)))
        found = frozenset(dropped), frozenset(stack for stacks, _ in limited for stack in stacks), "; ".join(reasons)
    return remember(_UNSUPPORTED, key, (rulebook, found), 1024)[1]


@rule("training-limits")
def training_limits(ctx: Context) -> Ruling:
    """A training job keeps to the parts the catalog marks fit for its method (unified-memory computers: adapters or none),
    while such a part holds the job."""
    method = ctx.job.method
    if method == "inference":
        return NOTHING
    adapters = method in ctx.param("training-limits", "adapter_methods")
    fit = ("full", "adapters") if adapters else ("full",)
    return Ruling(keep=Keep(lambda c: c.gpu.trains in fit,
                            ctx.say("rule.training_limits.keep_adapters" if adapters else "rule.training_limits.keep",
                                    method=term("method", METHOD_NAMES[method], ctx.language)),
                            when="both"))


def _limited_support(rulebook: Rulebook, as_of: date, task: str, workload: str, precision: str | None,
                    language: str | None = None) -> list[tuple[tuple[str, ...], str]]:
    """(stacks, why) for each software stack that could not yet run the job on the date.

    Rule ``software-support``, rows ``limited``: a row holds from its ``from`` date until its
    ``until`` date, for the task, workloads and precisions it names (a missing key matches all).
    """
    day = as_of.isoformat()
    found: list[tuple[tuple[str, ...], str]] = []
    for row in rulebook.param("software-support", "limited"):
        if not row["from"] <= day < row["until"]:
            continue
        if row.get("task", task) != task or workload not in row.get("workloads", [workload]) \
                or precision not in row.get("precisions", [precision]):
            continue
        stacks = tuple(row["software"])
        found.append((stacks, say("rule.software_support.limited", language, stacks=", ".join(stacks), day=day,
                                  what=term("limited", row["what"], language), source=cited(row["source"]["name"], language))))
    return found

@rule("workload-priorities")
def workload_priorities(ctx: Context) -> Ruling:
    def card(c: Configuration) -> list[Finding]:
        return [Finding("workload-priorities", "applied", ctx.say(
            "rule.workload_priorities.card", relative=f"{c.relative:.2f}", reference=ctx.reference.name,
            workload=term("workload", ctx.label, ctx.language), precision=ctx.job.compute_precision,
            basis=ctx.performance.basis(c.gpu.id, ctx.work, ctx.job.compute_precision, ctx.language)))]
    return Ruling(card=card)


@rule("memory-fit")
def memory_fit(ctx: Context) -> Ruling:
    need = ctx.job.need
    tight = ctx.param("memory-fit", "tight_headroom")
    wide = ctx.job.precision in ("16-bit", "fp32") and ctx.job.method == "inference"  # weights that 8 bits would halve

    def card(c: Configuration) -> list[Finding]:
        found = [Finding("memory-fit", "applied", c.fit.reason)]
        if not ctx.question.memory_gb and c.fit.fits and c.fit.headroom < tight:  # a split binds on each card's part
            spare = max(c.fit.headroom, 0.0)
            which = "tight_weights" if wide else "tight_inference" if ctx.job.method == "inference" and ctx.question.workload == "llm" else "tight"
            found.append(Finding("memory-fit", "warning", ctx.say(f"rule.memory_fit.{which}",
                                                                  spare=f"{spare:.0%}" if spare >= 0.01 else "< 1%", count=c.count,
                                                                  name=c.gpu.name)))
        return found
    return Ruling(need=(Finding("memory-fit", "applied", ctx.say("rule.memory_fit.need", gb=f"{need.gb:.1f}", how=need.how)),),
                  card=card,
                  named=lambda entry: Finding("memory-fit", "warning", entry["reason"]) if entry["status"] == "does-not-fit" else None)


@rule("multi-gpu-speedup")
def multi_gpu_speedup(ctx: Context) -> Ruling:
    q = ctx.question
    plan = (Finding("multi-gpu-speedup", "applied", ctx.say(
        "rule.multi_gpu_speedup.plan", gpus=q.gpus, speedup=f"{ctx.performance.speedup(ctx.work, q.gpus):.1f}",
        workload=term("workload", ctx.label, ctx.language))),) if q.gpus > 1 else ()

    def card(c: Configuration) -> list[Finding]:
        if c.count == 1:
            return []
        return [Finding("multi-gpu-speedup", "applied", ctx.say("rule.multi_gpu_speedup.split" if c.fit.serial else "rule.multi_gpu_speedup.card",
                                                                count=c.count, speedup=f"{c.speed / c.relative:.1f}"))]
    return Ruling(plan=plan, card=card)


@rule("separate-experiments")
def separate_experiments(ctx: Context) -> Ruling:
    if ctx.question.gpus <= 1:
        return NOTHING
    return Ruling(plan=(Finding("separate-experiments", "info", ctx.say("rule.separate_experiments.plan")),))


@rule("memory-floor")
def memory_floor(ctx: Context) -> Ruling:
    """The memory a card should have for the workload on the date, when no size was asked."""
    q = ctx.question
    if q.memory_gb:
        return NOTHING
    floor = _floor(ctx.rulebook, ctx.as_of, q.workload, q.task, q.experience, ctx.language)
    if floor is None:
        return NOTHING

    def choice(made: Choice) -> list[Finding]:
        found = [Finding("memory-floor", "applied", floor.reason)]
        if made.under_floor is not None:
            c = made.under_floor
            found.append(Finding("memory-floor", "applied", ctx.say("rule.memory_floor.under", name=c.gpu.name, gb=f"{c.gpu.memory_gb:g}")))
        if made.top is not None and made.top.gpu.memory_gb < floor.gb:
            found.append(Finding("memory-floor", "warning", ctx.say("rule.memory_floor.unmet", floor=f"{floor.gb:g}", name=made.top.gpu.name,
                                                                    gb=f"{made.top.gpu.memory_gb:g}")))
        return found
    return Ruling(floor=floor, choice=choice)


_FLOORS: dict[tuple[Any, ...], tuple[Rulebook, Floor | None]] = {}


def _floor(rulebook: Rulebook, as_of: date, workload: str, task: str, experience: str | None, language: str | None) -> Floor | None:
    """The latest floor row for the workload, task and experience on the date, worded; memoised, since every
    question of that kind on the date reads the same row."""
    key = (id(rulebook), as_of, workload, task, experience, language)
    hit = _FLOORS.get(key)
    if hit is not None and hit[0] is rulebook:
        return hit[1]
    best, day = None, as_of.isoformat()
    for row in rulebook.param("memory-floor", "floors"):
        if (row["workload"] == workload and row["task"] in ("any", task) and row["from"] <= day
                and row.get("experience") in (None, experience)):
            if best is None or (row["from"], row["gb"]) > (best["from"], best["gb"]):
                best = row
    floor = None
    if best is not None:
        what = say("rule.memory_floor.what_training" if best["task"] == "training" else "rule.memory_floor.what_work", language,
                   workload=term("task", workload, language))
        floor = Floor(best["gb"], say("rule.memory_floor.floor", language, gb=f"{best['gb']:g}", what=what, since=best["from"][:7],
                                      source=cited(best["source"]["name"], language)))
    return remember(_FLOORS, key, (rulebook, floor), 1024)[1]


@rule("used-cards")
def used_cards(ctx: Context) -> Ruling:
    """One card for a desk: used cards join when new ones with enough memory cost much more, and the answer says why
    a used card leads; several cards or a server: new unless the question says used."""
    q = ctx.question
    several = q.gpus >= ctx.param("used-cards", "several_from") or q.setting in ("server", "cloud")
    if q.used_ok:
        why = ctx.say("rule.used_cards.asked")
    elif ctx.budget_usd is not None and any(p.consider_used for p in ctx.personas):
        why = ctx.say("rule.used_cards.persona")
    elif several:
        why = None
    else:
        why = ctx.say("rule.used_cards.market")

    def choice(made: Choice) -> list[Finding]:
        top = made.top
        if top is not None and top.offer.condition == "used":
            return [Finding("used-cards", "applied", ctx.say("rule.used_cards.picked", count=top.count, name=top.gpu.name, why=why or ""))]
        if several and not q.used_ok and "used" in made.alternatives:
            return [Finding("used-cards", "applied", ctx.say("rule.used_cards.several"))]
        return []
    if several and not q.used_ok:
        return Ruling(new_only=True, choice=choice)
    return Ruling(used_over=ctx.param("used-cards", "used_when_new_costs_more_than"), choice=choice)


@rule("memory-value")
def memory_value(ctx: Context) -> Ruling:
    """Memory-bound jobs (LLM fine-tuning): a configuration is worth its speed scaled by how much of the job's
    class it holds — the named model with headroom, else the largest open model class fine-tuned on the date."""
    reference = _memory_reference(ctx)
    if reference is None:
        return NOTHING
    job, target, name = reference
    share = ctx.param("memory-value", "speed_share")
    pools = job.pooling != "none" and job.shardable_gb > 0

    def held(memory_gb: float, count: int) -> float:
        """The share of the reference job N cards of this size hold (each card's part, when the method shards it)."""
        per_card = (job.need.gb - job.shardable_gb * (1 - 1 / count)) if pools else job.need.gb
        per_card *= target / job.need.gb
        return min(1.0, memory_gb * GIB_IN_GB / per_card)

    def worth(memory_gb: float, count: int) -> float:
        return share + (1 - share) * held(memory_gb, count)

    need = (Finding("memory-value", "applied", ctx.say("rule.memory_value.need", reference=name, gb=f"{target:.0f}",
                                                       share=f"{share:g}")),)

    def card(c: Configuration) -> list[Finding]:
        if c.memory_value >= 1.0:
            return [Finding("memory-value", "applied", ctx.say("rule.memory_value.holds", reference=name))]
        return [Finding("memory-value", "applied", ctx.say("rule.memory_value.card", held=f"{held(c.gpu.memory_gb, c.count):.0%}",
                                                           reference=name, worth=f"{c.memory_value:.2f}"))]
    return Ruling(worth=worth, need=need, card=card)


def _memory_reference(ctx: Context) -> tuple[Job, float, str] | None:
    """(the reference job, its need in GB with headroom, its name) for a memory-bound question; None for others."""
    q, job = ctx.question, ctx.job
    if q.memory_gb or job.method not in ctx.param("memory-value", "methods") or not (job.is_llm or q.workload == "llm"):
        return None
    if job.model is not None:
        return job, job.need.gb * (1 + ctx.param("memory-value", "named_headroom")), job.model.name
    day = ctx.as_of.isoformat()
    rows = [row for row in ctx.param("memory-value", "reference_models") if row["from"] <= day]
    if not rows:
        return None
    row = max(rows, key=lambda r: r["from"])
    reference = job_for(q.refined(model=row["model"], params_b=None), ctx.rulebook)
    if reference.model is None:
        return None
    name = ctx.say("rule.memory_value.class", model=reference.model.name, method=term("method", METHOD_NAMES[reference.method], ctx.language))
    return reference, reference.need.gb, name


@rule("cost-efficiency")
def cost_efficiency(ctx: Context) -> Ruling:
    threshold = ctx.param("cost-efficiency", "step_up_threshold" if ctx.budget_usd is not None else "no_budget_threshold")

    def choice(made: Choice) -> list[Finding]:
        if made.top is None or ctx.question.objective == "cheapest":  # the choice's own note says why
            return []
        return [Finding("cost-efficiency", "applied", ctx.say("rule.cost_efficiency.choice"))]

    def card(c: Configuration) -> list[Finding]:
        if c.offer.condition != "used":
            return []
        return [Finding("cost-efficiency", "info", ctx.say("rule.cost_efficiency.used", date=c.offer.point.seen.isoformat()))]
    return Ruling(threshold=threshold, choice=choice, card=card,
                  named=lambda entry: Finding("cost-efficiency", "info", entry["reason"]) if entry["status"] == "no-current-price" else None)


@rule("16-bit-memory")
def sixteen_bit_memory(ctx: Context) -> Ruling:
    factor = 1.0 if ctx.question.memory_gb else ctx.job.memory_factor
    need = (Finding("16-bit-memory", "applied", ctx.say("rule.16_bit_memory.need")),) if _trains_in_16_bit(ctx) else ()

    def card(c: Configuration) -> list[Finding]:
        if factor == 1.0:  # only 2019-style training is counted in 32-bit terms
            return []
        return [Finding("16-bit-memory", "applied", ctx.say("rule.16_bit_memory.card", gb=f"{c.gpu.memory_gb:g}",
                                                            effective=f"{c.gpu.memory_gb * factor:g}"))]
    return Ruling(need=need, card=card)


@rule("16-bit-speed")
def sixteen_bit_speed(ctx: Context) -> Ruling:
    precision = ctx.question.precision
    need = (Finding("16-bit-speed", "info", ctx.say("rule.16_bit_speed.need")),) if _trains_in_16_bit(ctx) else ()

    def card(c: Configuration) -> list[Finding]:
        gpu = c.gpu
        if precision == "fp32":
            return []
        if not gpu.fast_16bit:
            return [Finding("16-bit-speed", "warning", ctx.say("rule.16_bit_speed.slow", name=gpu.name, precision=precision))]
        if rate := gpu.tensor_tflops.get("fp16") or gpu.tensor_tflops.get("bf16"):
            return [Finding("16-bit-speed", "applied", ctx.say("rule.16_bit_speed.tensor", rate=f"{rate:.0f}"))]
        return []
    return Ruling(need=need, card=card)


def _trains_in_16_bit(ctx: Context) -> bool:
    return ctx.job.method == "train" and ctx.question.precision in ("16-bit", "fp8") and not ctx.question.memory_gb


@rule("vendor-nvidia")
def vendor_nvidia(ctx: Context) -> Ruling:
    """CUDA is the safe stack: stated on every other card, the only stack for beginners, and it leads when close."""
    safe = ctx.param("vendor-nvidia", "safe_stack")

    def is_safe(c: Configuration) -> bool:
        return bool(c.gpu.software == safe)
    keep = Keep(is_safe, ctx.say("rule.vendor_nvidia.keep")) if any(p.cuda_only for p in ctx.personas) else None

    def card(c: Configuration) -> list[Finding]:
        if is_safe(c):
            return []
        share = ctx.param("workload-priorities", "software_efficiency").get(c.gpu.software, 1.0)
        return [Finding("vendor-nvidia", "applied", ctx.say("rule.vendor_nvidia.card", software=c.gpu.software, share=f"{share:.0%}"))]

    def prefer(choice: Choice, rechoose: Rechoose) -> Choice:
        top = choice.top
        if top is None:
            return choice
        if is_safe(top):
            if choice.best_value is not None and not is_safe(choice.best_value):
                # the seed weighs a step up against the best value of the stack it recommends (RTX 2070 over RTX 2060):
                # a cheap card outside CUDA would set the price of speed for a CUDA pick, and name a card the answer hides
                cuda = rechoose(is_safe)
                if cuda.top is not None:
                    return _with_outside(cuda, _outside(choice))
            return _safe_alternatives(choice)
        cuda = rechoose(is_safe)
        floor = ctx.floor
        if (cuda.top is None or cuda.top.speed < ctx.param("vendor-nvidia", "cuda_leads_within") * top.speed
                or (floor and cuda.top.gpu.memory_gb < floor.gb <= top.gpu.memory_gb)
                or cuda.top.memory_value < top.memory_value):  # for memory-bound work, close in speed but holding less is not close
            return choice
        note = Finding("vendor-nvidia", "applied", ctx.say("rule.vendor_nvidia.leads", cuda=cuda.top.gpu.name, count=top.count, name=top.gpu.name,
                                                    software=top.gpu.software, share=f"{cuda.top.speed / top.speed:.0%}"))
        return replace(_with_outside(cuda, top), notes=(note, *cuda.notes))

    def _outside(choice: Choice) -> Configuration | None:
        """Where a card outside CUDA beats the pick on value, speed or room: the one the choice ranks first outside it."""
        if all(label == "used" or is_safe(c) for label, c in choice.alternatives.items()):
            return None
        return next((c for c in choice.within if not is_safe(c)), None)

    def _with_outside(cuda: Choice, outside: Configuration | None) -> Choice:
        """A choice made within CUDA, with the best card outside it under its own label."""
        if cuda.top is None:
            return cuda
        alternatives = dict(cuda.alternatives)
        if outside is not None:
            alternatives.setdefault("outside CUDA", outside)
        return replace(cuda, alternatives=still_better(alternatives, cuda.top))

    def _safe_alternatives(choice: Choice) -> Choice:
        """A CUDA pick's best value, fastest and roomiest come from CUDA too; the best card outside it is shown
        under its own label, 'outside CUDA', so that 'best value' never quietly means a ROCm card."""
        outside = _outside(choice)
        if outside is None:
            return choice
        alternatives = alternatives_among(choice, is_safe)
        if "used" in choice.alternatives:
            alternatives["used"] = choice.alternatives["used"]
        return _with_outside(replace(choice, alternatives=alternatives), outside)
    return Ruling(keep=keep, card=card, prefer=prefer)


@rule("vendor-amd")
def vendor_amd(ctx: Context) -> Ruling:
    return Ruling(card=lambda c: [Finding("vendor-amd", "warning", ctx.say("rule.vendor_amd.card", name=c.gpu.name))]
                  if c.gpu.vendor == "amd" else [])


@rule("vendor-intel")
def vendor_intel(ctx: Context) -> Ruling:
    return Ruling(card=lambda c: [Finding("vendor-intel", "warning", ctx.say("rule.vendor_intel.card", name=c.gpu.name))]
                  if c.gpu.vendor == "intel" else [])


@rule("product-lines")
def product_lines(ctx: Context) -> Ruling:
    """Lines the seed advises against, and modules that need a whole server, never lead a desktop answer."""
    avoid = ctx.param("product-lines", "poor_value_lines")
    if ctx.question.memory_gb or _memory_reference(ctx) is not None:  # memory asked, or needed beyond consumer cards
        avoid = [line for line in avoid if line not in ctx.param("product-lines", "memory_bound_lines")]
    server = ctx.question.setting == "server"

    def card(c: Configuration) -> list[Finding]:
        found = []
        if c.gpu.line in avoid:
            found.append(Finding("product-lines", "warning", ctx.say("rule.product_lines.poor_value", line=c.gpu.line)))
        if c.gpu.founders_edition and c.gpu.line == "geforce":
            found.append(Finding("product-lines", "info", ctx.say("rule.product_lines.founders")))
        return found
    return Ruling(card=card, headline=lambda c: c.gpu.form_factor not in ("sxm", "oam") and (server or c.gpu.line not in avoid))


@rule("multi-gpu-heat")
def multi_gpu_heat(ctx: Context) -> Ruling:
    heat = ctx.rulebook["multi-gpu-heat"].parameters
    server = ctx.question.setting in ("server", "cloud")

    def card(c: Configuration) -> list[Finding]:
        gpu, count = c.gpu, c.count
        limit = heat["big_card_max_open_air"] if (gpu.tdp_w or 0) >= heat["big_card_tdp_w"] else heat["small_card_max_open_air"]
        if count <= limit or gpu.form_factor != "pcie" or "passive" in gpu.cooling or gpu.cooling == ("blower",):
            return []  # blower-only boards (workstation cards) are made to sit side by side
        if "blower" in gpu.cooling:
            return [Finding("multi-gpu-heat", "warning", ctx.say("rule.multi_gpu_heat.blower", count=count, name=gpu.name))]
        return [Finding("multi-gpu-heat", "warning", ctx.say("rule.multi_gpu_heat.no_blower", count=count, name=gpu.name))]

    def refuse(gpu: Gpu, count: int) -> str | None:
        if gpu.form_factor == "system" and count > 1:
            return ctx.say("rule.multi_gpu_heat.system")
        if server:
            if count > 1 and not ({"blower", "passive"} & set(gpu.cooling)):
                return ctx.say("rule.multi_gpu_heat.server_open_air", count=count)
            return None
        if count > heat["small_card_max_open_air"] and "blower" not in gpu.cooling:  # two big ones: a warning, a gap helps
            return ctx.say("rule.multi_gpu_heat.desktop", count=count)
        return None
    return Ruling(card=card, refuse=refuse)


@rule("power-and-slots")
def power_and_slots(ctx: Context) -> Ruling:
    power = ctx.rulebook["power-and-slots"].parameters
    server = ctx.question.setting in ("server", "cloud")

    most, message = (power["server_max_slots"], "rule.power_and_slots.server_slots") if server else (power["max_slots"], "rule.power_and_slots.slots")

    def too_wide(gpu: Gpu, count: int) -> str | None:
        slots = build_slots(ctx.rulebook, gpu, count)
        if slots and slots * count > most:
            return ctx.say(message, count=count, slots=f"{slots:g}", total=f"{slots * count:g}", max_slots=most)
        return None

    def card(c: Configuration) -> list[Finding]:
        found = []
        if c.gpu.tdp_w:
            watts = c.gpu.tdp_w * c.count + power["system_power_w"]
            psu = int(-(-watts * power["psu_headroom"] // 50) * 50)
            found.append(Finding("power-and-slots", "info", ctx.say("rule.power_and_slots.psu", watts=watts, psu=psu)))
        if why := too_wide(c.gpu, c.count):
            found.append(Finding("power-and-slots", "warning", why))
        return found
    return Ruling(card=card, refuse=None if server else too_wide)


def build_slots(rulebook: Rulebook, gpu: Gpu, count: int) -> float | None:
    """Slots one card takes in a build of ``count``: past two cards, the blower version (dual-slot) where one exists."""
    if count > rulebook.param("multi-gpu-heat", "small_card_max_open_air") and "blower" in gpu.cooling:
        return rulebook.param("power-and-slots", "blower_slots")
    return gpu.slots


@rule("geforce-licence")
def geforce_licence(ctx: Context) -> Ruling:
    from_gpus = ctx.param("geforce-licence", "from_gpus")
    return Ruling(card=lambda c: [Finding("geforce-licence", "warning", ctx.say("rule.geforce_licence.card"))]
                  if c.gpu.line == "geforce" and c.gpu.vendor == "nvidia" and c.count >= from_gpus else [])


@rule("one-machine")
def one_machine(ctx: Context) -> Ruling:
    q, per_machine = ctx.question, ctx.param("one-machine", "gpus_per_machine")
    if q.gpus <= per_machine:
        return NOTHING
    # The server setting already admits server parts (rules.offers); the line says so beside the other filters.
    server = Keep(lambda c: True, ctx.say("rule.one_machine.server", gpus=q.gpus), when="always") if q.setting == "server" else None
    # the seed's desktop holds four; a server chassis holds eight, so only more than the setting takes means machines
    fits = ctx.param("one-machine", "gpus_per_server") if q.setting in ("server", "cloud") else per_machine
    plan = (Finding("one-machine", "warning", ctx.say("rule.one_machine.plan", per_machine=fits)),) if q.gpus > fits else ()
    return Ruling(keep=server, plan=plan)


@rule("persona-already-own")
def persona_already_own(ctx: Context) -> Ruling:
    """Only upgrades over the card you have; keep it when it still sits where the seed's GTX 1070 sat in its market."""
    owned = ctx.owned
    if owned is None:
        return NOTHING
    mine = ctx.speed(owned)
    gain = ctx.param("persona-already-own", "min_speedup")
    more_memory = ctx.question.workload in ctx.param("persona-already-own", "memory_bound_workloads")

    def upgrade(c: Configuration) -> bool:
        if c.speed < mine or c.gpu.memory_gb < owned.memory_gb:
            return False
        return c.gpu.memory_gb > owned.memory_gb if more_memory else c.speed >= gain * mine or c.gpu.memory_gb > owned.memory_gb
    keep = Keep(upgrade, ctx.say("rule.persona_already_own.keep", name=owned.name, relative=f"{mine:.2f}", gb=f"{owned.memory_gb:g}")
                + (ctx.say("rule.persona_already_own.more_memory") if more_memory else ctx.say("rule.persona_already_own.faster", gain=f"{gain:g}")),
                when="always")
    return Ruling(keep=keep, wait=_keep_yours(ctx, owned, mine))


def _keep_yours(ctx: Context, owned: Gpu, mine: float) -> Wait | None:
    params, job = ctx.rulebook["persona-already-own"].parameters, ctx.job
    later = Wait("", ctx.say("rule.persona_already_own.suggestion"))
    if job.method == "inference" and job.model is not None and fit_on(job, owned.memory_gb, 1).fits:
        tps = ctx.performance.tokens_per_second(owned, job, 1) if job.is_llm else None
        speed = ctx.say("rule.persona_already_own.tokens", tokens=f"{tps:.0f}") if tps else ""
        return replace(later, reason=ctx.say("rule.persona_already_own.holds", name=owned.name, model=job.model.name,
                                             gb=f"{job.need.gb:.0f}", precision=job.precision, speed=speed))
    floor = ctx.floor
    if ctx.question.workload in params["unless_workloads"] or (floor is not None and owned.memory_gb < floor.gb):
        return None
    then, now = ctx.midrange(date.fromisoformat(params["seed_date"])), ctx.midrange(ctx.as_of)
    threshold = ctx.speed(ctx.gpu(params["threshold_gpu"])) / then
    if mine < threshold * now:
        return None
    return replace(later, reason=ctx.say("rule.persona_already_own.still_good", name=owned.name, relative=f"{mine:.2f}",
                                         reference=ctx.reference.name, workload=term("workload", ctx.label, ctx.language),
                                         share=f"{mine / now:.0%}", year=ctx.as_of.year, seed_year=params["seed_date"][:4]))


@rule("cloud-role")
def cloud_role(ctx: Context) -> Ruling:
    if not ctx.question.cloud_ok:
        return NOTHING
    return Ruling(plan=(Finding("cloud-role", "info", ctx.say("rule.cloud_role.plan")),))


@rule("tpu-fit")
def tpu_fit(ctx: Context) -> Ruling:
    q = ctx.question
    if not q.cloud_ok:
        return NOTHING
    if q.workload in ctx.param("tpu-fit", "good_for"):
        return Ruling(plan=(Finding("tpu-fit", "info", ctx.say("rule.tpu_fit.good")),))
    if q.workload == "rnn":
        return Ruling(plan=(Finding("tpu-fit", "info", ctx.say("rule.tpu_fit.rnn")),))
    return NOTHING


@rule("no-unreleased-chips")
def no_unreleased_chips(ctx: Context) -> Ruling:
    plan = (Finding("no-unreleased-chips", "applied", ctx.say("rule.no_unreleased_chips.plan", date=ctx.question.as_of.isoformat())),) \
        if ctx.question.as_of is not None else ()
    return Ruling(plan=plan, named=lambda entry: Finding("no-unreleased-chips", "excluded", entry["reason"])
                  if entry["status"] == "not-released" else None)


@rule("memory-caveat")
def memory_caveat(ctx: Context) -> Ruling:
    """Of the cards left out for memory, only those cheaper than the pick are worth naming: the memory caveat."""
    def left_out(excluded: list[dict[str, Any]], cheaper: Any) -> list[dict[str, Any]]:
        kept = [e for e in excluded if e["rule"] != "memory-fit" or cheaper(e["gpu"])]
        return [e | {"rule": "memory-caveat"} if e["rule"] == "memory-fit" else e for e in kept]
    return Ruling(left_out=left_out)


@rule("spec-dimensions")
def spec_dimensions(ctx: Context) -> Ruling:
    return Ruling(named=lambda entry: Finding("spec-dimensions", "info", entry["reason"]) if entry["status"] == "not-in-catalog" else None)


@rule("rent-vs-buy")
def rent_vs_buy(ctx: Context) -> Ruling:
    """Renting is weighed whenever the asker allows the cloud (rules.rent does the sums)."""
    return Ruling(rent=ctx.question.cloud_ok)
