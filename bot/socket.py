"""Slack over Socket Mode: ``whichgpu bot`` (no public URL needed).

The same bolt app as the HTTP endpoint, connected with an app-level token
(``SLACK_APP_TOKEN``, xapp-…, scope ``connections:write``). Turn Socket Mode on in
the app's settings first (docs/slack.md).
"""

from __future__ import annotations

import asyncio
import gc
import logging

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

from bot.app import create_bolt_app
from bot.settings import BotSettings
from rules.settings import SettingsError

__all__ = ["run", "serve"]

log = logging.getLogger("whichgpu.bot")


def _check(settings: BotSettings) -> None:
    if not settings.slack_app_token:
        raise SettingsError("SLACK_APP_TOKEN is not set: Socket Mode needs an app-level token (xapp-…) with "
                            "connections:write; see docs/slack.md, "
                            "or serve Slack over HTTP with `whichgpu serve`")
    if not settings.slack_app_token.startswith("xapp-"):
        raise SettingsError("SLACK_APP_TOKEN does not look like an app-level token "
                            "(it should start with xapp-)")
    if not settings.slack_bot_token:
        raise SettingsError("SLACK_BOT_TOKEN is not set: the bot needs its xoxb- token (see docs/slack.md)")


async def serve(settings: BotSettings) -> None:
    """Connect and answer until cancelled."""
    _check(settings)
    handler = AsyncSocketModeHandler(create_bolt_app(settings), settings.slack_app_token)
    log.info("whichgpu bot: Socket Mode, answers from %s", settings.api_url)
    try:
        await handler.start_async()
    finally:
        await handler.close_async()


def run(settings: BotSettings) -> None:
    """Blocking entry point for ``whichgpu bot``; SettingsError when a token is missing.

    Everything imported at start-up is frozen out of the garbage collector's reach
    (``gc.freeze()``): a full collection over it blocks the event loop for ~100 ms,
    and acks wait for it (benchmarks/slack_ack.py ``--gc-freeze``).
    """
    _check(settings)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    gc.collect()
    gc.freeze()
    asyncio.run(serve(settings))
