"""Request input: the published JSON Schemas, and reading a body against one.

The schemas in ``service/schemas`` are both what ``GET /v1/schemas/{name}.json``
serves and what the handlers enforce, so the documentation cannot drift from the
checks. A body is read raw (so Litestar never rejects it first with other words),
checked for content type and size, parsed, then validated; every failure is an
:class:`~service.problems.ApiError` naming the field.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from litestar import Request
from referencing import Registry, Resource

from rules.datafile import load_schema as load_data_schema
from rules.datafile import schema_names as data_schema_names
from service.problems import InvalidInput, MalformedBody, PayloadTooLarge, UnsupportedMediaType

__all__ = ["API_SCHEMA_DIR", "schema_names", "schema", "validator", "read_json", "check", "schema_errors"]

API_SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
BENCHMARK_RUN_SCHEMA = Path(__file__).resolve().parents[2] / "bench_agent" / "schemas" / "benchmark-run.schema.json"
MAX_ERRORS = 10


def _api_names() -> list[str]:
    return sorted(p.name.removesuffix(".schema.json") for p in API_SCHEMA_DIR.glob("*.schema.json"))


@lru_cache(maxsize=1)
def _all() -> dict[str, dict[str, Any]]:
    found = {name: json.loads((API_SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8")) for name in _api_names()}
    for name in data_schema_names():
        found.setdefault(name, load_data_schema(name))
    if BENCHMARK_RUN_SCHEMA.exists():
        found["benchmark-run"] = json.loads(BENCHMARK_RUN_SCHEMA.read_text(encoding="utf-8"))
    return found


def schema_names() -> list[str]:
    """Every schema ``/v1/schemas`` publishes: the API's, the data files', the bench agent's."""
    return sorted(_all())


def schema(name: str) -> dict[str, Any] | None:
    return _all().get(name)


@lru_cache(maxsize=None)
def _registry() -> Registry:
    resources = [(doc["$id"], Resource.from_contents(doc)) for doc in _all().values() if isinstance(doc.get("$id"), str)]
    return Registry().with_resources(resources)


@lru_cache(maxsize=None)
def validator(name: str) -> Draft202012Validator:
    """A compiled validator for an API schema (``$ref`` to sibling schemas resolve)."""
    document = schema(name)
    if document is None:
        raise KeyError(f"no schema {name!r}")
    return Draft202012Validator(document, registry=_registry())


def _field(error: Any) -> str:
    path = [str(p) for p in error.absolute_path]
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else ""
        path.append(missing)
    elif error.validator == "additionalProperties":
        extra = [p for p in error.instance if p not in error.schema.get("properties", {})] if isinstance(error.instance, dict) else []
        if extra:
            path.append(str(sorted(extra)[0]))
    return ".".join(p for p in path if p) or "body"


def schema_errors(name: str, document: Any) -> list[dict[str, str]]:
    """``[{field, message}]`` for everything ``document`` breaks in schema ``name``."""
    errors = sorted(validator(name).iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    out: list[dict[str, str]] = []
    for error in errors[:MAX_ERRORS]:
        message = error.message if len(error.message) <= 300 else error.message[:297] + "..."
        out.append({"field": _field(error), "message": message})
    return out


def check(name: str, document: Any, what: str = "request body") -> Any:
    """Return ``document`` if it satisfies schema ``name``, else raise :class:`InvalidInput`."""
    errors = schema_errors(name, document)
    if errors:
        shown = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:3])
        raise InvalidInput(f"the {what} does not match schema {name}.json: {shown}", errors,
                           schema=f"/v1/schemas/{name}.json")
    return document


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


async def read_json(request: Request, schema_name: str, max_bytes: int) -> Any:
    """The request body parsed and validated against ``schema_name``."""
    content_type = request.headers.get("content-type", "")
    if not _is_json(content_type):
        raise UnsupportedMediaType(f"send the body as application/json, not {content_type or 'no content type'!r}",
                                   [{"field": "content-type", "message": "expected application/json"}])
    raw = await request.body()
    if len(raw) > max_bytes:
        raise PayloadTooLarge(f"the body is {len(raw)} bytes; at most {max_bytes} are accepted",
                              [{"field": "body", "message": f"larger than {max_bytes} bytes"}])
    try:
        document = json.loads(raw, parse_constant=_not_json)
    except (UnicodeDecodeError, ValueError) as exc:
        raise MalformedBody(f"the body is not valid JSON: {exc}", [{"field": "body", "message": "not valid JSON"}]) from None
    except RecursionError:
        raise MalformedBody("the body nests too deeply", [{"field": "body", "message": "nested too deeply"}]) from None
    return check(schema_name, document)
