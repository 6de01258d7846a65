"""Stage 5 of an answer: the job x the offers placeable -> configurations that hold it.

A :class:`Configuration` is N identical cards of one offer: their memory under the
method's pooling rule, their speed with the multi-GPU speed-up, price and power.
Each offer gets one count: the count asked for, or — when one card is asked for
(the default) and it cannot hold the job — the fewest cards that can.
:class:`Sizing` is how the job meets a card; the named cards and rent vs buy judge cards by it too.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from rules.job import POOLING, Job, term_key
from rules.knowledge.messages import Joined, Phrase, Text
from rules.market import Offer, Rental, SystemOffer
from rules.need import GIB_IN_GB

if TYPE_CHECKING:
    from rules.contract.question import Question
    from rules.knowledge import Gpu
    from rules.performance import PerformanceModel
    from rules.terms import Keep, Terms

__all__ = [
    "SERIAL",
    "Configuration",
    "Fit",
    "Left",
    "Sizing",
    "applies",
    "configure",
    "fit_on",
    "kept_configurations",
    "set_aside",
    "sizing_for",
]


RUNTIME_NAMES = {"vllm": "vLLM", "llama.cpp": "llama.cpp"}
SERIAL = frozenset({"layer-split", "pipeline-parallel"})  # the parts run one after another: no speed-up


@dataclass(frozen=True)
class Fit:
    """Whether a card count holds the job, the memory it offers, and how (if sharded)."""

    fits: bool
    effective_gb: float
    sharded: bool
    said: Text  # how, in words
    # spare share where memory binds: the card, or each card's part of a split job
    headroom: float = float("inf")
    serial: bool = False  # the cards hold parts of the model that run one after another: no speed-up


class Left(NamedTuple):
    """A card no allowed count of which holds or serves the job: the rule that left it out, and why."""

    gpu: str
    rule: str
    reason: Text


def _left(gpu: Gpu, rule: str, said: Text) -> Left:
    return Left(gpu.id, rule, Joined((f"{gpu.name}: ", said)))


@dataclass(frozen=True)
class Configuration:
    offer: Offer
    count: int
    total_usd: float
    relative: float  # one card, relative to the reference card
    speed: float  # all cards together, relative to one reference card
    fit: Fit
    tokens_per_second: float | None = None
    memory_value: float = (
        1.0  # the share of its speed the configuration is worth for the job (rule memory-value)
    )
    # serving users at once: the share of their need (users x tokens/s each) the configuration delivers, at
    # most 1, which is the speed the choice pays for (more than the need is worth nothing);
    # None for every other job
    need_met: float | None = None
    system: SystemOffer | None = None  # the whole server these cards are bought as, priced as one
    gpu: Gpu = field(init=False, repr=False, compare=False)  # the offer's card, kept at hand for the choice
    value: float = field(
        init=False, repr=False, compare=False
    )  # speed per dollar: the seed's cost-efficiency measure
    # the speed, scaled down where the memory holds less of a memory-bound job than it could (rule
    # ``memory-value``); the speed itself for every other job
    worth: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "gpu", self.offer.gpu)
        object.__setattr__(self, "value", self.speed / self.total_usd)
        paid = self.speed if self.need_met is None else self.need_met
        object.__setattr__(self, "worth", paid * self.memory_value)

    @property
    def worth_per_usd(self) -> float:
        """Worth per dollar: the measure the choice steps up from and the 'best value' alternative is best
        on."""
        return self.worth / self.total_usd

    @property
    def estimated(self) -> bool:
        """Priced only by an estimate, which never leads an answer by itself (:mod:`rules.ranking`)."""
        point = self.system.point if self.system is not None else self.offer.point
        return bool(getattr(point, "estimate", False))


@dataclass(frozen=True)
class Sizing:
    """How the job meets a card: memory fit for N cards, speed of one card, speed-up of N, tokens/s,
    build rules."""

    job: Job
    work: str
    performance: PerformanceModel
    terms: Terms
    asked_gb: float | None  # memory asked for: a card must have it (or, in all, several for inference)
    in_all: bool  # memory asked beyond the largest card placeable can only mean memory in all
    systems: Mapping[tuple[str, int], SystemOffer] = field(default_factory=dict)  # (module, count) -> server

    @property
    def factor(self) -> float:
        """A card holds this many times its size in the need's terms (16-bit training, the 2019 count)."""
        return 1.0 if self.asked_gb else self.job.memory_factor

    def fit(self, memory_gb: float, count: int) -> Fit:
        asked = self.asked_gb
        if not asked:
            return fit_on(self.job, memory_gb, count)
        values: dict[str, Any] = {"asked": f"{asked:g}", "gb": f"{memory_gb:g}"}
        if memory_gb >= asked:
            return Fit(True, memory_gb, False, Phrase("fit.asked_holds", values))
        if self.in_all and count > 1 and memory_gb * count >= asked:
            how = Phrase(f"pooling.{term_key(POOLING['layer-split'])}")
            return Fit(
                True,
                memory_gb * count,
                True,
                Phrase("fit.asked_in_all", {**values, "count": count, "how": how}),
                serial=True,
            )
        return Fit(False, memory_gb, False, Phrase("fit.asked_short", values))

    def relative(self, gpu: Any) -> float:
        """One card's speed for the job relative to the reference card (a catalog card or a rented TPU
        chip)."""
        return self.performance.relative(gpu, self.work, self.job.compute_precision)

    def speedup(self, count: int) -> float:
        return self.performance.speedup(self.work, count)

    def tokens_per_second(self, gpu: Gpu, count: int) -> float | None:
        """Tokens/s each user gets (every user served at once shares the cards)."""
        if not (self.job.is_llm and self.job.method == "inference"):
            return None
        return self.performance.tokens_per_second(gpu, self.job, count)

    def need_met(self, per_user: float | None) -> float | None:
        """The share of the users' need (rule ``workload-priorities``, serving) delivered at ``per_user``
        tokens/s each, at most 1; None where nobody's speed is at stake. The need is met at the low end of
        the estimate's measured error, the speed the answer promises at least: a configuration that meets it
        only at the estimate itself falls short one time in two."""
        need = self.job.serving_need
        if not need or per_user is None:
            return None
        assured = per_user * (1 - self.performance.decode.measured_error)
        return min(1.0, assured * self.job.batch / need)

    def format_refusal(self, gpu: Gpu) -> Phrase | None:
        """Why the card cannot run the job's FP8 weights and cache in the serving runtime;
        None when it can."""
        job, decode = self.job, self.performance.decode
        if job.precision != "fp8" or job.kv_cache_bytes != 1.0 or gpu.arch_id in decode.fp8_architectures:
            return None
        return Phrase("fit.no_fp8")

    def configuration(
        self, offer: Offer, count: int, relative: float, speed: float, fit: Fit, memory_value: float
    ) -> Configuration:
        """``count`` of the offer as a configuration: its price in all, each user's tokens/s and the need
        met."""
        per_user = self.tokens_per_second(offer.gpu, count)
        total = self.total_usd(offer, count)
        system = self.system(offer, count)
        return Configuration(
            offer, count, total, relative, speed, fit, per_user, memory_value, self.need_met(per_user), system
        )

    def system(self, offer: Offer, count: int) -> SystemOffer | None:
        """The whole server ``count`` new modules of the offer are bought as, where its price is known."""
        if offer.condition != "new" or not self.terms.boards_for(offer.gpu):
            return None
        return self.systems.get((offer.gpu.id, count))

    def total_usd(self, offer: Offer, count: int) -> float:
        """What ``count`` of the offer cost: a whole server at its own price; else modules (SXM, OAM)
        with the server around them (rule product-lines); else cards, with the multi-GPU host that more
        cards than a desk carries need (rule power-and-slots)."""
        system = self.system(offer, count)
        if system is not None:
            return system.point.price_usd
        if self.terms.boards_for(offer.gpu):
            return (offer.unit_usd + self.terms.platform_usd) * count
        return offer.unit_usd * count + self.terms.host_usd_for(offer.gpu, count)

    def build(self, gpu: Gpu, count: int) -> Phrase | None:
        """Why ``count`` of ``gpu`` cannot go in one box; None when they can."""
        return self.terms.refusal(gpu, count)

    def memory_value(self, memory_gb: float, count: int) -> float:
        worth = self.terms.worth
        return worth.worth(memory_gb, count) if worth is not None else 1.0


