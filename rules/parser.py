"""Free text -> :class:`~rules.question.Question`: one parser for the CLI, the API and the bot.

Why one module: ``/whichgpu nlp $800``, ``whichgpu ask "nlp $800"`` and ``POST /v1/ask``
must read the same words the same way, and say what they understood and what they
did not, so a person can correct themselves instead of getting a silent guess.

Words (English and Russian synonyms -> Question values) live in
``rules/data/vocabulary.json``, checked against ``rules/schemas/vocabulary.schema.json``
when loaded, so a new synonym is a data change. This module holds only what a word
list cannot say: the grammar of numbers, money, units, dates, GPU and model names.

How: the text is cleaned (Slack markup, emoji and markdown dropped, lower case,
``ё`` -> ``е``), then passes run from the most specific grammar to the least: dates,
quantisation types, context and batch, model names, money ranges and money with a
currency, hardware names, units (GB, 13b, hours, GPU counts), money after a budget word,
keywords (longest phrase first), and last a bare number.
Each pass blanks what it took, so a number is read once: "3090" is a GPU and never
a budget, "13b" a model size. What remains, minus filler words, is ``unknown``.

Decisions for ambiguous text (each pinned by a test):

* Bare number: the only number left over, >= 50 and not a year-like 2010..2049, is a
  budget in the previous question's currency (else USD): "nlp 800" -> 800 USD.
  Two leftover numbers, a small one, or a year-like one are reported as unknown.
  Money without a currency word is USD (but see Language below).
* Hardware names are never budgets: NVIDIA numbers (1050..5090, "rtx pro 6000"),
  AMD ones with a suffix or "rx" ("9070 xt", "rx 9060 xt"), letter codes ("a100",
  "b580", "r9700", "gb200", "mi300x"), systems ("dgx spark", "mac studio m3 ultra",
  "strix halo") and the listed names, unless a currency is attached ("$1080").
  A memory size or form word beside a name is part of it ("a100 80gb pcie", "16gb rtx
  5060 ti", "on a 16 GB 5060 Ti"), never ``memory_gb``, so the catalog's resolver can
  pick the exact variant; a size the card has anyway is dropped ("rtx 3090 24gb" ->
  "rtx 3090"), one no variant has is kept so the answer can say so. Plurals are the
  card when the singular resolves and the plural does not ("h100s", "4090s"; "l40s"
  stays); "tpu(s)" alone is the newest Cloud TPU released by as_of ("tpu v6e"), the
  chip rent-vs-buy prices. The name goes to ``compare`` as
  written (series added to bare numbers: "3090" -> "rtx 3090"), also when the catalog
  does not know it, so the engine can say "not in the catalog". ``understood`` shows
  what the catalog's resolver makes of each name.
* Amounts: "$2.5k", "2,5 тыс.", "150 000 рублей", "150 тр"; a range with a currency or
  "k" ("$2k-3k", "between $1000 and $1500", "от 50 до 80 тысяч") is its top end, what
  the person is ready to spend; "million"/"billion" words scale an
  amount only with a currency ("$2 million"; "7 billion" stays a parameter count).
  Several amounts beside cards ("used 3090 for 70k or 5080 for 120k рублей") are stated
  prices: the largest is the budget, the per-card prices go to ``understood``, unless
  one amount alone carries a budget word ("budget $3000, 4090 for $1800").
  An absurd amount ("$1e12", "a trillion dollars") raises QuestionError naming the
  budget and the words read, never a small number.
* GPUs after "I have"/"my"/"у меня" are ``owned_gpu``; the other named GPUs go to
  ``compare`` (the cards asked about, also for a single card in a "fit" question).
* Intent: "help" for empty text, bare "?" or a help word with nothing else;
  "fit" when a fit phrase is present (it wins over compare: "will llama 70b fit on a
  3090 or a 4090" asks about fit, with the two cards in ``compare``); "compare" with
  two or more cards (also kept from the previous question), or a compare word and
  one card; else "recommend".
* as_of: year only -> 31 December of that year (today in the current year);
  year and month -> the month's last day (today in the current month); a full date
  as given. Out-of-range dates raise QuestionError from Question.check.
* "no money"/"broke" -> budget 100 USD, "little money"/"cheap" -> 300 USD (003's
  "almost no money" and "little money" personas); the value is in the vocabulary.
* Follow-ups: "cheaper" -> budget x 0.7, "more expensive" -> x 1.5; without a budget
  to scale they change nothing and say so in ``understood``. "more memory" -> the
  next size in ``memory_steps_gb`` above the previous memory_gb and what the previous
  answer's top held (``held_gb``), 16 GB at least;
  "more gpus" doubles the count (at most 16). A text with both a workload and a
  budget is a new question and starts from defaults instead of ``previous``.
* Models: a family word from the vocabulary ("llama", "qwen", "r1", "sdxl", "whisper")
  starts a name; the words after it that look like a name ("3.1", "8b", "a3b",
  "distill", "qwen", "dev") are read with it, stopping at counts and cards ("llama 70b
  2 gpus"). Which model the name means is the model table's call (rules/memory.py
  ``find_model`` over rules/data/models.json aliases), tried in a few spellings
  ("qwen3 30b", "qwen 3 30b"); ``model`` is the table's id, and its workload wins.
  A size the table lacks still counts: the same family's entry of that size ("qwen2.5
  coder 32b" -> "qwen-32b"), else "family-size" with ``params_b`` ("qwen 110b").
  ``params_b`` comes from a size in the text ("13b" -> 13, "350m" -> 0.35; not "8x7b").
  A variant word the table lacks reads as the family's model ("flux schnell" -> FLUX.1,
  the same size). Several models or sizes ("llama 8b and maybe qwen 14b", "sdxl + flux"):
  each is sized by rules/job.py's count and the most demanding one sets ``model`` and
  ``params_b``; ``understood`` lists the others with their needs. When the text names
  more than one job ("run 32b models and do lora on 8b"), each model takes the nearest
  job word before it and the heavier job (need in GB) sets task and method too.
* Precision: a bit width or format word sets it ("int4", "nf4", "fp8", "bf16" -> 16-bit);
  llama.cpp types round up to a width the memory model knows ("q4_k_m" -> 4-bit,
  "q5_k_m" -> 8-bit: never claim a fit that is not there); "gguf", "awq", "gptq" mean
  4-bit unless a bit width is also given ("gguf q8_0" -> 8-bit). Nothing said: None,
  and the engine picks the job's usual precision and says so.
* Task and method: training words beat inference words (the answer covers the heavier
  job): "lora", "qlora" (also 4-bit), "full fine-tune", "pretrain"/"from scratch" set
  the method; a bare "fine-tune"/"дообучение" sets training with method None (the
  engine picks and says so). Inference words and tools ("run", "serve", "ollama",
  "llama.cpp", "vllm", "comfyui") set task and method inference. Weak words ("use",
  "chat", "local") mean inference only for jobs people run (LLM, image, speech, or a
  named model): "which gpu to use for cnn" stays a training question.
* "used"/"б/у" anywhere in a question naming cards sets ``used_ok`` even beside "new"
  ("4090 новая или 3090 б/у"): the used card is one of those asked about.
* Setting: "cloud only" -> cloud; "server", "rack", "data center" -> server; "desktop",
  "pc", "workstation" -> desktop; else None (the engine's desktop-for-one default).
* Memory: "24 GB", "on 8 GB", "24GB card", "with 16 gb of vram" without a model set
  ``memory_gb``, the memory the job needs, so the card must have at least that much
  ("cheapest card for 24 GB"). With a model or size named (also one kept from the
  previous question) the number is the card's: "will llama 13b fit on 8 GB" sets
  ``card_memory_gb``, the model says what the job needs, and ``understood`` gives the
  fit by rules/job.py's count ("fit: does not fit in 8 GB (needs 12.0 GB …)"); only
  "at least 48 GB" / "минимум 48 гб" beside a model still states the need. A size
  beside a card name is the card's variant instead ("a100 80gb").
* Context: "32k context", "128k tokens", "context 8192" (k = 1024 tokens, as model
  cards count; "45 tokens/s" is a speed, not a context). Batch: "batch 8", "bs=16".
* Language: "ru" when at least a quarter of the letters are Cyrillic, else "en"; None
  when the text has no letters or changed nothing (help, nonsense). It is not listed
  in ``changed``. Russian text with a bare amount of 10,000 or more means roubles
  ("за 50000"); a follow-up keeps the previous currency.
* "fit" is read from this text only (Question has no intent field): a follow-up to a
  fit question is "recommend" unless it says "fit" again; "compare" carries over
  through ``Question.compare``.
* Several workloads: the first specific one wins over "general" ("learning nlp" is
  transformer for a beginner); first wins for other fields; a model's workload is
  used only when no workload word is present.
* ``needs_clarification``: the intent is not "help" and the text changed no field.
"""

from __future__ import annotations

import calendar
import math
import re
import unicodedata
from dataclasses import dataclass, field, fields, replace
from datetime import date
from functools import lru_cache
from typing import Any, Callable, Iterable

from rules.datafile import load_data
from rules.memo import remember
from rules.question import MAX_BATCH, Question, QuestionError, check_text

__all__ = ["ParsedText", "parse", "text_language"]

_BLANK = "\x00"  # what a pass leaves where it took text; never in cleaned input
_KEEP = set(".,-/?+<~'%:=$€£₽")
_NUM = r"\d+(?:[.,]\d+)?"
_MONEY_NUM = r"\d{1,3}(?:[.,]\d{3})+(?!\d)|\d+(?:[.,]\d+)?"
_FIELD_ORDER = [f.name for f in fields(Question)]


