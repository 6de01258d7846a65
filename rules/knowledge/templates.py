"""The answers' message catalogue as the knowledge holds it: every template one lookup away.

:mod:`rules.knowledge.messages` says the messages of the loaded knowledge; this module only reads
``messages.json`` into :class:`Messages` when the knowledge is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["DEFAULT_LANGUAGE", "Messages"]

DEFAULT_LANGUAGE = "en"


@dataclass(frozen=True)
class Messages:
    """The catalogue as the knowledge holds it, with every template one dictionary lookup away
    (an answer says some 75 messages)."""

    languages: tuple[str, ...]
    catalogue: Mapping[str, Mapping[str, str]]  # message key -> language -> template
    templates: Mapping[tuple[str, str | None], str]  # (key, language or None) -> template

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> Messages:
        """The schema-valid ``messages.json``; a language an entry leaves empty reads English."""
        entries = document["messages"]
        templates: dict[tuple[str, str | None], str] = {}
        for key, entry in entries.items():
            templates[key, None] = entry[DEFAULT_LANGUAGE]
            for language, template in entry.items():
                templates[key, language] = template or entry[DEFAULT_LANGUAGE]
        return cls(
            tuple(document["languages"]),
            MappingProxyType({key: MappingProxyType(dict(entry)) for key, entry in entries.items()}),
            MappingProxyType(templates),
        )
