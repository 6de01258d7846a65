"""The question the engine answers, shared by the CLI, the API and the bot.

Every face (free text, JSON, Slack) turns its input into a :class:`Question`;
:func:`Question.from_dict` is the one place that checks a question's values, so a
bad value gets the same specific message everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from datetime import date
from typing import Annotated, Any

import msgspec

__all__ = [
    "Question",
    "QuestionError",
    "WORKLOADS",
    "PRECISIONS",
    "TASKS",
    "CURRENCIES",
    "EXPERIENCE",
    "EARLIEST_AS_OF",
    "METHODS",
    "SETTINGS",
    "LANGUAGES",
    "OBJECTIVES",
    "MAX_TEXT_CHARS",
    "check_text",
    "AskRequest",
]

WORKLOADS = ("cnn", "rnn", "transformer", "llm", "image-generation", "speech", "rl", "kaggle", "general")
PRECISIONS = ("fp32", "16-bit", "fp8", "8-bit", "4-bit")
TASKS = ("training", "inference")
# How the model is used; None lets the engine choose for the job and say so.
METHODS = ("inference", "lora", "qlora", "full", "pretrain")
# Where the hardware will live: a desktop PC, a server/rack, or only rented in the cloud.
SETTINGS = ("desktop", "server", "cloud")
LANGUAGES = ("en", "ru")
# What "best" means when the asker says: None = the best within the budget, with diminishing returns.
OBJECTIVES = ("cheapest",)
MAX_CONTEXT_TOKENS = 2_000_000
MAX_BATCH = 4096
CURRENCIES = ("USD", "EUR", "GBP", "RUB")
EXPERIENCE = ("beginner", "hobby", "researcher")
EARLIEST_AS_OF = date(2010, 1, 1)
MAX_BUDGET_USD_EQUIVALENT = 10_000_000
MAX_GPUS = 16
# A question in plain words, on every face (parser, /v1/ask, chat's newest message, the page, Slack, the CLI):
# long enough for a paragraph, short enough that parsing it stays a few milliseconds.
MAX_TEXT_CHARS = 2000


class QuestionError(ValueError):
    """A question with a value the engine cannot use; ``field`` names the culprit."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


