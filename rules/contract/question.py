"""The question the engine answers, shared by the CLI, the API and the bot.

Every face (free text, JSON, Slack) turns its input into a :class:`Question`;
:meth:`Question.check` is the one place that checks a question's values, so a bad
value gets the same specific message everywhere. The values and limits it checks are
stated once, in :class:`RecommendationRequest` (the JSON body, whose published schema
is generated from it), from the lists and limits of :mod:`rules.contract.values`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from datetime import date
from typing import Annotated, Any, get_type_hints

import msgspec

from rules.contract.checks import Judge, as_of_refusal, judge_for, number, one_of
from rules.contract.values import (
    AS_OF_PATTERN,
    CURRENCIES,
    CURRENCY_PATTERN,
    DETAIL_TEXT,
    MAX_BATCH,
    MAX_BUDGET,
    MAX_BUDGET_USD_EQUIVALENT,
    MAX_COMPARED,
    MAX_CONTEXT_TOKENS,
    MAX_GPUS,
    MAX_NAME_CHARS,
    MAX_TOKENS_PER_USER,
    MAX_USERS,
    RUB_PER_USD_AT_MOST,
    AnswerDetail,
    Backend,
    Experience,
    Intent,
    Language,
    Method,
    Objective,
    Precision,
    Runtime,
    Setting,
    Task,
    WeightFormat,
    Workload,
)
from rules.errors import QuestionError

__all__ = ["Question", "QuestionError", "RecommendationRequest"]

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_NAME_CHARS)]


def _positive(upper: float, description: str | None = None) -> Any:
    return msgspec.Meta(gt=0, le=upper, description=description)


class RecommendationRequest(
    msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True, omit_defaults=True
):
    """POST /v1/recommendations: the structured question, every field optional. The one statement of each
    field's values and limits: the published schema is generated from it and :meth:`Question.check` reads
    it."""

    workload: Annotated[Workload, msgspec.Meta(description="What the GPU is for.")] = "general"
    budget: Annotated[float, _positive(MAX_BUDGET, "Total budget for all GPUs, in `currency`.")] | None = None
    currency: Annotated[
        str, msgspec.Meta(pattern=CURRENCY_PATTERN, description=f"One of {', '.join(CURRENCIES)} (any case).")
    ] = "USD"
    gpus: Annotated[int, msgspec.Meta(ge=1, le=MAX_GPUS, description="Number of GPUs.")] = 1
    precision: Annotated[
        Precision | None,
        msgspec.Meta(
            description="Number format of weights (and training); null lets the engine pick the job's usual "
            "one and say so."
        ),
    ] = None
    model: Annotated[Name | None, msgspec.Meta(description="A named model, e.g. 'llama-13b'.")] = None
    weight_format: Annotated[
        WeightFormat | None,
        msgspec.Meta(
            description="The weight file run (GGUF Q5_K_M, Q6_K ...): its bits per weight size the model's "
            "weights; null: the precision's usual file."
        ),
    ] = None
    params_b: Annotated[float, _positive(2000, "Model size in billions of parameters.")] | None = None
    active_params_b: (
        Annotated[
            float,
            _positive(
                2000,
                "Of a mixture of experts the table does not hold, the parameters each token reads, in "
                "billions ('80b-a3b': 3); null: a model the table holds, or a dense one.",
            ),
        ]
        | None
    ) = None
    memory_gb: Annotated[float, _positive(4096, "Memory the job needs, GB.")] | None = None
    card_memory_gb: (
        Annotated[
            float,
            _positive(
                4096,
                "Memory of the card the asker has in mind, GB ('will llama 13b fit "
                "on 8 GB'); the job's need still comes from the model.",
            ),
        ]
        | None
    ) = None
    task: Task = "training"
    gpus_fixed: Annotated[
        bool,
        msgspec.Meta(
            description="The count of GPUs was said ('on a single gpu'): "
            "no more cards are added to hold the job."
        ),
    ] = False
    used_ok: Annotated[bool, msgspec.Meta(description="Used cards are fine.")] = False
    new_only: Annotated[bool, msgspec.Meta(description="New cards only: never a used pick.")] = False
    asked_speed: Annotated[
        bool,
        msgspec.Meta(
            description="The question asks how fast ('how many tokens/s'): the answer leads with that speed."
        ),
    ] = False
    asked_power: Annotated[
        bool, msgspec.Meta(description="The question asks for the power supply: the answer leads with it.")
    ] = False
    asked_memory: Annotated[
        bool,
        msgspec.Meta(
            description="The question asks how much memory the job needs: the answer leads with that figure."
        ),
    ] = False
    shared: Annotated[
        bool,
        msgspec.Meta(
            description="The machine serves a group (a lab, a team, an institute): an LLM served on it with "
            "no users given is sized for the shared-users default, and the answer says so."
        ),
    ] = False
    cloud_ok: Annotated[bool, msgspec.Meta(description="Renting in the cloud is an option.")] = True
    hours_per_week: Annotated[float, _positive(168)] | None = None
    as_of: (
        Annotated[
            str,
            msgspec.Meta(
                pattern=AS_OF_PATTERN,
                description=(
                    "Advice as it stood on this date (2010-01-01 … today): only cards released and prices "
                    "known by then."
                ),
            ),
        ]
        | None
    ) = None
    experience: Experience | None = None
    owned_gpu: Annotated[Name | None, msgspec.Meta(description="A GPU you already have.")] = None
    compare: Annotated[
        tuple[Name, ...],
        msgspec.Meta(max_length=MAX_COMPARED, description="GPU names to compare (with intent 'compare')."),
    ] = ()
    compare_counts: Annotated[
        tuple[int, ...],
        msgspec.Meta(
            max_length=MAX_COMPARED,
            description="How many of each card in `compare` ('2x 3090 vs a 5090': [2, 1]); empty: `gpus` of "
            "each.",
        ),
    ] = ()
    intent: Annotated[Intent, msgspec.Meta(description="'compare' ranks the cards in `compare`.")] = (
        "recommend"
    )
    method: Annotated[
        Method | None,
        msgspec.Meta(
            description=(
                "How the model is used: inference, LoRA, QLoRA, full fine-tuning or pretraining; null lets "
                "the engine choose and say so."
            )
        ),
    ] = None
    objective: Annotated[
        Objective | None,
        msgspec.Meta(
            description=(
                "What best means: null is the best within the budget with diminishing returns; cheapest is "
                "the least that does the job."
            )
        ),
    ] = None
    setting: Annotated[
        Setting | None,
        msgspec.Meta(
            description="Where the hardware lives: a desktop PC, a server or rack, "
            "or rented in the cloud only."
        ),
    ] = None
    context_tokens: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=MAX_CONTEXT_TOKENS,
                description="Context length in tokens, for the KV cache and activations.",
            ),
        ]
        | None
    ) = None
    batch: (
        Annotated[
            int,
            msgspec.Meta(ge=1, le=MAX_BATCH, description="Batch size (concurrent sequences for inference)."),
        ]
        | None
    ) = None
    language: Annotated[Language | None, msgspec.Meta(description="Language of the answer's prose.")] = None
    training_tokens_b: (
        Annotated[
            float,
            _positive(
                1_000_000,
                "Tokens a training run reads in all, in billions ('on 20B tokens'); with it the answer times "
                "and prices the whole run on each way to get the compute.",
            ),
        ]
        | None
    ) = None
    examples: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=10**10,
                description="Training examples of a fine-tune ('on 50k examples'); with epochs and the "
                "tokens an example is assumed to hold, they give the run's tokens.",
            ),
        ]
        | None
    ) = None
    epochs: (
        Annotated[float, _positive(1000, "Passes over the examples ('for 3 epochs'); 1 when unsaid.")] | None
    ) = None
    service_months: (
        Annotated[
            float, _positive(120, "How long a served model runs, in months ('for a year'): 12 when unsaid.")
        ]
        | None
    ) = None
    rent_hours: (
        Annotated[
            float, _positive(100_000, "Hours of GPU time the job takes in all ('100 hours of training').")
        ]
        | None
    ) = None
    audio_hours: (
        Annotated[
            float,
            _positive(
                10_000_000,
                "Hours of audio to transcribe ('2,000 hours of interviews'); with it the answer times and "
                "prices the whole transcription on each way to get the compute.",
            ),
        ]
        | None
    ) = None
    runtime: Annotated[
        Runtime | None,
        msgspec.Meta(
            description=(
                "LLM runtime: llama.cpp (also Ollama, LM Studio: GGUF files, cards split by layers) or vllm "
                "(also SGLang, TGI, TensorRT-LLM: cards in tensor parallel); "
                "null: vllm for several users or a server, else llama.cpp."
            )
        ),
    ] = None
    users: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=MAX_USERS,
                description="People (or streams) served at once; null: one, or the batch where one is given.",
            ),
        ]
        | None
    ) = None
    tokens_per_user: (
        Annotated[
            float,
            _positive(
                MAX_TOKENS_PER_USER,
                "Tokens a second each user needs while generating; null: a reading speed (a rule parameter, "
                "stated in the answer).",
            ),
        ]
        | None
    ) = None
    backend: Annotated[
        Backend | None,
        msgspec.Meta(
            description=(
                "Compute backend of the runtime: cuda, rocm, vulkan, metal, mlx or sycl; "
                "null: the card's usual one."
            )
        ),
    ] = None

    detail: Annotated[AnswerDetail, msgspec.Meta(description=f"The answer's findings: {DETAIL_TEXT}")] = (
        "short"
    )

    def question(self, today: date) -> Question:
        """The question this body asks, checked as every face's question is."""
        asked = {
            name: getattr(self, name) for name in self.__struct_fields__ if name not in ("intent", "detail")
        }
        return Question.from_dict(asked, today)

