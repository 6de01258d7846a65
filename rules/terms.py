"""Stage 4 of an answer: what the rules ask of the configurations and of the choice, before any is made.

Each term names the rule it comes from (rules/data/rules.json), so the lines that explain the answer later
(:mod:`rules.explain`) can say which rule filtered, floored or refused what. A term is data the later stages
read — a filter over configurations, the workload's memory floor, the step-up threshold, how used cards count,
what may lead an answer, why N of a card cannot go in one box, what memory is worth for a memory-bound job —
never a hook called back into this module. Memory's terms are in :mod:`rules.memory_terms`, one box's in
:mod:`rules.box`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING, Protocol

from rules.box import box_refusal
from rules.job import METHOD_NAMES, Job
from rules.job_defaults import BACKEND_NAMES
from rules.knowledge.messages import Cited, Joined, Phrase, Term, Text
from rules.memory_terms import Floor, MemoryWorth
from rules.money import BUDGET_SLACK

if TYPE_CHECKING:
    from rules.asker import Asker
    from rules.contract.question import Question
    from rules.knowledge import Gpu, Rulebook
    from rules.performance import PerformanceModel

__all__ = [
    "Keep",
    "Terms",
    "TermsContext",
    "UsedCards",
    "Wait",
    "terms_for",
]


class Candidate(Protocol):
    """What the rules' filters read of a configuration (``rules.configurations.Configuration`` is one): the
    terms are set before any configuration exists, so they name only this."""

    @property
    def gpu(self) -> Gpu: ...

    @property
    def count(self) -> int: ...

    @property
    def speed(self) -> float: ...

    @property
    def total_usd(self) -> float: ...


@dataclass(frozen=True)
class Keep:
    """What every configuration must pass, the rule that says so and its line.

    ``when`` the filter (and its line) applies: "some-pass" — only when some configuration passes
    (a preference, dropped when nothing meets it); "some-fail" — only when it leaves something out;
    "both" — only when it leaves something out and something passes; "always" — even when nothing
    passes (the answer then says nothing fits). ``among`` narrows "some-pass" to the configurations a
    preference must be met among (within the budget, with the floor's memory); where some pass but none of
    those, the preference is set aside and ``aside`` says why.
    """

    rule: str
    test: Callable[[Candidate], bool]
    reason: Text
    when: str = "some-pass"
    among: Callable[[Candidate], bool] | None = None
    aside: Text | None = None


@dataclass(frozen=True)
class Wait:
    """Keep the card you have: why, and when to ask again (rule ``persona-already-own``)."""

    reason: Text
    suggestion: Text


@dataclass(frozen=True)
class UsedCards:
    """How used cards count (rule ``used-cards``): asked for, joined when new ones cost much more,
    or new only."""

    new_only: bool  # several cards or a server: used ones are picked only when asked for
    used_over: float | None  # used cards count when new ones above the floor cost this many times more
    saving: float  # a used card joins unasked only when it saves this share of the same cards new
    why: Text | None  # why a used card may lead, said when one does
    several: bool


@dataclass(frozen=True)
class Terms:
    """Every term the rules set for one question."""

    keeps: tuple[Keep, ...]  # in rule order
    floor: Floor | None
    used: UsedCards
    threshold: (
        float  # rule cost-efficiency: a step up must buy this share of the best value's worth per dollar
    )
    avoid_lines: tuple[str, ...]  # rule product-lines: lines that never lead a desktop answer
    server: bool  # a server question: data-centre lines may lead it
    boards: Mapping[str, tuple[int, ...]]  # rule product-lines: module form factor -> counts a system holds
    boards_by_gpu: Mapping[str, tuple[int, ...]]  # rule product-lines: a module's own board sizes
    platform_usd: float  # rule product-lines: the server around a board, per module
    desk_cards: int  # rule power-and-slots: cards a desktop board carries
    host_usd: float  # rule power-and-slots: the multi-GPU host more cards than that need
    machine_cards: int  # rule one-machine: cards a workstation takes; more go into a server
    server_host_usd: float  # rule power-and-slots: the eight-GPU server more cards than that need
    serving_room: float  # rule memory-fit: the spare share a server for several users keeps for contexts
    worth: MemoryWorth | None
    # rule persona-already-own: keep the card you have, where it does not hold the job (or no model is run)
    wait: Wait | None
    # the same, where it holds the job: inference of the model asked about (the stages size the card)
    wait_holding: Wait | None
    rent: bool  # rule rent-vs-buy: renting is weighed
    label: str  # the workload in words, as every line that names it says it
    refusal: Callable[
        [Gpu, int], Phrase | None
    ]  # rules multi-gpu-heat and power-and-slots: why N of a card cannot go in one box

    def boards_for(self, gpu: Gpu) -> tuple[int, ...] | None:
        """How many of a module the systems it is sold in hold (rule ``product-lines``); None for a card
        sold alone."""
        return self.boards_by_gpu.get(gpu.id) or self.boards.get(gpu.form_factor)

    def host_usd_for(self, gpu: Gpu, count: int) -> float:
        """The host ``count`` cards need beyond a desk's two (rule ``power-and-slots``): a multi-GPU
        workstation, or past a workstation's four an eight-GPU server; none for modules, whose server the
        product-lines platform prices."""
        if count <= self.desk_cards or self.boards_for(gpu):
            return 0.0
        return self.server_host_usd if self.in_server(count) else self.host_usd

    def in_server(self, count: int) -> bool:
        """More cards than a workstation takes go into a server (rule one-machine)."""
        return count > self.machine_cards

    def headline(self, c: Candidate) -> bool:
        """What may lead an answer (rule ``product-lines``): a module (SXM, OAM) only as the system it is sold
        in, a whole board of them for a server; on a desktop no line the seed advises against."""
        boards = self.boards_for(c.gpu)
        if boards:
            return self.server and c.count in boards
        return self.server or c.gpu.line not in self.avoid_lines


@dataclass(frozen=True)
class TermsContext:
    """What the terms are worked out from."""

    question: Question
    asker: Asker
    job: Job
    as_of: date
    rulebook: Rulebook
    performance: PerformanceModel
    work: str
    gpu: Callable[[str], Gpu]
    # the market's mid-range speed at the job's precision on the seed's date and the question's (an owner's)
    midrange: Mapping[date, float]
    # the job a memory-bound question's memory is valued against, its need with headroom and its name
    # (:func:`rules.job.memory_reference`); None for other questions
    reference: tuple[Job, float, Text] | None = None
    floor: Floor | None = None  # the job's memory floor on the date (:func:`rules.memory_terms.floor_for`)

    def speed(self, gpu: Gpu) -> float:
        return self.performance.relative(gpu, self.work, self.job.compute_precision)


def terms_for(ctx: TermsContext) -> Terms:
    q, rulebook = ctx.question, ctx.rulebook
    reference = ctx.reference
    avoid = tuple(rulebook.product_lines.poor_value_lines)
    if q.memory_gb or reference is not None:  # memory asked, or needed beyond consumer cards
        avoid = tuple(line for line in avoid if line not in rulebook.product_lines.memory_bound_lines)
    if q.setting == "server" or ctx.job.serving_need:  # what servers are built from is no poor value there
        avoid = ()
    floor = ctx.floor
    threshold = (
        rulebook.cost_efficiency.step_up_threshold
        if ctx.asker.budget_usd is not None
        else rulebook.cost_efficiency.no_budget_threshold
    )
    worth = None
    if reference is not None:
        worth = MemoryWorth(reference[0], reference[1], reference[2], rulebook.memory_value.speed_share)
    owned = ctx.asker.owned
    return Terms(
        keeps=_keeps(ctx, floor),
        floor=floor,
        used=_used_cards(ctx),
        threshold=threshold,
        avoid_lines=avoid,
        server=q.setting == "server",
        boards=rulebook.product_lines.system_boards,
        boards_by_gpu=rulebook.product_lines.system_boards_by_gpu,
        platform_usd=rulebook.product_lines.platform_usd_per_module,
        desk_cards=rulebook.power_and_slots.desk_cards,
        host_usd=rulebook.power_and_slots.multi_gpu_platform_usd,
        machine_cards=rulebook.one_machine.gpus_per_machine,
        server_host_usd=rulebook.power_and_slots.server_platform_usd,
        serving_room=rulebook.memory_fit.tight_headroom,
        worth=worth,
        wait=_keep_yours(ctx, owned, floor) if owned is not None else None,
        wait_holding=_keep_holding(ctx, owned) if owned is not None else None,
        rent=q.cloud_ok,
        label=workload_label(rulebook, ctx.work),
        refusal=box_refusal(rulebook, q),
    )


def _cuda_first(ctx: TermsContext, floor: Floor | None) -> Keep:
    """Starting out, NVIDIA cards only (rule vendor-nvidia). Running a language model is the exception where
    no NVIDIA card with the memory the date asks for fits the budget and another's does: llama.cpp runs it on
    every maker's stack, and memory to run it comes before the stack it runs on."""
    safe = ctx.rulebook.vendor_nvidia.safe_stack
    keep = Keep("vendor-nvidia", lambda c: bool(c.gpu.software == safe), Phrase("rule.vendor_nvidia.keep"))
    if not (ctx.job.is_llm and ctx.job.method == "inference"):
        return keep
    budget, least = ctx.asker.budget_usd, floor.gb if floor is not None else 0.0

    def allowed(c: Candidate) -> bool:
        return c.gpu.memory_gb >= least and (budget is None or c.total_usd <= budget * BUDGET_SLACK)

    return replace(keep, among=allowed, aside=Phrase("rule.vendor_nvidia.aside", {"gb": f"{least:g}"}))


def _keeps(ctx: TermsContext, floor: Floor | None) -> tuple[Keep, ...]:
    q, rulebook = ctx.question, ctx.rulebook
    keeps: list[Keep | None] = []
    if q.experience == "hobby":
        max_tdp = rulebook.persona_not_serious.max_tdp_w
        keeps.append(
            Keep(
                "persona-not-serious",
                lambda c: (c.gpu.tdp_w or 0) <= max_tdp,
                Phrase("rule.persona_not_serious.keep", {"watts": f"{max_tdp:g}"}),
            )
        )
    keeps += [_software_support(ctx), _backend_asked(ctx), _training_limits(ctx)]
    if ctx.asker.cuda_only:
        keeps.append(_cuda_first(ctx, floor))
    if q.gpus > rulebook.one_machine.gpus_per_machine and q.setting == "server":
        # the server setting already admits server parts (rules.market);
        # the line says so beside the other filters
        keeps.append(
            Keep(
                "one-machine",
                lambda c: True,
                Phrase("rule.one_machine.server", {"gpus": q.gpus}),
                when="always",
            )
        )
    if ctx.asker.owned is not None:
        keeps.append(_upgrade(ctx, ctx.asker.owned))
    return tuple(k for k in keeps if k is not None)


def _backend_asked(ctx: TermsContext) -> Keep | None:
    """A backend asked for ('an nvidia card', 'on rocm', 'with mlx') keeps the cards that run it."""
    backend = ctx.question.backend
    if backend is None:
        return None
    runs = ctx.rulebook.workload_priorities.llm_decode.backends
    return Keep(
        "software-support",
        lambda c: backend in runs.get(c.gpu.software, ()),
        Phrase("rule.software_support.backend", {"backend": BACKEND_NAMES[backend]}),
    )


def _software_support(ctx: TermsContext) -> Keep | None:
    """Architectures the toolkit dropped, and stacks the common tools for this job did not run on yet
    (rows 'limited')."""
    rows = ctx.rulebook.software_support
    task = "inference" if ctx.job.method == "inference" else "training"
    dropped = {
        (row.software, arch): row
        for row in rows.dropped
        if row.from_ <= ctx.as_of
        for arch in row.architectures
    }
    limited = _limited_support(ctx, task)
    if not dropped and not limited:
        return None
    reasons: list[Text] = [why for _, why in limited]
    if dropped:
        row = next(iter(dropped.values()))
        reasons.insert(
            0,
            Phrase(
                "rule.software_support.keep",
                {
                    "architectures": ", ".join(row.architectures),
                    "since": row.from_.isoformat()[:7],
                    "source": Cited(row.source.name),
                },
            ),
        )
    out = frozenset(stack for stacks, _ in limited for stack in stacks)
    gone = frozenset(dropped)
    return Keep(
        "software-support",
        lambda c: (c.gpu.software, c.gpu.architecture) not in gone and c.gpu.software not in out,
        Joined(tuple(reasons), "; "),
        when="some-fail",
    )


def _limited_support(ctx: TermsContext, task: str) -> list[tuple[tuple[str, ...], Text]]:
    """(stacks, why) for each software stack that could not yet run the job on the date: a row holds from its
    ``from`` date until its ``until`` date (if any), for the task, workloads and precisions it names, and for
    the runtimes it names where the question names one (a missing key matches all)."""
    day = ctx.as_of
    workload, precision, runtime = ctx.question.workload, ctx.job.precision, ctx.question.runtime
    found: list[tuple[tuple[str, ...], Text]] = []
    for row in ctx.rulebook.software_support.limited:
        if not row.from_ <= day or (row.until is not None and day >= row.until):
            continue
        if (
            (row.task or task) != task
            or workload not in row.workloads
            or (row.precisions is not None and precision not in row.precisions)
            or (row.runtimes is not None and runtime not in row.runtimes)
        ):
            continue
        stacks = tuple(row.software)
        found.append(
            (
                stacks,
                Phrase(
                    "rule.software_support.runtime" if row.runtimes else "rule.software_support.limited",
                    {
                        "stacks": ", ".join(stacks),
                        "day": day.isoformat(),
                        "what": Term("limited", row.what),
                        "source": Cited(row.source.name),
                    },
                ),
            )
        )
    return found


def _training_limits(ctx: TermsContext) -> Keep | None:
    """A training job keeps to the parts the catalog marks fit for its method (unified-memory computers:
    adapters or none), while such a part holds the job."""
    method = ctx.job.method
    if method == "inference":
        return None
    adapters = method in ctx.rulebook.training_limits.adapter_methods
    fit = ("full", "adapters") if adapters else ("full",)
    return Keep(
        "training-limits",
        lambda c: c.gpu.trains in fit,
        Phrase(
            "rule.training_limits.keep_adapters" if adapters else "rule.training_limits.keep",
            {"method": Term("method", METHOD_NAMES[method])},
        ),
        when="both",
    )


def _upgrade(ctx: TermsContext, owned: Gpu) -> Keep:
    """Only upgrades over the card you have: faster by the rule's margin, or roomier for memory-bound work."""
    params = ctx.rulebook.persona_already_own
    mine, gain = ctx.speed(owned), params.min_speedup
    more_memory = ctx.question.workload in params.memory_bound_workloads

    def upgrade(c: Candidate) -> bool:
        if c.speed < mine or c.gpu.memory_gb < owned.memory_gb:
            return False
        return (
            c.gpu.memory_gb > owned.memory_gb
            if more_memory
            else c.speed >= gain * mine or c.gpu.memory_gb > owned.memory_gb
        )

    reason = Phrase(
        "rule.persona_already_own.keep",
        {"name": owned.name, "relative": f"{mine:.2f}", "gb": f"{owned.memory_gb:g}"},
    ) + (
        Phrase("rule.persona_already_own.more_memory")
        if more_memory
        else Phrase("rule.persona_already_own.faster", {"gain": f"{gain:g}"})
    )
    return Keep("persona-already-own", upgrade, reason, when="always")


def _keep_holding(ctx: TermsContext, owned: Gpu) -> Wait | None:
    """Keep the card you have while it holds the model asked about (an inference job of a named model);
    None for other jobs."""
    job = ctx.job
    if job.method != "inference" or job.model is None:
        return None
    tps = ctx.performance.tokens_per_second(owned, job, 1) if job.is_llm else None
    speed = Phrase("rule.persona_already_own.tokens", {"tokens": f"{tps:.0f}"}) if tps else ""
    return Wait(
        Phrase(
            "rule.persona_already_own.holds",
            {
                "name": owned.name,
                "model": job.model.name,
                "gb": f"{job.need.gb:.0f}",
                "precision": job.precision,
                "speed": speed,
            },
        ),
        Phrase("rule.persona_already_own.suggestion"),
    )


def _keep_yours(ctx: TermsContext, owned: Gpu, floor: Floor | None) -> Wait | None:
    """Keep the card you have while it sits where the seed's GTX 1070 sat in its market (003, TL;DR: "already
    have a GTX 1070 or better: wait"), where it does not hold the model asked about."""
    params = ctx.rulebook.persona_already_own
    suggestion = Phrase("rule.persona_already_own.suggestion")
    if ctx.question.workload in params.unless_workloads or (floor is not None and owned.memory_gb < floor.gb):
        return None
    mine = ctx.speed(owned)
    then, now = ctx.midrange[params.seed_date], ctx.midrange[ctx.as_of]
    threshold = ctx.speed(ctx.gpu(params.threshold_gpu)) / then
    if mine < threshold * now:
        return None
    return Wait(
        Phrase(
            "rule.persona_already_own.still_good",
            {
                "name": owned.name,
                "relative": f"{mine:.2f}",
                "reference": ctx.performance.reference.name,
                "workload": Term("workload", workload_label(ctx.rulebook, ctx.work)),
                "share": f"{mine / now:.0%}",
                "year": ctx.as_of.year,
                "seed_year": params.seed_date.year,
            },
        ),
        suggestion,
    )


def workload_label(rulebook: Rulebook, work: str) -> str:
    """The performance model's workload in words ("transformers", "Kaggle work")."""
    params = rulebook.workload_priorities
    mix = params.workloads[work]
    if len(mix) == 1:
        return params.classes[next(iter(mix))].label
    return {
        "general": "general deep learning",
        "kaggle": "Kaggle work",
        "rl": "reinforcement learning",
        "llm_inference": "LLM inference",
    }.get(work, work)


def _used_cards(ctx: TermsContext) -> UsedCards:
    """One card for a desk: used cards join when new ones with enough memory cost much more, and the answer
    says why a used card leads; several cards, a server, a group's machine or a model served to several users:
    new unless the question says used."""
    q, params = ctx.question, ctx.rulebook.used_cards
    several = (
        q.gpus >= params.several_from
        or q.setting in ("server", "cloud")
        or q.shared
        or (q.users or 0) >= params.several_from
    )
    if q.used_ok:
        why: Text | None = Phrase("rule.used_cards.asked")
    elif ctx.asker.on_a_budget:
        why = Phrase("rule.used_cards.persona")
    elif several:
        why = None
    else:
        why = Phrase("rule.used_cards.market")
    new_only = several and not q.used_ok
    return UsedCards(
        new_only,
        None if new_only else params.used_when_new_costs_more_than,
        params.used_min_saving,
        why,
        several,
    )
