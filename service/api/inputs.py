"""Request input: the published JSON Schemas, and reading a JSON body against one.

The schemas generated from the typed contract (:mod:`service.contract`) are both what
``GET /v1/schemas/{name}.json`` serves and what the handlers enforce, so the documentation
cannot drift from the checks; the catalog data files' schemas and the bench agent's
``benchmark-run`` are published beside them. A body is read raw (so Litestar never rejects it
first with other words), checked for content type and size, parsed (:func:`parse_json`), then validated
(:func:`check`); every failure is an :class:`~service.problems.ApiError` naming the
field. Validators and error wording come from :mod:`rules.datafile`, the one home of
JSON Schema handling. A handler that declares a typed ``data`` checks it with
:func:`checked_body` (its ``before_request``): the body is judged in these words before Litestar decodes it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from functools import cache, lru_cache
from typing import Any

import msgspec
from litestar import Request
from referencing import Registry, Resource

from bench_agent.schema import load_schema as load_run_schema
from rules.knowledge import datafile
from service import contract
from service.problems import InvalidInput, MalformedBody, PayloadTooLarge, UnsupportedMediaType

__all__ = [
    "check",
    "checked_body",
    "not_utf8",
    "parse_json",
    "schema",
    "schema_errors",
    "schema_names",
    "validator",
]


@lru_cache(maxsize=1)
def _all() -> dict[str, dict[str, Any]]:
    found = {name: contract.generate(name) for name in contract.PUBLISHED}
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
    resources = [
        (doc["$id"], Resource.from_contents(doc))
        for doc in _all().values()
        if isinstance(doc.get("$id"), str)
    ]
    return Registry().with_resources(resources)


@cache
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
    return InvalidInput(
        f"the {what} does not match schema {name}.json: {shown}",
        errors[: datafile.MAX_ERRORS],
        schema=f"/v1/schemas/{name}.json",
    )


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


def _envelope(content_type: str | None, raw: bytes, max_bytes: int) -> None:
    """Refuse a body that is not JSON by its content type, or is over ``max_bytes``."""
    if not _is_json(content_type or ""):
        raise UnsupportedMediaType(
            f"send the body as application/json, not {content_type or 'no content type'!r}",
            [{"field": "content-type", "message": "expected application/json"}],
        )
    if len(raw) > max_bytes:
        raise PayloadTooLarge(
            f"the body is {len(raw)} bytes; at most {max_bytes} are accepted",
            [{"field": "body", "message": f"larger than {max_bytes} bytes"}],
        )


def not_utf8(exc: UnicodeError) -> MalformedBody:
    """A body whose bytes are not UTF-8 (JSON's encoding): 400 naming the body and the first bad byte."""
    where = ""
    if isinstance(exc, UnicodeDecodeError):
        where = f": byte 0x{exc.object[exc.start]:02x} at position {exc.start}"
    return MalformedBody(
        f"the body is not valid UTF-8{where}; send JSON encoded as UTF-8",
        [{"field": "body", "message": "not valid UTF-8"}],
    )


def parse_json(content_type: str | None, raw: bytes, max_bytes: int) -> Any:
    """A JSON body parsed strictly (no NaN or Infinity), after its content type and size are checked."""
    _envelope(content_type, raw, max_bytes)
    try:
        return json.loads(raw, parse_constant=_not_json)
    except UnicodeError as exc:
        raise not_utf8(exc) from None
    except ValueError as exc:
        raise MalformedBody(
            f"the body is not valid JSON: {exc}", [{"field": "body", "message": "not valid JSON"}]
        ) from None
    except RecursionError:
        raise MalformedBody(
            "the body nests too deeply", [{"field": "body", "message": "nested too deeply"}]
        ) from None


def checked_body(
    schema_name: str, generated_from: type | None = None
) -> Callable[[Request[Any, Any, Any]], Awaitable[None]]:
    """The ``before_request`` hook of a handler that declares a typed ``data``: the body judged before
    Litestar decodes it (a hook, not a guard: a guard costs a copy of the handler per request).

    Litestar converts leniently ("true" would pass as a boolean), so the contract is enforced here:
    content type, size, then the schema's verdict in its words. ``generated_from``: the msgspec type
    the schema is generated from (tests/service/test_typed_body.py holds the two to one verdict); a
    body it decodes strictly is valid, in about a microsecond where a JSON Schema pass takes over
    0.1 ms, and only a body it refuses gets the schema pass, for the problem's wording."""

    async def hook(request: Request[Any, Any, Any]) -> None:
        raw, content_type = await request.body(), request.headers.get("content-type")
        max_bytes = request.route_handler.resolve_request_max_body_size() or len(raw)  # the app's limit
        _envelope(content_type, raw, max_bytes)
        refused = None
        if generated_from is not None:
            try:
                msgspec.json.decode(raw, type=generated_from)
                return
            except msgspec.MsgspecError as exc:
                refused = exc
            except UnicodeError as exc:  # msgspec checks UTF-8 inside strings and says so with this
                raise not_utf8(exc) from None
        check(schema_name, parse_json(content_type, raw, max_bytes))
        if refused is not None:  # a value JSON Schema cannot tell apart, e.g. 2.0 where a whole number is due
            raise invalid(schema_name, [_type_error(refused)])

    return hook


def _type_error(error: msgspec.MsgspecError) -> dict[str, str]:
    """msgspec's "Expected `int`, got `float` - at `$.gpus`" as ``{field, message}``."""
    message, _, where = str(error).partition(" - at `$")
    path = where.rstrip("`").replace("[", ".").replace("]", "").lstrip(".")
    return {"field": path or "body", "message": message}
