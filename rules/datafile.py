"""JSON Schema helpers where they used to live; they are now in :mod:`rules.knowledge.datafile`.

Kept until every caller imports from there. :func:`load_data` serves the shipped
``vocabulary.json`` from the loaded knowledge, where it was checked when the snapshot
was built, so that a start reads no schema; every other file is read and checked.
"""

from pathlib import Path
from typing import Any

from rules.knowledge import datafile
from rules.knowledge.datafile import (
    DATA_DIR,
    MAX_ERRORS,
    SCHEMA_DIR,
    DataFileError,
    data_validator,
    entry_label,
    error_field,
    load_schema,
    locate,
    schema_errors,
    schema_names,
    schema_problem,
    validator,
)

__all__ = ["DATA_DIR", "MAX_ERRORS", "SCHEMA_DIR", "DataFileError", "data_validator", "entry_label",
           "error_field", "load_data", "load_schema", "locate", "schema_errors", "schema_names",
           "schema_problem", "validator"]


def load_data(name: str, data_dir: Path = DATA_DIR) -> Any:
    """The parsed, schema-valid content of ``data_dir/NAME.json``."""
    if name == "vocabulary" and data_dir == DATA_DIR:
        from rules.knowledge.store import load_knowledge

        return load_knowledge().vocabulary
    return datafile.load_data(name, data_dir)
