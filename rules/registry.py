"""One home per rule: each rule id in ``rules/data/rules.json`` maps to one function.

A rule's function takes the question's :class:`Context` and returns a :class:`Ruling`:
everything the rule does to this answer, each part at the stage of the pipeline that
uses it (who is asking, what a configuration must pass, what may lead the choice, the
lines about the plan, the job's memory, the choice and each pick). Adding a rule is a
data entry plus one ``@rule`` function in :mod:`rules.advice`; a test fails when the two
disagree. Rules run in the order they are registered, which is also the order their
lines take within each stage of the answer.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Iterator, Literal, Sequence

from rules.answer import Finding, MemoryNeed
from rules.choose import Choice, Floor
from rules.configurations import Configuration
from rules.job import Job, job_for, raised
from rules.messages import say, term
from rules.question import Question
from rules.rulebook import Rulebook

if TYPE_CHECKING:
    from rules.catalog import Gpu
    from rules.money import Pricing
    from rules.performance import PerformanceModel

__all__ = ["Context", "Persona", "Keep", "Wait", "Ruling", "Rulings", "rule", "registered", "apply", "SHAPES"]

SHAPES = itertools.count()  # numbers for :attr:`Rulings.shape`, never reused

Rechoose = Callable[[Callable[[Configuration], bool]], Choice]  # the choice again, among the configurations that pass


@dataclass(frozen=True)
class Persona:
    """Who is asking, as one persona rule sees it: its line, the memory it asks for, and preferences."""

    reason: str
    min_memory_gb: float | None = None
    consider_used: bool = False
    verdict: Literal["cpu-and-cloud"] | None = None  # no card to buy at all
    suggestion: str | None = None  # what to do instead, with that verdict
    cuda_only: bool = False  # starting out: only the stack every tutorial assumes


@dataclass(frozen=True)
class Keep:
    """What every configuration must pass, and the line that says so.

    ``when`` the filter (and its line) applies: "some-pass" — only when some configuration passes
    (a preference, dropped when nothing meets it); "some-fail" — only when it leaves something out;
    "both" — only when it leaves something out and something passes; "always" — even when nothing
    passes (the answer then says nothing fits).
    """

    test: Callable[[Configuration], bool]
    reason: str
    when: str = "some-pass"

    def applies(self, configs: Sequence[Configuration]) -> bool:
        if self.when == "always":
            return True
        if self.when == "both":
            return any(self.test(c) for c in configs) and not all(self.test(c) for c in configs)
        return any(self.test(c) != (self.when == "some-fail") for c in configs)


@dataclass(frozen=True)
class Wait:
    """Keep the card you have: why, and when to ask again."""

    reason: str
    suggestion: str


@dataclass(slots=True)
class Ruling:
    """What one rule does to one answer; every part is optional (not frozen: one per rule for every question)."""

    persona: Persona | None = None
    keep: Keep | None = None
    floor: Floor | None = None  # the workload's memory floor on the date
    used_over: float | None = None  # used cards count when new ones above the floor cost this many times more
    new_only: bool = False  # several cards or a server: used ones are picked only when asked for (rule used-cards)
    threshold: float | None = None  # the step-up threshold of the choice (rule cost-efficiency)
    headline: Callable[[Configuration], bool] | None = None  # what may lead the answer
    prefer: Callable[[Choice, Rechoose], Choice] | None = None  # a choice the rule would rather lead with
    refuse: Callable[[Gpu, int], str | None] | None = None  # why N of a card cannot go in one box
    worth: Callable[[float, int], float] | None = None  # the share of its speed N cards of this size are worth for the job
    plan: tuple[Finding, ...] = ()  # lines about the plan: cards, cloud, date
    need: tuple[Finding, ...] = ()  # lines about the job's memory
    choice: Callable[[Choice], list[Finding]] | None = None  # lines about the choice made
    card: Callable[[Configuration], list[Finding]] | None = None  # lines on each pick
    named: Callable[[dict[str, Any]], Finding | None] | None = None  # a named card that could not be compared
    left_out: Callable[[list[dict[str, Any]], Callable[[str], bool]], list[dict[str, Any]]] | None = None
    wait: Wait | None = None  # keep the card you have: the verdict "wait"
    rent: bool = False  # weigh renting against buying


@dataclass
class Context:
    """One question's facts, as every rule reads them; ``rulings`` fill in as the rules run."""

    question: Question  # with the engine's defaults filled in
    rulebook: Rulebook
    as_of: date
    budget_usd: float | None
    work: str  # the workload key of the speed model
    label: str  # the workload in words
    reference: Gpu
    performance: PerformanceModel
    owned: Gpu | None
    gpu: Callable[[str], Gpu]  # a catalog card by id
    midrange: Callable[[date], float]  # the market's mid-range speed on a date, at the job's precision
    pricing: Pricing  # the answer's prices, currency and rate: the money every line names is said in its terms
    rulings: dict[str, Ruling] = field(default_factory=dict)

    def param(self, rule_id: str, name: str) -> Any:
        return self.rulebook.param(rule_id, name)

    @property
    def budget_band(self) -> tuple[bool, bool, bool]:
        """All the rules read of the budget: whether there is one, and whether it is within the two money personas'
        limits. Rulings are the same for every budget in one band, so the engine memoises what follows from them
        per band (rules.engine); a rule that reads the budget otherwise must say so here."""
        budget = self.budget_usd
        if budget is None:
            return False, False, False
        return (True, budget <= self.param("persona-almost-no-money", "budget_usd"),
                budget <= self.param("persona-little-money", "budget_usd"))

    def release(self) -> None:
        """Forget the rulings once the answer is made: their closures hold this context, so keeping them
        leaves every answer's rulings in reference cycles that only the garbage collector can free."""
        self.rulings = {}
        self.__dict__.pop("job", None)

    @property
    def language(self) -> str | None:
        return self.question.language

    def say(self, key: str, **values: Any) -> str:
        """The message ``key`` in the asker's language (rules.messages)."""
        return say(key, self.question.language, **values)

    @property
    def personas(self) -> tuple[Persona, ...]:
        """The persona rules that fired so far (they run first, so every later rule sees them all)."""
        return tuple(r.persona for r in self.rulings.values() if r.persona is not None)

    @cached_property
    def job(self) -> Job:
        """The job (rules.job), its need raised to the personas' memory when no model or size was named."""
        job = job_for(self.question, self.rulebook)
        floor_gb = max([self.param("memory-caveat", "min_memory_gb")[self.question.workload]]
                       + [p.min_memory_gb for p in self.personas if p.min_memory_gb])
        if job.model is None and not self.question.memory_gb and floor_gb > job.need.gb:
            def typical() -> MemoryNeed:
                return MemoryNeed(float(floor_gb), self.say("job.typical_32_bit" if job.memory_factor != 1.0 else "job.typical",
                                                            workload=term("task", self.question.workload, self.language),
                                                            gb=f"{floor_gb:g}"))
            return raised(job, float(floor_gb), typical, shardable_gb=0.0)  # one per job and floor: its fits stay cached
        return job

    @property
    def floor(self) -> Floor | None:
        ruled = self.rulings.get("memory-floor")
        return ruled.floor if ruled else None

    def speed(self, gpu: Gpu) -> float:
        """A card's speed for this job, relative to the reference card."""
        return self.performance.relative(gpu, self.work, self.job.compute_precision)


