"""The body of every refusal: RFC 9457 problem details with the fields named
(``application/problem+json``)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import UNSET, UnsetType

__all__ = ["FieldError", "Problem"]


class FieldError(msgspec.Struct, frozen=True):
    """One offending field (a dotted path into the body, a parameter's name, `body` or `path`) and why."""

    field: str
    message: str


class Problem(msgspec.Struct, kw_only=True, frozen=True):
    """RFC 9457 problem details, with an `errors` list naming each offending field."""

    type: str
    title: str
    status: Annotated[int, msgspec.Meta(ge=400, le=599)]
    detail: str
    instance: str
    errors: list[FieldError]
    schema: Annotated[str, msgspec.Meta(description="The published schema the input broke.")] | UnsetType = (
        UNSET
    )
