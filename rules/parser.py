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
model names, money with a currency, GPU names, units (GB, 13b, hours, GPU counts),
money after a budget word, keywords (longest phrase first), and last a bare number.
Each pass blanks what it took, so a number is read once: "3090" is a GPU and never
a budget, "13b" a model size. What remains, minus filler words, is ``unknown``.

Decisions for ambiguous text (each pinned by a test):

* Bare number: the only number left over, >= 50 and not a year-like 2010..2049, is a
  budget in the previous question's currency (else USD): "nlp 800" -> 800 USD.
  Two leftover numbers, a small one, or a year-like one are reported as unknown.
  Money without a currency word is USD; Russian users write "руб"/"₽" for roubles.
* GPU numbers: 1050..5090-style four-digit numbers, 3-digit ones after "gtx" or
  before "ti", "rx 580", "7900 xtx" and the listed names (a100, mi300x, ...) are GPUs,
  never budgets, unless a currency is attached ("$1080", "1080 usd").
  Names are cleaned and given their series: "3090" -> "rtx 3090", "1070" -> "gtx 1070".
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
  next size in ``memory_steps_gb`` above the previous memory_gb (16 GB if none);
  "more gpus" doubles the count (at most 16). A text with both a workload and a
  budget is a new question and starts from defaults instead of ``previous``.
* Model names drop the family version when a size is given ("llama-2-70b" ->
  "llama-70b", the id in rules/data/models.json; the version stays in
  ``understood``) and set ``params_b`` from the size ("13b" -> 13, "350m" -> 0.35).
  A bare family ("llama", "bert") sets only the workload; names that are one model
  by themselves ("stable diffusion" -> "sd", "sdxl", "gpt-2") also set ``model``.
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
from rules.question import Question, QuestionError

__all__ = ["ParsedText", "parse", "MAX_TEXT_CHARS"]

MAX_TEXT_CHARS = 2000
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


def parse(text: str, previous: Question | None = None, today: date | None = None) -> ParsedText:
    """Read ``text`` (refining ``previous`` when given); raises only :class:`QuestionError`."""
    today = today or date.today()
    if not isinstance(text, str):
        raise QuestionError("text", "text must be a string")
    if len(text) > MAX_TEXT_CHARS:
        raise QuestionError("text", f"text is {len(text)} characters; at most {MAX_TEXT_CHARS} are read")
    scan = _Scan(clean(text), today)
    scan.run()
    return _build(scan, previous, today)


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
    kept = "".join(_keep(ch) for ch in text)
    return re.sub(r"\s+", " ", kept).strip()


def _keep(ch: str) -> str:
    category = unicodedata.category(ch)
    if ch in _KEEP or category[0] in "LN":
        return ch
    return "-" if category == "Pd" else " "


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
    return re.compile(r"(?<![\w$€£₽])" + pattern)


