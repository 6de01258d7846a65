"""The answers' fixed prose in the asker's language, from one message catalogue.

``rules/data/messages.json`` holds every heading, label and template the renderers
print, in each language the product speaks (English and Russian), validated by its
schema when the knowledge is built. :func:`say` fills a template; names, numbers and
rule ids pass through unchanged. A question's ``language`` (set by the parser) picks
the language; None and unknown languages read English.

The stages do not take the language: they hand on words to be said (:data:`Text`: a :class:`Phrase`, a
key and its values, and its kin), and :func:`spoken` says them where the answer is put together.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias, cast

from rules.knowledge.store import load_knowledge
from rules.knowledge.templates import DEFAULT_LANGUAGE, Messages

__all__ = [
    "DEFAULT_LANGUAGE",
    "Article",
    "Basis",
    "Cased",
    "Cited",
    "Continued",
    "Counted",
    "Grouped",
    "Joined",
    "Messages",
    "Phrase",
    "Term",
    "Text",
    "article",
    "basis",
    "catalogue",
    "cited",
    "count_word",
    "grouped",
    "languages",
    "say",
    "spare_text",
    "spoken",
    "term",
]

_NOT_A_KEY = re.compile(r"[^a-z0-9]+")
_MEASURED = re.compile(r"measured on (\d+) lab host")
_SPELLED = re.compile(r"[A-Z][A-Z0-9]+|[A-Z]\d")  # "NVIDIA", "RTX", "H100": read letter by letter
_GROUPED_DIGITS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")  # the comma between digit groups, not in "4.5, 8"


class _Unsaid:
    """What a phrase is until it is said: printing it without a language is a mistake, so it fails loudly
    rather than showing a Python repr to the asker."""

    def __str__(self) -> str:
        raise TypeError(f"{self!r} has no language yet: say it with spoken(text, language)")

    def said(self, language: str | None) -> str:
        """The words in ``language``; each kind of words says itself."""
        raise NotImplementedError

    def __add__(self, other: Text) -> Joined:
        return Joined((cast("Text", self), other))

    def __radd__(self, other: str) -> Joined:
        return Joined((other, cast("Text", self)))


@dataclass(frozen=True)
class Phrase(_Unsaid):
    """A message before it has a language: a stage says what it found as a key and its values, and the
    asker's language is applied once, where the answer is put together (:func:`spoken`). A value that is
    itself a phrase is said first."""

    key: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def said(self, language: str | None) -> str:
        return say(self.key, language, **self.values)


@dataclass(frozen=True)
class Term(_Unsaid):
    """A word the answer's data carries (a method, a task), said in the asker's language (:func:`term`)."""

    group: str
    word: str

    def said(self, language: str | None) -> str:
        return term(self.group, self.word, language)


@dataclass(frozen=True)
class Cited(_Unsaid):
    """A data file's source, as an answer cites it in the asker's language (:func:`cited`)."""

    source: str

    def said(self, language: str | None) -> str:
        return cited(self.source, language)


@dataclass(frozen=True)
class Grouped(_Unsaid):
    """Figures outside a message ("58,500 RUB"), their digits grouped as the asker's language writes them."""

    text: str

    def said(self, language: str | None) -> str:
        return grouped(self.text, language)


@dataclass(frozen=True)
class Cased(_Unsaid):
    """A text with its first letter upper case (it starts a sentence) or lower case (it continues one), a
    leading ``drop`` ("; ") left off first."""

    text: Text
    upper: bool = True
    drop: str = ""

    def said(self, language: str | None) -> str:
        words = spoken(self.text, language).removeprefix(self.drop)
        return (words[:1].upper() if self.upper else words[:1].lower()) + words[1:]


@dataclass(frozen=True)
class Continued(_Unsaid):
    """A sentence about ``subject`` continued after a colon that names it ("buy the X: about 1.5× faster
    than the Y"): in English its leading "The" lower-cased and "the X is " left off, elsewhere the
    subject's name."""

    text: Text
    subject: str

    def said(self, language: str | None) -> str:
        words = spoken(self.text, language)
        if (language or DEFAULT_LANGUAGE) != DEFAULT_LANGUAGE:
            return words.removeprefix(f"{self.subject} ")
        words = "t" + words[1:] if words.startswith("The ") else words
        return words.removeprefix(f"the {self.subject} is ")


@dataclass(frozen=True)
class Counted(_Unsaid):
    """A count as prose says it: "two" in English, a figure elsewhere (:func:`count_word`)."""

    count: int | None

    def said(self, language: str | None) -> str:
        return count_word(self.count, language)


