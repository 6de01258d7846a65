"""``/v1/lab-prices``: this deployment's own prices (vendor quotes, trusted price lists), admin token only.

The same as ``whichgpu prices``: GET lists them, POST adds one or several (``{"prices": [...]}``, each
``gpu``, ``price``, ``currency`` (default USD), ``date`` (default today), ``source``), DELETE
``/v1/lab-prices/{id}`` removes one. Every failure is a problem+json: 401 without the admin token, 422
naming the field that cannot be a price, 404 for an unknown id. The answers use a change at once.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

import msgspec
from litestar import Controller, HttpMethod, Request, Response, delete, get, post, route
from litestar.di import NamedDependency
from litestar.enums import MediaType
from litestar.params import Body, HeaderParameter, PathParameter

from service.agents import is_admin
from service.api.docs import problems
from service.contract.lab_prices import LabPriceList, LabPriceRequest, LabPriceRow
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

__all__ = ["LabPriceController", "LabPriceItemController"]


def _listing(rows: list[LabPrice]) -> LabPriceList:
    return LabPriceList(tuple(msgspec.convert(row_json(r), LabPriceRow) for r in rows))


def _admin(settings: Settings, authorization: str | None) -> None:
    if not is_admin(authorization, settings.admin_token):
        detail = (
            "this deployment's prices need the admin token: `Authorization: Bearer <WHICHGPU_ADMIN_TOKEN>`"
        )
        raise Unauthorized(detail, [{"field": "authorization", "message": detail}])


def _checked(request: LabPriceRequest, holder: SnapshotHolder) -> list[NewPrice]:
    """Each price validated, or a 422 naming the item and field that is wrong."""
    catalog, today, checked = holder.get().catalog, date.today(), []
    for n, item in enumerate(request.prices):
        try:
            checked.append(
                validate(
                    catalog,
                    gpu=item.gpu,
                    price=item.price,
                    currency=item.currency,
                    seen=item.date or today.isoformat(),
                    source=item.source,
                    today=today,
                )
            )
        except LabPriceError as err:
            field = f"prices[{n}].{err.field}"
            raise InvalidInput(str(err), [{"field": field, "message": str(err)}]) from None
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
    def store(
        self,
        request: Request[Any, Any, Any],
        data: Annotated[LabPriceRequest, Body(media_type=MediaType.JSON, description="the prices to store")],
        settings: NamedDependency[Settings],
        holder: NamedDependency[SnapshotHolder],
    ) -> LabPriceList:
        """Store one price or several, all or none; the answers price those cards at them, shown as
        "your quote"."""
        _admin(settings, request.headers.get("authorization"))
        stored = add_prices(settings.resolved_database_url, _checked(data, holder))
        holder.rebuild_now()  # the admin reads the answers again at once
        return _listing(stored)

    @route("", http_method=[HttpMethod.OPTIONS], include_in_schema=False, sync_to_thread=False)
    def allowed_methods(self) -> Response[None]:
        """The methods of this path: GET lists, POST adds (the automatic answer forgets one). Litestar takes
        a controller's handlers by name, and the first of a path decides its OPTIONS: this one sorts first."""
        return Response(None, status_code=204, headers={"Allow": "GET, OPTIONS, POST"})


class LabPriceItemController(Controller):
    """One stored price (a controller of its own: the list's OPTIONS answer stays its own)."""

    path = "/v1/lab-prices/{price_id:str}"
    tags = ("lab prices",)

    @delete(
        "",
        operation_id="removeLabPrice",
        summary="Remove one of this deployment's prices",
        sync_to_thread=True,
        status_code=204,
        responses=problems(401, 404),
    )
    def remove(
        self,
        price_id: Annotated[str, PathParameter(description="the number the listing shows")],
        settings: NamedDependency[Settings],
        holder: NamedDependency[SnapshotHolder],
        authorization: Annotated[
            str | None, HeaderParameter(name="authorization", include_in_schema=False)
        ] = None,
    ) -> None:
        """Remove the price with this number."""
        _admin(settings, authorization)
        if not (price_id.isdigit() and len(price_id) < 10) or not remove_price(
            settings.resolved_database_url, int(price_id)
        ):
            detail = f"no price #{price_id}"
            raise NotFound(detail, [{"field": "price_id", "message": detail}])
        holder.rebuild_now()  # the admin reads the answers again at once
