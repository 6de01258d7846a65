"""Answers rendered for people: Markdown for the terminal, `/v1/ask` and chat, short or full (Block Kit,
HTML and SVG live with their faces in bot/ and service/)."""

from rules.render.markdown import answer_markdown, clarification_markdown, help_text

__all__ = ["answer_markdown", "clarification_markdown", "help_text"]
