"""The bot against the REAL service, over TCP with a temporary SQLite; only Slack is faked.

- Inside the service (``service.app.create_app`` with Slack settings, ``POST /slack/events``)
  the bot answers from the service's own engine: its ``WHICHGPU_API_URL`` points where
  nothing listens, and the service's metrics show no ``/v1/ask`` request.
- ``whichgpu bot`` over Socket Mode asks a real ``whichgpu serve`` process over HTTP.
Neither writes a conversation row.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode

import httpx
import pytest

from bot.blocks import ACTION_MORE_GPUS, ACTION_SHARE, ACTION_WHY
from bot.settings import BotSettings
from service.app import create_app
from service.settings import Settings
from tests.fake_slack import (
    FORM,
    JSON,
    FakeSlack,
    ServerThread,
    action_body,
    block_text,
    buttons,
    command_body,
    event_body,
    run_socket_mode_bot,
    signed,
    slash_command_envelope,
)
from tests.server_process import ServerProcess

SECRET = "real-service-signing-secret"
NOWHERE = "http://127.0.0.1:9"  # the discard port: an HTTP call back into the service would fail

pytestmark = pytest.mark.e2e


@pytest.fixture
def service(tmp_path: Path, fake_slack: FakeSlack) -> Iterator[str]:
    """The whole service on a real port, Slack endpoint included."""
    bot = BotSettings(api_url=NOWHERE, slack_bot_token="xoxb-real-service-test", slack_signing_secret=SECRET,
                      slack_api_url=fake_slack.api_url, public_url=None)
    settings = Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'whichgpu.db'}", bot=bot)
    with ServerThread(create_app(settings)) as server:
        yield server.url


def post(url: str, body: str, content_type: str = FORM) -> httpx.Response:
    with httpx.Client(timeout=30) as client:
        return client.post(f"{url}/slack/events", content=body.encode(),
                           headers=signed(SECRET, body, content_type))


def conversation_rows(data_dir: Path) -> int:
    with sqlite3.connect(data_dir / "whichgpu.db") as db:
        return db.execute("select count(*) from conversation").fetchone()[0]


def metric(url: str, name: str, **labels: str) -> float:
    """The value of one Prometheus sample of the service (0 when it has none)."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    wanted = [f'{key}="{value}"' for key, value in labels.items()]
    found = [float(m.group(2)) for m in re.finditer(rf"^{name}{{(.*)}} (\S+)$", text, re.M)
             if all(label in m.group(1).split(",") for label in wanted)]
    return sum(found)


def test_slash_command_refine_and_share_are_answered_in_process_without_conversation_rows(
        service, fake_slack, tmp_path):
    # $5,000: two cards, and four with the host four cards need once "more GPUs" is pressed
    assert post(service, command_body("cv 2 gpus 5000", fake_slack.response_url("q1"))).status_code == 200
    [answer] = fake_slack.wait_for("response_url", timeout=30)
    text = block_text(answer.data["blocks"])
    assert answer.data["blocks"][0]["text"]["text"].startswith("Top pick: 2 × ")
    assert "catalog" in text and "`workload-priorities`" not in text  # short: the reasons that decided it
    why = buttons(answer.data["blocks"])[ACTION_WHY]["value"]
    assert post(service, action_body(ACTION_WHY, why, fake_slack.response_url("q1"))).status_code == 200
    _, explained = fake_slack.wait_for("response_url", 2, timeout=30)
    assert explained.data["replace_original"] is True
    assert "`workload-priorities`" in block_text(explained.data["blocks"])  # the full form: every finding

    more = buttons(answer.data["blocks"])[ACTION_MORE_GPUS]["value"]
    clicked = post(service, action_body(ACTION_MORE_GPUS, more, fake_slack.response_url("q1")))
    assert clicked.status_code == 200
    _, _, refined = fake_slack.wait_for("response_url", 3, timeout=30)
    assert refined.data["replace_original"] is True
    assert refined.data["blocks"][0]["text"]["text"].startswith("Top pick: 4 × ")

    share = buttons(refined.data["blocks"])[ACTION_SHARE]["value"]
    assert post(service, action_body(ACTION_SHARE, share, fake_slack.response_url("q1"))).status_code == 200
    _, _, _, shared, removed = fake_slack.wait_for("response_url", 5, timeout=30)
    assert shared.data["response_type"] == "in_channel"
    assert shared.data["blocks"][0] == refined.data["blocks"][0]
    assert removed.data["delete_original"] is True

    assert conversation_rows(tmp_path) == 0, "the questions travel in the buttons; the service stores nothing"
    asked_over_http = metric(service, "whichgpu_http_requests_total", route="/v1/ask")
    assert asked_over_http == 0, "no HTTP call back into the service"
    answered = metric(service, "whichgpu_recommendations_total", face="slack")
    assert answered == 2, "asked, refined; Why? and the share reused the answer on screen"