@dataclass(frozen=True)
class ParsedText:
    """What a text said: the question, the intent, and what was and was not understood."""

    question: Question
    intent: str
    understood: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    @property
    def needs_clarification(self) -> bool:
        return self.intent != "help" and not self.changed


def parse(text: str, previous: Question | None = None, today: date | None = None,
          held_gb: Callable[[], float | None] | None = None) -> ParsedText:
    """Read ``text`` (refining ``previous`` when given); raises only :class:`QuestionError`.

    ``held_gb``: the memory the previous answer's top configuration holds, asked only when the text wants more
    memory, so that "more memory?" means more than the asker was shown (:func:`rules.ask.held_by`)."""
    today = today or date.today()
    return _build(_scanned(clean(check_text(text)), today), previous, today, held_gb)


# ----------------------------------------------------------------------------- cleaning

_SLACK_LINK = re.compile(r"<(?:https?|mailto):[^<>|]*(?:\|([^<>]*))?>")  # no "<" inside: linear time
_SLACK_REF = re.compile(r"<[@#!][^<>]*>")
_SHORTCODE = re.compile(r":[a-z0-9_+'-]+:")


def clean(text: str) -> str:
    """Lower-case text with Slack markup, emoji and markdown gone and spaces collapsed."""
    text = _SLACK_LINK.sub(lambda m: f" {m.group(1) or ''} ", text)
    text = _SLACK_REF.sub(" ", text)
    text = unicodedata.normalize("NFKC", text).lower().replace("ё", "е").replace("’", "'")
    text = _SHORTCODE.sub(" ", text)
    return _SPACES.sub(" ", text.translate(_KEPT)).strip()


_SPACES = re.compile(r"\s+")


def _keep(ch: str) -> str:
    category = unicodedata.category(ch)
    if ch in _KEEP or category[0] in "LN":
        return ch
    return "-" if category == "Pd" else " "


class _Kept(dict[int, str]):
    """What :func:`_keep` makes of each character, as a ``str.translate`` table: the Latin and Cyrillic ones
    (what questions are written in) are worked out once, any other each time it is met."""

    def __missing__(self, code: int) -> str:
        kept = _keep(chr(code))
        if code < 0x500:
            self[code] = kept
        return kept


_KEPT = _Kept()


# ----------------------------------------------------------------------------- vocabulary


def _word(word: str, bound: bool = True) -> str:
    """Regex for a vocabulary word: a part ending in '*' is a stem; spaces/hyphens are optional."""
    parts = [clean(p.rstrip("*")) + "*" * p.endswith("*") for p in re.split(r"[\s-]+", word)]
    body = r"[\s-]*".join(re.escape(p.rstrip("*")) + (r"\w*" if p.endswith("*") else "") for p in parts)
    return body + ("" if word.endswith("*") or not bound else r"(?!\w)")


def _needle(word: str) -> str:
    """The literal every match of ``_word(word)`` contains: a cheap test before the regex runs."""
    return clean(re.split(r"[\s-]+", word)[0].rstrip("*"))


def _any(words: Iterable[str], bound: bool = True) -> str:
    return "(?:" + "|".join(_word(w, bound) for w in sorted(words, key=len, reverse=True)) + ")"


def _bounded(pattern: str) -> re.Pattern[str]:
    return re.compile(_BOUND + pattern)


_BOUND = r"(?<![\w$€£₽])"


@lru_cache(maxsize=None)
def _keyword_pattern(word: str) -> re.Pattern[str]:
    """A keyword's regex, written and compiled the first time a text holds its literal: a
    question meets a handful of the vocabulary's ~600 words, and building all of them was
    most of a one-shot CLI answer's time."""
    return re.compile(_BOUND + _word(word))


@dataclass(frozen=True)
class _Vocab:
    data: dict[str, Any]
    keywords: tuple[tuple[str, str, dict[str, Any]], ...]  # (literal it needs, vocabulary word, meaning)
    keywords_by_initial: dict[str, tuple[int, ...]]  # first letter of the literal -> keyword positions
    fillers: re.Pattern[str]
    currency: tuple[tuple[re.Pattern[str], str], ...]
    cur: str
    thousands: str
    number_words: dict[str, int]


@lru_cache(maxsize=1)
def vocabulary() -> _Vocab:
    """The schema-checked vocabulary with its regexes compiled once."""
    data = load_data("vocabulary")
    pairs = [(w, c["set"]) for c in data["concepts"] for w in c["words"]]
    pairs.sort(key=lambda p: len(p[0]), reverse=True)
    by_initial: dict[str, list[int]] = {}
    for i, (word, _) in enumerate(pairs):
        by_initial.setdefault(_needle(word)[:1], []).append(i)
    currency = tuple((re.compile(_word(w)), code) for code, ws in data["currencies"].items() for w in ws)
    return _Vocab(
        data=data,
        keywords=tuple((_needle(w), w, meaning) for w, meaning in pairs),
        keywords_by_initial={k: tuple(v) for k, v in by_initial.items()},
        fillers=re.compile(_any(data["fillers"])),
        currency=currency,
        cur=_any(w for ws in data["currencies"].values() for w in ws),
        thousands=_any(data["thousands"]),
        number_words={clean(k): v for k, v in data["number_words"].items()},
    )


# ----------------------------------------------------------------------------- scanning


@dataclass
class _Scan:
    """The text being read and what has been taken from it so far."""

    text: str
    today: date
    original: str = ""
    values: dict[str, tuple[Any, str]] = field(default_factory=dict)
    workloads: list[tuple[str, str, int]] = field(default_factory=list)  # (workload, phrase, position)
    intents: list[str] = field(default_factory=list)
    adjust: list[str] = field(default_factory=list)
    cards: list[tuple[int, str]] = field(default_factory=list)
    jobs: list[tuple[int, str, str | None, str]] = field(default_factory=list)  # (strength, task, method, phrase)
    card_counts: list[tuple[int, int, str]] = field(default_factory=list)  # (position, count, phrase): "2x 3090"
    models: list[tuple[int, str | None, float | None, str]] = field(default_factory=list)  # (position, id, size, phrase)
    job_words: list[tuple[int, str, str | None, str]] = field(default_factory=list)  # (position, task, method, phrase)
    used_said: str = ""  # a "used"/"б/у" word, which wins in a compare: "4090 новая или 3090 б/у"
    team: tuple[int, str] | None = None  # "a team of 10": as many sequences at once, when the job is inference
    amounts: list[tuple[int, float, str | None, str, bool]] = field(default_factory=list)  # (pos, amount, cur, phrase, budget word)
    currency_said: tuple[str, str] | None = None  # a currency named on its own: (code, phrase), "prices in euros"
    watch: tuple[int, int] | None = None  # a currency sign and its digits, whose scan may be remembered (see _scanned)
    touched: list[tuple[re.Pattern[str], re.Match[str], bool]] = field(default_factory=list)  # matches over ``watch``

    def run(self) -> None:
        self.original = self.text
        digits = any(ch.isdigit() for ch in self.text)  # most grammar needs a number: skip it cheaply when none
        for step in (_dates, _quantisation, _context, _batch, _users, _models, _money_range, _money_marked, _gpus,
                     _memory, _params, _hours, _counts, _money_words, _currency_words, _keywords, _bare_number):
            if digits or step not in _NEED_DIGITS:
                step(self)

    def take(self, pattern: re.Pattern[str], handle: Callable[[re.Match[str]], Any]) -> None:
        """Blank each match ``handle`` accepts: it returns True, a (start, end) span, or False."""
        literals = _LITERALS.get(pattern)
        if literals is not None and not any(literal in self.text for literal in literals):
            return  # every match holds one of them: a text without any cannot match
        spans = []
        for match in pattern.finditer(self.text):
            span = handle(match)
            if span:
                spans.append(match.span() if span is True else span)
            if self.watch is not None:  # every match, taken or not, that reaches the watched amount
                taken = match.span() if span is True or not span else span
                if min(match.start(), taken[0]) < self.watch[1] and max(match.end(), taken[1]) > self.watch[0]:
                    self.touched.append((pattern, match, bool(span)))
        for start, end in spans:
            self.text = self.text[:start] + _BLANK * (end - start) + self.text[end:]

    def put(self, name: str, value: Any, phrase: str) -> bool:
        """Record a field value (the first mention wins); True so handlers can return it."""
        self.values.setdefault(name, (value, phrase.strip()))
        return True

    def copy(self, **changes: Any) -> _Scan:
        """This scan with its own lists and dicts (``_build`` writes into ``values``), and ``changes``."""
        scan = object.__new__(_Scan)  # not replace(): this is on every remembered parse, and __init__ would double it
        scan.__dict__.update({k: v.copy() if isinstance(v, (list, dict)) else v for k, v in vars(self).items()}, **changes)
        return scan

    def leftovers(self) -> list[str]:
        return [t.strip(".,-/+<~'%:=?") for t in _GAPS.split(self.text)]


_GAPS = re.compile(rf"[\s{_BLANK}]+")  # what separates the words left over
_SPACE = re.compile(r"\s")
_GROUPED = re.compile(r"\d{1,3}(?:[.,]\d{3})+")
_SEPARATORS = re.compile(r"[.,]")
_AMOUNT = re.compile(_MONEY_NUM)
_WORD_CHAR = re.compile(r"\w")
_DIGIT_RUN = re.compile(r"\d+")


def _number(text: str) -> float:
    """'1,500' and '1.500' are thousands; '1.5' and '1,5' decimals; '80 000' grouped."""
    text = _SPACE.sub("", text)
    if "e" in text:  # "1e12": refused later as beyond any purchase, never read as 1
        return float(text.replace(",", "."))
    if _GROUPED.fullmatch(text):
        return float(_SEPARATORS.sub("", text))
    return float(text.replace(",", "."))


