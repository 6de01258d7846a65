"""How a question's value is judged, in the words every face shows.

Each field's check is made from its type in the request (:func:`judge_for`), so the values and limits
published in the schema are the ones a question is held to, whichever face it came from.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from datetime import date
from functools import reduce
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from rules.contract.values import EARLIEST_AS_OF
from rules.errors import QuestionError

Judge = Callable[[str, Any], None]
Limits = dict[str, Any]


def as_of_refusal(day: date, today: date) -> str | None:
    """Why ``day`` cannot be a question's date, worded to follow the field's name on any face;
    None if it can."""
    if day < EARLIEST_AS_OF:
        return (
            f"must be on or after {EARLIEST_AS_OF.isoformat()}: the catalog starts in the deep-learning era"
        )
    if day > today:
        return f"{day.isoformat()} is in the future; the catalog only knows the past"
    return None


def one_of(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise QuestionError(name, f"unknown {name} {value!r}; expected one of: {', '.join(allowed)}")


def number(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
        isinstance(value, float) and math.isnan(value)
    ):
        raise QuestionError(name, f"{name} must be a number")


def _parts(hint: Any) -> tuple[Any, Limits, bool]:
    """A field's bare type, its msgspec constraints (``le``, ``max_length`` ...) and whether it may be
    None."""
    limits: Limits = {}
    optional = False
    while True:
        if get_origin(hint) is Annotated:
            for meta in hint.__metadata__:
                limits |= {
                    k: getattr(meta, k)
                    for k in ("gt", "ge", "le", "min_length", "max_length")
                    if getattr(meta, k, None) is not None
                }
            hint = get_args(hint)[0]
        elif get_origin(hint) in (Union, UnionType):
            kinds = [kind for kind in get_args(hint) if kind is not type(None)]
            optional, hint = len(kinds) < len(get_args(hint)), reduce(operator.or_, kinds)
        else:
            return hint, limits, optional


def _literal_judge(kind: Any, limits: Limits) -> Judge:
    allowed = get_args(kind)

    def judge(name: str, value: Any) -> None:
        if value not in allowed:
            one_of(name, value, allowed)

    return judge


def _bool_judge(kind: Any, limits: Limits) -> Judge:
    def judge(name: str, value: Any) -> None:
        if not isinstance(value, bool):
            raise QuestionError(name, f"{name} must be true or false")

    return judge


def _int_judge(kind: Any, limits: Limits) -> Judge:
    low, high = limits["ge"], limits["le"]

    def judge(name: str, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise QuestionError(name, f"{name} must be a whole number from {low} to {high}")

    return judge


def _float_judge(kind: Any, limits: Limits) -> Judge:
    above, high = limits["gt"], limits["le"]

    def judge(name: str, value: Any) -> None:
        number(name, value)
        if not above < value <= high:
            raise QuestionError(name, f"{name} must be above {above:g} and at most {high:g}")

    return judge


def _str_judge(kind: Any, limits: Limits) -> Judge:
    shortest, longest = limits["min_length"], limits["max_length"]

    def judge(name: str, value: Any) -> None:
        if not isinstance(value, str) or not shortest <= len(value) <= longest:
            raise QuestionError(name, f"{name} must be a short text")

    return judge


def _names_judge(kind: Any, limits: Limits) -> Judge:
    most, item = limits["max_length"], _parts(get_args(kind)[0])[1]

    def judge(name: str, value: Any) -> None:
        if len(value) > most or not all(
            isinstance(v, str) and item["min_length"] <= len(v) <= item["max_length"] for v in value
        ):
            raise QuestionError(name, f"{name} takes up to {most} GPU names")

    return judge


# The check made for each kind of field: by its generic origin (a Literal, a tuple), else by its type.
_JUDGE_MAKERS: dict[Any, Callable[[Any, Limits], Judge]] = {
    Literal: _literal_judge,
    tuple: _names_judge,
    bool: _bool_judge,
    int: _int_judge,
    float: _float_judge,
    str: _str_judge,
}


def judge_for(hint: Any) -> Judge:
    """The check of one field of the request, from its type hint."""
    kind, limits, optional = _parts(hint)
    make = _JUDGE_MAKERS.get(get_origin(kind) or kind)
    if make is None:
        raise TypeError(f"no check for a question field of type {kind!r}")
    judge = make(kind, limits)
    if not optional:
        return judge
    return lambda name, value: None if value is None else judge(name, value)
