"""What the engine answers: picks, findings and the rent-vs-buy comparison, as typed msgspec structs.

These types are the contract of every face: the API encodes them as they are (``msgspec.json.encode``)
and its OpenAPI document is generated from them, the renderers read their attributes, and the bot decodes
the service's reply back into them. Every :class:`Finding` names the rule that made it, so each line of an
answer can be traced to its source.

Floats are rounded when an object is built, not when it is shown, so the same
question and data give byte-identical output and every face shows the same figure.
A field typed ``... | UnsetType`` is left out of the JSON while unset (a named card
that is not in the catalog has no memory size, rather than a null one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType
from msgspec.structs import force_setattr

from rules.contract.question import Question
from rules.knowledge.messages import DEFAULT_LANGUAGE

__all__ = [
    "VERDICTS",
    "Answer",
    "CardRow",
    "Currency",
    "Detail",
    "Excluded",
    "Finding",
    "JobCost",
    "JobOption",
    "MemoryNeed",
    "MemoryParts",
    "ModelRun",
    "Money",
    "NamedCard",
    "NamedPrice",
    "PerformanceBasis",
    "Pick",
    "RentOffer",
    "RentOption",
    "RentVsBuy",
    "RentYear",
    "Reply",
    "RunsOn",
    "ServingCost",
    "ServingOption",
    "Speed",
    "Way",
]

Detail = Literal["short", "full"]
"""How much of an answer a face shows: the short form (first line, picks, deciding reasons) or all of it."""

VERDICTS = ("buy", "wait", "over-budget", "too-large", "cpu-and-cloud", "compare")


class _Part(msgspec.Struct, frozen=True, gc=False):
    """The base of every part of an answer; its plain form is ``msgspec.to_builtins`` of it.

    Untracked by the garbage collector (``gc=False``): an answer is a tree of immutable parts that can never
    refer back to itself, so reference counting frees it, and the parts the engine memoises (picks, their
    lines, rent vs buy) add nothing to the collector's passes.
    """


class Finding(_Part, frozen=True):
    """One rule applied: its id, the verdict ('applied', 'warning', 'excluded', 'info') and why."""

    rule: str
    verdict: Literal["applied", "warning", "excluded", "info"]
    reason: str


class Money(_Part, omit_defaults=True, frozen=True):
    """An amount in the asker's currency, with its USD value and where the figure comes from.

    Held to the cent from the start, so every face rounds the same figure (665.496 once
    showed as 665 and 666). ``date``, ``kind`` and ``source`` are present when a dated
    price point stands behind the figure.
    """

    amount: float
    currency: str
    usd: float
    seen: str | None = msgspec.field(default=None, name="date")
    kind: str | None = None
    source: str | None = None
    estimate: bool = False  # the price has no public source
    converted_from: str | None = None  # the currency the figure was given in, when not ``currency``
    age_months: int | None = None  # set when the price is older than its freshness window: never today's

    def __post_init__(self) -> None:
        force_setattr(self, "amount", round(self.amount, 2))
        force_setattr(self, "usd", round(self.usd, 2))

    @property
    def text(self) -> str:
        """The amount as every face says it, to the unit: "48,000 RUB"."""
        return f"{self.amount:,.0f} {self.currency}"


class PerformanceBasis(_Part, frozen=True):
    """Where a pick's speed comes from: benchmarks measured on lab hosts, or the datasheet."""

    kind: Literal["measured", "estimated"]
    hosts: int


class Speed(_Part, frozen=True):
    """What the job gets, in its own units, with the band the calibration's measured error puts around it."""

    value: float
    low: float
    high: float
    unit: Literal["tokens/s", "images/s", "sequences/s"]  # a second: generated, or trained on
    users: int | None = None  # served at once, each at this speed; None: one sequence

    def __post_init__(self) -> None:
        for name in ("value", "low", "high"):
            force_setattr(self, name, round(getattr(self, name), 1))