def _whole(value: float) -> float | int:
    """1500.0 -> 1500 for display; inf and fractions stay floats (Question.check judges them)."""
    if math.isfinite(value) and float(value).is_integer() and abs(value) < 1e15:
        return int(value)
    return float(value)


# dates -------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _date_patterns() -> tuple[re.Pattern[str], ...]:
    v = vocabulary()
    pre = rf"(?:{_any(v.data['date_prefixes'])}\s*)"
    strong = rf"(?:{_any(w for w in v.data['date_prefixes'] if ' ' in w)}\s*)"  # "as of", "по состоянию на"
    weak = rf"(?:{_any(w for w in v.data['date_prefixes'] if ' ' not in w)}\s*)"  # "in", "on", "на", "в"
    months = "|".join(f"(?P<m{i}>{_any(ws)})" for i, ws in enumerate(v.data["months"], 1))
    year = r"(?P<y>19\d\d|20[0-4]\d)"
    suffix = _any(v.data["year_suffixes"])
    not_money = rf"(?!\s*(?:{v.cur}|{v.thousands}|[\d.,]))"
    return tuple(_bounded(p) for p in (
        rf"{pre}?(?P<y>\d{{4}})-(?P<mo>\d\d?)(?:-(?P<d>\d\d?))?(?![\w-])",  # any year: the range check names it
        rf"{pre}?(?P<d>\d\d?)\.(?P<mo>\d\d?)\.(?P<y>\d{{4}})(?!\d)",
        rf"{pre}?(?:(?P<d>\d\d?)\s+)?(?:{months})\s*(?:of\s+)?(?P<y>(?:19|20)\d\d)(?!\d)(?:\s*{suffix})?",
        rf"{pre}?{year}\s*{suffix}",
        rf"{strong}(?P<y>\d{{4}})(?![\w-]){not_money}",  # "as of 2999": a date, refused by the range check
        rf"{weak}(?P<y>19\d\d|20(?![5-9]0)\d\d)(?![\w-]){not_money}",  # "in 2019"; "on 4090", "на 2080" are cards
    ))


_YEAR_DIGITS = re.compile(r"\d{4}")


def _dates(scan: _Scan) -> None:
    """Every date form holds a four-digit year: a text without one skips compiling the date
    patterns, the largest regexes of a one-shot CLI answer."""
    if not _YEAR_DIGITS.search(scan.text):
        return
    for pattern in _date_patterns():
        scan.take(pattern, lambda m: scan.put("as_of", _as_of(m, scan.today), m.group()))


def _as_of(m: re.Match[str], today: date) -> date:
    """Year -> 31 Dec (today this year); year-month -> its last day (today this month)."""
    groups = m.groupdict()
    named = [int(k[1:]) for k, v in groups.items() if v and re.fullmatch(r"m\d+", k)]
    year, day = int(groups["y"]), groups.get("d")
    month = int(groups["mo"]) if groups.get("mo") else (named[0] if named else None)
    try:
        if day is not None:
            return date(year, month or 1, int(day))
        if month is not None:
            last = date(year, month, calendar.monthrange(year, month)[1])
            return today if (year, month) == (today.year, today.month) else last
    except ValueError:
        raise QuestionError("as_of", f"as_of: there is no such date as {m.group().strip()!r}") from None
    return today if year == today.year else date(year, 12, 31)


# models ------------------------------------------------------------------------------

_TAIL = re.compile(r"[\s_.:-]*([a-z0-9]+(?:\.\d+)*\+?)")  # ":" as in Ollama's tags, "deepseek-r1:32b"
_NAME_TOKEN = re.compile(r"v\d+(?:\.\d+)*[a-z]?|\d+(?:\.\d+)*[a-wyz]?|\d+x\d+b|[ae]\d+(?:\.\d+)?b|[rb]\d")
_SIZE = re.compile(r"(?:\d+x)?\d+(?:\.\d+)?[bm]")
_NOT_A_VERSION = re.compile(r"\s*(?:[x×]|gpus?\b|cards?\b|gb\b|гб|видеокарт|hours?\b|час)")
_MAX_NAME_TOKENS = 6


@dataclass(frozen=True)
class _Families:
    pattern: re.Pattern[str]  # any family word, where a model's name starts
    by_key: dict[str, dict[str, Any]]  # family word without spaces/hyphens -> its vocabulary entry
    name_words: frozenset[str]  # words that may continue a name: 'instruct', 'distill', and family words


@lru_cache(maxsize=1)
def _model_families() -> _Families:
    data = vocabulary().data
    by_key = {_family_key(alias): entry for entry in data["models"] for alias in entry["aliases"]}
    aliases = [alias for entry in data["models"] for alias in entry["aliases"]]
    pattern = _bounded(_any(aliases, bound=False) + r"(?![\s.-]*cpp)")  # llama.cpp is a tool, not a model
    return _Families(pattern, by_key, frozenset(clean(w) for w in data["model_words"]) | frozenset(by_key))


def _family_key(text: str) -> str:
    return re.sub(r"[\s-]+", "", clean(text))


def _models(scan: _Scan) -> None:
    families = _model_families()
    scan.take(families.pattern, lambda m: _model_found(scan, m, families.by_key[_family_key(m.group())]))


def _name_tokens(text: str, at: int) -> tuple[list[str], int]:
    """The words after a family that belong to the model's name ('3.1', '8b', 'a3b', 'distill', 'qwen'), and the end."""
    words, end = _model_families().name_words, at
    tokens: list[str] = []
    while len(tokens) < _MAX_NAME_TOKENS:
        m = _TAIL.match(text, end)
        if not m:
            break
        token = m.group(1)
        bare_number = token.replace(".", "").isdigit()
        if bare_number and (tokens or len(token) > 3 or _NOT_A_VERSION.match(text, m.end())):
            break  # "llama 70b 2 gpus", "llama 4090": a count or a card, not a version
        single = len(token) == 1 and not token.isdigit()
        if not (_NAME_TOKEN.fullmatch(token) or token in words) or (single and m.group()[:1].isspace()):
            break
        tokens.append(token)
        end = m.end()
    return tokens, end


def _model_found(scan: _Scan, m: re.Match[str], entry: dict[str, Any]) -> tuple[int, int]:
    """A model name: the model table (its aliases) says which model; a size it lacks still gives params_b."""
    from rules.memory import find_model  # lazy: the table loads once, only for texts naming a model

    tokens, end = _name_tokens(scan.text, m.end())
    family = re.sub(r"[\s-]+", " ", m.group())
    phrase = scan.text[m.start():end]
    size = next((t for t in tokens if _SIZE.fullmatch(t)), None)
    spec = next(filter(None, map(find_model, _candidates(family, tokens, entry))), None)
    if spec is None and size:
        by_key = _model_families().by_key
        inner = [by_key[_family_key(t)] for t in tokens if _family_key(t) in by_key]
        spec = find_model(f"{(inner or [entry])[-1]['slug']} {size}")  # "qwen 2.5 32b coder" -> that family's 32b
    elif spec is None and tokens and not any(re.search(r"\d", t) for t in tokens):
        spec = find_model(family)  # "flux schnell": a variant word the table lacks, same model size
    scan.workloads.append((spec.workload if spec and spec.workload else entry["workload"], phrase + "#model", m.start()))
    params = None
    if size and "x" not in size:  # "8x7b" (mixture of experts) is not 56b of weights; the model table knows
        params = _whole(float(size[:-1]) / (1000 if size.endswith("m") else 1))
        scan.put("params_b", params, phrase)
    model = spec.id if spec is not None else f"{entry['slug']}-{size}" if size else None
    if model:
        scan.put("model", model, phrase)
        scan.models.append((m.start(), model, params, phrase))
    return m.start(), end


# Words that name a tuning of the same weights, not another size: "deepseek r1 distill 32b" is the table's
# "deepseek r1 32b", "llama 3.1 8b instruct" its "llama 3.1 8b".
_SAME_WEIGHTS = frozenset({"instruct", "chat", "it", "base", "hf", "distill", "preview", "thinking", "reasoning"})


def _candidates(family: str, tokens: list[str], entry: dict[str, Any]) -> Iterable[str]:
    """Spellings of one name for the table: 'qwen 3 30b', 'qwen3 30b', 'deepseek r1 70b'."""
    plain = [t for t in tokens if t not in _SAME_WEIGHTS]
    for words in (tokens, plain) if plain != tokens else (tokens,):
        for name in (family, entry["slug"] + " " + family if family != entry["slug"] else None):
            if name is None:
                continue
            yield " ".join([name, *words])
            if words:
                yield " ".join([name + words[0], *words[1:]])
                yield " ".join([name + re.sub(r"(\d)([a-z])$", r"\1 \2", words[0]), *words[1:]])  # "yolov8x" -> "yolov8 x"


# money ------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _money_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    v = vocabulary()
    grouped = rf"\d{{1,3}}(?:\s\d{{3}})+(?=\s*(?:{v.thousands}|{v.cur}))"
    num = rf"(?P<num>{grouped}|(?:{_MONEY_NUM})(?:e\+?\d{{1,3}}(?!\d))?)"
    words = _any(v.data["budget_words"])
    large = _any(w for scale in v.data["large_numbers"] for w in scale["words"])
    roubles_k = _any(v.data["thousand_roubles"])
    amount = (rf"(?:{num}|(?P<one>an?|one|один|одна)(?=\s+{large}))"
              rf"\s*(?:(?P<kr>{roubles_k})|(?P<k>{v.thousands})|(?P<large>{large}))?")
    body = rf"(?P<pre>[$€£₽])?\s*{amount}\s*(?P<cur>{v.cur})?"
    not_context = r"(?!\s*(?:context|ctx|tokens?|токен\w*|контекст\w*|monitor|video|resolution|display))"
    marked = _bounded(rf"(?:{words}\s*[:=]?\s*)?{body}{not_context}")
    worded = _bounded(rf"{words}\s*[:=]?\s*{num}(?![\d\w])")
    return marked, worded