@dataclass(frozen=True)
class _Vocab:
    data: dict[str, Any]
    keywords: tuple[tuple[str, re.Pattern[str], dict[str, Any]], ...]  # (literal it needs, pattern, meaning)
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
    currency = tuple((re.compile(_word(w)), code) for code, ws in data["currencies"].items() for w in ws)
    return _Vocab(
        data=data,
        keywords=tuple((_needle(w), _bounded(_word(w)), meaning) for w, meaning in pairs),
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
    workloads: list[tuple[str, str]] = field(default_factory=list)
    intents: list[str] = field(default_factory=list)
    adjust: list[str] = field(default_factory=list)
    cards: list[tuple[int, str]] = field(default_factory=list)

    def run(self) -> None:
        self.original = self.text
        for step in (_dates, _models, _money_marked, _gpus, _memory, _params, _hours, _counts,
                     _money_words, _keywords, _bare_number):
            step(self)

    def take(self, pattern: re.Pattern[str], handle: Callable[[re.Match[str]], Any]) -> None:
        """Blank each match ``handle`` accepts: it returns True, a (start, end) span, or False."""
        spans = []
        for match in pattern.finditer(self.text):
            span = handle(match)
            if span:
                spans.append(match.span() if span is True else span)
        for start, end in spans:
            self.text = self.text[:start] + _BLANK * (end - start) + self.text[end:]

    def put(self, name: str, value: Any, phrase: str) -> bool:
        """Record a field value (the first mention wins); True so handlers can return it."""
        self.values.setdefault(name, (value, phrase.strip()))
        return True

    def leftovers(self) -> list[str]:
        return [t.strip(".,-/+<~'%:=") for t in re.split(rf"[\s{_BLANK}]+", self.text)]


def _number(text: str) -> float:
    """'1,500' and '1.500' are thousands; '1.5' and '1,5' decimals; '80 000' grouped."""
    text = re.sub(r"\s", "", text)
    if re.fullmatch(r"\d{1,3}(?:[.,]\d{3})+", text):
        return float(re.sub(r"[.,]", "", text))
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
    months = "|".join(f"(?P<m{i}>{_any(ws)})" for i, ws in enumerate(v.data["months"], 1))
    year = r"(?P<y>19\d\d|20[0-4]\d)"
    suffix = _any(v.data["year_suffixes"])
    not_money = rf"(?!\s*(?:{v.cur}|{v.thousands}|[\d.,]))"
    return tuple(_bounded(p) for p in (
        rf"{pre}?(?P<y>\d{{4}})-(?P<mo>\d\d?)(?:-(?P<d>\d\d?))?(?![\w-])",  # any year: the range check names it
        rf"{pre}?(?P<d>\d\d?)\.(?P<mo>\d\d?)\.(?P<y>\d{{4}})(?!\d)",
        rf"{pre}?(?:(?P<d>\d\d?)\s+)?(?:{months})\s*(?:of\s+)?(?P<y>(?:19|20)\d\d)(?!\d)(?:\s*{suffix})?",
        rf"{pre}?{year}\s*{suffix}",
        rf"{pre}(?P<y>\d{{4}})(?![\w-]){not_money}",  # "as of 2999": a date, refused by the range check
    ))


def _dates(scan: _Scan) -> None:
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

_VARIANTS = {
    "number": r"\d+(?:\.\d+)?(?![\d.]|\s?[bm](?!\w)|x\d)",
    "v-number": r"v\d+(?![\d.])",
    "b-number": r"b\d(?!\d)",
}
_SIZE = r"(?:\d+x)?\d+(?:[.,]\d+)?\s?[bm](?!\w)"


@lru_cache(maxsize=1)
def _model_patterns() -> tuple[tuple[re.Pattern[str], dict[str, Any]], ...]:
    out = []
    for entry in vocabulary().data["models"]:
        variant = _VARIANTS.get(entry.get("variant", ""), r"(?!)")
        sizes = [re.escape(s) + r"(?!\w)" for s in sorted(entry.get("sizes", {}), key=len, reverse=True)]
        size = "|".join([_SIZE, *sizes])
        family = _any(entry["aliases"], bound=False)
        out.append((_bounded(rf"{family}(?:[\s-]*(?P<var>{variant}))?(?:[\s-]*(?P<size>{size}))?(?!\w)"), entry))
    return tuple(out)


def _models(scan: _Scan) -> None:
    for pattern, entry in _model_patterns():
        scan.take(pattern, lambda m, e=entry: _model_found(scan, m, e))


def _model_found(scan: _Scan, m: re.Match[str], entry: dict[str, Any]) -> bool:
    var, size = m.group("var"), re.sub(r"\s", "", m.group("size") or "").replace(",", ".")
    named = entry.get("sizes", {}).get(size)
    scan.workloads.append((entry["workload"], m.group().strip() + "#model"))
    if size and named is None:  # a parameter count: the family version does not change memory
        if "x" not in size:  # "8x7b" (mixture of experts) is not 56b of weights; the model table knows
            value = float(size[:-1])
            scan.put("params_b", _whole(value / 1000 if size.endswith("m") else value), m.group())
        scan.put("model", f"{entry['slug']}-{size}", m.group())
    elif var or named is not None or entry.get("standalone"):
        joiner = "" if entry.get("variant") == "v-number" else "-"
        slug = f"{entry['slug']}{joiner}{var}" if var else entry["slug"]
        scan.put("model", f"{slug}-{named}" if named else slug, m.group())
    return True


# money ------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _money_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    v = vocabulary()
    grouped = rf"\d{{1,3}}(?:\s\d{{3}})+(?=\s*(?:{v.thousands}|{v.cur}))"
    num = rf"(?P<num>{grouped}|{_MONEY_NUM})"
    words = _any(v.data["budget_words"])
    body = rf"(?P<pre>[$€£₽])?\s*{num}\s*(?P<k>{v.thousands})?\s*(?P<cur>{v.cur})?"
    not_context = r"(?!\s*(?:context|ctx|tokens?|токен\w*|контекст\w*|monitor|video|resolution|display))"
    marked = _bounded(rf"(?:{words}\s*[:=]?\s*)?{body}{not_context}")
    worded = _bounded(rf"{words}\s*[:=]?\s*{num}(?![\d\w])")
    return marked, worded


def _money_marked(scan: _Scan) -> None:
    scan.take(_money_patterns()[0], lambda m: _money_found(scan, m, need_mark=True))


def _money_words(scan: _Scan) -> None:
    scan.take(_money_patterns()[1], lambda m: _money_found(scan, m, need_mark=False))


def _money_found(scan: _Scan, m: re.Match[str], need_mark: bool) -> bool:
    groups = m.groupdict()
    marked = groups.get("pre") or groups.get("cur") or groups.get("k")
    amount = _number(groups["num"]) * (1000 if groups.get("k") else 1)
    if (need_mark and not marked) or (not marked and amount < 50):
        return False
    return scan.put("budget", (_whole(amount), _currency(groups.get("pre") or groups.get("cur") or "")), m.group())


def _currency(mark: str) -> str | None:
    return next((code for pattern, code in vocabulary().currency if pattern.fullmatch(mark.strip())), None)


# GPU names ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _gpu_patterns() -> tuple[re.Pattern[str], ...]:
    names = _any(vocabulary().data["gpu_names"], bound=False)
    start, end = r"(?<![^\Wx×])(?<![$€£₽.])", r"s?(?!\w|[.,]\d)"
    return tuple(re.compile(start + p + end) for p in (
        rf"(?P<name>{names})",
        r"(?:(?P<series>rtx|gtx|gt)[\s-]*)?(?P<num>1[06][5-8]0|[2-5]0[5-9]0)(?P<suf>(?:[\s-]*(?:ti|super))*)",
        r"(?P<series>gtx|gt)[\s-]*(?P<num>[4-9][1-9]0)(?P<suf>(?:[\s-]*ti)?)",
        r"(?P<num>[6-9][5-8]0)(?P<suf>[\s-]*ti)",
        r"(?P<series>rx)[\s-]*(?P<num>\d{3,4})(?P<suf>(?:[\s-]*(?:xtx|xt))?)",
        r"(?P<num>[5-9]\d00)(?P<suf>[\s-]*(?:xtx|xt))",
    ))


def _gpus(scan: _Scan) -> None:
    for pattern in _gpu_patterns():
        scan.take(pattern, lambda m: _gpu_found(scan, m))


def _gpu_name(m: re.Match[str]) -> str:
    """'3090' -> 'rtx 3090', '1080ti' -> 'gtx 1080 ti', 'Tesla-V100' -> 'v100'."""
    groups = m.groupdict()
    if groups.get("name"):
        return re.sub(r"[\s-]+", " ", groups["name"])
    num = groups["num"]
    series = groups.get("series") or ("gtx" if num.startswith("1") or len(num) == 3 else "rtx")
    suffix = " ".join(re.findall(r"ti|super|xtx|xt", groups.get("suf") or ""))
    return f"{series} {num} {suffix}".strip()


@lru_cache(maxsize=1)
def _before_gpu() -> tuple[re.Pattern[str], re.Pattern[str]]:
    data = vocabulary().data
    own = rf"(?<!\w){_any(data['ownership'])}(?:\s+{_any(data['ownership_fillers'])})*\s*$"
    count = rf"(?<!\w)(?:(?P<n>\d{{1,2}})\s*[x×]?|(?P<w>{_any(vocabulary().number_words)}))\s*$"
    return re.compile(own), re.compile(count)


def _gpu_found(scan: _Scan, m: re.Match[str]) -> tuple[int, int]:
    """A card after 'I have'/'у меня' is owned; '2x 3090' also sets the count."""
    name, start = _gpu_name(m), m.start()
    window = max(0, start - 60)
    own_re, count_re = _before_gpu()
    owned = own_re.search(scan.text[window:start])
    if owned:
        scan.put("owned_gpu", name, name)
        return window + owned.start(), m.end()
    count = count_re.search(scan.text[window:start])
    if count:
        scan.put("gpus", _count_of(count), count.group())
        start = window + count.start()
    scan.cards.append((m.start(), name))
    return start, m.end()


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
    r"(?:(?P<week>weeks?|wk|w|недел\w*|нед)|(?P<day>days?|d|день|сутки))(?!\w)"
)


