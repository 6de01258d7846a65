"""An answer as Markdown text: the CLI, `/v1/ask` and chat clients show this.

Works from the typed :class:`~rules.answer.Answer`; a face that received the JSON over
HTTP decodes it into the same type first, so it renders exactly what the CLI prints.
Its fixed prose comes from the message catalogue (:mod:`rules.messages`): the lines are made as words to be
said, and said once, in the question's language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.contract.answer import Answer, Detail
from rules.knowledge.messages import Joined, Phrase, Text, spoken
from rules.render.figures import words_for
from rules.render.full import full_lines
from rules.render.job import job_lines, serving_lines
from rules.render.runs_on import runs_on_lines
from rules.render.short import short_lines

if TYPE_CHECKING:
    from rules.understand import ParsedText

__all__ = [
    "answer_markdown",
    "model_notes",
    "not_understood_line",
    "outside_notes",
    "reading_notes",
]


def answer_markdown(answer: Answer, detail: Detail = "short") -> str:
    """The answer in ``detail``: "full" holds every finding (summary, picks with their rules, warnings, rent
    vs buy, context); "short" is what a person reads first. The lines both hold (the picks' words, what the
    job and serving cost, what runs on the cards) are made once."""
    words = words_for(answer)
    worked = job_lines(answer.job_cost) + serving_lines(answer.serving_cost)
    runs = runs_on_lines(answer.runs_on)
    if detail == "short":
        lines = short_lines(answer, words, worked, runs)
    else:
        lines = full_lines(answer, words, [*worked, *runs])
    return spoken(Joined(tuple(lines), "\n"), answer.language)


def reading_notes(parsed: ParsedText, language: str | None) -> tuple[str, ...]:
    """What the reading could not use: hardware the catalog does not hold (said first, above the answer it
    changes), models it does not know or cannot download, and words it did not understand (said under it)."""
    lines = [*outside_notes(parsed.outside)]
    lines += model_notes(parsed.unknown_models, parsed.closed_models, parsed.stand_ins)
    lines.append(not_understood_line(parsed.unknown))
    return tuple(spoken(line, language) for line in lines if line)


def model_notes(
    unknown: tuple[str, ...],
    closed: tuple[tuple[str, str, str], ...],
    stand_ins: tuple[tuple[str, str], ...] = (),
) -> list[Text]:
    """A line per model the reading could not size as named: one the model table lacks (asking for its size),
    a version it lacks (naming the family's model sized in its place) and one with no weights to download
    (naming the open model sized in its place)."""
    lines: list[Text] = [Phrase("understand.unknown_model", {"name": name}) for name in unknown]
    lines += [
        Phrase("understand.stand_in", {"name": name, "model": model})
        if model
        else Phrase("understand.generic_model", {"name": name})
        for name, model in stand_ins
    ]
    lines += [
        Phrase("understand.closed_model", {"name": name, "maker": maker, "open_model": open_model})
        for name, maker, open_model in closed
    ]
    return lines


def outside_notes(kinds: tuple[str, ...]) -> list[Text]:
    """A line per kind of hardware asked about that the catalog does not hold ("laptop"): the answer is for
    the cards it holds, and says so."""
    return [Phrase(f"understand.outside.{kind}") for kind in kinds]


def not_understood_line(words: tuple[str, ...]) -> Text:
    """The words no reading took, named back so the asker can rephrase; a lone "00" or "$" is what a shell
    leaves of "$800" in double quotes, so those get a hint about quoting. Empty when every word was read."""
    if not words:
        return ""
    line = Phrase("understand.not_understood", {"items": ", ".join(f"'{w}'" for w in words)})
    if any(w.strip("0") == "" or w in ("$", "€", "£", "₽") for w in words):
        return Joined((line, " ", Phrase("understand.shell_quoting")))
    return line