@lru_cache(maxsize=1)
def _range_patterns() -> tuple[re.Pattern[str], ...]:
    """'$2k-3k', '1000-1500$', '$1000 to $1500', 'от 50 до 80 тысяч', 'between $1000 and $1500'."""
    v = vocabulary()

    def end(i: int) -> str:
        return rf"(?P<pre{i}>[$€£₽])?\s*(?P<n{i}>{_MONEY_NUM})\s*(?P<k{i}>{v.thousands})?\s*(?P<cur{i}>{v.cur})?"

    joined = rf"{end(1)}\s*(?:-|{_any(v.data['range_words'])})\s*{end(2)}(?![\w.,])"
    return (_bounded(rf"(?:between|между)\s+{end(1)}\s+(?:and|и)\s+{end(2)}(?![\w.,])"),
            _bounded(rf"(?:(?:from|от)\s+)?{joined}"))


def _money_range(scan: _Scan) -> None:
    """A range with a currency or 'k' is the top of it: what the person is ready to spend."""
    if len(_DIGIT_RUN.findall(scan.text)) < 2:  # both ends are numbers, with a dash or a word between them
        return
    def found(m: re.Match[str]) -> bool:
        g = m.groupdict()
        if not any(g[f"{part}{i}"] for part in ("pre", "k", "cur") for i in (1, 2)):
            return False
        low, high = _number(g["n1"]), _number(g["n2"])
        high *= 1000 if g["k2"] else 1
        low *= 1000 if g["k1"] or (g["k2"] and low < 1000) else 1  # "$2-3k" is 2k to 3k
        if high < low:
            return False
        currency = g["pre1"] or g["cur1"] or g["pre2"] or g["cur2"] or ""
        return scan.put("budget", (_whole(high), _currency(currency)), m.group())

    for pattern in _range_patterns():
        scan.take(pattern, found)


def _money_marked(scan: _Scan) -> None:
    scan.take(_money_patterns()[0], lambda m: _money_found(scan, m, need_mark=True))


def _money_words(scan: _Scan) -> None:
    scan.take(_money_patterns()[1], lambda m: _money_found(scan, m, need_mark=False))


@lru_cache(maxsize=1)
def _currency_word() -> re.Pattern[str]:
    """A currency named with no amount beside it ("prices in euros", "в рублях", "in GBP"). Words of two letters or
    more: a sign or a lone 'р' left over is no currency said."""
    words = [w for ws in vocabulary().data["currencies"].values() for w in ws if len(w.rstrip("*.")) >= 2]
    return _bounded(rf"(?:(?:in|в|во)\s+)?(?!europ)(?P<cur>{_any(words)})")  # "euro*" is no "european lab"


def _currency_words(scan: _Scan) -> None:
    """The first currency said on its own: the currency of an amount given without one, or of the prices shown."""
    def found(m: re.Match[str]) -> bool:
        code = _currency(m.group("cur"))
        if code is not None and scan.currency_said is None:
            scan.currency_said = (code, m.group().strip())
        return code is not None
    scan.take(_currency_word(), found)


def _money_found(scan: _Scan, m: re.Match[str], need_mark: bool) -> bool:
    """An amount is money with a currency sign or word, a 'k', or a budget word before it.

    "a million"/"7 billion" without a currency stay parameter counts; with one they are
    money, so "$1e12" or "a trillion dollars" reach the budget check and are refused.
    """
    groups = m.groupdict()
    currency = groups.get("pre") or groups.get("cur") or ("₽" if groups.get("kr") else None)
    marked = currency or groups.get("k")
    if groups.get("large") and not currency:
        return False
    amount = _amount(groups)
    if (need_mark and not marked) or (not marked and amount < 50):
        return False
    worded = bool(_budget_word_at_start().match(m.group()))
    scan.amounts.append((m.start(), _whole(amount), _currency(currency or ""), m.group().strip(), worded))
    return scan.put("budget", (_whole(amount), _currency(currency or "")), m.group())


def _amount(groups: dict[str, Any]) -> float:
    """The amount a match of the money pattern says: its number times its 'k' or 'million'."""
    return (1.0 if groups.get("one") else _number(groups["num"])) * _scale(groups)


@lru_cache(maxsize=1)
def _budget_word_at_start() -> re.Pattern[str]:
    return re.compile(_any(vocabulary().data["budget_words"]))


def _stated_prices(scan: _Scan) -> list[str]:
    """Amounts said beside cards ("used 3090 for 70k or 5080 for 120k рублей"): the largest is the budget.

    Not when only some amounts carry a budget word (that one is the budget: "budget $3000,
    4090 for $1800"); every amount with one ("за 70 тыс … за 120 тыс") is prices. One currency said anywhere covers the
    amounts said without one. Returns the per-card prices for ``understood``.
    """
    worded = [a[4] for a in scan.amounts]
    if len(scan.amounts) < 2 or (any(worded) and not all(worded)) or not scan.cards:  # all "за ...": prices
        return []
    currencies = {a[2] for a in scan.amounts if a[2]}
    currency = currencies.pop() if len(currencies) == 1 else None
    top = max(scan.amounts, key=lambda a: a[1])
    scan.values["budget"] = ((top[1], top[2] or currency), top[3])
    notes = []
    for at, amount, cur, phrase, _ in scan.amounts:
        card = max((c for c in scan.cards if c[0] < at), default=None)
        if card is not None:
            notes.append(f"{card[1]} {amount:g} {cur or currency or ''}".strip())
    return [f"prices stated: {', '.join(notes)}; the largest is read as the budget"] if notes else []


def _scale(groups: dict[str, str | None]) -> float:
    if groups.get("k") or groups.get("kr"):
        return 1000.0
    word = groups.get("large")
    if not word:
        return 1.0
    return next(float(s["factor"]) for s in vocabulary().data["large_numbers"]
                if re.fullmatch(_any(s["words"]), word))


def _currency(mark: str) -> str | None:
    return next((code for pattern, code in vocabulary().currency if pattern.fullmatch(mark.strip())), None)


# GPU names ---------------------------------------------------------------------------


_VARIANT_TAIL = r"(?:[\s-]*(?:\d{1,3}\s?(?:gb|гб)|pcie|sxm[2-6]?|nvl|oam|ada|blackwell|laptop|mobile|max-q)){0,3}"


@lru_cache(maxsize=1)
def _gpu_patterns() -> tuple[re.Pattern[str], ...]:
    """Shapes of hardware names, most specific first; each may carry its variant ("a100 80gb pcie")."""
    names = _any(vocabulary().data["gpu_names"], bound=False)
    start, end = r"(?<![^\Wx×])(?<![$€£₽.])", r"s?(?!\w|[.,]\d)"
    line = r"(?:(?:rtx|quadro|tesla|radeon(?:[\s-]+ai)?(?:[\s-]+pro)?|instinct|arc(?:[\s-]+pro)?)[\s-]+)?"
    code = r"(?!a\d{1,3}b(?!\w)|h26[45](?!\w))(?:gb|gh|mi|[abhlvpkmtwr])\d{2,4}[a-z]?"
    return tuple(re.compile(start + p + rf"(?P<tail>{_VARIANT_TAIL})" + end) for p in (
        r"(?P<name>(?:mac[\s-]*(?:studio|mini|pro)|macbook[\s-]*pro)(?:[\s-]*m[1-5](?:[\s-]*(?:ultra|max|pro))?)?"
        r"|m[1-5][\s-]*(?:ultra|max))",
        rf"(?P<name>{names})",
        r"(?P<name>rtx[\s-]*pro[\s-]*\d{4}(?:[\s-]*(?:blackwell|max-q|server))?)",
        rf"(?P<name>{line}{code})",
        r"(?:(?P<series>rtx|gtx|gt)[\s-]*)?(?P<num>1[06][5-8]0|[2-5]0[5-9]0)(?P<suf>d?(?:[\s-]*(?:ti|super))*)",
        r"(?P<series>gtx|gt)[\s-]*(?P<num>[4-9][1-9]0)(?P<suf>(?:[\s-]*ti)?)",
        r"(?P<num>[6-9][5-8]0)(?P<suf>[\s-]*ti)",
        r"(?P<series>rtx|gtx)[\s-]*(?P<num>\d{3,4})(?P<suf>(?:[\s-]*(?:ti|super))*)",  # a name the catalog may not know
        r"(?P<series>rx)[\s-]*(?P<num>\d{3,4})(?P<suf>(?:[\s-]*(?:xtx|xt|gre))?)",
        r"(?P<num>[5-9]\d[0-9]0)(?P<suf>[\s-]*(?:xtx|xt|gre))",
        # a bare Radeon number: a card only beside other cards or a compare word
        r"(?P<amd>(?:5[5-7]|6[4-9]|7[6-9])[05]0|90[1-9]0)",
    ))


def _gpus(scan: _Scan) -> None:
    digits = any(ch.isdigit() for ch in scan.text)
    for i, pattern in enumerate(_gpu_patterns()):
        if digits or i < 2:  # only the systems and the listed names can be written without a digit
            scan.take(pattern, lambda m: _gpu_found(scan, m))
    if scan.card_counts:  # "2x 4090 or 1x a6000": the first count said
        _, count, phrase = min(scan.card_counts)
        scan.put("gpus", count, phrase)


def _after_budget_word(before: str) -> bool:
    return bool(_budget_word_at_end().search(before[-40:]))