class Pick(_Part, kw_only=True, frozen=True):
    """One configuration to buy (``count`` × one card), priced, with the rules behind it."""

    gpu: str
    name: str
    vendor: str
    count: int
    unit_price: Money
    total_price: Money
    relative_performance: float  # × the reference GPU, for the whole configuration
    performance_per_1000: float  # relative performance per 1000 units of the asker's currency
    memory_gb: float
    effective_memory_gb: float
    performance_basis: PerformanceBasis
    findings: tuple[Finding, ...] = msgspec.field(default=(), name="rules")
    tokens_per_second: float | None = None  # LLM decode at batch 1; None when not an LLM job
    speed: Speed | None = None  # the job's figure with its band; None where only a relative one exists
    form_factor: str = "pcie"
    label: str | None = None  # "best within budget", "best value", "entry", "sweet spot" …
    condition: Literal["new", "used"] = "new"

    def __post_init__(self) -> None:
        for name, digits in (
            ("relative_performance", 3),
            ("performance_per_1000", 3),
            ("memory_gb", 1),
            ("effective_memory_gb", 1),
        ):
            force_setattr(self, name, round(getattr(self, name), digits))
        if self.tokens_per_second is not None:
            force_setattr(self, "tokens_per_second", round(self.tokens_per_second, 1))


class RentOffer(_Part, kw_only=True, frozen=True):
    """The rental a purchase is weighed against."""

    provider: str
    instance: str | None
    accelerator: str
    gpu: str | None
    tpu: str | None
    count: int
    seen: str
    source: str | None
    basis: str | None = None  # how the offer was chosen among the providers'

    @property
    def units(self) -> str:
        """What is rented, as every face says it: "4 × RTX 5090" (the hourly price is for all of them)."""
        return f"{self.count} × {self.accelerator}" if self.count > 1 else self.accelerator


class RentYear(_Part, frozen=True):
    """Owning versus renting over ``years`` at the assumed hours a week."""

    years: int
    hours: int
    buy: Money | None  # None: nothing to buy, renting only
    rent: Money
    cheaper: Literal["buy", "rent"]


class RentOption(_Part, kw_only=True, frozen=True):
    """One rental worth knowing (a GPU or a Cloud TPU), per hour and per year."""

    kind: Literal["gpu", "tpu"]
    id: str
    name: str
    provider: str
    instance: str | None
    accelerator: str
    count: int
    per_hour: Money
    spot_per_hour: Money | None
    relative_performance: float
    per_year: Money
    seen: str
    source: str | None
    basis: str
    named: bool = False  # the question named this accelerator

    def __post_init__(self) -> None:
        force_setattr(self, "relative_performance", round(self.relative_performance, 3))


class RentVsBuy(_Part, kw_only=True, frozen=True):
    """Rent or buy: the comparable offer, the break-even and the totals over the rule's years."""

    offer: RentOffer
    rent_per_hour: Money
    own_power_per_hour: Money
    break_even_hours: float | None
    hours_per_week: float
    yearly: tuple[RentYear, ...] = msgspec.field(name="years")
    cheaper: Literal["buy", "rent"]
    reason: str
    options: tuple[RentOption, ...] = ()  # rental lines (GPU and TPU) to weigh against each other

    def __post_init__(self) -> None:
        if self.break_even_hours is not None:
            force_setattr(self, "break_even_hours", round(self.break_even_hours, 1))


_NO_PART = 0.0  # one object: msgspec leaves a field out of the JSON when it is its default object


class MemoryParts(_Part, omit_defaults=True, frozen=True):
    """What the memory need is made of, in GB; a part the job does not have is left out of the JSON.

    Full training splits its 16 bytes a parameter as mixed precision stores them: 16-bit weights and
    gradients, the optimizer's 32-bit master weights and moments (the 2019 count: 32-bit weights, gradients
    and Adam).
    """

    weights: float = _NO_PART
    kv_cache: float = _NO_PART
    adapters: float = _NO_PART  # LoRA adapters with their optimizer state
    gradients: float = _NO_PART
    optimizer: float = _NO_PART
    activations: float = _NO_PART
    runtime: float = _NO_PART

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:  # a part of 0 GB is the default itself, so the JSON leaves it out
            gb = round(getattr(self, name), 1)
            force_setattr(self, name, gb or _NO_PART)


class MemoryNeed(_Part, frozen=True):
    """Memory the job needs, in GB at the asked precision (per card when sharded).

    Not rounded here: the engine sizes with the exact figure; :class:`Answer` rounds
    the one it shows.
    """

    gb: float
    how: str
    model: str | None = None
    method: str | None = None  # inference, lora, qlora, full, pretrain, train
    assumptions: tuple[str, ...] = ()  # what the engine chose because the question did not say
    parts: MemoryParts | None = None  # None: a typical or asked-for figure, not counted part by part


class Currency(_Part, frozen=True):
    """The asker's currency and the exchange rate its prices were converted at."""

    code: str
    per_usd: float
    rate_date: str
    source: str


class Excluded(_Part, frozen=True):
    """A card left out of the answer, and the rule that left it out."""

    gpu: str
    rule: str
    reason: str


