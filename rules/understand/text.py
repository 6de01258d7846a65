"""The text being read: cleaning, numbers, and the scan every grammar's pass reads and blanks.

Why blanking: passes run from the most specific grammar to the least, and each blanks what it took, so a
number is read once ("3090" is a card and never a budget, "13b" a model size). What no pass took is what was
not understood. A pass's contract is the same for every grammar: it reads ``Scan.text``, records what it found
(``Scan.put`` for a question field, the record lists for what the build weighs later) and blanks the words it
took (``Scan.take``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, NamedTuple

BLANK = "\x00"  # what a pass leaves where it took text; never in cleaned input
_KEEP = set(".,-/?+<~'%:=$€£₽")

_SLACK_LINK = re.compile(r"<(?:https?|mailto):[^<>|]*(?:\|([^<>]*))?>")  # no "<" inside: linear time
_SLACK_REF = re.compile(r"<[@#!][^<>]*>")
_SHORTCODE = re.compile(r":[a-z0-9_+'-]+:")
_SPACES = re.compile(r"\s+")
# the Cyrillic "х" typed as a times sign beside a number ("2х3090", "на 2х 4090", "х2"), never inside a word
_CYRILLIC_TIMES = re.compile(r"(?<=\d)(\s?)х(?![а-яa-z])|(?<![а-яa-z])х(?=\s?\d)")


def clean(text: str) -> str:
    """Lower-case text with Slack markup, emoji and markdown gone and spaces collapsed."""
    text = _SLACK_LINK.sub(lambda m: f" {m.group(1) or ''} ", text)
    text = _SLACK_REF.sub(" ", text)
    text = unicodedata.normalize("NFKC", text).lower().replace("ё", "е").replace("’", "'")
    text = _SHORTCODE.sub(" ", text)
    text = _CYRILLIC_TIMES.sub(lambda m: f"{m.group(1) or ''}x", text)
    return _SPACES.sub(" ", text.translate(_KEPT)).strip()


def _keep(ch: str) -> str:
    """A letter, digit or sign the grammar reads stays; a dash becomes '-', a times sign 'x' ("2×3090",
    "64×64"); anything else a space."""
    if ch == "×":
        return "x"
    category = unicodedata.category(ch)
    if ch in _KEEP or category[0] in "LN":
        return ch
    return "-" if category == "Pd" else " "


class _Kept(dict[int, str]):
    """What :func:`_keep` makes of each character, as a ``str.translate`` table: the Latin and Cyrillic
    characters questions are written in are listed up front, any other is worked out when it is met."""

    def __missing__(self, code: int) -> str:
        return _keep(chr(code))


_KEPT = _Kept({code: _keep(chr(code)) for code in range(0x500)})

_SPACE = re.compile(r"\s")
_GROUPED = re.compile(r"\d{1,3}(?:[.,]\d{3})+")
_SEPARATORS = re.compile(r"[.,]")


def number(text: str) -> float:
    """'1,500' and '1.500' are thousands; '1.5' and '1,5' decimals; '80 000' grouped."""
    text = _SPACE.sub("", text)
    if "e" in text:  # "1e12": refused later as beyond any purchase, never read as 1
        return float(text.replace(",", "."))
    if _GROUPED.fullmatch(text):
        return float(_SEPARATORS.sub("", text))
    return float(text.replace(",", "."))


def note(name: str, value: Any, phrase: str) -> str:
    """An ``understood`` line: the value read and, when they differ from it, the words it was read from."""
    if isinstance(value, bool):
        shown: Any = "yes" if value else "no"
    else:
        shown = value.isoformat() if isinstance(value, date) else value
    if str(shown) == phrase or not phrase:
        return f"{name}: {shown}"
    return f"{name}: {shown} (from '{phrase}')"


def whole(value: float) -> float | int:
    """1500.0 -> 1500 for display; inf and fractions stay floats (Question.check judges them)."""
    if math.isfinite(value) and float(value).is_integer() and abs(value) < 1e15:
        return int(value)
    return float(value)


# How strongly a word says what the job is: a training word beats an inference word
# (the answer then covers the heavier job); a hint ("use", "local", "q4_k_m") counts only alone.
TRAINING, INFERENCE, HINT = 2, 1, 0


class WorkloadSaid(NamedTuple):
    workload: str
    phrase: str
    at: int
    by_model: bool = False  # the workload of a model named, which a workload word wins over
    of_data: bool = False  # a word for the data worked on ("images"), which a model named wins over


class JobSaid(NamedTuple):
    strength: int  # TRAINING, INFERENCE or HINT
    task: str
    method: str | None
    phrase: str


class JobWord(NamedTuple):
    """A job named in so many words, and where: each model named takes the nearest one before it."""

    at: int
    task: str
    method: str | None
    phrase: str


class CardSaid(NamedTuple):
    at: int
    name: str
    gpus: int | None = None  # "2x 3090": the count said with this card


class CardCount(NamedTuple):
    at: int
    gpus: int
    phrase: str  # "2x 3090"


class ModelSaid(NamedTuple):
    at: int
    model: str | None  # the model table's id; None for a size alone ("a 13b model")
    params: float | None
    phrase: str


class AmountSaid(NamedTuple):
    at: int
    amount: float
    currency: str | None
    phrase: str
    worded: bool  # after a budget word: "budget $3000"


@dataclass
class Scan:
    """The text being read, what the passes have taken from it so far, and what they recorded."""

    text: str
    today: date
    original: str = field(init=False)  # the text before any pass blanked it
    values: dict[str, tuple[Any, str]] = field(default_factory=dict)  # field -> (value, the words said)
    workloads: list[WorkloadSaid] = field(default_factory=list)
    intents: list[str] = field(default_factory=list)
    adjust: list[str] = field(default_factory=list)  # follow-ups: "cheaper", "more_memory", …
    cards: list[CardSaid] = field(default_factory=list)
    jobs: list[JobSaid] = field(default_factory=list)
    card_counts: list[CardCount] = field(default_factory=list)
    models: list[ModelSaid] = field(default_factory=list)
    job_words: list[JobWord] = field(default_factory=list)
    used_said: str = ""  # a "used"/"б/у" word, which wins in a compare: "4090 новая или 3090 б/у"
    team: tuple[int, str] | None = None  # "a team of 10": as many sequences at once, for inference
    amounts: list[AmountSaid] = field(default_factory=list)
    currency_said: tuple[str, str] | None = None  # named on its own, "prices in euros": (code, phrase)
    # "100b tokens", "200 hours of audio": amounts of work, said in ``understood``
    amounts_of_work: list[str] = field(default_factory=list)
    unknown_models: list[str] = field(default_factory=list)  # a family named with a version the table lacks
    closed_models: list[tuple[str, str, str]] = field(default_factory=list)  # (name, maker, open model id)
    # (name said, the name of another version sized in its place; "" where a bare size is)
    stand_ins: list[tuple[str, str]] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)  # hardware the catalog does not hold ("laptop")
    # a family word ("mac") named cards: compared unless beside other kinds ("or pc")
    family_said: bool = False
    references: list[tuple[str, str]] = field(default_factory=list)  # ("first"/"second"/"cheaper", the words)
    spelled: dict[str, str] = field(default_factory=dict)  # a typo -> the vocabulary word it was read as

    def __post_init__(self) -> None:
        self.original = self.text

    def take(
        self, pattern: re.Pattern[str], handle: Callable[[re.Match[str]], Any], needs: tuple[str, ...] = ()
    ) -> None:
        """Blank each match ``handle`` accepts: it returns True, a (start, end) span, or False.

        ``needs``: literals every match holds; a text holding none of them is not searched."""
        if needs and not any(literal in self.text for literal in needs):
            return
        spans = []
        for match in pattern.finditer(self.text):
            span = handle(match)
            if span:
                spans.append(match.span() if span is True else span)
        for start, end in spans:
            self.text = self.text[:start] + BLANK * (end - start) + self.text[end:]

    def put(self, name: str, value: Any, phrase: str) -> bool:
        """Record a field value (the first mention wins); True so handlers can return it."""
        self.values.setdefault(name, (value, phrase.strip()))
        return True

    def leftovers(self) -> list[str]:
        """The words no pass took."""
        return [t.strip(".,-/+<~'%:=?") for t in _GAPS.split(self.text)]


_GAPS = re.compile(rf"[\s{BLANK}]+")  # what separates the words left over
