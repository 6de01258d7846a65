"""JSON Schema in one place: validators, field-named errors, and the shipped data files read through them.

:func:`validator` compiles a Draft 2020-12 schema; :func:`schema_errors` lists what a
document breaks as ``{field, message}`` with the field as a dotted path (the API's
problem+json, the benchmark ingestion and the data files all speak this way).

``rules/data/NAME.json`` is validated by ``rules/schemas/NAME.schema.json``. A file
that breaks its schema raises :class:`DataFileError` naming the file, the entry and
the field, and nothing of it is used: the product never runs on half-loaded data.
:func:`locate` words where a problem sits ("entry 'x' (#3): field 'y'"), for every
reader of data files and for the checks the knowledge makes beyond the schema.
The files the engine reads are validated when the knowledge snapshot is built
(:mod:`rules.knowledge.store`), never when a snapshot is read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rules.errors import DataFileError

__all__ = [
    "DATA_DIR",
    "MAX_ERRORS",
    "SCHEMA_DIR",
    "DataFileError",
    "data_validator",
    "entry_label",
    "error_field",
    "load_data",
    "load_schema",
    "locate",
    "parse_document",
    "read_bytes",
    "schema_errors",
    "schema_names",
    "schema_problem",
    "shown",
    "validator",
]

RULES_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = RULES_DIR / "data"
SCHEMA_DIR = RULES_DIR / "schemas"
MAX_ERRORS = 10
MAX_MESSAGE = 300


def load_schema(name: str) -> dict[str, Any]:
    """The parsed ``rules/schemas/NAME.schema.json``."""
    schema: dict[str, Any] = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return schema


def schema_names() -> list[str]:
    return sorted(p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json"))


def validator(schema: dict[str, Any], *, registry: Any = None, formats: bool = False) -> Any:
    """A Draft 2020-12 validator for ``schema`` (``$ref`` resolved through ``registry``; ``formats``
    checks ``format`` keywords such as date-time). jsonschema is imported only when one is needed."""
    from jsonschema import Draft202012Validator  # imported only where a check runs

    options: dict[str, Any] = {"registry": registry} if registry is not None else {}
    if formats:
        options["format_checker"] = Draft202012Validator.FORMAT_CHECKER
    return Draft202012Validator(schema, **options)


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


def schema_errors(
    checker: Any, document: Any, root: str = "body", limit: int = MAX_ERRORS
) -> list[dict[str, str]]:
    """``[{field, message}]`` for what ``document`` breaks in ``checker``'s schema, by field, at most
    ``limit``."""
    errors = sorted(checker.iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [
        {
            "field": error_field(e, root),
            "message": e.message if len(e.message) <= MAX_MESSAGE else e.message[: MAX_MESSAGE - 3] + "...",
        }
        for e in errors[:limit]
    ]


def shown(path: Path) -> str:
    """How a data file is named in a message: ``rules/data/gpus.json`` when shipped, else its path."""
    try:
        return path.resolve().relative_to(RULES_DIR.parent).as_posix()
    except ValueError:
        return str(path)


def read_bytes(path: Path, error: type[DataFileError] = DataFileError) -> bytes:
    """The bytes of a data file; ``error`` naming the file when it cannot be read."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise error(f"{shown(path)}: file is missing") from None
    except OSError as exc:
        raise error(f"{shown(path)}: cannot read: {exc.strerror or exc}") from None


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are unique: a second entry of one key would silently replace the first."""
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise ValueError(f"the key {key!r} appears twice in one object")
        document[key] = value
    return document


def parse_document(path: Path, raw: bytes, schema: str, error: type[DataFileError] = DataFileError) -> Any:
    """The parsed content of ``raw`` (read from ``path``), valid under ``rules/schemas/SCHEMA.schema.json``;
    ``error`` naming the file, the entry and the field when it is not."""
    try:
        document = json.loads(raw.decode("utf-8"), object_pairs_hook=_once_each)
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        raise error(f"{shown(path)}: not valid JSON: {exc}") from None
    problem = schema_problem(data_validator(schema), document)
    if problem is not None:
        raise error(f"{shown(path)}: {problem}")
    return document


def load_data(name: str, data_dir: Path = DATA_DIR) -> Any:
    """The parsed, schema-valid content of ``data_dir/NAME.json`` (checked on every call: the files the
    engine reads every start come from the knowledge snapshot instead)."""
    path = data_dir / f"{name}.json"
    return parse_document(path, read_bytes(path), name)


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
    """ "entry 'x' (#3): field 'y.z': message": where in a data file a problem sits, for the schema's
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
