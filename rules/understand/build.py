"""From the scan to the question: the passes in order, then what they recorded -> the question, what was read.

A text with both a workload and a budget is a new question and starts from defaults instead of ``previous``;
otherwise it refines ``previous``. ``understood`` names each value with the words it was read from, so a
person can correct themselves instead of getting a silent guess; ``unknown`` lists the words no pass took.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from datetime import date
from typing import Any

from rules.contract.question import Question
from rules.contract.values import MAX_BATCH
from rules.errors import QuestionError
from rules.understand import dates, hardware, models, money, units, words
from rules.understand.followups import HeldGb, ShownCards, follow_ups, referred_cards
from rules.understand.language import text_language
from rules.understand.text import Scan, note

# The passes in the order they read, the most specific grammar first; True for a pass that reads only what
# holds a digit, skipped cheaply for a text without one.
PASSES: tuple[tuple[Callable[[Scan], None], bool], ...] = (
    (units.read_picture_size, True),
    (dates.read_dates, True),
    (units.read_work_amounts, True),
    (units.read_speed, True),
    (units.read_quantisation, True),
    (units.read_context, True),
    (units.read_batch, True),
    (units.read_users, False),  # "for one user", "a few dozen people" have no digit
    (models.read_closed_models, False),
    (models.read_models, False),
    (money.read_ranges, True),
    (money.read_marked, False),
    (hardware.read_gpus, False),
    (units.read_memory, True),
    (units.read_params, True),
    (units.read_hours, False),  # "a few hours a month" has no digit
    (units.read_counts, False),
    (money.read_worded, True),
    (money.read_currency_words, False),
    (words.read_keywords, False),
    (words.read_rental, False),
    (money.read_bare_number, True),
)

_FIELD_ORDER = [f.name for f in fields(Question)]
_LABELS = {
    "params_b": "parameters (billions)",
    "active_params_b": "active parameters a token reads (billions)",
    "memory_gb": "memory the job needs (GB)",
    "card_memory_gb": "the card's memory (GB)",
    "hours_per_week": "hours per week",
    "as_of": "as of",
    "context_tokens": "context tokens",
    "training_tokens_b": "training tokens (billions)",
    "examples": "training examples",
    "epochs": "epochs",
    "service_months": "served for (months)",
    "rent_hours": "GPU hours in all",
    "audio_hours": "hours of audio to transcribe",
    "tokens_per_user": "tokens/s each user needs",
    "used_ok": "used is fine",
    "new_only": "new cards only",
    "shared": "shared by a group",
    "asked_speed": "how fast it runs",
    "asked_power": "the power supply it needs",
    "asked_memory": "how much memory it needs",
    "weight_format": "weight file",
    "cloud_ok": "cloud is fine",
    "owned_gpu": "already owns",
    "gpus_fixed": "that many gpus and no more",
}


@dataclass(frozen=True)
class ParsedText:
    """What a text said: the question, the intent, and what was and was not understood."""

    question: Question
    intent: str
    understood: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    unknown_models: tuple[str, ...] = ()  # named, but not in the model table and no size said
    closed_models: tuple[tuple[str, str, str], ...] = ()  # (name, maker, the open model sized instead)
    outside: tuple[str, ...] = ()  # hardware asked about that the catalog does not hold ("laptop")
    stand_ins: tuple[tuple[str, str], ...] = ()  # (name said, the model of another version sized instead)

    @property
    def needs_clarification(self) -> bool:
        # "what can we run" asks about the lab's own cards: nothing else needs saying
        return self.intent not in ("help", "what-runs-on") and not self.changed


def scan(text: str, today: date) -> Scan:
    """A cleaned text read by every pass in turn."""
    read = Scan(text, today)
    digits = any(ch.isdigit() for ch in text)  # most grammar needs a number: skip it cheaply when none
    for step, needs_digits in PASSES:
        if digits or not needs_digits:
            step(read)
    return read


def build(
    read: Scan,
    previous: Question | None,
    today: date,
    held_gb: HeldGb | None = None,
    shown_cards: ShownCards | None = None,
) -> ParsedText:
    """The question the scan describes, refining ``previous`` unless the text is a whole new question."""
    workload = words.pick_workload(read)
    fresh = previous is None or (workload is not None and "budget" in read.values)
    base = previous if previous is not None and not fresh else Question()
    language = text_language(read.original)
    referred = referred_cards(read, shown_cards if previous is not None else None)
    changes, understood = _changes(read, workload, base, fresh, language)
    understood += referred
    understood += [f"read '{typed}' as '{word}'" for typed, word in read.spelled.items()]
    if "rent-or-buy" in read.intents and "cheaper" in read.adjust:  # "is renting cheaper": not a follow-up
        read.adjust.remove("cheaper")
    understood += follow_ups(read.adjust, base, changes, held_gb)
    changed = tuple(name for name in _FIELD_ORDER if name in changes)
    if (changes or "what-runs-on" in read.intents) and language:  # kept through follow-ups
        changes["language"] = language
    question = replace(base, **changes)
    try:
        question.check(today)
    except QuestionError as error:
        if error.field == "budget" and "budget" in read.values:  # "$1e12" is no typo for $1: name it
            (amount, currency), phrase = read.values["budget"]
            raise QuestionError(
                "budget",
                f"{error.message} (read {amount:,.0f} {currency or question.currency} from '{phrase}')",
            ) from None
        raise
    team = read.team
    if (
        team is not None
        and question.task == "inference"
        and question.batch is None
        and 1 < team[0] <= MAX_BATCH
    ):
        question = replace(question, batch=team[0])
        understood.append(f"batch: {team[0]} (from '{team[1]}')")
    if len(read.models) > 1 or models.jobs_apart(read):  # each model takes the job said beside it
        question = models.most_demanding(read, question, understood, today)
    if "card_memory_gb" in changes:
        understood.append(units.fit_note(question))
    return ParsedText(
        question,
        words.intent(read, question, changed),
        tuple(understood + read.amounts_of_work),
        words.unknown(read),
        changed,
        tuple(dict.fromkeys(read.unknown_models)),
        tuple(dict.fromkeys(read.closed_models)),
        tuple(dict.fromkeys(read.outside)),
        tuple(dict.fromkeys(read.stand_ins)),
    )


def _workload_lines(read: Scan, workload: tuple[str, str]) -> list[str]:
    """What the reading says of the kind of work: the one read, and the others said beside it."""
    lines = [note("workload", *workload)]
    others = words.other_workloads(read, workload[0])
    if others:
        lines.append(f"workload: {workload[0]} sizes the card, asking the most memory of the kinds of work "
                     f"said (also {', '.join(others)})")  # fmt: skip
    return lines


def _audio_to_train_on(read: Scan, changes: dict[str, Any], understood: list[str]) -> list[str]:
    """'fine-tune whisper on 300 hours of audio': the audio is the training data, not audio to transcribe."""
    hours, phrase = changes.pop("audio_hours"), read.values["audio_hours"][1]
    understood = [line for line in understood if not line.startswith(f"{_LABELS['audio_hours']}:")]
    return [*understood, f"to train on: {hours:g} hours of audio (from '{phrase}'; an amount of work)"]


def _changes(
    read: Scan, workload: tuple[str, str] | None, base: Question, fresh: bool, language: str | None
) -> tuple[dict[str, Any], list[str]]:
    """The fields the text sets, and the ``understood`` lines naming them in the order the answer shows."""
    changes: dict[str, Any] = {}
    understood: list[str] = []
    if workload:
        changes["workload"] = workload[0]
        understood += _workload_lines(read, workload)
    understood += money.budget_changes(read, base, fresh, language, changes)
    if read.cards and read.used_said:  # a used card among those compared: used prices count
        read.values["used_ok"] = (True, read.used_said)
    if "used_ok" in read.values and "new_only" in read.values:  # "new or used": either will do
        del read.values["new_only"]
    understood += words.job_changes(read, changes, base, fresh)
    for name in _FIELD_ORDER:
        if name in read.values and name not in ("budget", "precision"):
            value, phrase = read.values[name]
            changes[name] = value
            understood.append(note(_LABELS.get(name, name), value, phrase))
    if "audio_hours" in changes and changes.get("task", base.task) == "training":
        understood = _audio_to_train_on(read, changes, understood)
    job = (
        "run"
        if changes.get("task") == "inference"
        else "pretrain"
        if changes.get("method") == "pretrain"
        else ""
    )
    if fresh and job and not workload and "model" not in changes and (changes.get("params_b") or 0) >= 1:
        # "serving a 70b model", "pretraining a 7b model": billions of parameters from scratch or to run: a
        # language model (a fine-tune of a bare size keeps the general job's sizing)
        changes["workload"] = "llm"
        understood.append(
            f"workload: llm (a {changes['params_b']:g}B-parameter model to {job}, no other kind named)"
        )
    if changes.get("new_only") and base.used_ok:  # used, new only or not said: one of the three at a time
        changes["used_ok"] = False
    elif changes.get("used_ok") and base.new_only:
        changes["new_only"] = False
    if "memory_gb" in changes and (
        "what-runs-on" in read.intents or units.sizes_a_card(read, changes, base, fresh)
    ):  # "what can I run on 24 GB": the card's memory, the job is what the answer finds
        changes["card_memory_gb"] = changes.pop("memory_gb")
        understood[-1] = note(
            _LABELS["card_memory_gb"], changes["card_memory_gb"], read.values["memory_gb"][1]
        )
    if read.cards:
        as_of = changes.get("as_of", base.as_of) or read.today
        size = next((field for field in ("card_memory_gb", "memory_gb") if field in changes), None)
        sized_gb = changes.get(size) if size else None
        changes["compare"], cards_line, sized_by_memory = hardware.cards_asked(read, as_of, sized_gb)
        if size and sized_by_memory:
            changes.pop(size)  # the size named the family's member: it is that computer's memory, not a need
            understood = [line for line in understood if not line.startswith(f"{_LABELS[size]}:")]
        counts = hardware.counts_asked(read, changes["compare"], as_of)
        if counts:  # "two 3090s or one 5090": each card at its own count
            changes["compare_counts"] = counts
        understood.append(cards_line)
    return changes, understood
