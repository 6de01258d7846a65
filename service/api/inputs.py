"""Request input: the published JSON Schemas, and reading a JSON body against one.

The schemas in ``service/schemas`` are both what ``GET /v1/schemas/{name}.json``
serves and what the handlers enforce, so the documentation cannot drift from the
checks. A body is read raw (so Litestar never rejects it first with other words),
checked for content type and size, parsed (:func:`parse_json`), then validated
(:func:`check`); every failure is an :class:`~service.problems.ApiError` naming the
field. Validators and error wording come from :mod:`rules.datafile`, the one home of
JSON Schema handling. A handler that declares a typed ``data`` puts :func:`body_matches` in
its guards: the body is judged there, in these words, before Litestar decodes it into the type.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec
from litestar import Request
from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler
from referencing import Registry, Resource

from bench_agent.schema import load_schema as load_run_schema
from rules import datafile
from service.problems import InvalidInput, MalformedBody, PayloadTooLarge, UnsupportedMediaType

__all__ = ["API_SCHEMA_DIR", "schema_names", "schema", "validator", "parse_json", "read_json", "read_as", "check", "schema_errors", "body_matches"]

T = TypeVar("T")

API_SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


@lru_cache(maxsize=1)
def _all() -> dict[str, dict[str, Any]]:
    found = {p.name.removesuffix(".schema.json"): json.loads(p.read_text(encoding="utf-8"))
             for p in sorted(API_SCHEMA_DIR.glob("*.schema.json"))}
    for name in datafile.schema_names():
        found.setdefault(name, datafile.load_schema(name))
    found["benchmark-run"] = load_run_schema()
    return found


def schema_names() -> list[str]:
    """Every schema ``/v1/schemas`` publishes: the API's, the data files', the bench agent's."""
    return sorted(_all())


def schema(name: str) -> dict[str, Any] | None:
    return _all().get(name)


@lru_cache(maxsize=1)
def _registry() -> Registry:
    resources = [(doc["$id"], Resource.from_contents(doc)) for doc in _all().values() if isinstance(doc.get("$id"), str)]
    return Registry().with_resources(resources)


@lru_cache(maxsize=None)
def validator(name: str) -> Any:
    """A compiled validator for a published schema (``$ref`` to sibling schemas resolve)."""
    document = schema(name)
    if document is None:
        raise KeyError(f"no schema {name!r}")
    return datafile.validator(document, registry=_registry())


def schema_errors(name: str, document: Any) -> list[dict[str, str]]:
    """``[{field, message}]`` for everything ``document`` breaks in schema ``name``."""
    return datafile.schema_errors(validator(name), document)


def invalid(name: str, errors: list[dict[str, str]], what: str = "request body") -> InvalidInput:
    """The 422 problem for ``errors`` against schema ``name``, linking to the published schema."""
    shown = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:3])
    return InvalidInput(f"the {what} does not match schema {name}.json: {shown}", errors[:datafile.MAX_ERRORS],
                        schema=f"/v1/schemas/{name}.json")


def check(name: str, document: Any, what: str = "request body") -> Any:
    """Return ``document`` if it satisfies schema ``name``, else raise :class:`InvalidInput`."""
    errors = schema_errors(name, document)
    if errors:
        raise invalid(name, errors, what)
    return document


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def parse_json(content_type: str | None, raw: bytes, max_bytes: int) -> Any:
    """A JSON body parsed strictly (no NaN or Infinity), after its content type and size are checked."""
    if not _is_json(content_type or ""):
        raise UnsupportedMediaType(f"send the body as application/json, not {content_type or 'no content type'!r}",
                                   [{"field": "content-type", "message": "expected application/json"}])
    if len(raw) > max_bytes:
        raise PayloadTooLarge(f"the body is {len(raw)} bytes; at most {max_bytes} are accepted",
                              [{"field": "body", "message": f"larger than {max_bytes} bytes"}])
    try:
        return json.loads(raw, parse_constant=_not_json)
    except (UnicodeDecodeError, ValueError) as exc:
        raise MalformedBody(f"the body is not valid JSON: {exc}", [{"field": "body", "message": "not valid JSON"}]) from None
    except RecursionError:
        raise MalformedBody("the body nests too deeply", [{"field": "body", "message": "nested too deeply"}]) from None


async def read_json(request: Request[Any, Any, Any], schema_name: str, max_bytes: int) -> Any:
    """The request body parsed and validated against ``schema_name``."""
    document = parse_json(request.headers.get("content-type"), await request.body(), max_bytes)
    return check(schema_name, document)


async def read_as(request: Request[Any, Any, Any], schema_name: str, type_: type[T], max_bytes: int) -> T:
    """The request body as ``type_``, the msgspec type whose generated schema is ``schema_name``.

    A valid body decodes straight into the type: msgspec enforces the same constraints the schema
    states, in about a microsecond where a JSON Schema pass takes over 0.1 ms, the largest cost of a
    request after the answer itself. A body it refuses is read again by :func:`read_json`, so every
    problem is still worded and located by the schema."""
    raw = await request.body()
    if len(raw) <= max_bytes and _is_json(request.headers.get("content-type") or ""):
        try:
            return msgspec.json.decode(raw, type=type_)
        except msgspec.MsgspecError:
            pass
    return msgspec.convert(await read_json(request, schema_name, max_bytes), type_)


def body_matches(schema_name: str, generated_from: type | None = None
                 ) -> Callable[[ASGIConnection[Any, Any, Any, Any], BaseRouteHandler], Awaitable[None]]:
    """Guard: the body checked before Litestar decodes the handler's typed ``data``, so every refusal is
    one of our problems, worded by schema ``schema_name``.

    ``generated_from``: the type the schema is generated from, when it is (then :func:`read_as`'s fast
    path holds); without it every body gets the schema pass. Litestar keeps the body read here."""
    async def guard(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
        request: Request[Any, Any, Any] = Request(connection.scope, connection.receive)
        max_bytes = connection.app.state["api"].settings.max_body_bytes
        if generated_from is None:
            await read_json(request, schema_name, max_bytes)
        else:
            await read_as(request, schema_name, generated_from, max_bytes)

    return guard
