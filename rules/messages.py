"""The answers' fixed prose in the asker's language, from one message catalogue.

``rules/data/messages.json`` holds every heading, label and template the renderers
print, in each language the product speaks (English and Russian), validated by its
schema. :func:`say` fills a template; names, numbers and rule ids pass through
unchanged. A question's ``language`` (set by the parser) picks the language; None
and unknown languages read English.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from rules.datafile import load_data

__all__ = ["DEFAULT_LANGUAGE", "say", "term", "basis", "cited", "languages", "catalogue"]

DEFAULT_LANGUAGE = "en"


@lru_cache(maxsize=1)
def catalogue() -> dict[str, dict[str, str]]:
    """Message key -> language -> template."""
    return load_data("messages")["messages"]


def languages() -> tuple[str, ...]:
    return tuple(load_data("messages")["languages"])


_TEMPLATES: dict[tuple[str, str | None], str] = {}  # (key, language or None) -> template: one lookup per message


def _templates() -> dict[tuple[str, str | None], str]:
    if not _TEMPLATES:
        for key, entry in catalogue().items():
            _TEMPLATES[key, None] = entry[DEFAULT_LANGUAGE]
            for language, template in entry.items():
                _TEMPLATES[key, language] = template or entry[DEFAULT_LANGUAGE]
    return _TEMPLATES


def say(key: str, language: str | None = None, /, **values: Any) -> str:
    """The message ``key`` in ``language`` (English when None or unknown), with ``values`` filled in.
    An answer says some 75 messages, so the template is one dictionary lookup away."""
    template = (_TEMPLATES or _templates()).get((key, language))
    if template is None:
        template = catalogue()[key][DEFAULT_LANGUAGE]  # a language the catalogue lacks reads English; an unknown key raises
    return template.format(**values) if values else template


@lru_cache(maxsize=4096)
def term(group: str, word: str, language: str | None = None) -> str:
    """A word the answer's data carries (a pick's label, a price kind) in ``language``; the word itself
    when the catalogue has no entry ``group.word`` for it. Cached: every answer asks for the same few."""
    key = f"{group}.{re.sub(r'[^a-z0-9]+', '_', word.lower()).strip('_')}"
    return say(key, language) if key in catalogue() else word


def basis(text: str, language: str | None = None) -> str:
    """An answer's performance basis ("estimated from specs", "measured on 2 lab hosts") in ``language``."""
    if (language or DEFAULT_LANGUAGE) == DEFAULT_LANGUAGE:
        return text  # the engine's own English words
    measured = re.match(r"measured on (\d+) lab host", text)
    return say("basis.measured_on", language, hosts=measured.group(1)) if measured else term("basis", text, language)


def cited(source: str, language: str | None = None) -> str:
    """A data file's source as an answer cites it: "work: what it says" in English; in another language the
    work alone, since the note after it is English."""
    return source if (language or DEFAULT_LANGUAGE) == DEFAULT_LANGUAGE else source.split(": ")[0]