class NamedPrice(_Part, frozen=True):
    """The current price of a named card, in USD."""

    usd: float
    date: str
    kind: str


class NamedCard(_Part, kw_only=True, frozen=True):
    """A card the question named and what became of it (``status``, said in ``reason``); card fields unset."""

    asked: str
    gpu: str | None
    name: str
    memory_gb: float | UnsetType = UNSET
    form_factor: str | UnsetType = UNSET
    relative_performance: float | UnsetType = UNSET
    guessed: str | UnsetType | None = UNSET  # how the name was read, when it was not exact
    cards_needed: int | UnsetType | None = UNSET  # None: not even eight hold the job
    splits: bool | UnsetType = UNSET  # False: the job runs whole on each card (an image model)
    at_lower: str | UnsetType = UNSET  # a lower precision one card holds the job at ("4-bit"), none asked
    at_lower_gb: float | UnsetType = UNSET  # what the job needs at that precision
    offloaded: bool | UnsetType = UNSET  # an image model run at that precision with part of it in system RAM
    experts_in_ram: bool | UnsetType = UNSET  # a mixture of experts llama.cpp can run with its experts in RAM
    spare: float | UnsetType = UNSET  # the share left where it holds the job with less than the tight margin
    tokens_per_second: float | UnsetType = UNSET
    price: NamedPrice | UnsetType = UNSET
    status: Literal["compared", "fits", "does-not-fit", "not-in-catalog", "not-released", "no-current-price"]
    reason: str
    owned: bool | UnsetType = UNSET  # the asker already has this card
    withdrawn: str | UnsetType = UNSET  # the day its maker stopped selling it new, where that has passed
    built_as: str | UnsetType = UNSET  # another form of it that many go in one machine, where these do not

    @classmethod
    def all_of(cls, entries: Iterable[Mapping[str, Any]]) -> tuple[NamedCard, ...]:
        """The engine's named-card entries (built up key by key while the cards are judged), typed."""
        return tuple(msgspec.convert(entry, cls) for entry in entries)


Way = Literal["own", "buy", "rent", "tpu"]


class JobOption(_Part, kw_only=True, frozen=True, omit_defaults=True):
    """One way to run a whole training job: ``count`` × one accelerator, how long it takes and what it costs.

    ``hours_low``/``hours_high`` and ``cost_low``/``cost_high`` are the band from the utilisation's spread
    (rule ``job-cost``); a purchase's cost is its price plus the electricity for the run, a rental's its
    on-demand price (``spot_cost`` where the provider lists spot), the lab's own cards their price spread
    over their years of use plus electricity."""

    way: Way
    gpu: str
    name: str
    count: int
    hours: float
    hours_low: float
    hours_high: float
    cost: Money
    cost_low: Money
    cost_high: Money
    per_hour: Money
    spot_cost: Money | None = None
    provider: str | None = None
    seen: str | None = msgspec.field(default=None, name="date")
    asked: bool = False  # the card the question named, at the count it named


class JobCost(_Part, kw_only=True, frozen=True, omit_defaults=True):
    """A training run's or a transcription's work (model FLOPs), and each way to get it done."""

    method: str
    params_b: float
    tokens_b: float
    flops: float
    examples: int | None = None  # asked by its examples: × tokens_per_example (assumed) × epochs = tokens_b
    tokens_per_example: int | None = None
    epochs: float | None = None
    audio_hours: float | None = None  # a transcription's audio
    basis: str | None = None  # the measured speed a transcription's FLOPs come from, in words
    utilisation: float  # of the dense 16-bit tensor peak
    utilisation_band: tuple[float, float]
    options: tuple[JobOption, ...]


class ServingOption(_Part, kw_only=True, frozen=True, omit_defaults=True):
    """One way to serve the users for the period: buy the configuration (price and electricity) or rent
    the same cards; what it costs in all and per million tokens generated at the users' load."""

    way: Literal["buy", "rent"]
    gpu: str
    name: str
    count: int
    cost: Money  # for the whole period
    per_million: Money  # per million tokens generated, at the users' load through the period
    provider: str | None = None
    seen: str | None = msgspec.field(default=None, name="date")


class ServingCost(_Part, kw_only=True, frozen=True):
    """Serving ``users`` at ``tokens_per_user`` each for ``months``, used ``hours_per_week``: buy or rent."""

    users: int
    tokens_per_user: float
    months: float
    hours_per_week: float
    options: tuple[ServingOption, ...]  # cheapest first


