"""Free text in, answer out: the one path the CLI, `/v1/ask`, chat completions and the bot share.

Text the parser cannot use gets a short clarifying reply that says what was
understood and what is missing, never an error; values out of range (a future
date) raise :class:`~rules.question.QuestionError` for the face to report.
"""

from __future__ import annotations

from datetime import date
from typing import Callable, Literal, cast

from rules.answer import Reply
from rules.advisor import Advisor
from rules.parser import parse, text_language
from rules.question import Question
from rules.render import answer_markdown, clarification_markdown, help_text

Intent = Literal["recommend", "compare", "fit", "help", "clarify"]  # the parser's intents, as a reply carries them

__all__ = ["Reply", "ask", "follow_ups", "held_by"]


def follow_ups(question: Question) -> tuple[str, ...]:
    """Next questions that refine this one (each understood by the parser as a follow-up)."""
    options = ["cheaper?", f"what about {question.gpus + 1} of them?" if question.gpus < 4 else "what about 2 of them?"]
    options.append("and for rnn?" if question.workload != "rnn" else "and for transformers?")
    options.append("more memory?")
    if not question.used_ok:
        options.append("with used cards?")
    return tuple(options)


def held_by(advisor: Advisor, previous: Question | None, today: date | None) -> Callable[[], float | None]:
    """What the answer to ``previous`` led with holds, in GB, for a 'more memory?' that follows it: all its cards
    where they pool one job's memory (their effective memory covers every card), else one card."""
    def held() -> float | None:
        if previous is None:
            return None
        picks = advisor.recommend(previous, today=today).picks
        if not picks:
            return None
        top = picks[0]
        return top.memory_gb * top.count if top.count > 1 and top.effective_memory_gb >= top.memory_gb * top.count else top.memory_gb
    return held


def ask(advisor: Advisor, text: str, previous: Question | None = None, today: date | None = None) -> Reply:
    parsed = parse(text, previous=previous, today=today, held_gb=held_by(advisor, previous, today))
    language = parsed.question.language or text_language(text)
    if parsed.intent == "help":
        return Reply(text=help_text(language), intent="help", question=previous, recommendation=None, understood=parsed.understood,
                     follow_up=("nlp $800", "fit llama 13b fp16", "compare 3090 4090"))
    if parsed.needs_clarification:
        return Reply(text=clarification_markdown(list(parsed.understood), list(parsed.unknown), language), intent="clarify",
                     question=previous, recommendation=None, understood=parsed.understood,
                     follow_up=("nlp $800", "cv 2 gpus 3000", "help"))
    answer = advisor.recommend(parsed.question, intent=parsed.intent, today=today)
    return Reply(text=answer_markdown(answer), intent=cast(Intent, parsed.intent), question=parsed.question, recommendation=answer,
                 understood=parsed.understood, follow_up=follow_ups(parsed.question))
