"""Fixtures of the bot's tests: a fake Slack, canned answers from the real engine, the bot over TCP.

The bot runs the real slack-bolt pipeline inside a Litestar app served by uvicorn
on 127.0.0.1; requests are signed as Slack signs them. Slack's Web API and the
response URLs are a local recording server (:class:`tests.fake_slack.FakeSlack`).
Answers come over HTTP (the Socket Mode bot's source), with the whichgpu API mocked
with respx at its seam (httpx); test_bot_real_service.py runs the bot inside the real
service (answers in-process) and, over Socket Mode, against a real server process.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import respx
from litestar import Litestar

from bot.answers import ServiceAnswers
from bot.api import WhichgpuAPI
from bot.http import slack_routes
from bot.settings import BotSettings
from tests.fake_slack import (
    FORM,
    JSON,
    FakeSlack,
    ServerThread,
    action_body,
    command_body,
    event_body,
    signed,
)
from tests.wire import wire

SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
BOT_TOKEN = "xoxb-test-not-a-real-token"
API_URL = "http://whichgpu-api.test"

QUESTIONS = ("nlp $800", "cv 2 gpus 3000", "cv 4 gpus 3000", "compare 3090 4090", "fit llama 13b fp16",
             "as of 2019 kaggle", "asdf qwerty", "help", "nlp 80000 руб")


@pytest.fixture(scope="session")
def engine_replies() -> dict[str, dict[str, Any]]:
    """What ``/v1/ask`` returns for each of QUESTIONS, by the real engine (plus a conversation id)."""
    from rules.advisor import Advisor
    from rules.ask import ask
    from rules.knowledge.loaded import load_catalog

    advisor = Advisor(load_catalog())
    return {text: {**wire(ask(advisor, text)), "conversation_id": f"conv-{index}"}
            for index, text in enumerate(QUESTIONS)}


@pytest.fixture
def replies(engine_replies: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return copy.deepcopy(engine_replies)


@pytest.fixture
def fake_slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def bot_settings(fake_slack: FakeSlack) -> BotSettings:
    return BotSettings(slack_bot_token=BOT_TOKEN, slack_signing_secret=SIGNING_SECRET,
                       slack_api_url=fake_slack.api_url, api_url=API_URL, public_url=None)


@pytest.fixture
def api() -> Iterator[respx.MockRouter]:
    """The whichgpu API, mocked; requests to 127.0.0.1 (the bot itself) pass through."""
    with respx.mock(assert_all_called=False) as router:
        router.route(host="127.0.0.1").pass_through()
        yield router


@pytest.fixture
def bot_api() -> WhichgpuAPI:
    """The bot's API client with a short timeout, so the 'slow service' tests stay quick."""
    return WhichgpuAPI(API_URL, timeout_s=1.0)


@dataclass
class SlackSender:
    """Posts to the bot as Slack would: signed, form-encoded or JSON."""

    url: str
    fake: FakeSlack
    secret: str = SIGNING_SECRET

    def post(self, body: str, content_type: str, *, secret: str = SIGNING_SECRET,
             timestamp: int | None = None, headers: dict[str, str] | None = None) -> httpx.Response:
        sent = signed(secret, body, content_type, timestamp)
        sent.update(headers or {})
        with httpx.Client(timeout=10) as client:
            return client.post(f"{self.url}/slack/events", content=body.encode(), headers=sent)

    def command(self, text: str, key: str = "cmd", **kwargs: Any) -> httpx.Response:
        return self.post(command_body(text, self.fake.response_url(key)), FORM, **kwargs)

    def event(self, event: dict[str, Any], **kwargs: Any) -> httpx.Response:
        return self.post(event_body(event), JSON, **kwargs)

    def click(self, action_id: str, value: str, key: str = "click", *,
              ephemeral: bool = True) -> httpx.Response:
        body = action_body(action_id, value, self.fake.response_url(key), ephemeral=ephemeral)
        return self.post(body, FORM)


@pytest.fixture
def slack(bot_settings: BotSettings, bot_api: WhichgpuAPI, fake_slack: FakeSlack,
          api: respx.MockRouter) -> Iterator[SlackSender]:
    """The bot's HTTP endpoint on a real TCP port, and a way to post to it as Slack."""
    app = Litestar(route_handlers=slack_routes(bot_settings, answers=ServiceAnswers(bot_api)))
    with ServerThread(app) as server:
        yield SlackSender(server.url, fake_slack)


@pytest.fixture
def ask_api(api: respx.MockRouter, replies: dict[str, dict[str, Any]]) -> respx.Route:
    """/v1/ask answering from ``replies`` by text (unknown text: the clarifying reply), keeping the
    conversation id."""

    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        reply = replies.get(body["text"]) or replies["asdf qwerty"]
        if body.get("conversation_id"):
            reply = {**reply, "conversation_id": body["conversation_id"]}
        return httpx.Response(200, json=reply)

    return api.post(f"{API_URL}/v1/ask").mock(side_effect=answer)