class ModelRun(_Part, kw_only=True, frozen=True, omit_defaults=True):
    """One model on the cards asked about: the widest weights it runs at, its speed, how it can be tuned."""

    model: str
    name: str
    kind: str  # "llm" | "diffusion" | "speech"
    params_b: float
    inference: str | None = None  # "16-bit" | "8-bit" | "4-bit"; None: it does not run
    tokens_per_second: float | None = None  # LLM decode at batch 1 at those weights
    fine_tune: str | None = None  # "full" | "lora" | "qlora"; None: no fine-tuning fits


class RunsOn(_Part, kw_only=True, frozen=True):
    """What runs on ``count`` × one card: the models of the table that run or tune on it, largest first."""

    gpu: str
    name: str
    count: int
    memory_gb: float
    models: tuple[ModelRun, ...]


class CardRow(_Part, kw_only=True, frozen=True):
    """One released card for a workload on a date: its speed, price and speed per 1000 units (the catalog's
    table and charts)."""

    gpu: str
    name: str
    vendor: str
    memory_gb: float
    relative_performance: float  # × the reference GPU, rounded to 3 places
    performance_basis: Literal["measured", "estimated"]
    price: Money | None  # None: no price known on the date
    performance_per_1000: float | None  # None without a price


class Answer(_Part, kw_only=True, frozen=True):
    """The engine's answer: ranked picks, the rules behind them, warnings, rent-vs-buy."""

    question: Question
    intent: str
    verdict: Literal["buy", "wait", "over-budget", "too-large", "cpu-and-cloud", "compare"]
    summary: str
    headline: str = ""  # the first line: the answer to the question's intent ("Buy a used RTX 3090 …")
    as_of: str
    catalog_version: str
    currency: Currency
    reference_gpu: str
    workload: str
    performance_basis: str = ""  # derived from the picks when the answer is built
    memory_need: MemoryNeed
    picks: tuple[Pick, ...] = ()
    alternatives: dict[str, Pick | None] = {}
    findings: tuple[Finding, ...] = ()
    warnings: tuple[Finding, ...] = ()
    excluded: tuple[Excluded, ...] = ()
    rent_vs_buy: RentVsBuy | None = None
    suggestions: tuple[str, ...] = ()
    named: tuple[NamedCard, ...] = ()  # every card the question named: compared, fitted, or why not
    job_cost: JobCost | None = None  # a training run with its tokens: time and money on each way to run it
    # serving users: buying vs renting for the period, per million tokens
    serving_cost: ServingCost | None = None
    runs_on: tuple[RunsOn, ...] = ()  # "what can I run on …": the models each asked card (or lab card) runs

    def __post_init__(self) -> None:
        if not self.performance_basis:  # said by the picks, unless decoded from an answer that says it
            hosts = sum(
                p.performance_basis.hosts for p in self.picks if p.performance_basis.kind == "measured"
            )
            force_setattr(
                self,
                "performance_basis",
                f"measured on {hosts} lab host{'s' * (hosts != 1)}" if hosts else "estimated from specs",
            )
        force_setattr(self, "alternatives", dict(sorted(self.alternatives.items())))
        force_setattr(
            self, "memory_need", msgspec.structs.replace(self.memory_need, gb=round(self.memory_need.gb, 1))
        )

    @property
    def language(self) -> str:
        """The language the answer is shown in: its question's, else English."""
        return self.question.language or DEFAULT_LANGUAGE


class Reply(_Part, kw_only=True, frozen=True):
    """Free text answered (``POST /v1/ask``): the Markdown, what was understood, and the answer behind it."""

    text: str = msgspec.field(name="answer")  # Markdown answer, or a clarifying question
    intent: Literal[
        "recommend", "compare", "fit", "rent-or-buy", "upgrade", "what-runs-on", "help", "clarify"
    ]
    question: Question | None = msgspec.field(name="query")  # the question understood so far
    understood: tuple[str, ...]
    not_understood: tuple[str, ...] = ()  # words of the question no reading took, named in the text too
    # What the reading adds under the answer (models unknown or not downloadable, the words not understood),
    # as lines the text ends with, for a face that lays out its own answer (Slack blocks)
    reading_notes: tuple[str, ...] = ()
    recommendation: Answer | None
    follow_up: tuple[str, ...]
    # The conversation this turn belongs to: null for a one-shot question (nothing is stored);
    # unset outside the API.
    conversation_id: str | UnsetType | None = UNSET
    # The SkyPilot task of a priced training run, when the request asked for it (POST /v1/ask "skypilot").
    skypilot_task: str | UnsetType = UNSET