def _memory(scan: _Scan) -> None:
    scan.take(_MEMORY, lambda m: scan.put("memory_gb", _whole(_number(m.group("n"))), m.group()))


def _params(scan: _Scan) -> None:
    def found(m: re.Match[str]) -> bool:
        if m.group("m") and not (m.group("p") or (m.group("m") == "m" and not m.group("sp"))):
            return False  # "350m" and "350 million parameters" are sizes; "5 m" is not
        value = _number(m.group("n")) / (1000 if m.group("m") else 1)
        return scan.put("params_b", _whole(value), m.group())

    scan.take(_PARAMS, found)


def _hours(scan: _Scan) -> None:
    def found(m: re.Match[str]) -> bool:
        value = _number(m.group("n")) * (7 if m.group("day") else 1)
        return scan.put("hours_per_week", _whole(value), m.group())

    scan.take(_HOURS, found)


@lru_cache(maxsize=1)
def _count_patterns() -> tuple[re.Pattern[str], ...]:
    v = vocabulary()
    n = rf"(?:(?P<n>\d{{1,3}})|(?P<w>{_any(v.number_words)}))"
    return (
        _bounded(rf"{n}\s*[x×]?\s*{_any(v.data['count_nouns'])}"),
        _bounded(r"(?P<n>\d{1,2})\s*[x×](?![a-zа-я])"),
        re.compile(r"(?<![\w.])[x×]\s*(?P<n>\d{1,2})(?![\w.])"),
    )