@dataclass(frozen=True)
class Article(_Unsaid):
    """The word before a name where the asker's language has articles (:func:`article`)."""

    name: str

    def said(self, language: str | None) -> str:
        return article(self.name, language)


@dataclass(frozen=True)
class Basis(_Unsaid):
    """An answer's performance basis in the asker's language (:func:`basis`)."""

    text: str

    def said(self, language: str | None) -> str:
        return basis(self.text, language)


@dataclass(frozen=True)
class Joined(_Unsaid):
    """Texts said one after another, ``between`` each."""

    parts: tuple[Text, ...]
    between: str = ""

    def said(self, language: str | None) -> str:
        return self.between.join(spoken(part, language) for part in self.parts)


Text: TypeAlias = (
    "str | Phrase | Term | Cited | Grouped | Cased | Continued | Counted | Article | Basis | Joined"
)
"""Words a stage hands on: plain (a name, a figure) or to be said in the asker's language."""


def spoken(text: Text, language: str | None = None) -> str:
    """``text`` in ``language``: each phrase filled with its values said first."""
    return text if isinstance(text, str) else text.said(language)


def catalogue() -> Mapping[str, Mapping[str, str]]:
    """Message key -> language -> template."""
    return load_knowledge().messages.catalogue


def languages() -> tuple[str, ...]:
    return load_knowledge().messages.languages


def say(key: str, language: str | None = None, /, **values: Any) -> str:
    """The message ``key`` in ``language`` (English when None or unknown), with ``values`` filled in (a value
    that is a phrase is said first)."""
    messages = load_knowledge().messages
    template = messages.templates.get((key, language))
    if template is None:  # a language the catalogue lacks reads English; an unknown key raises
        template = messages.catalogue[key][DEFAULT_LANGUAGE]
    if not values:
        return grouped(template, language)
    said = {name: v.said(language) if isinstance(v, _Unsaid) else v for name, v in values.items()}
    return grouped(template.format(**said), language)


def grouped(text: str, language: str | None = None) -> str:
    """Digit groups as ``language`` writes them: "58,422 RUB" in English, "58 422 RUB" in Russian."""
    separator = load_knowledge().messages.templates.get(("number.group_separator", language), ",")
    return text if separator == "," else _GROUPED_DIGITS.sub(separator, text)


COUNT_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def count_word(count: int | None, language: str | None = None) -> str:
    """ "two" in English prose; a figure elsewhere."""
    english = (language or DEFAULT_LANGUAGE) == DEFAULT_LANGUAGE
    return COUNT_WORDS[count] if english and count is not None and count < len(COUNT_WORDS) else str(count)


def spare_text(share: float) -> str:
    """The share of memory left over, as the tight-fit lines say it: "6%", or "< 1%" below one percent."""
    return f"{share:.0%}" if share >= 0.01 else "< 1%"


def article(name: str, language: str | None = None) -> str:
    """The word before ``name`` where ``language`` has articles: in English "a " or "an " by its first
    sound ("an NVIDIA", "an RTX", "an H100", "an Intel", "a GeForce", "a DGX"); nothing in Russian."""
    if (language or DEFAULT_LANGUAGE) != DEFAULT_LANGUAGE:
        return ""
    first = name.split(" ", 1)[0]
    if _SPELLED.match(first):  # a letter said by name: "en", "ar", "aitch", "ef"
        return "an " if first[0] in "AEFHILMNORSX" else "a "
    return "an " if first[:1].lower() in "aeio" else "a "


def term(group: str, word: str, language: str | None = None) -> str:
    """A word the answer's data carries (a pick's label, a price kind) in ``language``; the word itself
    when the catalogue has no entry ``group.word`` for it."""
    key = f"{group}.{_NOT_A_KEY.sub('_', word.lower()).strip('_')}"
    return say(key, language) if key in load_knowledge().messages.catalogue else word


def basis(text: str, language: str | None = None) -> str:
    """An answer's performance basis ("estimated from specs", "measured on 2 lab hosts") in ``language``."""
    if (language or DEFAULT_LANGUAGE) == DEFAULT_LANGUAGE:
        return text  # the engine's own English words
    measured = _MEASURED.match(text)
    if measured:
        return say("basis.measured_on", language, hosts=measured.group(1))
    return term("basis", text, language)


def cited(source: str, language: str | None = None) -> str:
    """A data file's source as an answer cites it: "work: what it says" in English; in another language the
    work alone, since the note after it is English."""
    return source if (language or DEFAULT_LANGUAGE) == DEFAULT_LANGUAGE else source.split(": ")[0]