class AskRequest(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """POST /v1/ask: free text, optionally continuing a conversation; its published JSON Schema is generated from this type."""

    text: Annotated[str, msgspec.Meta(max_length=MAX_TEXT_CHARS, description="The question in plain words, e.g. 'nlp $800'.")]
    conversation_id: Annotated[str, msgspec.Meta(
        pattern="^[A-Za-z0-9_-]{1,64}$", description="Continue this conversation: the text refines its last question.")] | None = None
    start_conversation: Annotated[bool, msgspec.Meta(
        description="Keep this question so follow-ups sent with the returned conversation_id refine it. Without it (and "
                    "without conversation_id) the question is answered and nothing is stored.")] = False


def check_text(text: Any) -> str:
    """The one check of a question in plain words: a string of at most :data:`MAX_TEXT_CHARS` characters.

    Every face calls it (or, for ``/v1/ask``, enforces the schema generated from the same limit) and
    words the :class:`QuestionError` for its own field."""
    if not isinstance(text, str):
        raise QuestionError("text", "text must be a string")
    if len(text) > MAX_TEXT_CHARS:
        raise QuestionError("text", f"text is {len(text)} characters; at most {MAX_TEXT_CHARS} are read")
    return text


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
    params_b: float | None = None
    memory_gb: float | None = None
    task: str = "training"
    used_ok: bool = False
    cloud_ok: bool = True
    hours_per_week: float | None = None
    as_of: date | None = None
    experience: str | None = None
    owned_gpu: str | None = None
    compare: tuple[str, ...] = field(default_factory=tuple)
    method: str | None = None
    setting: str | None = None  # None: a desktop for one person, unless the question says otherwise
    context_tokens: int | None = None
    batch: int | None = None
    language: str | None = None  # None: English
    objective: str | None = None  # "cheapest": the least that does the job
    # The memory of the card the asker has in mind ("will llama 13b fit on 8 GB"): the job's
    # need still comes from the model; the answer says whether it fits in this much.
    card_memory_gb: float | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any], today: date | None = None) -> "Question":
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
                raise QuestionError("as_of", f"as_of must be a date like 2019-04-03, not {values['as_of']!r}") from None
        if "compare" in values:
            if not isinstance(values["compare"], (list, tuple)):
                raise QuestionError("compare", "compare must be a list of GPU names")
            values["compare"] = tuple(values["compare"])
        if isinstance(values.get("currency"), str):
            values["currency"] = values["currency"].upper()
        question = cls(**values)
        question.check(today or date.today())
        return question

    def check(self, today: date) -> None:
        """Raise :class:`QuestionError` for the first value out of range."""
        _one_of("workload", self.workload, WORKLOADS)
        _one_of("currency", self.currency, CURRENCIES)
        _one_of("task", self.task, TASKS)
        for name, allowed in (("precision", PRECISIONS), ("method", METHODS), ("setting", SETTINGS), ("language", LANGUAGES),
                              ("objective", OBJECTIVES)):
            if getattr(self, name) is not None:
                _one_of(name, getattr(self, name), allowed)
        for name, upper_int in (("context_tokens", MAX_CONTEXT_TOKENS), ("batch", MAX_BATCH)):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= upper_int):
                raise QuestionError(name, f"{name} must be a whole number from 1 to {upper_int}")
        if self.experience is not None:
            _one_of("experience", self.experience, EXPERIENCE)
        if self.budget is not None:
            _number("budget", self.budget)
            if self.budget <= 0:
                raise QuestionError("budget", "budget must be positive")
            if self.budget > MAX_BUDGET_USD_EQUIVALENT * (120 if self.currency == "RUB" else 1):
                raise QuestionError("budget", "budget is beyond anything a GPU purchase needs; give it in the currency's units, e.g. 2000")
        if isinstance(self.gpus, bool) or not isinstance(self.gpus, int) or not 1 <= self.gpus <= MAX_GPUS:
            raise QuestionError("gpus", f"gpus must be a whole number from 1 to {MAX_GPUS}")
        for name, upper in (("params_b", 2000.0), ("memory_gb", 4096.0), ("card_memory_gb", 4096.0),
                            ("hours_per_week", 168.0)):
            value = getattr(self, name)
            if value is not None:
                _number(name, value)
                if not 0 < value <= upper:
                    raise QuestionError(name, f"{name} must be above 0 and at most {upper:g}")
        for name in ("used_ok", "cloud_ok", "gpus_fixed"):
            if not isinstance(getattr(self, name), bool):
                raise QuestionError(name, f"{name} must be true or false")
        if self.as_of is not None:
            if not isinstance(self.as_of, date):
                raise QuestionError("as_of", "as_of must be a date like 2019-04-03")
            if self.as_of < EARLIEST_AS_OF:
                raise QuestionError("as_of", f"as_of must be on or after {EARLIEST_AS_OF.isoformat()}: the catalog starts in the deep-learning era")
            if self.as_of > today:
                raise QuestionError("as_of", f"as_of {self.as_of.isoformat()} is in the future; the catalog only knows the past")
        for name in ("model", "owned_gpu"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not 0 < len(value) <= 100):
                raise QuestionError(name, f"{name} must be a short text")
        if len(self.compare) > 6 or not all(isinstance(c, str) and 0 < len(c) <= 100 for c in self.compare):
            raise QuestionError("compare", "compare takes up to 6 GPU names")

    def refined(self, **changes: Any) -> "Question":
        return replace(self, **changes)


def _one_of(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise QuestionError(name, f"unknown {name} {value!r}; expected one of: {', '.join(allowed)}")


def _number(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise QuestionError(name, f"{name} must be a number")
