"""JSON Schema in one place: validators, field-named errors, and the shipped data files read through them.

:func:`validator` compiles a Draft 2020-12 schema; :func:`schema_errors` lists what a
document breaks as ``{field, message}`` with the field as a dotted path (the API's
problem+json, the benchmark ingestion and the data files all speak this way).

``rules/data/NAME.json`` is validated by ``rules/schemas/NAME.schema.json``. A file
that breaks its schema raises :class:`DataFileError` naming the file, the entry and
the field, and nothing of it is used: the product never runs on half-loaded data.
:func:`locate` words where a problem sits ("entry 'x' (#3): field 'y'"), for every
loader of data files (the catalog's too) and for their own checks beyond the schema.
A file is validated once per content: after it passes, a marker named by the hash of
the file and its schema is left in the catalog's cache directory, and a later start
with the same bytes skips the check (and the jsonschema import).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["DATA_DIR", "SCHEMA_DIR", "DataFileError", "load_data", "load_schema", "schema_names", "validator",
           "data_validator", "schema_errors", "error_field", "schema_problem", "locate", "entry_label"]

DATA_DIR = Path(__file__).with_name("data")
SCHEMA_DIR = Path(__file__).with_name("schemas")
MAX_ERRORS = 10
MAX_MESSAGE = 300


class DataFileError(ValueError):
    """A data file is missing, not JSON, or breaks its schema."""


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


def schema_names() -> list[str]:
    return sorted(p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json"))


def validator(schema: dict[str, Any], *, registry: Any = None, formats: bool = False) -> Any:
    """A Draft 2020-12 validator for ``schema`` (``$ref`` resolved through ``registry``; ``formats``
    checks ``format`` keywords such as date-time). jsonschema is imported only when one is needed."""
    from jsonschema import Draft202012Validator

    options: dict[str, Any] = {"registry": registry} if registry is not None else {}
    if formats:
        options["format_checker"] = Draft202012Validator.FORMAT_CHECKER
    return Draft202012Validator(schema, **options)


@lru_cache(maxsize=None)
def data_validator(name: str) -> Any:
    """The compiled validator of ``rules/schemas/NAME.schema.json``."""
    return validator(load_schema(name))


def error_field(error: Any, root: str = "body") -> str:
    """The dotted path of the field at fault; for a missing or unexpected property, that property."""
    path = [str(p) for p in error.absolute_path]
    if error.validator == "required" and error.message.count("'") >= 2:
        path.append(error.message.split("'")[1])
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        extra = sorted(str(p) for p in error.instance if p not in error.schema.get("properties", {}))
        path += extra[:1]
    return ".".join(p for p in path if p) or root


def schema_errors(checker: Any, document: Any, root: str = "body", limit: int = MAX_ERRORS) -> list[dict[str, str]]:
    """``[{field, message}]`` for what ``document`` breaks in ``checker``'s schema, by field, at most ``limit``."""
    errors = sorted(checker.iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [{"field": error_field(e, root),
             "message": e.message if len(e.message) <= MAX_MESSAGE else e.message[:MAX_MESSAGE - 3] + "..."}
            for e in errors[:limit]]


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
    problem = schema_problem(data_validator(name), document)
    if problem is not None:
        raise DataFileError(f"{shown}: {problem}")
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


def entry_label(document: Any, list_key: str, index: int) -> str:
    """How an entry of a top-level list is named in a message: "'rtx-3090' (#12)" by its id (or gpu,
    instance, currency), "#12 of 'gpus'" when it has none."""
    try:
        entry = document[list_key][index]
    except (KeyError, IndexError, TypeError):
        entry = None
    if isinstance(entry, dict):
        for key in ("id", "gpu", "instance", "currency"):
            label = entry.get(key)
            if isinstance(label, str) and label:
                return f"{label!r} (#{index})"
    return f"#{index} of {list_key!r}"


def locate(document: Any, path: Sequence[str | int], message: str) -> str:
    """"entry 'x' (#3): field 'y.z': message": where in a data file a problem sits, for the schema's
    errors and a loader's own checks alike. An entry of a top-level list is named by its id; list
    positions inside an entry are left out of the field."""
    parts = []
    if len(path) >= 2 and isinstance(path[0], str) and isinstance(path[1], int):
        parts.append(f"entry {entry_label(document, path[0], path[1])}")
        path = path[2:]
    field = ".".join(str(step) for step in path if not isinstance(step, int))
    if field:
        parts.append(f"field {field!r}")
    return ": ".join([*parts, message])


def schema_problem(checker: Any, document: Any) -> str | None:
    """The located message of the error that best explains what ``document`` breaks; None when it is valid."""
    from jsonschema.exceptions import best_match

    error = best_match(checker.iter_errors(document))
    return None if error is None else locate(document, list(error.absolute_path), error.message)
