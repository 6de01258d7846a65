"""The answers' fixed prose in the asker's language, from one message catalogue.

``rules/data/messages.json`` holds every heading, label and template the renderers
print, in each language the product speaks (English and Russian), validated by its
schema. :func:`say` fills a template; names, numbers and rule ids pass through
unchanged. A question's ``language`` (set by the parser) picks the language; None
and unknown languages read English.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rules.datafile import load_data

__all__ = ["DEFAULT_LANGUAGE", "say", "language_of", "languages", "catalogue"]

DEFAULT_LANGUAGE = "en"


@lru_cache(maxsize=1)
def catalogue() -> dict[str, dict[str, str]]:
    """Message key -> language -> template."""
    return load_data("messages")["messages"]


def languages() -> tuple[str, ...]:
    return tuple(load_data("messages")["languages"])


def say(key: str, language: str | None = None, /, **values: Any) -> str:
    """The message ``key`` in ``language`` (English when None), with ``values`` filled in."""
    entry = catalogue()[key]
    template = entry.get(language or DEFAULT_LANGUAGE) or entry[DEFAULT_LANGUAGE]
    return template.format(**values) if values else template


def language_of(answer: dict[str, Any] | None) -> str:
    """The language an answer (its JSON form) is to be shown in: its question's, else English."""
    question = (answer or {}).get("question") or {}
    return question.get("language") or DEFAULT_LANGUAGE
