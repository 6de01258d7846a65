"""The JSON Schema of a benchmark run payload (Draft 2020-12), shared with the service.

The service publishes it at ``GET /v1/schemas/benchmark-run.json`` and enforces it on
``POST /v1/benchmarks``; the agent's tests validate every payload it builds against it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA_PATH", "load_schema", "validate_payload", "payload_errors"]

SCHEMA_PATH = Path(__file__).with_name("schemas") / "benchmark-run.schema.json"


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return SCHEMA_PATH.read_text(encoding="utf-8")


def load_schema() -> dict[str, Any]:
    """A fresh copy of the benchmark-run schema (callers may mutate it)."""
    return json.loads(_schema_text())


def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)


def payload_errors(payload: dict[str, Any]) -> list[str]:
    """Every way ``payload`` breaks the schema, as ``path: message`` lines (empty when valid)."""
    return [
        f"{'/'.join(str(p) for p in err.absolute_path) or '(root)'}: {err.message}"
        for err in sorted(_validator().iter_errors(payload), key=lambda e: list(e.absolute_path))
    ]


def validate_payload(payload: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` when ``payload`` breaks the schema."""
    _validator().validate(payload)
