"""The knowledge the engine reads: loaded once, read-only, from one snapshot file.

    from rules.knowledge import load_knowledge
    knowledge = load_knowledge()
    knowledge.catalog.find("3090"); knowledge.rulebook.memory_fit.tight_headroom

Modules, each importing only those listed before it: the records and their parsing,
:mod:`~rules.knowledge.datafile` (JSON Schema and data files), :mod:`~rules.knowledge.records`
(cards, prices, offers, rates), :mod:`~rules.knowledge.names` (the one name resolver),
:mod:`~rules.knowledge.catalog` (the catalog of them), :mod:`~rules.knowledge.rulebook` and
:mod:`~rules.knowledge.parameters` (rules with typed parameters), :mod:`~rules.knowledge.models`
(the model table), :mod:`~rules.knowledge.templates` (the answers' prose as templates) and
:mod:`~rules.knowledge.contents` (what the knowledge holds); then :mod:`~rules.knowledge.build`
(reading and checking ``rules/data``); then :mod:`~rules.knowledge.store` (the snapshot on disk and
the process's one copy); and on top the accessors of the loaded knowledge,
:mod:`~rules.knowledge.loaded` (catalog, rulebook, models) and :mod:`~rules.knowledge.messages`
(:func:`~rules.knowledge.messages.say` and its kin).

Errors::

    ValueError
    └── DataFileError      a data file is missing, not JSON, or breaks its schema or a check
        └── CatalogError   ... one of the catalog's files
"""

from rules.knowledge.catalog import Catalog, CatalogError
from rules.knowledge.contents import Knowledge
from rules.knowledge.datafile import DataFileError
from rules.knowledge.models import ModelSpec
from rules.knowledge.names import Resolution
from rules.knowledge.records import (
    PRECISIONS,
    Architecture,
    CloudOffer,
    CurrencyRate,
    Gpu,
    PricePoint,
    TpuSpec,
)
from rules.knowledge.rulebook import Rule, Rulebook
from rules.knowledge.store import load_knowledge
from rules.knowledge.templates import Messages

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