@lru_cache(maxsize=1)
def _budget_word_at_end() -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){_any(vocabulary().data['budget_words'])}\s*[:=]?\s*$")


def _gpu_name(m: re.Match[str]) -> str:
    """'3090' -> 'rtx 3090', '1080ti' -> 'gtx 1080 ti', 'A100-80GB PCIe' -> 'a100 80gb pcie'."""
    groups = m.groupdict()
    tail = re.sub(r"(\d)\s*(?:gb|гб)", r"\1gb", re.sub(r"[\s-]+", " ", groups["tail"])).strip()
    if groups.get("name"):
        name = re.sub(r"[\s-]+", " ", groups["name"])
    elif groups.get("amd"):
        name = f"rx {groups['amd']}"
    else:
        num, suf = groups["num"], groups.get("suf") or ""
        amd = re.search(r"x|gre", suf)
        series = groups.get("series") or ("rx" if amd else "gtx" if num.startswith("1") or len(num) == 3 else "rtx")
        name = " ".join([series, num + ("d" if suf.startswith("d") else ""), *re.findall(r"ti|super|xtx|xt|gre", suf)])
    return f"{name} {tail}" if tail else name


@lru_cache(maxsize=1)
def _before_gpu() -> tuple[re.Pattern[str], re.Pattern[str]]:
    data = vocabulary().data
    own = rf"(?<!\w){_any(data['ownership'])}(?:\s+{_any(data['ownership_fillers'])})*\s*$"
    count = rf"(?<!\w)(?:(?P<n>\d{{1,2}})\s*[x×]?|(?P<w>{_any(vocabulary().number_words)}))\s*$"
    return re.compile(own), re.compile(count)


_COMPARING = re.compile(r"(?<!\w)(?:vs\.?|versus|or|compare\w*|или|сравн\w*|против)(?!\w)")


def _gpu_found(scan: _Scan, m: re.Match[str]) -> tuple[int, int] | bool:
    """A card after 'I have'/'у меня' is owned; '2x 3090' also sets the count."""
    if m.groupdict().get("amd") and (not (scan.cards or _COMPARING.search(scan.original))
                                     or _after_budget_word(scan.text[:m.start()])):
        return False  # "nlp 6800" and "budget 6800 or so" are budgets; "3090 vs 6800" names a Radeon
    name, start = _gpu_name(m), m.start()
    window = max(0, start - 60)
    size = _MEMORY_BEFORE.search(scan.text[window:start])
    if size and not re.search(r"\d(?:gb|гб)", name):  # "16gb rtx 5060 ti": the size names the variant
        name, start = f"{name} {size.group('n')}gb", window + size.start()
    name = _catalog_name(name)
    own_re, count_re = _before_gpu()
    owned = own_re.search(scan.text[window:start])
    if owned:
        scan.put("owned_gpu", name, name)
        return window + owned.start(), m.end()
    count = count_re.search(scan.text[window:start])
    if count:
        scan.card_counts.append((start, _count_of(count), count.group()))
        start = window + count.start()
    scan.cards.append((m.start(), name))
    return start, m.end()


_MEMORY_BEFORE = re.compile(r"(?<![\w.,])(?P<n>\d{1,3})\s?(?:gb|гб)[\s-]*$")


@lru_cache(maxsize=512)
def _catalog_name(name: str) -> str:
    """The name as the catalog's resolver reads it best: 'h100s' -> 'h100', 'rtx 3090 24gb' -> 'rtx 3090'.

    A plural is a card's name when the singular resolves and the plural does not ("l40s"
    stays); a memory size the card has anyway is dropped, so it resolves exactly; a size
    no variant has is kept, so the engine can say there is no such variant.
    """
    from rules.catalog import load_catalog  # lazy: the catalog loads once, and only for texts naming hardware

    catalog = load_catalog()
    if name.endswith("s") and not catalog.find(name):
        singular = name[:-1].rstrip("'")
        if catalog.find(singular) or singular in _TPU_NAMES:
            name = singular
    size = re.search(r" (\d+)gb(?!\w)", name)
    if size and not catalog.resolve(name).exact:
        plain = catalog.resolve(name.replace(size.group(), ""))
        if plain.exact and plain.gpu is not None and plain.gpu.memory_gb == float(size.group(1)):
            return name.replace(size.group(), "")
    return name


_TPU_NAMES = frozenset({"tpu", "cloud tpu", "google tpu"})


def _tpu_of(name: str, as_of: date) -> str:
    """'tpu' (any generation) -> the newest Cloud TPU released by ``as_of``, which rent-vs-buy prices."""
    if name not in _TPU_NAMES:
        return name
    from rules.catalog import load_catalog

    released = [t for t in load_catalog().tpus.values() if t.released <= as_of]
    return max(released, key=lambda t: t.released).id.replace("-", " ") if released else name


def _count_of(m: re.Match[str]) -> int:
    if m.groupdict().get("n"):
        return int(m.group("n"))
    return vocabulary().number_words[clean(m.group("w"))]


# units --------------------------------------------------------------------------------

_MEMORY = _bounded(
    rf"(?:(?:at\s+least|min(?:imum)?|>=?|не\s+меньше|не\s+менее|от|минимум)\s*)?(?P<n>{_NUM})\s*"
    r"(?:gb|gib|гб|gigabytes?|гигабайт\w*)(?:\s+(?:of\s+)?(?:gpu\s+)?(?:vram|memory|ram|памяти|видеопамяти))?(?!\w)"
)
_PARAMS = _bounded(
    rf"(?P<n>{_NUM})(?P<sp>\s?)(?:(?P<b>b|bn|billion|млрд|миллиард\w*)|(?P<m>m|million|млн|миллион\w*))"
    r"(?P<p>\s+(?:params|parameters|параметр\w*))?(?!\w)"
)
_HOURS = _bounded(
    rf"(?P<n>{_NUM})\s*(?:h|hrs?|hours?|час\w*|ч)\.?\s*(?:a|per|/|в|each|every)?\s*"
    r"(?:(?P<week>weeks?|wk|w|недел\w*|нед)|(?P<day>days?|d|день|сутки)|(?P<month>months?|mo|месяц\w*))(?!\w)"
)


def _memory(scan: _Scan) -> None:
    scan.take(_MEMORY, lambda m: scan.put("memory_gb", _whole(_number(m.group("n"))), m.group()))


def _params(scan: _Scan) -> None:
    def found(m: re.Match[str]) -> bool:
        if m.group("m") and not (m.group("p") or (m.group("m") == "m" and not m.group("sp"))):
            return False  # "350m" and "350 million parameters" are sizes; "5 m" is not
        value = _whole(_number(m.group("n")) / (1000 if m.group("m") else 1))
        scan.models.append((m.start(), None, value, m.group()))
        return scan.put("params_b", value, m.group())

    scan.take(_PARAMS, found)


def _hours(scan: _Scan) -> None:
    def found(m: re.Match[str]) -> bool:
        value = _number(m.group("n")) * (7 if m.group("day") else 7 / 30.44 if m.group("month") else 1)
        return scan.put("hours_per_week", _whole(round(value, 1)), m.group())

    scan.take(_HOURS, found)


# "q4_k_m", "Q5_K_M", "q8_0", "iq4_xs": llama.cpp quantisation types, read as the next bit
# width the memory model knows (q2-q4 -> 4-bit, q5-q8 -> 8-bit: rounding up never says a
# model fits when it does not). Cleaning turned "_" into spaces.
_QUANT = _bounded(
    r"i?q(?P<bits>[1-8])(?:[\s-]*k)?(?:[\s-]*(?:xxs|xs|s|m|l|nl)|[\s-]*[01](?![\w.]|\s*[x×]?\s*(?:gpu|card|видеокарт)))?"
    r"(?!\w)"
)
_CONTEXT = _bounded(
    r"(?:(?P<n1>\d+(?:[.,]\d+)?)\s*(?P<k1>k|к|m)?\s*(?:tokens?\s+(?:of\s+)?)?(?:context|ctx)(?:[\s-]*(?:length|window|size))?"
    r"|(?P<n2>\d+(?:[.,]\d+)?)\s*(?P<k2>k|к|m)?\s*(?:tokens?|токен\w*)(?!\s*(?:/|per\s|a\s+sec|в\s*сек))(?:\s+(?:контекст\w*|of\s+context))?"
    r"|(?:context|ctx|контекст\w*)(?:[\s-]+(?:length|window|size|of|длин\w*|в|на)(?!\w)){0,3}\s*[:=]?\s*(?P<n3>\d+(?:[.,]\d+)?)\s*(?P<k3>k|к|m)?"
    r"(?:\s*(?:tokens?|токен\w*))?)(?!\w)"
)
_BATCH = _bounded(
    r"(?:batch(?:[\s-]*size)?|bs|батч\w*|размер\w*\s+батча)(?:\s+of)?\s*[:=]?\s*(?P<n>\d{1,4})(?![\w.,])"
)


def _quantisation(scan: _Scan) -> None:
    def found(m: re.Match[str]) -> bool:
        bits = int(m.group("bits"))
        precision = "4-bit" if bits <= 4 else "8-bit"
        phrase = re.sub(r"\s+", "_", m.group().strip())
        rounded = "" if bits in (4, 8) else f", {bits}-bit rounded up"
        scan.jobs.append((_HINT, "inference", "inference", phrase))  # a llama.cpp file is for running a model
        return scan.put("precision", precision, f"{phrase}{rounded}")

    scan.take(_QUANT, found)


