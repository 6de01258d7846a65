"""Slack over HTTP inside the Litestar service: ``POST /slack/events``.

slack-bolt has no Litestar adapter; this is one, in the shape of bolt's Starlette
adapter: the raw body, query and headers become an ``AsyncBoltRequest``, bolt
dispatches, and its ``BoltResponse`` becomes a Litestar ``Response``. The service
includes :func:`slack_routes` when ``settings.http_enabled``.

Before bolt sees anything, :class:`SlackGate` checks the request without parsing it:
the signature and a numeric timestamp within 5 minutes (401 otherwise), and that
this signature was not seen before (a replay inside the window, 401). Only then is
the body read as Slack's JSON or form (400 when it is not an object). A client that
aborts its upload is logged as one warning line.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import parse_qs

from litestar import Request, Response, post
from litestar.exceptions import InternalServerException
from litestar.handlers import HTTPRouteHandler
from slack_bolt.async_app import AsyncApp, AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.answers import AnswerSource
from bot.app import create_bolt_app
from bot.settings import BotSettings
from rules.settings import SettingsError

__all__ = [
    "ReplayStore",
    "SlackGate",
    "body_problem",
    "interaction_problem",
    "slack_routes",
    "to_bolt_request",
    "to_litestar_response",
]

WINDOW_S = 300  # Slack's own limit on a request's age
MAX_ACTIONS = 25  # Slack sends the one action clicked; a block holds at most 25 elements
ACTION_ID_LIMIT = 255  # Slack's limits on a block element's action_id and value
VALUE_LIMIT = 2000
log = logging.getLogger("whichgpu.bot")


class ReplayStore(Protocol):
    """Signatures already answered, shared by every replica (the service keeps them in its database)."""

    async def first_time(self, signature: str, stamp: int) -> bool:
        """Remember ``signature``; False when it was remembered before (a replay)."""
        ...


class SlackGate:
    """Signature, timestamp and replay checks, done on the raw bytes before any parsing.

    Signatures seen within the window are remembered (in this process; bounded), so a
    captured request cannot be played again while its timestamp is still fresh.
    """

    def __init__(self, signing_secret: str, max_remembered: int = 100_000) -> None:
        self._secret = signing_secret.encode()
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()
        self.max_remembered = max_remembered

    def refusal(self, headers: Mapping[str, str], body: bytes, now: float | None = None) -> str | None:
        """Why the request is refused (a short reason for the 401), or None to let it through."""
        now = time.time() if now is None else now
        stamp, signature = headers.get("x-slack-request-timestamp", ""), headers.get("x-slack-signature", "")
        if not stamp.isascii() or not stamp.isdigit() or len(stamp) > 12:
            return "missing or malformed x-slack-request-timestamp"
        if abs(now - int(stamp)) > WINDOW_S:
            return "x-slack-request-timestamp is more than 5 minutes off"
        signed = b"v0:" + stamp.encode() + b":" + body
        expected = "v0=" + hmac.new(self._secret, signed, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, signature):
            return "missing or wrong x-slack-signature"
        with self._lock:
            oldest_kept = now - WINDOW_S
            while self._seen and (next(iter(self._seen.values())) < oldest_kept
                                  or len(self._seen) >= self.max_remembered):
                self._seen.popitem(last=False)
            if signature in self._seen:
                return "this signed request was already received (a replay)"
            self._seen[signature] = int(stamp)
        return None


def body_problem(content_type: str, body: bytes) -> str | None:
    """Why a signed body is not one Slack sends (a JSON object, or a form whose payload is one), else None."""
    media = content_type.split(";", 1)[0].strip().lower()
    try:
        if media == "application/json":
            document = json.loads(body)
            return None if isinstance(document, dict) else "the JSON body is not an object"
        form = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=200)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return "the body is not valid JSON or form data"
    if "payload" in form:
        try:
            payload = json.loads(form["payload"][0])
        except (ValueError, RecursionError):
            return "the payload field is not valid JSON"
        if not isinstance(payload, dict):
            return "the payload field is not a JSON object"
        return interaction_problem(payload)
    return None


def interaction_problem(payload: dict[str, Any]) -> str | None:
    """Why an interaction payload is not one Slack sends for a block button, else None: a
    ``block_actions`` payload has one or more actions, each an object whose ``action_id`` and
    ``value`` are strings within Slack's limits (255 and 2,000 characters)."""
    if payload.get("type") != "block_actions":
        return None
    actions = payload.get("actions")
    if not isinstance(actions, list) or not actions or len(actions) > MAX_ACTIONS:
        return f"block_actions needs 1 to {MAX_ACTIONS} actions"
    for i, action in enumerate(actions):
        if not isinstance(action, dict) or not isinstance(action.get("action_id"), str):
            return f"actions[{i}] has no action_id"
        if len(action["action_id"]) > ACTION_ID_LIMIT:
            return f"actions[{i}].action_id is over {ACTION_ID_LIMIT} characters"
        value = action.get("value")
        if value is not None and (not isinstance(value, str) or len(value) > VALUE_LIMIT):
            return f"actions[{i}].value is not a string of at most {VALUE_LIMIT} characters"
    return None


