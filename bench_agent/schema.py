"""The JSON Schema of a benchmark run payload (Draft 2020-12), shared with the service.

The service publishes it at ``GET /v1/schemas/benchmark-run.json`` and enforces it on
``POST /v1/benchmarks``; the agent's tests validate every payload it builds against it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from rules.knowledge import datafile

__all__ = ["SCHEMA_PATH", "load_schema", "payload_errors", "validate_payload"]

SCHEMA_PATH = Path(__file__).with_name("schemas") / "benchmark-run.schema.json"


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return SCHEMA_PATH.read_text(encoding="utf-8")


def load_schema() -> dict[str, Any]:
    """A fresh copy of the benchmark-run schema (callers may mutate it)."""
    return json.loads(_schema_text())


@lru_cache(maxsize=1)
def _validator() -> Any:
    return datafile.validator(load_schema(), formats=True)


def payload_errors(payload: Any) -> list[dict[str, str]]:
    """Every way ``payload`` breaks the schema, as ``{field, message}`` (empty when valid)."""
    return datafile.schema_errors(_validator(), payload, limit=1000)


def validate_payload(payload: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` when ``payload`` breaks the schema."""
    _validator().validate(payload)