def _context(scan: _Scan) -> None:
    """'32k context', '128k tokens', 'context 8192': k is 1024 tokens, as model cards count."""
    def found(m: re.Match[str]) -> bool:
        n = next(g for g in (m.group("n1"), m.group("n2"), m.group("n3")) if g)
        k = m.group("k1") or m.group("k2") or m.group("k3")
        tokens = _number(n) * {None: 1, "k": 1024, "к": 1024, "m": 1024 * 1024}[k]
        return scan.put("context_tokens", int(round(tokens)), m.group())

    scan.take(_CONTEXT, found)


def _batch(scan: _Scan) -> None:
    scan.take(_BATCH, lambda m: scan.put("batch", int(m.group("n")), m.group()))


_USERS = _bounded(
    r"(?P<n>\d{1,4})\s+(?:concurrent\s+|simultaneous\s+|active\s+|parallel\s+|одновременн\w*\s+)?"
    r"(?:users|people|clients|sessions|requests|conversations|пользовател\w*|человек|клиент\w*|запрос\w*)(?!\w)"
)


_TEAM = _bounded(
    r"(?:(?:team|group)\s+of\s+(?P<team>\d{1,4})(?!\d)|команд\w*\s+из\s+(?P<komanda>\d{1,4})(?!\d)"
    r"|(?P<n>\d{1,4})\s+(?:colleagues|researchers|engineers|developers|analysts"
    r"|коллег\w*|сотрудник\w*|исследовател\w*|разработчик\w*)(?!\w))"
)


def _users(scan: _Scan) -> None:
    """'for 20 users', '50 concurrent requests': sequences served at once, each with its KV cache (vLLM's max_num_seqs).
    'A team of 10', '12 colleagues': the same when the job is inference (a server sized for all of them asking at
    once); for training a team's size says nothing of the batch."""
    scan.take(_USERS, lambda m: scan.put("batch", int(m.group("n")), m.group()))

    def team(m: re.Match[str]) -> tuple[int, int]:
        number = next(g for g in ("n", "team", "komanda") if m.group(g))
        scan.team = scan.team or (int(m.group(number)), m.group().strip())
        return m.span() if number == "n" else m.span(number)  # "team of" / "для команды" stay for the setting
    scan.take(_TEAM, team)


@lru_cache(maxsize=1)
def _count_patterns() -> tuple[re.Pattern[str], ...]:
    v = vocabulary()
    n = rf"(?:(?P<n>\d{{1,3}})|(?P<w>{_any(v.number_words)}))"
    return (
        _bounded(rf"{n}(?:\s*[x×]?\s*|-)(?:{_any(v.data['count_nouns'])})"),  # "8 gpus", "2x cards", "8-gpu server"
        _bounded(r"(?P<n>\d{1,2})\s*[x×](?![a-zа-я])"),
        re.compile(r"(?<![\w.])[x×]\s*(?P<n>\d{1,2})(?![\w.])"),
    )


def _counts(scan: _Scan) -> None:
    for pattern in _count_patterns():
        scan.take(pattern, lambda m: _count_said(scan, _count_of(m), m.group()))


def _count_said(scan: _Scan, count: int, phrase: str) -> bool:
    """A count in so many words; "a single gpu" also says no more cards are wanted."""
    if count == 1 and "gpus" not in scan.values:
        scan.put("gpus_fixed", True, phrase)
    return scan.put("gpus", count, phrase)


# keywords and the last bare number ----------------------------------------------------


_WORD_START = re.compile(r"(?<![\w$€£₽])[^\s\x00]")


def _keywords(scan: _Scan) -> None:
    """Longest phrase first; only keywords whose first letter starts a word here are tried."""
    v, text = vocabulary(), scan.text
    initials = set(_WORD_START.findall(text))
    # a needle missing now stays missing (taking only blanks text): test each once, then again before its turn
    present = [i for c in initials for i in v.keywords_by_initial.get(c, ()) if v.keywords[i][0] in text]
    for i in sorted(present):
        needle, word, meaning = v.keywords[i]
        if needle in scan.text:
            def found(m: re.Match[str], meaning: Any = meaning) -> Any:
                return _meaning(scan, meaning, m.group(), m.start())

            scan.take(_keyword_pattern(word), found)


# How strongly a word says what the job is: a training word beats an inference word
# (the answer then covers the heavier job); a hint ("use", "local") counts only alone.
_TRAINING, _INFERENCE, _HINT = 2, 1, 0


def _meaning(scan: _Scan, meaning: dict[str, Any], phrase: str, at: int = 0) -> bool:
    if "task" in meaning or "task_hint" in meaning:
        task = meaning.get("task") or meaning["task_hint"]
        strength = _HINT if "task_hint" in meaning else _TRAINING if task == "training" else _INFERENCE
        method = meaning.get("method") or ("inference" if task == "inference" else None)
        scan.jobs.append((strength, task, method, phrase))
        if strength > _HINT:
            scan.job_words.append((at, task, method, phrase))
    for name, value in meaning.items():
        if name in ("task", "task_hint", "method"):
            continue
        if name == "workload":
            scan.workloads.append((value, phrase, at))
        elif name == "intent":
            scan.intents.append(value)
        elif name == "adjust":
            scan.adjust.append(value)
        elif name == "budget_usd":
            scan.put("budget", (value, "USD"), phrase)
        else:
            if name == "used_ok" and value is True:
                scan.used_said = phrase
            scan.put(name, value, phrase)
    return True


def _bare_number(scan: _Scan) -> None:
    """The only number left, >= 50 and not year-like, is a budget: 'nlp 800'."""
    numbers = [t for t in scan.leftovers() if _AMOUNT.fullmatch(t)]
    if len(numbers) != 1 or "budget" in scan.values:
        return
    value = _number(numbers[0])
    if value < 50 or 2010 <= value <= 2049:
        return
    pattern = re.compile(r"(?<![\w.,])" + re.escape(numbers[0]) + r"(?![\w.,])")
    scan.take(pattern, lambda m: scan.put("budget", (_whole(value), None), m.group()))


# Literals every match of a pattern holds: a pass over a text that has none of them is skipped (the rarely used
# grammar, which most texts would otherwise be scanned for in vain).
_LITERALS: dict[re.Pattern[str], tuple[str, ...]] = {
    _MEMORY: ("gb", "gib", "гб", "gigabyte", "гигабайт"),
    _QUANT: ("q",),
    _CONTEXT: ("context", "ctx", "token", "токен", "контекст"),
    _BATCH: ("batch", "bs", "батч"),
    _USERS: ("users", "people", "clients", "sessions", "requests", "conversations", "пользовател", "человек", "клиент", "запрос"),
    _TEAM: ("team", "group", "команд", "colleagues", "researchers", "engineers", "developers", "analysts", "коллег", "сотрудник",
            "исследовател", "разработчик"),
}

_NEED_DIGITS: frozenset[Callable[[_Scan], None]] = frozenset({
    _dates, _money_range, _quantisation, _context, _batch, _users, _memory, _params, _hours, _money_words, _bare_number})

# ----------------------------------------------------------------------------- the amount memo
#
# People ask the same words with another amount ("nlp $812 used ok", "nlp $1430 used ok"); the scan is most of a
# parse's time, so the scan of a text with one currency sign and a digit run after it is remembered under the text
# with those digits cut out (their count kept, so every position stays), and the next amount reuses it. The build
# (currency guesses, the budget limits and their errors, stated prices, the understood lines) runs afresh on it.
#
# Why the reuse is exact: the scan tells one ASCII digit from another only inside a match that holds it (every
# pattern reads a digit it does not hold as \d or \w, and nothing but the money and range patterns reads past a
# currency sign into its digits); which matches there are, where, and which handlers take them depend on the digits
# only through how many there are. So when, with the watched sign and digits, the one match reaching them was the
# money pattern's, taking the sign with exactly those digits as its number, the same holds for any digits of that
# count, every other step is the same, and the amount is only in that match's amount and phrase, rebuilt here by the
# same code. Any other match reaching them (a range "500 to $812", a sign left for a bare number, a "$1,500" or
# "$2.5k" whose number is longer) keeps the text out of the memo; a text with no sign or two parses as before.

_SIGNS = "$€£₽"
_DIGITS = re.compile(r"[0-9]+")
SCANS_KEPT = 8192  # texts whose scan is remembered at once (a few KB each)
SCANNED_CHARS = 240  # the longest text remembered: questions that vary only in their amount are short


@dataclass(frozen=True)
class _AmountScan:
    """A remembered scan and where its amount is: the money match's span and groups, its ``amounts`` entry."""

    scan: _Scan  # as run() left it, before _build wrote into it
    span: tuple[int, int]  # the money match: its phrase is the text there, stripped
    groups: dict[str, Any]  # the match's groups that took text; "num" is the watched digits
    entry: int  # the match's place in scan.amounts
    budget: bool  # whether its amount is the budget (an earlier one keeps it: the first mention wins)

    def with_amount(self, text: str, digits: tuple[int, int]) -> _Scan:
        """The scan of ``text``, which differs from the remembered one only in the ``digits`` span."""
        amount = _whole(_amount({**self.groups, "num": text[digits[0]:digits[1]]}))
        phrase = text[self.span[0]:self.span[1]].strip()
        scan = self.scan.copy(original=text)
        at, _, currency, _, worded = scan.amounts[self.entry]
        scan.amounts[self.entry] = (at, amount, currency, phrase, worded)
        if self.budget:
            scan.values["budget"] = ((amount, currency), phrase)
        return scan


_SCANS: dict[tuple[str, int, str, date], _AmountScan] = {}