def test_a_value_the_engine_refuses_is_explained_in_process(service, fake_slack):
    post(service, command_body("nlp $800 as of 2023-02-30", fake_slack.response_url("bad")))
    [reply] = fake_slack.wait_for("response_url", timeout=30)
    text = block_text(reply.data["blocks"])
    assert "Sorry, I can't answer" in text and "2023-02-30" in text and "as_of" in text


def test_a_follow_up_in_a_thread_keeps_the_question_so_far(service, fake_slack, tmp_path):
    first = {"type": "app_mention", "user": "U0ASKER", "text": "<@UWHICHGPU> cv 2 gpus 3000",
             "ts": "1700000000.000100", "channel": "C0LAB", "event_ts": "1700000000.000100"}
    assert post(service, event_body(first), JSON).status_code == 200
    fake_slack.wait_for("chat.postMessage", timeout=30)
    follow = {**first, "text": "<@UWHICHGPU> and for rnn?", "ts": "1700000000.000300",
              "thread_ts": "1700000000.000100"}
    assert post(service, event_body(follow, event_id="Ev0002"), JSON).status_code == 200
    _, second = fake_slack.wait_for("chat.postMessage", 2, timeout=30)
    assert second.data["thread_ts"] == "1700000000.000100"
    headline = second.data["blocks"][0]["text"]["text"]
    assert headline.startswith("Top pick: 2 × "), "two cards, as the thread asked first"
    assert conversation_rows(tmp_path) == 0


def test_socket_mode_asks_a_real_server_process_over_http(tmp_path, fake_slack):
    server = ServerProcess(f"sqlite:///{tmp_path / 'whichgpu.db'}", tmp_path).start()
    try:
        settings = BotSettings(api_url=server.url, slack_bot_token="xoxb-socket-e2e",
                               slack_app_token="xapp-1-socket-e2e", slack_api_url=fake_slack.api_url,
                               public_url=None)
        envelope = slash_command_envelope("cv 2 gpus 3000", fake_slack.response_url("socket"))
        acks = run_socket_mode_bot(fake_slack, settings, [envelope], timeout_s=90,
                                   until=lambda: fake_slack.wait_for("response_url", timeout=60))
        assert any(a.get("envelope_id") == "env-1" for a in acks)
        [answer] = fake_slack.sent("response_url")
        assert answer.data["blocks"][0]["text"]["text"].startswith("Top pick: 2 × ")
        asked = metric(server.url, "whichgpu_http_requests_total", route="/v1/ask", method="POST",
                       status="200")
        assert asked == 1
        assert conversation_rows(tmp_path) == 0, "a slash command is one-shot"
    finally:
        server.stop()


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
    def warnings() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.levelno == logging.WARNING]

    while time.monotonic() < deadline and len(warnings()) < 4:
        time.sleep(0.05)
    assert len(warnings()) == 4, [r.getMessage() for r in caplog.records]
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in caplog.records]


