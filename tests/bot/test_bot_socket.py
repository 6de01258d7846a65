"""``whichgpu bot`` (Socket Mode) refuses to start without its tokens, with a message that says why."""

from __future__ import annotations

import pytest

from bot.app import create_bolt_app
from bot.socket import run
from bot.settings import BotSettings
from rules.settings import SettingsError


def test_missing_app_token_is_a_clear_error():
    with pytest.raises(SettingsError, match="SLACK_APP_TOKEN is not set"):
        run(BotSettings(slack_bot_token="xoxb-1", slack_app_token=None))


def test_a_bot_token_in_place_of_the_app_token_is_caught():
    with pytest.raises(SettingsError, match="start with xapp-"):
        run(BotSettings(slack_bot_token="xoxb-1", slack_app_token="xoxb-1"))


def test_missing_bot_token_is_a_clear_error():
    with pytest.raises(SettingsError, match="SLACK_BOT_TOKEN is not set"):
        run(BotSettings(slack_bot_token=None, slack_app_token="xapp-1"))


def test_the_app_uses_the_configured_web_api_url_and_acks_inline():
    app = create_bolt_app(BotSettings(slack_bot_token="xoxb-1", slack_api_url="http://127.0.0.1:9/api/"))
    assert app.client.base_url == "http://127.0.0.1:9/api/"
    assert app.process_before_response is True  # acks inline; the work is in lazy listeners


def test_socket_mode_acks_over_the_websocket_and_answers_through_response_url(fake_slack, ask_api, replies):
    """A local WebSocket stands in for Slack's Socket Mode server; the bot is the real bolt app."""
    import asyncio
    import json
    import socket

    from aiohttp import WSMsgType, web

    from bot.socket import serve
    from tests.fake_slack import block_text

    acks: list[dict] = []

    async def socket_mode(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(json.dumps({"type": "hello", "num_connections": 1}))
        payload = {"command": "/whichgpu", "text": "nlp $800", "user_id": "U0ASKER", "channel_id": "C0LAB",
                   "team_id": "T0WHICHGPU", "response_url": fake_slack.response_url("socket"), "trigger_id": "1.2.3"}
        await ws.send_str(json.dumps({"envelope_id": "env-1", "type": "slash_commands", "payload": payload,
                                      "accepts_response_payload": True}))
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                acks.append(json.loads(message.data))
        return ws

    async def scenario() -> None:
        server = web.Application()
        server.router.add_get("/link", socket_mode)
        runner = web.AppRunner(server)
        await runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        await web.SockSite(runner, sock).start()
        fake_slack.socket_mode_url = f"ws://127.0.0.1:{port}/link"
        settings = BotSettings(slack_bot_token="xoxb-socket-test", slack_app_token="xapp-1-socket-test",
                            slack_api_url=fake_slack.api_url, api_url="http://whichgpu-api.test")
        bot = asyncio.create_task(serve(settings))
        try:
            await asyncio.get_running_loop().run_in_executor(None, fake_slack.wait_for, "response_url")
        finally:
            bot.cancel()
            await asyncio.gather(bot, return_exceptions=True)
            await runner.cleanup()

    asyncio.run(asyncio.wait_for(scenario(), 30))
    [opened] = fake_slack.sent("apps.connections.open")
    assert opened.authorization == "Bearer xapp-1-socket-test"  # the app-level token opens the socket
    ack = next(a for a in acks if a.get("envelope_id") == "env-1")
    assert "Looking into" in ack["payload"]["text"]
    [answer] = fake_slack.sent("response_url")
    assert "Top pick" in block_text(answer.data["blocks"])
