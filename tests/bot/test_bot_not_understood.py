"""A word the question's reading could not use reaches the Slack user: the real service answers a signed
slash command in process, and the reply names the word (and, for what a shell leaves of "$800", how to
quote)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bot.settings import BotSettings
from service.app import create_app
from service.settings import Settings
from tests.fake_slack import FORM, FakeSlack, ServerThread, block_text, command_body, signed

SECRET = "not-understood-signing-secret"

pytestmark = pytest.mark.e2e


@pytest.fixture
def service(tmp_path: Path, fake_slack: FakeSlack) -> Iterator[str]:
    bot = BotSettings(
        api_url="http://127.0.0.1:9",
        slack_bot_token="xoxb-not-understood-test",
        slack_signing_secret=SECRET,
        slack_api_url=fake_slack.api_url,
        public_url=None,
    )
    settings = Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'whichgpu.db'}", bot=bot)
    with ServerThread(create_app(settings)) as server:
        yield server.url


def test_words_not_understood_reach_the_slack_reply(service: str, fake_slack: FakeSlack) -> None:
    body = command_body("nlp 00 zxqv", fake_slack.response_url("q"))
    with httpx.Client(timeout=30) as client:
        sent = client.post(
            f"{service}/slack/events", content=body.encode(), headers=signed(SECRET, body, FORM)
        )
    assert sent.status_code == 200
    [reply] = fake_slack.wait_for("response_url", timeout=30)
    text = block_text(reply.data["blocks"])
    assert "Not understood: '00', 'zxqv'" in text, text
    assert "single quotes" in text