def _scanned(text: str, today: date) -> _Scan:
    """The scan of a cleaned text: remembered, when its one currency sign's amount alone varies (see above)."""
    one_sign = len(text) <= SCANNED_CHARS and sum(map(text.count, _SIGNS)) == 1
    sign = max(map(text.find, _SIGNS)) if one_sign else -1
    digits = _DIGITS.match(text, sign + 1) if one_sign else None
    if digits is None:
        scan = _Scan(text, today)
        scan.run()
        return scan
    start, end = digits.span()
    key = (text[:start], end - start, text[end:], today)
    known = _SCANS.get(key)
    if known is not None:
        return known.with_amount(text, (start, end))
    scan = _Scan(text, today, watch=(sign, end))
    scan.run()
    known = _amount_scan(scan, sign, (start, end))
    if known is not None:
        remember(_SCANS, key, known, SCANS_KEPT)
    return scan


def _amount_scan(scan: _Scan, sign: int, digits: tuple[int, int]) -> _AmountScan | None:
    """What to remember of a scan watched over ``sign`` and its ``digits``; None unless the money pattern alone
    reached them and took the sign with exactly those digits as its number."""
    if len(scan.touched) != 1:
        return None
    pattern, m, taken = scan.touched[0]
    if pattern is not _money_patterns()[0] or not taken or m.start("pre") != sign or m.span("num") != digits:
        return None
    entry = next(i for i, a in enumerate(scan.amounts) if a[0] == m.start())
    _, amount, currency, phrase, _ = scan.amounts[entry]
    owns = scan.values.get("budget") == ((amount, currency), phrase)  # the phrase holds the one sign: only this match's
    return _AmountScan(scan.copy(original="", watch=None, touched=[]), m.span(), {k: v for k, v in m.groupdict().items() if v}, entry, owns)


# ----------------------------------------------------------------------------- the question

_LABELS = {"params_b": "parameters (billions)", "memory_gb": "memory the job needs (GB)",
           "card_memory_gb": "the card's memory (GB)",
           "hours_per_week": "hours per week", "as_of": "as of", "context_tokens": "context tokens",
           "used_ok": "used is fine", "cloud_ok": "cloud is fine", "owned_gpu": "already owns",
           "gpus_fixed": "that many gpus and no more"}


def _build(scan: _Scan, previous: Question | None, today: date, held_gb: Callable[[], float | None] | None = None) -> ParsedText:
    workload = _pick_workload(scan)
    fresh = previous is None or (workload is not None and "budget" in scan.values)
    base = previous if previous is not None and not fresh else Question()
    language = _language(scan.original)
    changes, understood = _changes(scan, workload, base, fresh, language)
    for what in dict.fromkeys(scan.adjust):
        understood.append(_more_memory(base, changes, held_gb) if what == "more_memory" else _ADJUSTERS[what](base, changes))
    changed = tuple(name for name in _FIELD_ORDER if name in changes)
    if changes and language:  # the language of a question, kept through follow-ups; not a change asked for
        changes["language"] = language
    question = replace(base, **changes)
    try:
        question.check(today)
    except QuestionError as error:
        if error.field == "budget" and "budget" in scan.values:  # name what was read: "$1e12" is not a typo for $1
            (amount, currency), phrase = scan.values["budget"]
            raise QuestionError("budget", f"{error.message} (read {amount:,.0f} {currency or question.currency} "
                                          f"from '{phrase}')") from None
        raise
    if scan.team is not None and question.task == "inference" and question.batch is None and 1 < scan.team[0] <= MAX_BATCH:
        question = replace(question, batch=scan.team[0])
        understood.append(f"batch: {scan.team[0]} (from '{scan.team[1]}')")
    if len(scan.models) > 1:
        question = _most_demanding(scan, question, understood, today)
    if "card_memory_gb" in changes:
        understood.append(_fit_note(question))
    return ParsedText(question, _intent(scan, question, changed), tuple(understood), _unknown(scan), changed)


def _most_demanding(scan: _Scan, question: Question, understood: list[str], today: date) -> Question:
    """Several models ("llama 8b and maybe qwen 14b", "run 32b and lora on 8b"): the job that needs most sizes it.

    Each model gets the job word nearest before it when the text names more than one job,
    else the question's job; the need is rules/job.py's count. The others stay in ``understood``.
    """
    from rules.job import METHOD_NAMES, job_for
    from rules.rulebook import load_rulebook

    # A bare training word ("обучение", "train") and one training method ("lora") name one job: the method's.
    methods = {method for _, task, method, _ in scan.job_words if task == "training" and method}
    words = [(at, task, next(iter(methods)) if task == "training" and not method and len(methods) == 1 else method, p)
             for at, task, method, p in scan.job_words]
    jobs = {(task, method) for _, task, method, _ in words}
    sized = []
    for at, model, params, phrase in scan.models:
        options = [(question.task, question.method)]
        if len(jobs) > 1:  # the job word nearest before the model; with none before it, each job named
            before = [w for w in words if w[0] < at]
            named = [j for j in jobs if j[1] or not any(o[0] == j[0] and o[1] for o in jobs)]  # "fine-tune ... with LoRA": LoRA's
            nearest = max(before, key=lambda w: w[0])[1:3] if before else None
            if nearest is not None and nearest[1] is None:  # "fine-tune 8B-14B with LoRA and QLoRA": each method named for it
                options = sorted((j for j in named if j[0] == nearest[0]), key=str) or [nearest]
            else:
                options = [nearest] if nearest is not None else sorted(named, key=str)
        for task, method in options:
            candidate = replace(question, model=model, params_b=params if model is None or params else None,
                                task=task, method=method)
            job = job_for(candidate, load_rulebook())
            sized.append((job.need.gb, phrase, candidate, METHOD_NAMES.get(job.method, job.method)))
    best = max(range(len(sized)), key=lambda i: sized[i][0])
    gb, phrase, chosen, method = sized[best]
    if chosen.model is not None and chosen.params_b is None and question.params_b is not None:
        chosen = replace(chosen, params_b=_params_of(chosen.model))
    chosen.check(today)
    for i, line in enumerate(understood):  # the lines the first model wrote now name the chosen job
        label = line.split(":")[0]
        name = {"parameters (billions)": "params_b"}.get(label, label)
        if name in ("model", "params_b", "task", "method") and getattr(chosen, name) != getattr(question, name):
            understood[i] = f"{label}: {_shown(name, getattr(chosen, name))} (for '{phrase}', the most demanding job)"
    others = "; ".join(f"'{p}' ({m}) ~{g:.1f} GB" for i, (g, p, _, m) in enumerate(sized) if i != best)
    understood.append(f"models: '{phrase}' ({method}) ~{gb:.1f} GB sizes the job, the most demanding named; "
                      f"also {others}")
    return chosen


def _shown(name: str, value: Any) -> Any:
    return _METHODS.get(value, value) if name == "method" else value


def _params_of(model: str) -> float | None:
    from rules.memory import find_model

    spec = find_model(model)
    return spec.params_b if spec is not None else None


def _fit_note(question: Question) -> str:
    """'llama-13b needs 8.6 GB (…): does not fit in 8 GB', by the job module's own count."""
    from rules.job import fit_on, job_for  # lazy: only fit questions with a card size count memory
    from rules.rulebook import load_rulebook

    job = job_for(question, load_rulebook())
    fit = fit_on(job, question.card_memory_gb or 0.0, question.gpus)
    verdict = "fits" if fit.fits else "does not fit"
    cards = f"{question.gpus} × " if question.gpus > 1 else ""
    return f"fit: {verdict} in {cards}{question.card_memory_gb:g} GB ({fit.reason}; {job.need.how})"


_METHODS = {"inference": "inference", "lora": "LoRA", "qlora": "QLoRA", "full": "full fine-tuning",
            "pretrain": "pretraining"}
# A weak word ("use", "local", "chat") means running a model only for jobs people run locally.
_RUN_WORKLOADS = ("llm", "image-generation", "speech")


def _changes(scan: _Scan, workload: tuple[str, str] | None, base: Question,
             fresh: bool, language: str | None) -> tuple[dict[str, Any], list[str]]:
    changes: dict[str, Any] = {}
    understood: list[str] = []
    prices = _stated_prices(scan)
    if workload:
        changes["workload"] = workload[0]
        understood.append(_note("workload", *workload))
    said = scan.currency_said
    if "budget" in scan.values:
        (amount, currency), phrase = scan.values["budget"]
        named = currency or (said[0] if said else None)
        changes["budget"], changes["currency"] = amount, named or _assumed_currency(amount, base, fresh, language)
        how = f"' and '{said[1]}" if said and not currency else "" if named else f"; no currency given, {changes['currency']} assumed"
        shown = f"{amount:g}" if amount < 1e6 else f"{amount:,.0f}"
        understood.append(f"budget: {shown} {changes['currency']} (from '{phrase}{how}')")
        if said and said[0] != changes["currency"]:
            understood.append(f"currency: {changes['currency']}, as the budget says ('{said[1]}' not applied: "
                              f"give the budget in {said[0]} to see {said[0]} prices)")
    elif said:
        if base.budget is None or base.currency == said[0]:
            changes["currency"] = said[0]
            understood.append(_note("currency", said[0], said[1]))
        else:  # a budget from before is in its own currency: the same number in another would be another budget
            understood.append(f"currency: {base.currency}, as the budget of {base.budget:g} {base.currency} says "
                              f"('{said[1]}' not applied: give the budget in {said[0]} to see {said[0]} prices)")
    understood.extend(prices)
    if scan.cards and scan.used_said:  # a used card among those compared: used prices count
        scan.values["used_ok"] = (True, scan.used_said)
    _job(scan, changes, understood, base, fresh)
    for name in _FIELD_ORDER:
        if name in scan.values and name not in ("budget", "precision"):
            value, phrase = scan.values[name]
            changes[name] = value
            understood.append(_note(_LABELS.get(name, name), value, phrase))
    if fresh and not workload and "model" not in changes and changes.get("task") == "inference" and (changes.get("params_b") or 0) >= 1:
        changes["workload"] = "llm"  # "serving a 70b model": a model of billions of parameters to run is a language model
        understood.append(f"workload: llm (a {changes['params_b']:g}B-parameter model to run, no other kind named)")
    if "memory_gb" in changes and _sizes_a_card(scan, changes, base, fresh):
        changes["card_memory_gb"] = changes.pop("memory_gb")
        understood[-1] = _note(_LABELS["card_memory_gb"], changes["card_memory_gb"], scan.values["memory_gb"][1])
    if scan.cards:
        as_of = changes.get("as_of", base.as_of) or scan.today
        cards = tuple(dict.fromkeys(_tpu_of(name, as_of) for _, name in sorted(scan.cards)))[:6]
        changes["compare"] = cards
        understood.append("gpus asked about: " + ", ".join(_card_note(card) for card in cards))
    return changes, understood


