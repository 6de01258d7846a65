"""Slack over HTTP inside the Litestar service: ``POST /slack/events``.

slack-bolt has no Litestar adapter; this is one, in the shape of bolt's Starlette
adapter: the raw body, query and headers become an ``AsyncBoltRequest``, bolt
verifies the signature (401 when it is missing, wrong, or the timestamp is more
than 5 minutes off), dispatches, and its ``BoltResponse`` becomes a Litestar
``Response``. The service includes :func:`slack_routes` when
``settings.slack_enabled``.
"""

from __future__ import annotations

from litestar import Request, Response, post
from litestar.handlers import HTTPRouteHandler
from slack_bolt.async_app import AsyncApp, AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.api import WhichgpuAPI
from bot.app import create_bolt_app
from service.settings import Settings, SettingsError

__all__ = ["slack_routes", "to_bolt_request", "to_litestar_response"]


def to_bolt_request(request: Request, body: bytes) -> AsyncBoltRequest:
    """The bolt view of a Litestar request; every value of repeated headers kept."""
    headers = {name: request.headers.getall(name) for name in request.headers.keys()}
    return AsyncBoltRequest(body=body.decode("utf-8", errors="replace"), query=request.url.query, headers=headers)


def to_litestar_response(bolt_response: BoltResponse) -> Response[bytes]:
    headers = dict(bolt_response.first_headers_without_set_cookie())
    media_type = headers.pop("content-type", "text/plain; charset=utf-8")
    return Response(content=bolt_response.body.encode("utf-8"), status_code=bolt_response.status,
                    headers=headers, media_type=media_type)


def slack_routes(settings: Settings, *, api: WhichgpuAPI | None = None, app: AsyncApp | None = None) -> list[HTTPRouteHandler]:
    """Route handlers for the service app: Slack's slash commands, events and interactivity."""
    if not settings.slack_signing_secret and app is None:
        raise SettingsError("SLACK_SIGNING_SECRET is not set: Slack's HTTP requests cannot be verified")
    bolt = app or create_bolt_app(settings, api=api)

    @post("/slack/events", status_code=200, tags=["slack"], operation_id="slackEvents",
          summary="Slack slash commands, events and interactivity (signed by Slack)")
    async def slack_events(request: Request) -> Response[bytes]:
        """Verify Slack's signature and hand the request to the bolt app."""
        body = await request.body()
        return to_litestar_response(await bolt.async_dispatch(to_bolt_request(request, body)))

    return [slack_events]