def _counts(scan: _Scan) -> None:
    for pattern in _count_patterns():
        scan.take(pattern, lambda m: scan.put("gpus", _count_of(m), m.group()))


# keywords and the last bare number ----------------------------------------------------


def _keywords(scan: _Scan) -> None:
    for needle, pattern, meaning in vocabulary().keywords:
        if needle in scan.text:
            scan.take(pattern, lambda m, meaning=meaning: _meaning(scan, meaning, m.group()))


def _meaning(scan: _Scan, meaning: dict[str, Any], phrase: str) -> bool:
    for name, value in meaning.items():
        if name == "workload":
            scan.workloads.append((value, phrase))
        elif name == "intent":
            scan.intents.append(value)
        elif name == "adjust":
            scan.adjust.append(value)
        elif name == "budget_usd":
            scan.put("budget", (value, "USD"), phrase)
        else:
            scan.put(name, value, phrase)
    return True


def _bare_number(scan: _Scan) -> None:
    """The only number left, >= 50 and not year-like, is a budget: 'nlp 800'."""
    numbers = [t for t in scan.leftovers() if re.fullmatch(_MONEY_NUM, t)]
    if len(numbers) != 1 or "budget" in scan.values:
        return
    value = _number(numbers[0])
    if value < 50 or 2010 <= value <= 2049:
        return
    pattern = re.compile(r"(?<![\w.,])" + re.escape(numbers[0]) + r"(?![\w.,])")
    scan.take(pattern, lambda m: scan.put("budget", (_whole(value), None), m.group()))