def test_slack_api_out_of_reach_gets_a_reason_not_a_500(tmp_path, caplog):
    """Bolt checks the token with Slack's auth.test before any listener: with Slack's API
    out of reach, a slash command gets a short ephemeral reason and an event a 503 that
    Slack retries; the log has one warning line per request, no traceback."""
    caplog.set_level(logging.INFO)
    bolt_log = logging.getLogger("slack_bolt.AsyncApp")  # bolt's own logger, which does not propagate
    bolt_log.addHandler(caplog.handler)
    bot = BotSettings(api_url=NOWHERE, slack_bot_token="xoxb-real-service-test", slack_signing_secret=SECRET,
                      slack_api_url=NOWHERE + "/api/", public_url=None)
    settings = Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'whichgpu.db'}", bot=bot)
    with ServerThread(create_app(settings)) as server:
        command = post(server.url, command_body("nlp $800", NOWHERE + "/response"))
        event = {"type": "app_mention", "user": "U0ASKER", "text": "<@U0BOT> nlp $800", "ts": "1.0",
                 "channel": "C0LAB"}
        mention = post(server.url, event_body(event), JSON)
    bolt_log.removeHandler(caplog.handler)
    assert command.status_code == 200
    assert command.json()["response_type"] == "ephemeral"
    assert "could not reach Slack" in command.json()["text"]
    assert mention.status_code == 503
    assert [r for r in caplog.records if "unreachable" in r.getMessage() and r.levelno == logging.WARNING]
    assert not [r for r in caplog.records if r.exc_info], "a network failure is a warning line, no traceback"


def test_a_request_answered_by_one_replica_is_a_replay_to_another(tmp_path: Path, fake_slack: FakeSlack):
    """The replay cache was per process: a signed request replayed to a second replica was answered again."""
    bot = BotSettings(api_url=NOWHERE, slack_bot_token="xoxb-replicas", slack_signing_secret=SECRET,
                      slack_api_url=fake_slack.api_url, public_url=None)
    settings = Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'shared.db'}", bot=bot)
    with ServerThread(create_app(settings)) as first, ServerThread(create_app(settings)) as second:
        body = command_body("nlp $800", fake_slack.response_url("once"))
        headers = signed(SECRET, body, FORM)
        with httpx.Client(timeout=30) as client:
            answered = client.post(f"{first.url}/slack/events", content=body.encode(), headers=headers)
            assert answered.status_code == 200
            again = client.post(f"{second.url}/slack/events", content=body.encode(), headers=headers)
        assert again.status_code == 401 and "replay" in again.text
        assert len(fake_slack.wait_for("response_url")) == 1


@pytest.mark.parametrize(
    "actions", [[], None, "x", [{"type": "button"}], [{"action_id": "a", "value": "v" * 2001}]]
)
def test_interactions_slack_never_sends_are_400_before_any_work(service, fake_slack, actions):
    """A signed interaction with "actions": [] gave a 500."""
    body = action_body(ACTION_MORE_GPUS, "{}", fake_slack.response_url("bad"))
    payload = json.loads(parse_qs(body)["payload"][0])
    payload["actions"] = actions
    response = post(service, urlencode({"payload": json.dumps(payload)}))
    assert response.status_code == 400, response.text


def test_a_forged_button_with_many_questions_is_refused_without_answering_them(service, fake_slack):
    """A button carrying thousands of questions blocked the event loop for 1.8 s answering them one by one."""
    value = json.dumps({"c": None, "q": [f"nlp ${800 + i}" for i in range(7)]})
    started = time.monotonic()
    forged = action_body(ACTION_MORE_GPUS, value, fake_slack.response_url("forged"))
    assert post(service, forged).status_code == 200
    [note] = fake_slack.wait_for("response_url")
    assert "older whichgpu" in note.data["text"] and time.monotonic() - started < 5
