"""``whichgpu bot`` (Socket Mode) refuses to start without its tokens, with a message that says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import create_bolt_app
from bot.socket import run
from service.settings import Settings, SettingsError


def test_missing_app_token_is_a_clear_error(tmp_path: Path):
    with pytest.raises(SettingsError, match="SLACK_APP_TOKEN is not set"):
        run(Settings(data_dir=tmp_path, slack_bot_token="xoxb-1", slack_app_token=None))


def test_a_bot_token_in_place_of_the_app_token_is_caught(tmp_path: Path):
    with pytest.raises(SettingsError, match="start with xapp-"):
        run(Settings(data_dir=tmp_path, slack_bot_token="xoxb-1", slack_app_token="xoxb-1"))


def test_missing_bot_token_is_a_clear_error(tmp_path: Path):
    with pytest.raises(SettingsError, match="SLACK_BOT_TOKEN is not set"):
        run(Settings(data_dir=tmp_path, slack_bot_token=None, slack_app_token="xapp-1"))


def test_the_app_uses_the_configured_web_api_url_and_acks_inline(tmp_path: Path):
    app = create_bolt_app(Settings(data_dir=tmp_path, slack_bot_token="xoxb-1", slack_api_url="http://127.0.0.1:9/api/"))
    assert app.client.base_url == "http://127.0.0.1:9/api/"
    assert app.process_before_response is True  # acks inline; the work is in lazy listeners
