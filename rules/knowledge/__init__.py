"""The knowledge the engine reads: loaded once, read-only, from one snapshot file.

    from rules.knowledge import load_knowledge
    knowledge = load_knowledge()
    knowledge.catalog.find("3090"); knowledge.rulebook.memory_fit.tight_headroom

Modules: :mod:`~rules.knowledge.catalog` (cards, prices, offers, rates),
:mod:`~rules.knowledge.names` (the one name resolver), :mod:`~rules.knowledge.rulebook`
and :mod:`~rules.knowledge.parameters` (rules with typed parameters),
:mod:`~rules.knowledge.models` (the model table), :mod:`~rules.knowledge.messages`
(the answers' prose), :mod:`~rules.knowledge.datafile` (JSON Schema and data files),
:mod:`~rules.knowledge.build` (reading and checking ``rules/data``) and
:mod:`~rules.knowledge.store` (the snapshot on disk and the process's one copy).

Errors::

    ValueError
    └── DataFileError      a data file is missing, not JSON, or breaks its schema or a check
        └── CatalogError   ... one of the catalog's files
"""

from rules.knowledge.catalog import (
    PRECISIONS,
    Architecture,
    Catalog,
    CatalogError,
    CloudOffer,
    CurrencyRate,
    Gpu,
    PricePoint,
    TpuSpec,
)
from rules.knowledge.datafile import DataFileError
from rules.knowledge.messages import Messages
from rules.knowledge.models import ModelSpec
from rules.knowledge.names import Resolution
from rules.knowledge.rulebook import Rule, Rulebook
from rules.knowledge.store import Knowledge, load_knowledge

__all__ = [
    "PRECISIONS",
    "Architecture",
    "Catalog",
    "CatalogError",
    "CloudOffer",
    "CurrencyRate",
    "DataFileError",
    "Gpu",
    "Knowledge",
    "Messages",
    "ModelSpec",
    "PricePoint",
    "Resolution",
    "Rule",
    "Rulebook",
    "TpuSpec",
    "load_knowledge",
]
