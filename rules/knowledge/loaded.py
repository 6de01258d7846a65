"""The parts of the process's one knowledge snapshot, for the code that reads them.

Every accessor reads :func:`rules.knowledge.store.load_knowledge`; the modules below the store (the
records, their parsing, the build) never do, so the package reads one way.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rules.knowledge.catalog import Catalog
from rules.knowledge.models import DownloadFormat, ModelSpec, slug
from rules.knowledge.rulebook import Rulebook
from rules.knowledge.store import load_knowledge

__all__ = ["find_format", "find_model", "load_catalog", "load_models", "load_rulebook"]


def load_catalog(
    data_dir: Path | None = None, *, cache_dir: Path | None = None, use_cache: bool = True
) -> Catalog:
    """The catalog of the loaded knowledge (see :func:`rules.knowledge.store.load_knowledge`)."""
    return load_knowledge(data_dir, cache_dir=cache_dir, use_cache=use_cache).catalog


def load_rulebook() -> Rulebook:
    """The rulebook of the loaded knowledge."""
    return load_knowledge().rulebook


def load_models() -> Mapping[str, ModelSpec]:
    """The model table of the loaded knowledge."""
    return load_knowledge().models


def find_model(name: str | None) -> ModelSpec | None:
    """The model a name or alias means ('llama 3 8b', 'sdxl'), or None."""
    return load_models().get(slug(name)) if name else None


def find_format(name: str | None) -> DownloadFormat | None:
    """The download format a name means ('q4_k_m', 'GGUF Q8_0', 'mxfp4'), or None."""
    return load_knowledge().formats.get(slug(name)) if name else None