# ----------------------------------------------------------------------------- the question

_LABELS = {"params_b": "parameters (billions)", "memory_gb": "memory GB", "hours_per_week": "hours per week",
           "as_of": "as of", "used_ok": "used is fine", "cloud_ok": "cloud is fine", "owned_gpu": "already owns"}


def _build(scan: _Scan, previous: Question | None, today: date) -> ParsedText:
    workload = _pick_workload(scan)
    fresh = previous is None or (workload is not None and "budget" in scan.values)
    base = Question() if fresh else previous
    changes, understood = _changes(scan, workload, base)
    for what in dict.fromkeys(scan.adjust):
        understood.append(_ADJUSTERS[what](base, changes))
    question = replace(base, **changes)
    question.check(today)
    changed = tuple(name for name in _FIELD_ORDER if name in changes)
    return ParsedText(question, _intent(scan, question, changed), tuple(understood), _unknown(scan), changed)


def _changes(scan: _Scan, workload: tuple[str, str] | None, base: Question) -> tuple[dict[str, Any], list[str]]:
    changes: dict[str, Any] = {}
    understood: list[str] = []
    if workload:
        changes["workload"] = workload[0]
        understood.append(_note("workload", *workload))
    if "budget" in scan.values:
        (amount, currency), phrase = scan.values["budget"]
        changes["budget"], changes["currency"] = amount, currency or base.currency
        assumed = "" if currency else f"; no currency given, {changes['currency']} assumed"
        understood.append(f"budget: {amount:g} {changes['currency']} (from '{phrase}'{assumed})")
    for name in _FIELD_ORDER:
        if name in scan.values and name != "budget":
            value, phrase = scan.values[name]
            changes[name] = value
            understood.append(_note(_LABELS.get(name, name), value, phrase))
    if scan.cards:
        cards = tuple(dict.fromkeys(name for _, name in sorted(scan.cards)))[:6]
        changes["compare"] = cards
        understood.append("gpus asked about: " + ", ".join(cards))
    return changes, understood


def _pick_workload(scan: _Scan) -> tuple[str, str] | None:
    """The first specific workload word, else a model's workload, else 'general' words."""
    said = [w for w in scan.workloads if not w[1].endswith("#model")]
    from_model = [(w, p.removesuffix("#model")) for w, p in scan.workloads if p.endswith("#model")]
    ranked = [w for w in said if w[0] != "general"] + from_model + said
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


def _more_memory(base: Question, changes: dict[str, Any]) -> str:
    current = changes.get("memory_gb", base.memory_gb) or 0
    steps = [s for s in vocabulary().data["memory_steps_gb"] if s > current] or [min(current * 1.5, 4096)]
    changes["memory_gb"] = _whole(max(steps[0], 16))
    return f"memory GB: {changes['memory_gb']:g} (more memory)"


def _more_gpus(base: Question, changes: dict[str, Any]) -> str:
    changes["gpus"] = min(changes.get("gpus", base.gpus) * 2, 16)
    return f"gpus: {changes['gpus']} (more gpus)"


_ADJUSTERS = {
    "cheaper": _scale_budget(0.7, "cheaper"),
    "pricier": _scale_budget(1.5, "more expensive"),
    "more_memory": _more_memory,
    "more_gpus": _more_gpus,
}


def _intent(scan: _Scan, question: Question, changed: tuple[str, ...]) -> str:
    asked_help = not re.search(r"\w", scan.original) or set(scan.intents) == {"help"}
    if asked_help and not changed:
        return "help"
    if "fit" in scan.intents:
        return "fit"
    if len(question.compare) >= 2 or ("compare" in scan.intents and question.compare):
        return "compare"
    return "recommend"


def _unknown(scan: _Scan) -> tuple[str, ...]:
    fillers = vocabulary().fillers
    words = [w for w in scan.leftovers() if w and re.search(r"\w", w) and not fillers.fullmatch(w)]
    return tuple(dict.fromkeys(words))
