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
from rules.render import answer_markdown, clarification_markdown, help_text
from rules.understand import parse, text_language

Intent = Literal[
    "recommend", "compare", "fit", "help", "clarify"
]  # the parser's intents, as a reply carries them

__all__ = ["Detail", "Reply", "ask", "follow_ups", "held_by"]


def follow_ups(question: Question) -> tuple[str, ...]:
    """Next questions that refine this one (each understood by the parser as a follow-up)."""
    options = [
        "cheaper?",
        f"what about {question.gpus + 1} of them?" if question.gpus < 4 else "what about 2 of them?",
    ]
    options.append("and for rnn?" if question.workload != "rnn" else "and for transformers?")
    options.append("more memory?")
    if not question.used_ok:
        options.append("with used cards?")
    return tuple(options)


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


def ask(
    advisor: Advisor,
    text: str,
    previous: Question | None = None,
    today: date | None = None,
    shown: Answer | None = None,
    detail: Detail = "short",
) -> Reply:
    """Answer ``text``; the reply's Markdown is the short answer unless ``detail`` asks for the full one."""
    parsed = parse(text, previous=previous, today=today, held_gb=_shown(advisor, previous, today, shown))
    language = parsed.question.language or text_language(text)
    if parsed.intent == "help":
        return Reply(
            text=help_text(language),
            intent="help",
            question=previous,
            recommendation=None,
            understood=parsed.understood,
            follow_up=("nlp $800", "fit llama 13b fp16", "compare 3090 4090"),
        )
    if parsed.needs_clarification:
        return Reply(
            text=clarification_markdown(list(parsed.understood), list(parsed.unknown), language),
            intent="clarify",
            question=previous,
            recommendation=None,
            understood=parsed.understood,
            follow_up=("nlp $800", "cv 2 gpus 3000", "help"),
        )
    answer = advisor.recommend(parsed.question, intent=parsed.intent, today=today)
    return Reply(
        text=answer_markdown(answer, detail),
        intent=cast(Intent, parsed.intent),
        question=parsed.question,
        recommendation=answer,
        understood=parsed.understood,
        follow_up=follow_ups(parsed.question),
    )
