"""The bot against the REAL service: ``service.app.create_app`` over TCP with a temporary SQLite.

The service includes ``POST /slack/events`` itself when Slack settings are present,
and the bot asks the same server's ``/v1/ask`` over HTTP, as in a deployment.
Only Slack is faked.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bot.blocks import ACTION_MORE_GPUS, Conversation
from tests.fake_slack import FORM, FakeSlack, ServerThread, action_body, block_text, command_body, signed

try:
    from service.app import create_app
except ImportError as exc:  # the service app is being written beside the bot
    create_app = None
    MISSING = f"service.app is not importable yet: {exc}"
else:
    MISSING = ""

SECRET = "real-service-signing-secret"

# Temporary: until service/app.py imports cleanly these tests are expected to fail (not strict).
pytestmark = [pytest.mark.e2e, pytest.mark.xfail(create_app is None, reason=MISSING, strict=False)]


@pytest.fixture
def service(tmp_path: Path, fake_slack: FakeSlack) -> Iterator[str]:
    """The whole service on a real port, Slack endpoint included, asking itself for answers."""
    if create_app is None:
        raise ImportError(MISSING)
    from bot.settings import BotSettings
    from service.settings import Settings

    server = ServerThread()
    bot = BotSettings(api_url=server.url, slack_bot_token="xoxb-real-service-test", slack_signing_secret=SECRET,
                      slack_api_url=fake_slack.api_url, public_url=None)
    settings = Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'whichgpu.db'}", bot=bot)
    server.app = create_app(settings)
    with server:
        yield server.url


def post(url: str, body: str) -> httpx.Response:
    with httpx.Client(timeout=30) as client:
        return client.post(f"{url}/slack/events", content=body.encode(), headers=signed(SECRET, body, FORM))


def conversation_rows(data_dir: Path) -> int:
    with sqlite3.connect(data_dir / "whichgpu.db") as db:
        return db.execute("select count(*) from conversation").fetchone()[0]


def test_slash_command_is_answered_by_the_real_engine_and_a_button_refines_it(service, fake_slack, tmp_path):
    assert post(service, command_body("cv 2 gpus 3000", fake_slack.response_url("q1"))).status_code == 200
    [answer] = fake_slack.wait_for("response_url", timeout=30)
    text = block_text(answer.data["blocks"])
    assert answer.data["blocks"][0]["text"]["text"].startswith("Top pick: 2 × ")
    assert "`workload-priorities`" in text and "catalog" in text

    button = next(e for b in answer.data["blocks"] if b["type"] == "actions" for e in b["elements"]
                  if e["action_id"] == ACTION_MORE_GPUS)
    conversation, ask = Conversation.from_value(button["value"])
    assert conversation.conversation_id is None and ask == "4 gpus"  # a slash command is one-shot: nothing stored
    assert conversation_rows(tmp_path) == 0

    assert post(service, action_body(ACTION_MORE_GPUS, button["value"], fake_slack.response_url("q1"))).status_code == 200
    _, refined = fake_slack.wait_for("response_url", 2, timeout=30)
    assert refined.data["replace_original"] is True
    assert refined.data["blocks"][0]["text"]["text"].startswith("Top pick: 4 × ")
    assert conversation_rows(tmp_path) == 1, "refining replays the questions as one stored conversation"


def test_bad_signature_is_refused_by_the_real_service(service, fake_slack):
    body = command_body("nlp $800", fake_slack.response_url("q2"))
    with httpx.Client() as client:
        response = client.post(f"{service}/slack/events", content=body, headers=signed("wrong", body, FORM))
    assert response.status_code == 401
    assert fake_slack.calls == []


def test_aborted_uploads_are_one_warning_each_without_traceback(service, caplog):
    from tests.bot.test_bot_http import _abort_upload

    caplog.set_level(logging.INFO)
    for path in ("/slack/events", "/v1/ask", "/v1/chat/completions", "/v1/benchmarks"):
        _abort_upload(service, path)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and len([r for r in caplog.records if r.levelno == logging.WARNING]) < 4:
        time.sleep(0.05)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 4, [r.getMessage() for r in caplog.records]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info], [r.getMessage() for r in caplog.records]
