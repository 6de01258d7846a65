"""The vocabulary document and the patterns written from it: what understanding keeps between questions.

Words (English and Russian synonyms -> Question values) live in ``rules/data/vocabulary.json``, checked
against ``rules/schemas/vocabulary.schema.json`` when loaded, so a new synonym is a data change. Each grammar
module writes its own patterns from that document (a function of a :class:`Grammar`); :meth:`Grammar.patterns`
compiles them the first time a text needs them and keeps them for the process. Lazily, because compiling
everything costs a one-shot CLI answer: measured, the ~600 keyword patterns take about 80 ms and the grammars'
patterns about 20 ms, where a first question needs a handful of keywords and a few grammars.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, TypeVar, cast

from rules.knowledge.store import load_knowledge
from rules.understand.text import clean

BOUND = r"(?<![\w$€£₽])"  # where a word may start: not inside a word or right after a currency sign
NUM = r"\d+(?:[.,]\d+)?"
# where a number ends: not inside a word, nor before a decimal or grouped part ("4,000", "1.5"); a comma or
# a full stop that ends the clause ends the number ("batch size 4, $3000")
NUMBER_END = r"(?!\w|[.,]\d)"
MONEY_NUM = r"\d{1,3}(?:[.,]\d{3})+(?!\d)|\d+(?:[.,]\d+)?"

T = TypeVar("T")


def word_pattern(word: str, bound: bool = True) -> str:
    """Regex for a vocabulary word: a part ending in '*' is a stem; spaces/hyphens are optional."""
    parts = [clean(p.rstrip("*")) + "*" * p.endswith("*") for p in re.split(r"[\s-]+", word)]
    body = r"[\s-]*".join(re.escape(p.rstrip("*")) + (r"\w*" if p.endswith("*") else "") for p in parts)
    return body + ("" if word.endswith("*") or not bound else r"(?!\w)")


def any_of(words: Iterable[str], bound: bool = True) -> str:
    """One alternation of vocabulary words, longest first, so a phrase wins over a word inside it."""
    return "(?:" + "|".join(word_pattern(w, bound) for w in sorted(words, key=len, reverse=True)) + ")"


def bounded(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled to start only where a word starts."""
    return re.compile(BOUND + pattern)


def _needle(word: str) -> str:
    """The literal every match of ``word_pattern(word)`` contains: a cheap test before the regex runs."""
    return clean(re.split(r"[\s-]+", word)[0].rstrip("*"))


def _word_chars(text: str) -> bool:
    """Whether ``text`` is what ``\\w*`` matches whole (a Unicode letter, digit or underscore each)."""
    return all(ch.isalnum() or ch == "_" for ch in text)


class WordList:
    """Whether one word with no spaces is one of a vocabulary list's words, as fullmatching ``any_of(words)``
    says, without compiling an alternation of the whole list: a set lookup for a plain word, a prefix test for
    a stem ("recommend*"), a small pattern only for the phrases ("i am" also reads "iam" and "i-am")."""

    def __init__(self, words: Iterable[str]) -> None:
        plain: set[str] = set()
        stems: list[str] = []
        phrases: list[str] = []
        for word in words:
            parts = re.split(r"[\s-]+", word)
            part = clean(parts[0].rstrip("*"))
            if len(parts) > 1 or not part or re.search(r"[\s-]", part):
                phrases.append(word)
            elif word.endswith("*"):
                stems.append(part)
            else:
                plain.add(part)
        self._plain = frozenset(plain)
        self._stems = tuple(stems)
        self._phrases = re.compile(any_of(phrases)) if phrases else None

    def fullmatch(self, word: str) -> bool:
        """``word`` is one of the list's words, a stem's word or a phrase's spelling."""
        if word in self._plain:
            return True
        if any(word.startswith(stem) and _word_chars(word[len(stem) :]) for stem in self._stems):
            return True
        return self._phrases is not None and self._phrases.fullmatch(word) is not None


class Grammar:
    """The schema-checked vocabulary, what every question reads of it, and the patterns compiled so far."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        pairs = [(w, c["set"]) for c in data["concepts"] for w in c["words"]]
        pairs.sort(key=lambda p: len(p[0]), reverse=True)
        by_initial: dict[str, list[int]] = {}
        for i, (word, _) in enumerate(pairs):
            by_initial.setdefault(_needle(word)[:1], []).append(i)
        # (literal it needs, vocabulary word, meaning), longest phrase first
        self.keywords: tuple[tuple[str, str, dict[str, Any]], ...] = tuple(
            (_needle(w), w, m) for w, m in pairs
        )
        # first letter of the literal -> keyword positions
        self.keywords_by_initial = {k: tuple(v) for k, v in by_initial.items()}
        self.fillers = WordList(data["fillers"])  # an alternation of ~250 words took ~6 ms to compile
        self.currency = tuple(
            (re.compile(word_pattern(w)), code) for code, ws in data["currencies"].items() for w in ws
        )
        self.cur = any_of(w for ws in data["currencies"].values() for w in ws)
        self.thousands = any_of(data["thousands"])
        self.number_words: dict[str, int] = {clean(k): v for k, v in data["number_words"].items()}
        self.crowd_words: dict[str, int] = {clean(k): v for k, v in data["crowd_words"].items()}
        self._written: dict[Callable[[Grammar], Any], Any] = {}
        self._keywords: dict[str, re.Pattern[str]] = {}

    def patterns(self, write: Callable[[Grammar], T]) -> T:
        """What ``write`` makes of this vocabulary, written the first time a text needs it."""
        if write not in self._written:
            self._written[write] = write(self)
        return cast(T, self._written[write])

    def crowd_size(self, words: str) -> int:
        """How many people words say: 'three' 3, 'a few dozen' 36."""
        said = clean(words)
        return self.crowd_words.get(said) or self.number_words[said]

    def keyword(self, word: str) -> re.Pattern[str]:
        """A keyword's regex, compiled the first time a text holds its literal: a question meets a handful of
        the vocabulary's ~600 words."""
        pattern = self._keywords.get(word)
        if pattern is None:
            pattern = self._keywords[word] = bounded(word_pattern(word))
        return pattern


@lru_cache(maxsize=1)
def grammar() -> Grammar:
    """The grammar of the shipped vocabulary (checked when the knowledge was built), made once per process."""
    return Grammar(dict(load_knowledge().vocabulary))