_RULES: dict[str, Callable[[Context], Ruling]] = {}


def rule(rule_id: str) -> Callable[[Callable[[Context], Ruling]], Callable[[Context], Ruling]]:
    """Register the one function that applies ``rule_id``."""
    def register(function: Callable[[Context], Ruling]) -> Callable[[Context], Ruling]:
        if rule_id in _RULES:
            raise ValueError(f"rule {rule_id} already has a function: {_RULES[rule_id].__name__}")
        _RULES[rule_id] = function
        return function
    return register


def registered() -> dict[str, Callable[[Context], Ruling]]:
    """Rule id -> its function, in the order they run."""
    import rules.advice  # noqa: F401  (registers every rule's function)

    return dict(_RULES)


@dataclass(frozen=True)
class Rulings:
    """Every rule's ruling on one question, in rule order, with the views the pipeline reads."""

    items: tuple[tuple[str, Ruling], ...]
    # Equal for rulings on the same question but for its budget, in one budget band (rules.engine numbers them),
    # unequal for any others: what follows from the rulings alone is memoised by it.
    shape: int = field(default_factory=lambda: next(SHAPES), compare=False)

    # Worked out when made: the rulings are made anew for every answer, and a cached_property's first read
    # takes a lock, which cost more than these tuples.
    _rulings: tuple[Ruling, ...] = field(init=False, repr=False, compare=False)
    _cards: tuple[Callable[[Configuration], list[Finding]], ...] = field(init=False, repr=False, compare=False)
    _first: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rulings = tuple(ruling for _, ruling in self.items)
        object.__setattr__(self, "_rulings", rulings)
        object.__setattr__(self, "_cards", tuple(r.card for r in rulings if r.card is not None))
        object.__setattr__(self, "_first", {})

    def __iter__(self) -> Iterator[Ruling]:
        return iter(self._rulings)

    def first(self, part: str) -> Any:
        """The first ruling's ``part`` that is set (None: no rule sets it)."""
        if part not in self._first:
            self._first[part] = next((value for ruling in self if (value := getattr(ruling, part)) not in (None, (), False)), None)
        return self._first[part]

    def asker(self) -> list[Finding]:
        """One line per persona rule that fired."""
        return [Finding(rule_id, "applied", r.persona.reason) for rule_id, r in self.items if r.persona is not None]

    def keeps(self, configs: Sequence[Configuration]) -> tuple[Callable[[Configuration], bool], list[Finding]]:
        """(what a configuration must pass, the lines that say so) among ``configs``."""
        kept = [(rule_id, r.keep) for rule_id, r in self.items if r.keep is not None and r.keep.applies(configs)]
        tests = tuple(keep.test for _, keep in kept)
        lines = [Finding(rule_id, "applied", keep.reason) for rule_id, keep in kept]
        if len(tests) <= 1:  # the choice asks thousands of times: no loop for none or one
            return (tests[0] if tests else (lambda c: True)), lines
        return (lambda c: all(test(c) for test in tests)), lines

    def lines(self, part: str) -> list[Finding]:
        return [line for ruling in self for line in getattr(ruling, part)]

    def each(self, part: str, *args: Any) -> list[Finding]:
        """The lines every rule's ``part`` hook gives for ``args``."""
        hooks = self._cards if part == "card" else [hook for ruling in self if (hook := getattr(ruling, part)) is not None]
        return [line for hook in hooks for line in hook(*args)]

    def refusal(self, gpu: Gpu, count: int) -> str | None:
        return next((why for ruling in self if ruling.refuse is not None and (why := ruling.refuse(gpu, count))), None)


def apply(context: Context, shape: int | None = None) -> Rulings:
    """Every rule's ruling on the question, in rule order; ``shape``: its number (:attr:`Rulings.shape`), if known."""
    for rule_id, function in registered().items():
        context.rulings[rule_id] = function(context)
    items = tuple(context.rulings.items())
    return Rulings(items) if shape is None else Rulings(items, shape)

