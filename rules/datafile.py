"""Reading the shipped data files, each checked against its JSON Schema first.

``rules/data/NAME.json`` is validated by ``rules/schemas/NAME.schema.json``. A file
that breaks its schema raises :class:`DataFileError` naming the file, the entry and
the field, and nothing of it is used: the product never runs on half-loaded data.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

__all__ = ["DATA_DIR", "SCHEMA_DIR", "DataFileError", "load_data", "load_schema", "schema_names"]

DATA_DIR = Path(__file__).with_name("data")
SCHEMA_DIR = Path(__file__).with_name("schemas")


class DataFileError(ValueError):
    """A data file is missing, not JSON, or breaks its schema."""


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


def schema_names() -> list[str]:
    return sorted(p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json"))


def load_data(name: str, data_dir: Path = DATA_DIR) -> Any:
    """The parsed, schema-valid content of ``data_dir/NAME.json``."""
    path = data_dir / f"{name}.json"
    shown = f"rules/data/{path.name}" if data_dir == DATA_DIR else str(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataFileError(f"{shown}: file is missing") from None
    except json.JSONDecodeError as exc:
        raise DataFileError(f"{shown}: not valid JSON: {exc}") from None
    errors = sorted(Draft202012Validator(load_schema(name)).iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        raise DataFileError(f"{shown}: {describe(document, errors[0])}")
    return document


def describe(document: Any, error: Any) -> str:
    """'entry 'x' (#3): field 'y': message' for the first schema error."""
    path = list(error.absolute_path)
    where, node = [], document
    for step in path:
        node = node[step]
        if isinstance(step, int):
            label = node.get("id") if isinstance(node, dict) else None
            where.append(f"entry {label!r} (#{step})" if label else f"entry #{step}")
        else:
            where.append(f"field {step!r}")
    return ": ".join([*where, error.message]) if where else error.message
