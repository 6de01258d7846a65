"""Free text in, answer out: the one path the CLI, `/v1/ask`, chat completions and the bot share.

Text the parser cannot use gets a short clarifying reply that says what was
understood and what is missing, never an error; values out of range (a future
date) raise :class:`~rules.question.QuestionError` for the face to report.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from rules.engine import Advisor
from rules.parser import parse, text_language
from rules.question import Question
from rules.render import answer_markdown, clarification_markdown, help_text

__all__ = ["Reply", "ask", "follow_ups"]


@dataclass(frozen=True)
class Reply:
    text: str
    intent: str
    question: Question | None
    recommendation: dict[str, Any] | None
    understood: tuple[str, ...]
    follow_up: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "answer": self.text,
            "intent": self.intent,
            "query": self.question.to_dict() if self.question else None,
            "understood": list(self.understood),
            "recommendation": self.recommendation,
            "follow_up": list(self.follow_up),
        }


def follow_ups(question: Question) -> tuple[str, ...]:
    """Next questions that refine this one (each understood by the parser as a follow-up)."""
    options = ["cheaper?", f"what about {question.gpus + 1} of them?" if question.gpus < 4 else "what about 2 of them?"]
    options.append("and for rnn?" if question.workload != "rnn" else "and for transformers?")
    options.append("more memory?")
    if not question.used_ok:
        options.append("with used cards?")
    return tuple(options)


def ask(advisor: Advisor, text: str, previous: Question | None = None, today: date | None = None) -> Reply:
    parsed = parse(text, previous=previous, today=today)
    language = parsed.question.language or text_language(text)
    if parsed.intent == "help":
        return Reply(help_text(language), "help", previous, None, parsed.understood, ("nlp $800", "fit llama 13b fp16", "compare 3090 4090"))
    if parsed.needs_clarification:
        return Reply(clarification_markdown(list(parsed.understood), list(parsed.unknown), language), "clarify", previous, None,
                     parsed.understood, ("nlp $800", "cv 2 gpus 3000", "help"))
    answer = advisor.recommend(parsed.question, intent=parsed.intent, today=today).to_dict()
    return Reply(answer_markdown(answer), parsed.intent, parsed.question, answer, parsed.understood,
                 follow_ups(parsed.question))