def sizing_for(
    question: Question,
    job: Job,
    work: str,
    terms: Terms,
    performance: PerformanceModel,
    largest_gb: float,
    *,
    systems: Mapping[tuple[str, int], SystemOffer] | None = None,
) -> Sizing:
    """How the job meets a card. Memory asked beyond the largest card on offer can only mean memory in all:
    for inference, cards then pool it by splitting the model's layers (``largest_gb``:
    the largest card placeable)."""
    asked = question.memory_gb
    in_all = bool(asked) and job.method == "inference" and (asked or 0) > largest_gb
    return Sizing(job, work, performance, terms, asked, in_all, systems or {})


def configure(
    offers: Iterable[Offer], sizing: Sizing, asked: int, max_count: int, every_count: bool = False
) -> tuple[list[Configuration], list[Left]]:
    """(configurations that hold the job, exclusion records for cards that cannot at any allowed count).

    ``every_count``: no count was asked and the cards go in a server, which is built to hold several:
    each count from the fewest that holds the job up to ``max_count`` is a configuration of its own,
    so that a lab budget buys as many cards as are worth their price (the choice weighs them). Where the
    fewest cards that hold the job run one after another (pipeline stages: 3 cards for a model of 64 heads in
    vLLM), the next count whose cards work together (4, in tensor parallel) is a configuration too.
    """
    made: list[Configuration] = []
    excluded: list[Left] = []
    left_out: set[str] = set()
    fits: dict[tuple[float, int], Fit] = {}
    counts = (asked,) if asked > 1 else tuple(range(1, max_count + 1))
    speedups = {n: sizing.speedup(n) for n in counts}
    worth: dict[tuple[float, int], float] = {}
    for offer in offers:
        gpu = offer.gpu
        if _cannot_run(gpu, sizing, left_out, excluded):
            continue
        fewest = _fewest_that_hold(gpu, sizing, fits, counts)
        if fewest is None:
            if gpu.id not in left_out:
                left_out.add(gpu.id)
                excluded.append(_left_out(gpu, sizing, fits, counts))
            continue
        count, fit = fewest
        relative = sizing.relative(gpu)
        if asked > 1:
            made_counts: Iterable[int] = (count,)
        elif every_count:
            made_counts = range(count, max_count + 1)
        else:
            made_counts = (count, *_parallel_above(gpu, sizing, fits, count, max_count))
        for n in made_counts:
            if n > count:
                if sizing.build(gpu, n):
                    break
                fit = _fit_of(gpu.memory_gb, n, sizing, fits)
            scale = 1.0 if fit.serial else speedups[n]
            if (gpu.memory_gb, n) not in worth:
                worth[(gpu.memory_gb, n)] = sizing.memory_value(gpu.memory_gb, n)
            made.append(
                sizing.configuration(offer, n, relative, relative * scale, fit, worth[(gpu.memory_gb, n)])
            )
    return _serving_enough(made, excluded, sizing)