def _plain(status: int, text: str) -> Response[bytes]:
    return Response(content=text.encode(), status_code=status, media_type="text/plain; charset=utf-8")


def to_bolt_request(request: Request, body: bytes) -> AsyncBoltRequest:
    """The bolt view of a Litestar request; every value of repeated headers kept."""
    headers: dict[str, str | Sequence[str]] = {name: request.headers.getall(name) for name in request.headers}
    return AsyncBoltRequest(body=body.decode("utf-8", errors="replace"), query=request.url.query,
                            headers=headers)


def to_litestar_response(bolt_response: BoltResponse) -> Response[bytes]:
    headers = dict(bolt_response.first_headers_without_set_cookie())
    media_type = headers.pop("content-type", "text/plain; charset=utf-8")
    return Response(content=bolt_response.body.encode("utf-8"), status_code=bolt_response.status,
                    headers=headers, media_type=media_type)


def slack_routes(settings: BotSettings, *, answers: AnswerSource | None = None, app: AsyncApp | None = None,
                 replays: ReplayStore | None = None) -> list[HTTPRouteHandler]:
    """Route handlers for Slack's slash commands, events and interactivity; the service passes ``answers``
    from its own engine, so the bot never calls back into its own process over HTTP, and ``replays``, so a
    request answered by one replica is refused by every other."""
    if not settings.slack_signing_secret and app is None:
        raise SettingsError("SLACK_SIGNING_SECRET is not set: Slack's HTTP requests cannot be verified")
    bolt = app or create_bolt_app(settings, answers=answers)
    gate = SlackGate(settings.slack_signing_secret) if settings.slack_signing_secret else None

    @post("/slack/events", status_code=200, tags=["slack"], operation_id="slackEvents",
          summary="Slack slash commands, events and interactivity (signed by Slack)")
    async def slack_events(request: Request) -> Response[bytes]:
        """Verify Slack's signature (401), refuse replays (401) and bodies Slack never sends (400),
        then hand the request to the bolt app."""
        try:
            body = await request.body()
        except InternalServerException:  # reading the body once, Litestar raises it only when the client left
            log.warning("slack request aborted by the client before its body arrived")
            return _plain(400, "incomplete request body")
        if gate is not None and (reason := gate.refusal(request.headers, body)) is not None:
            log.info("slack request refused: %s", reason)
            return _plain(401, reason)
        signature, stamp = request.headers.get("x-slack-signature", ""), request.headers.get(
            "x-slack-request-timestamp", "0")
        if gate is not None and replays is not None and not await replays.first_time(signature, int(stamp)):
            log.info("slack request refused: already answered by another replica")
            return _plain(401, "this signed request was already received (a replay)")
        if (problem := body_problem(request.headers.get("content-type", ""), body)) is not None:
            return _plain(400, problem)
        return to_litestar_response(await bolt.async_dispatch(to_bolt_request(request, body)))

    return [slack_events]
