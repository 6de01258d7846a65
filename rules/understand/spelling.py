"""Typos: a word no pass took that is one slip away from exactly one vocabulary word is read as that word.

A slip is one letter swapped with its neighbour, left out, doubled or mistyped ("trasnformers",
"reinforcment", "kagle"). Only words of five letters or more are corrected, and only toward a single
candidate: a short or ambiguous word stays not understood, so a guess is never silent: ``understood``
says "read 'kagle' as 'kaggle'". The text is read again with the corrections, so the corrected word takes
part in every grammar as if typed right.
"""

from __future__ import annotations

import re

from rules.understand.grammar import Grammar, grammar

MIN_LETTERS = 5
_LETTERS = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
# Endings a stem ("transformer*", "нейросет*") is typed with, for comparing a typo with its whole word.
_STEM_ENDINGS = (
    "",
    "s",
    "es",
    "ing",
    "а",
    "я",
    "и",
    "ы",
    "е",
    "ю",
    "ей",
    "ов",
    "ой",
    "ая",
    "ую",
    "ые",
    "ых",
    "ий",
    "ия",
    "ие",
    "ое",
    "ом",
    "ами",
    "ях",
)


def _words(g: Grammar) -> tuple[dict[int, frozenset[str]], dict[int, dict[str, str]]]:
    """The vocabulary's words of five letters or more by length (a slip changes it by one at most): the
    words as written, and the forms of its stems ("сверточн*" -> "сверточные" …) with the stem each is of."""
    data = g.data
    phrases = [w for c in data["concepts"] for w in c["words"]]
    phrases += list(data["fillers"])
    phrases += [a for m in data["models"] for a in m["aliases"]]
    words = {part for phrase in phrases for part in phrase.split(" ")}  # each word of a phrase, too
    written: dict[int, set[str]] = {}
    for word in words:
        if "*" not in word and _LETTERS.fullmatch(word) and len(word) >= MIN_LETTERS:
            written.setdefault(len(word), set()).add(word)
    forms: dict[int, dict[str, str]] = {}
    for stem in (w[:-1] for w in words if w.endswith("*")):
        for form in (stem + ending for ending in _STEM_ENDINGS):
            if _LETTERS.fullmatch(form) and len(form) >= MIN_LETTERS:
                forms.setdefault(len(form), {})[form] = stem
    return {n: frozenset(ws) for n, ws in written.items()}, forms


def one_slip(typed: str, word: str) -> bool:
    """Whether ``typed`` is ``word`` with one neighbour swap, one letter left out, added or mistyped."""
    if typed == word:
        return False
    if len(typed) == len(word):
        diff = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        if len(diff) == 1:
            return True
        i, j = diff[0], diff[-1]
        return len(diff) == 2 and j == i + 1 and typed[i] == word[j] and typed[j] == word[i]
    shorter, longer = sorted((typed, word), key=len)
    if len(longer) - len(shorter) != 1:
        return False
    i = next((k for k, (a, b) in enumerate(zip(shorter, longer, strict=False)) if a != b), len(shorter))
    return shorter[i:] == longer[i + 1 :]


def corrections(unknown: tuple[str, ...]) -> dict[str, str]:
    """Each unknown word with one vocabulary word a slip away -> that word: a word as written first; else a
    form of one stem (several forms of the same stem are one reading)."""
    written, forms = grammar().patterns(_words)
    found = {}
    for typed in unknown:
        if len(typed) < MIN_LETTERS or not _LETTERS.fullmatch(typed):
            continue
        lengths = (len(typed) - 1, len(typed), len(typed) + 1)
        near = [word for n in lengths for word in written.get(n, ()) if one_slip(typed, word)]
        if not near:
            stems = {
                stem: form
                for n in lengths
                for form, stem in forms.get(n, {}).items()
                if one_slip(typed, form)
            }
            near = list(stems.values())
        if len(near) == 1:
            found[typed] = near[0]
    return found


def corrected(text: str, fixes: dict[str, str]) -> str:
    """``text`` with each corrected word replaced where it stands as a whole word."""
    for typed, word in fixes.items():
        text = re.sub(rf"(?<!\w){re.escape(typed)}(?!\w)", word, text)
    return text
