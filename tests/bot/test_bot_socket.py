"""``whichgpu bot`` (Socket Mode) refuses to start without its tokens, with a message that says why."""

from __future__ import annotations

import pytest

from bot.app import create_bolt_app
from bot.settings import BotSettings
from bot.socket import run
from rules.settings import SettingsError
from tests.fake_slack import block_text, run_socket_mode_bot, slash_command_envelope


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
    settings = BotSettings(slack_bot_token="xoxb-socket-test", slack_app_token="xapp-1-socket-test",
                           slack_api_url=fake_slack.api_url, api_url="http://whichgpu-api.test")
    envelope = slash_command_envelope("nlp $800", fake_slack.response_url("socket"))
    acks = run_socket_mode_bot(fake_slack, settings, [envelope],
                               until=lambda: fake_slack.wait_for("response_url"))
    [opened] = fake_slack.sent("apps.connections.open")
    assert opened.authorization == "Bearer xapp-1-socket-test"  # the app-level token opens the socket
    ack = next(a for a in acks if a.get("envelope_id") == "env-1")
    assert "Looking into" in ack["payload"]["text"]
    [answer] = fake_slack.sent("response_url")
    assert "Top pick" in block_text(answer.data["blocks"])
