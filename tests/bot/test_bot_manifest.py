"""The Slack app manifest asks for exactly what the bot uses, at the URL the service serves."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.app import COMMAND

MANIFEST = Path(__file__).resolve().parents[2] / "deploy" / "slack-app-manifest.yaml"


def test_manifest_matches_the_bot():
    manifest = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    [command] = manifest["features"]["slash_commands"]
    assert command["command"] == COMMAND and command["url"] == "https://YOUR_HOST/slack/events"
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == {
        "commands", "chat:write", "app_mentions:read", "im:history", "im:read", "im:write"}
    events = manifest["settings"]["event_subscriptions"]
    assert set(events["bot_events"]) == {"app_mention", "message.im", "app_home_opened"}
    assert events["request_url"] == manifest["settings"]["interactivity"]["request_url"] == "https://YOUR_HOST/slack/events"
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["settings"]["socket_mode_enabled"] is False
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True
    assert len(manifest["display_information"]["long_description"]) >= 175  # Slack's minimum
