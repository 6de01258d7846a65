"""Free text in, answer out: the one path the CLI, `/v1/ask`, chat completions and the bot share.

Text the parser cannot use gets a short clarifying reply that says what was understood and what is missing,
never an error; values out of range (a future date) raise :class:`~rules.errors.QuestionError` for the face to
report. A follow-up reads the conversation as data: the question before, and the answer the asker saw
(``shown``), so that "more memory?" steps up from what that answer held.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Literal, cast

from rules.advisor import Advisor
from rules.contract.answer import Answer, Detail, Reply
from rules.contract.question import Question
from rules.render.markdown import answer_markdown, reading_notes
from rules.render.replies import clarification_markdown, help_text
from rules.understand import parse, text_language
from rules.understand.followups import next_questions

Intent = Literal[
    "recommend", "compare", "fit", "rent-or-buy", "upgrade", "what-runs-on", "help", "clarify"
]  # the parser's intents, as a reply carries them

__all__ = ["Detail", "Reply", "ask", "held_by"]


def held_by(answer: Answer) -> float | None:
    """What an answer led with holds, in GB: all its cards where they pool one job's memory (their effective
    memory covers every card), else one card; None when it led with nothing."""
    if not answer.picks:
        return None
    top = answer.picks[0]
    pooled = top.count > 1 and top.effective_memory_gb >= top.memory_gb * top.count
    return top.memory_gb * top.count if pooled else top.memory_gb


def _shown(
    advisor: Advisor, previous: Question | None, today: date | None, shown: Answer | None
) -> Callable[[], float | None]:
    """The memory the answer before held, read when a follow-up asks for more: from the answer the face kept,
    or, for a face that keeps only the question (a chat client sends its history as text), answered again
    from it."""

    def held() -> float | None:
        if shown is not None:
            return held_by(shown)
        return held_by(advisor.recommend(previous, today=today)) if previous is not None else None

    return held


def _shown_cards(
    advisor: Advisor, previous: Question | None, today: date | None, shown: Answer | None
) -> Callable[[], tuple[tuple[str, float], ...]]:
    """The cards the answer before showed, in its order with their prices, for "2 of them" or "the cheaper
    one": from the answer the face kept, else answered again from the question before."""

    def cards() -> tuple[tuple[str, float], ...]:
        answer = shown or (advisor.recommend(previous, today=today) if previous is not None else None)
        if answer is None:
            return ()
        picks = [*answer.picks, *(p for p in answer.alternatives.values() if p is not None)]
        return tuple(dict.fromkeys((p.gpu, p.unit_price.amount) for p in picks))

    return cards


def ask(
    advisor: Advisor,
    text: str,
    previous: Question | None = None,
    today: date | None = None,
    shown: Answer | None = None,
    detail: Detail = "short",
) -> Reply:
    """Answer ``text``; the reply's Markdown is the short answer unless ``detail`` asks for the full one."""
    parsed = parse(
        text,
        previous=previous,
        today=today,
        held_gb=_shown(advisor, previous, today, shown),
        shown_cards=_shown_cards(advisor, previous, today, shown),
    )
    language = parsed.question.language or text_language(text)
    if parsed.intent == "help":
        return Reply(
            text=help_text(language),
            intent="help",
            question=previous,
            recommendation=None,
            understood=parsed.understood,
            not_understood=parsed.unknown,
            follow_up=("nlp $800", "fit llama 13b fp16", "compare 3090 4090"),
        )
    if parsed.needs_clarification:
        return Reply(
            text=clarification_markdown(list(parsed.understood), list(parsed.unknown), language),
            intent="clarify",
            question=previous,
            recommendation=None,
            understood=parsed.understood,
            not_understood=parsed.unknown,
            follow_up=("nlp $800", "cv 2 gpus 3000", "help"),
        )
    answer = advisor.recommend(parsed.question, intent=parsed.intent, today=today)
    notes = reading_notes(parsed, language)
    leading = len(parsed.outside)  # "best laptop gpu": that the cards are desktop ones is said first
    return Reply(
        text="\n\n".join([*notes[:leading], answer_markdown(answer, detail), *notes[leading:]]),
        intent=cast(Intent, parsed.intent),
        question=parsed.question,
        recommendation=answer,
        understood=parsed.understood,
        not_understood=parsed.unknown,
        reading_notes=notes,
        follow_up=next_questions(parsed.question),
    )
