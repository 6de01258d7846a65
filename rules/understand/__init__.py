"""Free text -> :class:`~rules.question.Question`: one reading for the CLI, the API and the bot.

Why one: ``/whichgpu nlp $800``, ``whichgpu ask "nlp $800"`` and ``POST /v1/ask`` must read the same words the
same way, and say what they understood and what they did not, so a person can correct themselves instead of
getting a silent guess.

How: the text is cleaned (Slack markup, emoji and markdown dropped, lower case, ``ё`` -> ``е``: :mod:`.text`),
then passes run from the most specific grammar to the least (the order is :data:`.build.PASSES`): dates
(:mod:`.dates`), amounts of work ("100b tokens", "200 hours of audio"), llama.cpp types, context, batch and
users (:mod:`.units`), models with no weights to download and model names (:mod:`.models`),
money ranges and money with a currency (:mod:`.money`), hardware names (:mod:`.hardware`), memory, parameters,
hours and counts (:mod:`.units`), money after a budget word and currencies said alone (:mod:`.money`),
keywords (longest phrase first: :mod:`.words`), and last a bare number (:mod:`.money`). Each pass blanks what
it took, so a number is read once: "3090" is a card and never a budget, "13b" a model size. What remains,
minus filler words, is ``unknown``: every token is bound to a field, known as filler, or reported (the reply
names it: "Not understood: '00', 'zxqv'"); a word one slip from a vocabulary word is read again as that word
(:mod:`.spelling`). :mod:`.build` turns what the passes recorded into the question, applying follow-ups and
references to the answer before ("2 of them": :mod:`.followups`) and the text's language (:mod:`.language`).
Each module's docstring gives its decisions for ambiguous text, each pinned by a test. The words themselves
are data (:mod:`.grammar`); what understanding asks of the catalog, the model table and the job count goes
through :mod:`.lookups`.

``needs_clarification``: the intent is not "help" and the text changed no field.
"""

from __future__ import annotations

from datetime import date

from rules.contract.question import Question
from rules.contract.text import check_text
from rules.understand import spelling
from rules.understand.build import ParsedText, build, scan
from rules.understand.followups import HeldGb, ShownCards
from rules.understand.language import text_language
from rules.understand.text import clean
from rules.understand.words import unknown

__all__ = ["ParsedText", "clean", "parse", "text_language"]


def parse(
    text: str,
    previous: Question | None = None,
    today: date | None = None,
    held_gb: HeldGb | None = None,
    shown_cards: ShownCards | None = None,
) -> ParsedText:
    """Read ``text`` (refining ``previous`` when given); raises only :class:`~rules.question.QuestionError`.

    ``shown_cards``: the cards the previous answer showed, asked only when the text refers to one ("2 of
    them", "the cheaper one"). A word one slip from a vocabulary word is read as that word
    (:mod:`.spelling`).
    ``held_gb``: the memory the previous answer's top configuration holds, asked only when the text wants more
    memory, so that "more memory?" means more than the asker was shown (:func:`rules.ask.held_by`)."""
    today = today or date.today()
    cleaned = clean(check_text(text))
    read = scan(cleaned, today)
    fixes = spelling.corrections(unknown(read))
    if fixes:  # a slip of one letter: read again as typed right, and say so
        again = scan(spelling.corrected(cleaned, fixes), today)
        kept = {typed: word for typed, word in fixes.items() if word not in unknown(again)}
        if kept != fixes:  # a correction no grammar reads alone ("моделий") is no reading: left as typed
            again = scan(spelling.corrected(cleaned, kept), today)
        if kept:
            read, read.original, read.spelled = again, cleaned, kept
    return build(read, previous, today, held_gb, shown_cards)