@dataclass(frozen=True)
class Rentable:
    """A rental whose units hold the job: the fewest of them that do, and one unit's speed for the job."""

    rental: Rental
    fewest: int
    relative: float


def rentables(rentals: Iterable[Rental], sizing: Sizing, most: int) -> tuple[Rentable, ...]:
    """The rentals that hold the job on at most ``most`` units: renting is weighed at as many units as are
    bought, which only the choice knows, and more units never hold less."""
    fewest: dict[float, int | None] = {}  # by memory size: many accelerators share one
    made = []
    for rental in rentals:
        memory = rental.unit.memory_gb
        if memory not in fewest:
            fewest[memory] = _fewest_within(memory, sizing, most)
        if (count := fewest[memory]) is not None:
            made.append(Rentable(rental, count, sizing.relative(rental.unit)))
    return tuple(made)


def _fewest_within(memory_gb: float, sizing: Sizing, most: int) -> int | None:
    """The fewest cards of ``memory_gb``, up to ``most``, that hold the job (None: not even ``most``); more
    cards never hold less, so a bisection finds it."""
    if sizing.fit(memory_gb, 1).fits:
        return 1
    counts = range(2, most + 1)
    at = bisect_left(counts, True, key=lambda n: sizing.fit(memory_gb, n).fits)
    return counts[at] if at < len(counts) else None


def _fit_of(memory_gb: float, count: int, sizing: Sizing, fits: dict[tuple[float, int], Fit]) -> Fit:
    """How ``count`` cards of ``memory_gb`` hold the job, worked out once for every card of that size."""
    key = (memory_gb, count)
    if key not in fits:
        fits[key] = sizing.fit(memory_gb, count)
    return fits[key]


