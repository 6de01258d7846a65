"""The GPU catalog's names where they used to live; they are now in :mod:`rules.knowledge`.

Kept until every caller imports from :mod:`rules.knowledge.catalog` and
:mod:`rules.knowledge.store`.
"""

from rules.knowledge.catalog import (
    DATA_FILES,
    PRECISIONS,
    Architecture,
    Catalog,
    CatalogError,
    CloudOffer,
    CurrencyRate,
    Gpu,
    PricePoint,
    TpuSpec,
    load_catalog,
)
from rules.knowledge.datafile import DATA_DIR, SCHEMA_DIR
from rules.knowledge.names import Resolution
from rules.knowledge.store import default_cache_dir

__all__ = [
    "DATA_DIR",
    "DATA_FILES",
    "PRECISIONS",
    "SCHEMA_DIR",
    "Architecture",
    "Catalog",
    "CatalogError",
    "CloudOffer",
    "CurrencyRate",
    "Gpu",
    "PricePoint",
    "Resolution",
    "TpuSpec",
    "default_cache_dir",
    "load_catalog",
]