@dataclass(frozen=True)
class Question:
    """What someone wants a GPU for; every field has a sensible default."""

    workload: str = "general"
    budget: float | None = None
    currency: str = "USD"
    gpus: int = 1
    # The count was said ("on a single gpu"): no more cards are added to hold the job. A count above one
    # is always kept as asked; without this, one card that cannot hold the job becomes the fewest that can.
    gpus_fixed: bool = False
    precision: str | None = None  # None: the engine picks the job's usual precision and says so
    model: str | None = None
    weight_format: str | None = None  # "GGUF Q5_K_M": the file's bits per weight size the weights
    params_b: float | None = None
    active_params_b: float | None = None  # a mixture of experts sized by its size alone: what a token reads
    memory_gb: float | None = None
    task: str = "training"
    # used_ok: used is fine; new_only: never a used pick; neither: not said (a used lead on a tight budget)
    used_ok: bool = False
    cloud_ok: bool = True
    hours_per_week: float | None = None
    as_of: date | None = None
    experience: str | None = None
    owned_gpu: str | None = None
    compare: tuple[str, ...] = field(default_factory=tuple)
    compare_counts: tuple[int, ...] = field(default_factory=tuple)  # per card of compare; empty: gpus of each
    method: str | None = None
    setting: str | None = None  # None: a desktop for one person, unless the question says otherwise
    context_tokens: int | None = None
    batch: int | None = None
    language: str | None = None  # None: English
    objective: str | None = None  # "cheapest": the least that does the job
    # The memory of the card the asker has in mind ("will llama 13b fit on 8 GB"): the job's
    # need still comes from the model; the answer says whether it fits in this much.
    card_memory_gb: float | None = None
    runtime: str | None = (
        None  # "llama.cpp" or "vllm" (:data:`Runtime`); None: by the users served and the setting
    )
    new_only: bool = False  # only new cards: see used_ok
    shared: bool = False  # a group shares the machine: a served LLM is sized for the shared-users default
    asked_speed: bool = False  # "how fast", "how many tokens/s": the first line leads with the speed
    asked_power: bool = False  # "what psu", "how many watts": the first line leads with the power supply
    asked_memory: bool = False  # "how much vram do i need": the first line leads with the job's need
    users: int | None = None  # people served at once; None: one, or the batch where one is given
    tokens_per_user: float | None = None  # tok/s each user needs; None: the reading-speed rule parameter
    backend: str | None = None  # :data:`Backend`; None: the card's usual backend
    training_tokens_b: float | None = (
        None  # tokens a training run reads in all, billions: the whole job is priced
    )
    examples: int | None = None  # a fine-tune's examples; with epochs (1 if unsaid) they give its tokens
    epochs: float | None = None  # passes over the examples
    service_months: float | None = None  # how long a served model runs ("for a year"); None: a year, said
    rent_hours: float | None = None  # GPU time the job takes in all ("100 hours of training")
    audio_hours: float | None = None  # audio to transcribe ("2,000 hours of interviews"): the job is priced

    @classmethod
    def from_dict(cls, data: dict[str, Any], today: date | None = None) -> Question:
        """Build and check a question; raises :class:`QuestionError` naming the field."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise QuestionError(unknown[0], f"unknown field {unknown[0]!r}")
        values = {k: v for k, v in data.items() if v is not None}
        if "as_of" in values and isinstance(values["as_of"], str):
            try:
                values["as_of"] = date.fromisoformat(values["as_of"])
            except ValueError:
                raise QuestionError(
                    "as_of", f"as_of must be a date like 2019-04-03, not {values['as_of']!r}"
                ) from None
        if "compare" in values:
            if not isinstance(values["compare"], (list, tuple)):
                raise QuestionError("compare", "compare must be a list of GPU names")
            values["compare"] = tuple(values["compare"])
        if "compare_counts" in values:
            if not isinstance(values["compare_counts"], (list, tuple)):
                raise QuestionError("compare_counts", "compare_counts must be a list of card counts")
            values["compare_counts"] = tuple(values["compare_counts"])
        if isinstance(values.get("currency"), str):
            values["currency"] = values["currency"].upper()
        question = cls(**values)
        question.check(today or date.today())
        return question

    def check(self, today: date) -> None:
        """Raise :class:`QuestionError` for the first value out of range: each field's values and limits are
        read from :class:`RecommendationRequest` (:data:`_JUDGES`); the budget and the date also depend on
        the currency and on today."""
        for name, judge in _JUDGES:
            judge(name, getattr(self, name))
        one_of("currency", self.currency, CURRENCIES)
        if self.compare_counts:
            if len(self.compare_counts) != len(self.compare):
                raise QuestionError(
                    "compare_counts", "compare_counts needs one count for each card in compare"
                )
            for count in self.compare_counts:
                if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_GPUS:
                    raise QuestionError(
                        "compare_counts", f"each count must be a whole number from 1 to {MAX_GPUS}"
                    )
        if self.active_params_b and self.params_b and self.active_params_b > self.params_b:
            said = "active_params_b is the part of params_b each token reads: at most params_b"
            raise QuestionError("active_params_b", said)
        if self.new_only and self.used_ok:
            raise QuestionError("new_only", "new_only and used_ok contradict each other; set one of them")
        if self.budget is not None:
            number("budget", self.budget)
            if self.budget <= 0:
                raise QuestionError("budget", "budget must be positive")
            if self.budget > MAX_BUDGET_USD_EQUIVALENT * (
                RUB_PER_USD_AT_MOST if self.currency == "RUB" else 1
            ):
                raise QuestionError(
                    "budget",
                    "budget is beyond anything a GPU purchase needs; give it in the currency's units, e.g. "
                    "2000",
                )
        if self.as_of is not None:
            if not isinstance(self.as_of, date):
                raise QuestionError("as_of", "as_of must be a date like 2019-04-03")
            refusal = as_of_refusal(self.as_of, today)
            if refusal:
                raise QuestionError("as_of", f"as_of {refusal}")

    def refined(self, **changes: Any) -> Question:
        return replace(self, **changes)

    def count_of(self, name: str) -> int | None:
        """How many of the card ``name`` the question asked for ('2x 3090 vs a 5090': 2 and 1); None when it
        gave no count per card."""
        if self.compare_counts and name in self.compare:
            return self.compare_counts[self.compare.index(name)]
        return None

# Every field of the request that is a field of the question, but the two whose limits depend on another
# value (the budget on the currency, the date on today), the currency, whose pattern takes any case, and the
# counts per card, which must match the cards compared (Question.check says both).
_JUDGES: tuple[tuple[str, Judge], ...] = tuple(
    (name, judge_for(hint))
    for name, hint in get_type_hints(RecommendationRequest, include_extras=True).items()
    if name in {f.name for f in fields(Question)} - {"budget", "as_of", "currency", "compare_counts"}
)
