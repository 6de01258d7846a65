"""``/v1/lab-prices``: this deployment's own prices (vendor quotes, trusted price lists), admin token only.

The same as ``whichgpu prices``: GET lists them, POST adds one or several (a JSON object or a list of
them: ``gpu``, ``price``, ``currency`` (default USD), ``date`` (default today), ``source``), DELETE
``/v1/lab-prices/{id}`` removes one. Every failure is a problem+json: 401 without the admin token, 422
naming the field that cannot be a price, 404 for an unknown id. The answers use a change at once.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, delete, get, post
from litestar.di import NamedDependency
from litestar.params import HeaderParameter, PathParameter, RawBody

from service.agents import is_admin
from service.api.docs import problems
from service.api.inputs import parse_json
from service.contract.lab_prices import LabPriceList, LabPriceRow
from service.lab_prices import (
    LabPriceError,
    NewPrice,
    add_prices,
    list_prices,
    remove_price,
    row_json,
    validate,
)
from service.models import LabPrice
from service.problems import InvalidInput, NotFound, Unauthorized
from service.settings import Settings
from service.snapshot import SnapshotHolder

__all__ = ["LabPriceController"]

MAX_PRICES = 500  # one request's prices: a price list, not a data dump
FIELDS = ("gpu", "price", "currency", "date", "source")


def _listing(rows: list[LabPrice]) -> LabPriceList:
    return LabPriceList(tuple(msgspec.convert(row_json(r), LabPriceRow) for r in rows))


def _admin(settings: Settings, authorization: str | None) -> None:
    if not is_admin(authorization, settings.admin_token):
        detail = (
            "this deployment's prices need the admin token: `Authorization: Bearer <WHICHGPU_ADMIN_TOKEN>`"
        )
        raise Unauthorized(detail, [{"field": "authorization", "message": detail}])


def _checked(document: Any, holder: SnapshotHolder) -> list[NewPrice]:
    """Each price of the body validated, or a 422 naming the item and field that is wrong."""
    items = document if isinstance(document, list) else [document]
    if not items or len(items) > MAX_PRICES or not all(isinstance(i, dict) for i in items):
        detail = f"the body is one price object or a list of 1 to {MAX_PRICES} of them"
        raise InvalidInput(detail, [{"field": "body", "message": detail}])
    catalog, today, checked = holder.get().catalog, date.today(), []
    for n, item in enumerate(items):
        unknown = sorted(set(item) - set(FIELDS))
        where = f"[{n}]" if isinstance(document, list) else ""
        if unknown:
            detail = f"unknown field {unknown[0]!r}; a price has {', '.join(FIELDS)}"
            raise InvalidInput(detail, [{"field": f"body{where}.{unknown[0]}", "message": detail}])
        try:
            checked.append(
                validate(
                    catalog,
                    gpu=str(item.get("gpu") or ""),
                    price=item.get("price", ""),
                    currency=str(item.get("currency") or "USD"),
                    seen=str(item.get("date") or today.isoformat()),
                    source=str(item.get("source") or ""),
                    today=today,
                )
            )
        except LabPriceError as err:
            raise InvalidInput(
                str(err), [{"field": f"body{where}.{err.field}", "message": str(err)}]
            ) from None
    return checked


class LabPriceController(Controller):
    path = "/v1/lab-prices"
    tags = ("lab prices",)

    @get(
        "",
        operation_id="listLabPrices",
        summary="This deployment's own prices (admin token)",
        sync_to_thread=True,
        responses=problems(401),
    )
    def listing(
        self,
        settings: NamedDependency[Settings],
        authorization: Annotated[
            str | None, HeaderParameter(name="authorization", include_in_schema=False)
        ] = None,
    ) -> LabPriceList:
        """Every stored price, by card and date."""
        _admin(settings, authorization)
        return _listing(list_prices(settings.resolved_database_url))

    @post(
        "",
        operation_id="addLabPrices",
        summary="Add prices of this deployment's own (admin token)",
        sync_to_thread=True,
        status_code=201,
        responses=problems(400, 401, 413, 415, 422),
    )
    def add(
        self,
        request: Request[Any, Any, Any],
        body: RawBody,
        settings: NamedDependency[Settings],
        holder: NamedDependency[SnapshotHolder],
    ) -> LabPriceList:
        """Store one price (a JSON object) or several (a list); the answers price those cards at them,
        shown as "your quote"."""
        _admin(settings, request.headers.get("authorization"))
        document = parse_json(request.headers.get("content-type"), body, settings.max_body_bytes)
        stored = add_prices(settings.resolved_database_url, _checked(document, holder))
        holder.invalidate()
        return _listing(stored)

    @delete(
        "/{price_id:int}",
        operation_id="removeLabPrice",
        summary="Remove one of this deployment's prices",
        sync_to_thread=True,
        status_code=204,
        responses=problems(401, 404),
    )
    def remove(
        self,
        price_id: Annotated[int, PathParameter(description="the number the listing shows")],
        settings: NamedDependency[Settings],
        holder: NamedDependency[SnapshotHolder],
        authorization: Annotated[
            str | None, HeaderParameter(name="authorization", include_in_schema=False)
        ] = None,
    ) -> None:
        """Remove the price with this number."""
        _admin(settings, authorization)
        if not remove_price(settings.resolved_database_url, price_id):
            detail = f"no price #{price_id}"
            raise NotFound(detail, [{"field": "price_id", "message": detail}])
        holder.invalidate()
