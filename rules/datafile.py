"""Reading the shipped data files, each checked against its JSON Schema first.

``rules/data/NAME.json`` is validated by ``rules/schemas/NAME.schema.json``. A file
that breaks its schema raises :class:`DataFileError` naming the file, the entry and
the field, and nothing of it is used: the product never runs on half-loaded data.
A file is validated once per content: after it passes, a marker named by the hash of
the file and its schema is left in the catalog's cache directory, and a later start
with the same bytes skips the check (and the jsonschema import).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

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
        raw = path.read_bytes()
        document = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise DataFileError(f"{shown}: file is missing") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataFileError(f"{shown}: not valid JSON: {exc}") from None
    marker = _valid_marker(name, raw)
    if marker is not None and marker.exists():
        return document
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(load_schema(name)).iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        raise DataFileError(f"{shown}: {describe(document, errors[0])}")
    if marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:  # a read-only cache only costs the check next time
            pass
    return document


def _valid_marker(name: str, raw: bytes) -> Path | None:
    """Where the fact "these bytes passed this schema" is kept; None when the schema is unreadable."""
    from rules.catalog import default_cache_dir  # one cache directory for everything built from the data

    try:
        schema = (SCHEMA_DIR / f"{name}.schema.json").read_bytes()
    except OSError:
        return None
    digest = hashlib.sha256(len(schema).to_bytes(8, "big") + schema + raw).hexdigest()
    return default_cache_dir() / f"valid-{name}-{digest[:32]}"


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