def _sizes_a_card(scan: _Scan, changes: dict[str, Any], base: Question, fresh: bool) -> bool:
    """With a model named, 'on 8 GB' is the card's memory; the model says what the job needs.

    "At least 48 GB" still states the need, as without a model ("cheapest card for 24 GB").
    """
    model = changes.get("model") or changes.get("params_b") or (not fresh and (base.model or base.params_b))
    return bool(model) and not _AT_LEAST.match(scan.values["memory_gb"][1])


_AT_LEAST = re.compile(r"(?:at\s+least|min|>|не\s+меньше|не\s+менее|от|минимум)")


def _job(scan: _Scan, changes: dict[str, Any], understood: list[str], base: Question, fresh: bool) -> None:
    """Task and method from the strongest job words, then the precision."""
    job = _task_and_method(scan, changes.get("workload"), base, fresh)
    if job is not None:
        task, method, phrase, method_phrase = job
        changes["task"] = task
        understood.append(f"task: {task} (from '{phrase}')" if phrase else
                          "task: inference (a model named without a training word: running it)")
        if method:
            changes["method"] = method
            if method_phrase:
                understood.append(f"method: {_METHODS[method]} (from '{method_phrase}')")
        elif task == "training":
            changes["method"] = None
            understood.append("method: not said; the answer picks one for the job and says so")
    lighter = {phrase for _, _, method, phrase in scan.jobs if method == "qlora"} if changes.get("method") not in (None, "qlora") else set()
    if "precision" in scan.values and scan.values["precision"][1] in lighter:
        understood.append(f"precision: left to the method (the 4-bit of '{scan.values['precision'][1]}' is for the lighter method named)")
    elif "precision" in scan.values:
        value, phrase = scan.values["precision"]
        changes["precision"] = value
        understood.append(_note("precision", value, phrase))
    elif "precision_default" in scan.values:
        value, phrase = scan.values["precision_default"]
        changes["precision"] = value
        understood.append(f"precision: {value} (from '{phrase}', its usual width; no bit width given)")


def _task_and_method(scan: _Scan, workload: str | None, base: Question,
                     fresh: bool) -> tuple[str, str | None, str, str] | None:
    """(task, method, task words, method words): training words > inference words > a hint.

    A hint ("use", "q4_k_m") counts only for jobs people run; a model of such a job named
    with no job word at all ("which gpu for gpt-oss 120b") is one to run. A follow-up
    changes the job only with a strong word ("fine-tune llama 8b" -> "and 70b at q4?" stays
    training).
    """
    runs = (workload or base.workload) in _RUN_WORKLOADS or "model" in scan.values or "params_b" in scan.values
    strength = max((job[0] for job in scan.jobs), default=None)
    if strength is None or (strength == _HINT and not (runs and fresh)):
        if strength is None and fresh and "model" in scan.values and workload in _RUN_WORKLOADS:
            return "inference", "inference", "", ""
        return None
    said = [job for job in scan.jobs if job[0] == strength]
    methods = [(method, phrase) for _, _, method, phrase in said if method]
    # several methods named ("with LoRA and QLoRA"): the machine must run the most demanding of them
    method, method_phrase = max(methods, key=lambda m: _DEMAND.get(m[0], 0)) if methods else (None, "")
    return said[0][1], method, said[0][3], method_phrase


_DEMAND = {"qlora": 1, "lora": 2, "full": 3, "pretrain": 4}  # memory each training method takes, least to most


def _assumed_currency(amount: float, base: Question, fresh: bool, language: str | None) -> str:
    """The previous question's currency; else roubles for a large amount in Russian text ("за 50000"); else USD."""
    if not fresh:
        return base.currency
    return "RUB" if language == "ru" and amount >= 10_000 else "USD"


_LATIN_LETTER = re.compile("[A-Za-z]")


def text_language(text: str) -> str | None:
    """The language a text is written in ("ru", "en"), or None when it has no letters."""
    return _language(text)


def _language(text: str) -> str | None:
    """'ru' when at least a quarter of the letters are Cyrillic, 'en' for Latin letters, None without letters."""
    if text.isascii():  # no Cyrillic: English as soon as there is a letter
        return "en" if _LATIN_LETTER.search(text) else None
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return None
    cyrillic = sum(1 for ch in letters if "\u0400" <= ch <= "\u04ff")
    return "ru" if cyrillic * 4 >= len(letters) else "en"


@lru_cache(maxsize=512)
def _card_note(name: str) -> str:
    """'rx 9070 xt (AMD Radeon RX 9070 XT)' or 'strix halo (not in the catalog)', by the catalog's resolver."""
    from rules.catalog import load_catalog  # lazy: the catalog loads once, and only for texts naming hardware

    catalog = load_catalog()
    resolution = catalog.resolve(name)
    tpu = catalog.tpus.get(name.replace(" ", "-"))
    if resolution.gpu is None and tpu is not None:
        return f"{name} ({tpu.name}, rented in the cloud)"
    if resolution.gpu is None:
        return f"{name} (not in the catalog)"
    if not resolution.exact and resolution.note:
        return resolution.note  # it names both: "'a100' read as the NVIDIA A100 …; say 'sxm' for another"
    return f"{name} ({resolution.gpu.name})"


def _pick_workload(scan: _Scan) -> tuple[str, str] | None:
    """The first specific workload word, else a model's workload, else 'general' words.

    An explicit RNN word wins over the speech domain ("speech with lstm" is an LSTM job).
    """
    said = [(w, p) for w, p, _ in sorted(scan.workloads, key=lambda w: w[2]) if not p.endswith("#model")]
    from_model = [(w, p.removesuffix("#model")) for w, p, _ in scan.workloads if p.endswith("#model")]
    specific = [w for w in said if w[0] != "general"]
    if any(w == "rnn" for w, _ in specific):
        specific = [w for w in specific if w[0] != "speech"]
    ranked = specific + from_model + said
    return ranked[0] if ranked else None


def _note(name: str, value: Any, phrase: str) -> str:
    if isinstance(value, bool):
        shown: Any = "yes" if value else "no"
    else:
        shown = value.isoformat() if isinstance(value, date) else value
    if str(shown) == phrase or not phrase:
        return f"{name}: {shown}"
    return f"{name}: {shown} (from '{phrase}')"


def _scale_budget(factor: float, word: str) -> Callable[[Question, dict[str, Any]], str]:
    def adjust(base: Question, changes: dict[str, Any]) -> str:
        budget = changes.get("budget", base.budget)
        if budget is None:
            return f"{word}: there is no budget yet to change; say one, e.g. '$800'"
        changes["budget"] = _whole(round(budget * factor)) if math.isfinite(budget) else budget
        return f"budget: {changes['budget']:g} {changes.get('currency', base.currency)} ({word}: x{factor:g})"

    return adjust


def _more_memory(base: Question, changes: dict[str, Any], held_gb: Callable[[], float | None] | None = None) -> str:
    """The next memory step above what the question asked and what the previous answer's pick holds: 'more memory?'
    after a 24 GB card asks for more than 24 GB, not for the 16 GB a question without a size would start from."""
    asked = changes.get("memory_gb", base.memory_gb) or 0
    held = (held_gb() if held_gb is not None else None) or 0
    current = max(asked, held)
    steps = [s for s in vocabulary().data["memory_steps_gb"] if s > current] or [min(current * 1.5, 4096)]
    changes["memory_gb"] = _whole(max(steps[0], 16))
    shown = f" than the {held:g} GB shown" if held > asked else ""
    return f"memory the job needs (GB): {changes['memory_gb']:g} (more memory{shown})"


def _more_gpus(base: Question, changes: dict[str, Any]) -> str:
    changes["gpus"] = min(changes.get("gpus", base.gpus) * 2, 16)
    return f"gpus: {changes['gpus']} (more gpus)"


_ADJUSTERS = {  # follow-ups that read only the question; "more_memory" also reads the previous answer (_build)
    "cheaper": _scale_budget(0.7, "cheaper"),
    "pricier": _scale_budget(1.5, "more expensive"),
    "more_gpus": _more_gpus,
}


def _intent(scan: _Scan, question: Question, changed: tuple[str, ...]) -> str:
    asked_help = not _WORD_CHAR.search(scan.original) or set(scan.intents) == {"help"}
    if asked_help and not changed:
        return "help"
    if "fit" in scan.intents:
        return "fit"
    if len(question.compare) >= 2 or ("compare" in scan.intents and question.compare):
        return "compare"
    return "recommend"


def _unknown(scan: _Scan) -> tuple[str, ...]:
    fillers = vocabulary().fillers
    words = [w for w in scan.leftovers() if w and _WORD_CHAR.search(w) and not fillers.fullmatch(w)]
    return tuple(dict.fromkeys(words))