def _fewest_that_hold(
    gpu: Gpu, sizing: Sizing, fits: dict[tuple[float, int], Fit], counts: tuple[int, ...]
) -> tuple[int, Fit] | None:
    """The fewest of ``counts`` cards that hold the job, and how; None where the build rule stops the
    counts first or none holds it."""
    for count in counts:
        if count > 1 and sizing.build(gpu, count):
            return None
        fit = _fit_of(gpu.memory_gb, count, sizing, fits)
        if fit.fits:
            return count, fit
    return None


def _serving_enough(
    made: list[Configuration], excluded: list[Left], sizing: Sizing
) -> tuple[list[Configuration], list[Left]]:
    """Serving users at once, the configurations that deliver their need in all, with room for their contexts
    where any has it; where none delivers, those that come within the rule's share of the most any delivers
    (the answer's per-user speed says how short they fall). A card none of whose counts is kept is left out,
    saying how fast each user would be served."""
    if not sizing.job.serving_need or not made:
        return made, excluded
    best = max(c.need_met or 0.0 for c in made)
    enough = best if best >= 1.0 else best * sizing.performance.decode.short_of_need_share
    kept_configs = [c for c in made if (c.need_met or 0.0) >= enough]
    # users' contexts grow past the counted one: a server that holds them only just is kept only when
    # nothing with room serves them (rule memory-fit, tight_headroom)
    roomy = [c for c in kept_configs if c.fit.headroom >= sizing.terms.serving_room]
    kept_configs = roomy or kept_configs
    kept = {c.gpu.id for c in kept_configs}
    for config in sorted(made, key=lambda c: -(c.need_met or 0.0)):
        if config.gpu.id not in kept:
            kept.add(config.gpu.id)
            excluded.append(_too_slow(config, sizing))
    return kept_configs, excluded


def _too_slow(config: Configuration, sizing: Sizing) -> Left:
    job = sizing.job
    said = Phrase(
        "fit.serving_short",
        {
            "count": config.count,
            "per_user": f"{config.tokens_per_second or 0:.3g}",
            "users": job.batch,
            "need": f"{job.tokens_per_user:g}",
        },
    )
    return _left(config.gpu, "workload-priorities", said)


def _cannot_run(gpu: Gpu, sizing: Sizing, left_out: set[str], excluded: list[Left]) -> bool:
    """Whether the card cannot run the job's number format at all (FP8 serving on a card without it),
    recorded once."""
    refusal = sizing.format_refusal(gpu)
    if refusal is not None and gpu.id not in left_out:
        left_out.add(gpu.id)
        excluded.append(_left(gpu, "memory-fit", refusal))
    return refusal is not None


def _parallel_above(
    gpu: Gpu, sizing: Sizing, fits: dict[tuple[float, int], Fit], count: int, max_count: int
) -> tuple[int, ...]:
    """The first count up to ``max_count`` above ``count`` whose cards work together, when ``count`` cards
    hold the job only in parts that run one after another; else none."""
    if not (fits[(gpu.memory_gb, count)].serial and fits[(gpu.memory_gb, count)].sharded):
        return ()
    for n in range(count + 1, max_count + 1):
        if sizing.build(gpu, n):
            return ()
        if (gpu.memory_gb, n) not in fits:
            fits[(gpu.memory_gb, n)] = sizing.fit(gpu.memory_gb, n)
        if not fits[(gpu.memory_gb, n)].serial:
            return (n,)
    return ()


def _left_out(gpu: Gpu, sizing: Sizing, fits: dict[tuple[float, int], Fit], counts: tuple[int, ...]) -> Left:
    """Why no allowed count of ``gpu`` works: the build rule, when the most cards allowed would hold the job;
    else memory, at the most cards allowed, or, where the build rule refuses none, at the largest count tried
    for this card (``fits`` is shared by the cards of one size: another may have been tried beyond it)."""
    refusal = sizing.build(gpu, counts[-1]) if counts[-1] > 1 else None
    if refusal:
        widest = fits.get((gpu.memory_gb, counts[-1])) or sizing.fit(gpu.memory_gb, counts[-1])
        if widest.fits:
            return _left(gpu, "multi-gpu-heat", refusal)
        return _left(gpu, "memory-fit", widest.said)
    tried = max(n for (memory, n) in fits if memory == gpu.memory_gb)
    return _left(gpu, "memory-fit", fits[(gpu.memory_gb, tried)].said)


