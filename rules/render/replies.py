"""The replies that are no answer: what whichgpu understands (help), and a question back where the text
could not be used. Both are said in the asker's language from the message catalogue."""

from __future__ import annotations

from rules.knowledge.messages import Joined, Phrase, Text, spoken

__all__ = ["clarification_markdown", "help_text"]


def help_text(language: str | None = None) -> str:
    """What whichgpu understands, with examples, in ``language``; made when asked, never at import, so that a
    command that shows no help does not load the knowledge for it."""
    return spoken(Phrase("help"), language)


def clarification_markdown(understood: list[str], unknown: list[str], language: str | None = None) -> str:
    """A short clarifying answer for text the parser could not use, in the asker's language."""
    parts: list[Text] = []
    if understood:
        parts.append(Phrase("clarify.understood", {"items": "; ".join(understood)}))
    if unknown:
        parts.append(Phrase("clarify.unknown", {"items": ", ".join(f"“{u}”" for u in unknown[:6])}))
    parts.append(Phrase("clarify.hint"))
    return spoken(Joined(tuple(parts), " "), language)
