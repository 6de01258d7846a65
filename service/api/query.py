"""Typed query parameters: what every GET endpoint with a query string shares.

Handlers declare each query parameter as ``Annotated[type, QueryParameter(...)]`` (range, pattern), so
Litestar parses, bounds and documents it; a value it cannot take becomes a 422 problem
naming the parameter (:mod:`service.problems`). :func:`known_parameters_only` is the guard
that refuses what typing cannot see: a parameter the handler does not declare, or one
given twice.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler
from litestar.params import QueryParameter

from service.problems import InvalidInput

__all__ = ["known_parameters_only", "schema_bounds"]


@cache
def _declared(handler: BaseRouteHandler) -> frozenset[str]:
    names = set()
    for name, field in handler.parsed_fn_signature.parameters.items():
        kwarg = field.kwarg_definition
        if isinstance(kwarg, QueryParameter):
            names.add(kwarg.name or name)
    return frozenset(names)


def known_parameters_only(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """Guard: refuse an unknown or repeated query parameter by name (422), before anything is parsed."""
    known = _declared(handler)
    seen: set[str] = set()
    for name, _ in connection.query_params.multi_items():
        if name not in known:
            raise InvalidInput(
                f"unknown query parameter {name[:60]!r}; known: {', '.join(sorted(known))}",
                [{"field": name[:60], "message": "unknown query parameter"}],
            )
        if name in seen:
            raise InvalidInput(
                f"query parameter {name!r} is given twice",
                [{"field": name, "message": "given more than once"}],
            )
        seen.add(name)


def schema_bounds(schema: dict[str, Any], name: str) -> dict[str, Any]:
    """``Parameter`` keywords for property ``name`` of a published JSON Schema (its range and pattern),
    so a typed parameter and the schema that documents it cannot drift apart."""
    prop = schema["properties"][name]
    keywords = {
        "ge": "minimum",
        "gt": "exclusiveMinimum",
        "le": "maximum",
        "lt": "exclusiveMaximum",
        "pattern": "pattern",
        "min_length": "minLength",
        "max_length": "maxLength",
        "description": "description",
    }
    return {kw: prop[key] for kw, key in keywords.items() if key in prop}