def fit_on(job: Job, memory_gb: float, count: int) -> Fit:
    """Does ``count`` cards of ``memory_gb`` each hold the job, and how?"""
    # A card's "24 GB" is 24 GiB; needs are counted in GB (10^9 bytes), as model files are. The words name the
    # card as sold (times 1.5 in the 2019 rule's 32-bit terms), and say the GiB only where the need lies
    # between.
    whole = memory_gb * GIB_IN_GB * job.memory_factor  # what the cards offer, pooled or not
    card = whole * job.memory_share  # what the runtime lets the job use of each
    sold = memory_gb * job.memory_factor
    need = f"{job.need.gb:.1f}"
    terms = _card_terms(job, card)
    shown = f"{round(sold, 1):g}"
    if job.need.gb <= card:
        as_sold = Phrase("fit.as_sold", {"card": f"{card:.1f}"}) if job.need.gb > sold else ""
        said = Phrase("fit.fits", {"need": need, "card": shown, "terms": terms, "as_sold": as_sold})
        return Fit(True, whole, False, said, card / job.need.gb - 1 if job.need.gb > 0 else float("inf"))
    if count > 1 and job.pooling != "none" and job.shardable_gb > 0:
        per_card = job.shardable_gb / count + (job.need.gb - job.shardable_gb)
        pooling = job.poolings[count]
        as_sold = Phrase("fit.as_sold", {"card": f"{card:.1f}"}) if sold < per_card <= card else ""
        values = {
            "count": count,
            "how": Phrase(f"pooling.{term_key(POOLING[pooling])}"),
            "per_card": f"{per_card:.1f}",
            "card": shown,
            "terms": terms,
            "as_sold": as_sold,
        }
        if per_card <= card:
            return Fit(
                True,
                whole * count,
                True,
                Phrase("fit.split", values),
                card / per_card - 1,
                pooling in SERIAL,
            )
        return Fit(False, whole * count, True, Phrase("fit.split_short", values), serial=pooling in SERIAL)
    if count > 1:  # each card holds a full copy
        how = Phrase(f"pooling.{term_key(POOLING['none'])}")
        said = Phrase("fit.each_short", {"need": need, "how": how, "card": shown, "terms": terms})
    else:
        said = Phrase("fit.short", {"need": need, "card": shown, "terms": terms})
    return Fit(False, whole, False, said)


def _card_terms(job: Job, usable_gb: float) -> Text:
    """What a card's memory is counted as: 32-bit terms (the 2019 rule), or the share a serving runtime
    uses of it (vLLM's --gpu-memory-utilization), the rest kept spare."""
    if job.memory_share < 1.0:
        runtime = RUNTIME_NAMES.get(job.runtime or "", job.runtime)
        values = {"runtime": runtime, "share": f"{job.memory_share:.0%}", "usable": f"{usable_gb:.1f}"}
        return Phrase("fit.runtime_share", values)
    return Phrase("job.effective") if job.memory_factor != 1.0 else ""


def applies(keep: Keep, configs: Sequence[Configuration]) -> bool:
    """Whether a rule's filter applies to ``configs``, as its ``when`` says (:class:`rules.terms.Keep`)."""
    if keep.when == "always":
        return True
    if keep.when == "both":
        return any(keep.test(c) for c in configs) and not all(keep.test(c) for c in configs)
    counted = [c for c in configs if keep.among(c)] if keep.among is not None else configs
    return any(keep.test(c) != (keep.when == "some-fail") for c in counted or configs)


def set_aside(keep: Keep, configs: Sequence[Configuration]) -> bool:
    """A preference some configuration meets, none of those ``among`` allows."""
    return keep.among is not None and not applies(keep, configs) and any(keep.test(c) for c in configs)


def kept_configurations(
    configs: Sequence[Configuration], keeps: tuple[Keep, ...]
) -> tuple[Configuration, ...]:
    """The configurations every filter that applies to them passes."""
    tests = [keep.test for keep in keeps if applies(keep, configs)]
    return tuple(c for c in configs if all(test(c) for test in tests))
