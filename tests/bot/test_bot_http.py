"""POST /slack/events through the real slack-bolt pipeline, over TCP, signed as Slack signs.

Each test posts what Slack would post and then reads what the bot sent to the fake
Slack server (response URLs, chat.postMessage, views.publish).
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time

import httpx
import pytest

from bot.blocks import ACTION_CHEAPER, ACTION_MORE_GPUS, ACTION_SHARE, Conversation
from rules.contract.text import MAX_TEXT_CHARS
from tests.fake_slack import BOT_ID, FORM, JSON, block_text, buttons, command_body, event_body, signed

QUIET_S = 0.4  # how long "nothing was sent" waits for a lazy listener that should not run


def ask_bodies(route) -> list[dict]:
    return [json.loads(call.request.content) for call in route.calls]


# --- signatures ------------------------------------------------------------------

def test_bad_signature_is_401_and_nothing_is_processed(slack, fake_slack, ask_api):
    response = slack.command("nlp $800", secret="not-the-signing-secret")
    assert response.status_code == 401
    time.sleep(QUIET_S)
    assert fake_slack.calls == [] and not ask_api.called


def test_missing_signature_is_401(slack, fake_slack, ask_api):
    body = command_body("nlp $800", fake_slack.response_url("x"))
    with httpx.Client() as client:
        response = client.post(f"{slack.url}/slack/events", content=body, headers={"content-type": FORM})
    assert response.status_code == 401
    time.sleep(QUIET_S)
    assert fake_slack.calls == [] and not ask_api.called


def test_stale_timestamp_is_401_even_when_signed_correctly(slack, fake_slack, ask_api):
    response = slack.command("nlp $800", timestamp=int(time.time()) - 6 * 60)
    assert response.status_code == 401
    time.sleep(QUIET_S)
    assert fake_slack.calls == [] and not ask_api.called


def test_tampered_body_is_401(slack, fake_slack, ask_api):
    body = command_body("nlp $800", fake_slack.response_url("x"))
    headers = signed(slack.secret, body, FORM)
    with httpx.Client() as client:
        response = client.post(f"{slack.url}/slack/events", content=body.replace("800", "8000"),
                               headers=headers)
    assert response.status_code == 401
    time.sleep(QUIET_S)
    assert not ask_api.called


def test_url_verification_challenge_is_answered(slack):
    response = slack.post(json.dumps({"type": "url_verification", "challenge": "abc123", "token": "t"}), JSON)
    assert response.status_code == 200 and response.json() == {"challenge": "abc123"}


# --- slash command -----------------------------------------------------------------

def test_slash_command_acks_then_answers_privately_through_response_url(slack, fake_slack, ask_api, replies):
    response = slack.command("nlp $800", key="first")
    assert response.status_code == 200
    assert response.json()["response_type"] == "ephemeral" and "Looking into" in response.json()["text"]
    [answer] = fake_slack.wait_for("response_url")
    assert answer.data["_key"] == "first"
    assert answer.data["response_type"] == "ephemeral" and answer.data["replace_original"] is True
    top = replies["nlp $800"]["recommendation"]["picks"][0]
    assert answer.data["blocks"][0]["text"]["text"] == f"Top pick: {top['name']}"
    assert top["unit_price"]["date"] in block_text(answer.data["blocks"])
    assert answer.data["text"] == replies["nlp $800"]["recommendation"]["summary"]
    assert ask_bodies(ask_api) == [{"text": "nlp $800"}]


def test_ack_comes_within_slacks_3_seconds_even_when_the_service_is_slow(slack, fake_slack, api, replies):
    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(0.8)  # below the bot's 1 s test timeout: slow but answering
        return httpx.Response(200, json=replies["nlp $800"])

    api.post("http://whichgpu-api.test/v1/ask").mock(side_effect=slow)
    started = time.perf_counter()
    response = slack.command("nlp $800")
    ack_s = time.perf_counter() - started
    assert response.status_code == 200 and ack_s < 0.5, ack_s
    [answer] = fake_slack.wait_for("response_url")
    assert answer.at - started > 0.7  # the answer came later, after the ack
    assert "Top pick" in block_text(answer.data["blocks"])


def test_empty_and_help_get_the_help_text_in_the_ack_without_asking_the_service(slack, fake_slack, ask_api):
    for text in ("", "   ", "help", "HELP?"):
        response = slack.command(text)
        assert response.status_code == 200
        assert "tells you which GPU to buy or rent" in block_text(response.json()["blocks"]), text
    time.sleep(QUIET_S)
    assert not ask_api.called and fake_slack.sent("response_url") == []


def test_very_long_question_gets_the_help_text_with_a_note(slack, fake_slack, ask_api):
    response = slack.command("nlp $800 " + "x" * (MAX_TEXT_CHARS - 8))
    text = block_text(response.json()["blocks"])
    assert f"{MAX_TEXT_CHARS + 1} characters long" in text and "nlp $800" in text
    time.sleep(QUIET_S)
    assert not ask_api.called


def test_nonsense_gets_the_clarifying_reply(slack, fake_slack, ask_api, replies):
    slack.command("asdf qwerty")
    [answer] = fake_slack.wait_for("response_url")
    text = block_text(answer.data["blocks"])
    assert "I did not understand" in text and "asdf" in text and "Try:" in text


def test_service_down_gets_a_friendly_message_not_silence(slack, fake_slack, api):
    api.post("http://whichgpu-api.test/v1/ask").mock(side_effect=httpx.ConnectError("refused"))
    slack.command("nlp $800")
    [answer] = fake_slack.wait_for("response_url")
    assert "didn't answer" in answer.data["text"]
    assert "try again" in block_text(answer.data["blocks"])
    assert answer.data["response_type"] == "ephemeral"


def test_service_timeout_gets_a_friendly_message(slack, fake_slack, api):
    api.post("http://whichgpu-api.test/v1/ask").mock(side_effect=httpx.ReadTimeout("slow"))
    slack.command("nlp $800")
    [answer] = fake_slack.wait_for("response_url")
    assert "didn't answer" in block_text(answer.data["blocks"])


def test_an_answer_the_bot_cannot_read_still_gets_a_reply(slack, fake_slack, api, replies):
    broken = replies["nlp $800"]
    del broken["recommendation"]["picks"][0]["unit_price"]  # a service answer of an unknown shape
    api.post("http://whichgpu-api.test/v1/ask").mock(return_value=httpx.Response(200, json=broken))
    slack.command("nlp $800")
    [answer] = fake_slack.wait_for("response_url")
    assert "something went wrong on our side" in block_text(answer.data["blocks"])


class BrokenSource:
    """An answer source with a bug (as the engine inside the service could have)."""

    async def answer(self, conversation, ask):
        raise RuntimeError("engine bug")


@pytest.fixture
def slack_with_broken_source(bot_settings, fake_slack):
    from litestar import Litestar

    from bot.http import slack_routes
    from tests.bot.conftest import SlackSender
    from tests.fake_slack import ServerThread

    with ServerThread(Litestar(route_handlers=slack_routes(bot_settings, answers=BrokenSource()))) as server:
        yield SlackSender(server.url, fake_slack)


def test_a_failing_answer_source_still_gets_a_reply_and_a_logged_traceback(
        slack_with_broken_source, fake_slack, caplog):
    """A bug behind the source must not leave "Looking into …" on screen."""
    slack_with_broken_source.command("nlp $800")
    [reply] = fake_slack.wait_for("response_url")
    assert "something went wrong on our side" in block_text(reply.data["blocks"])
    assert any(r.exc_info and "engine bug" in str(r.exc_info[1]) for r in caplog.records)


def test_problem_json_detail_is_shown_politely(slack, fake_slack, api):
    problem = {"title": "Invalid question", "status": 422, "detail": "as_of 2030-01-01 is in the future",
               "errors": [{"field": "as_of", "message": "must not be after today"}]}
    api.post("http://whichgpu-api.test/v1/ask").mock(
        return_value=httpx.Response(422, json=problem, headers={"content-type": "application/problem+json"}))
    slack.command("as of 2030 nlp $800")
    [answer] = fake_slack.wait_for("response_url")
    text = block_text(answer.data["blocks"])
    assert "Sorry, I can't answer “as of 2030 nlp $800”: as_of 2030-01-01 is in the future" in text
    assert "as_of: must not be after today" in text


# --- buttons -----------------------------------------------------------------------

def test_refine_button_asks_the_next_question_in_the_conversation_and_replaces_the_answer(
        slack, fake_slack, ask_api, replies):
    replies["cheaper"] = replies["cv 2 gpus 3000"]  # what the service answers to the follow-up
    value = Conversation("conv-42", ("nlp $800",)).to_value("cheaper")
    response = slack.click(ACTION_CHEAPER, value, key="answer-msg")
    assert response.status_code == 200 and response.text == ""
    [update] = fake_slack.wait_for("response_url")
    assert update.data["_key"] == "answer-msg" and update.data["replace_original"] is True
    assert ask_bodies(ask_api) == [{"text": "cheaper", "conversation_id": "conv-42"}]
    conversation, ask = Conversation.from_value(buttons(update.data["blocks"])[ACTION_MORE_GPUS]["value"])
    assert conversation == Conversation("conv-42", ("nlp $800", "cheaper")) and ask == "4 gpus"


def test_refine_replays_the_questions_when_the_service_forgot_the_conversation(
        slack, fake_slack, api, replies):
    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body.get("conversation_id") == "expired":
            problem = {"title": "Not Found", "status": 404, "detail": "no conversation 'expired'"}
            return httpx.Response(404, json=problem, headers={"content-type": "application/problem+json"})
        return httpx.Response(200, json={**replies["nlp $800"], "conversation_id": "fresh"})

    route = api.post("http://whichgpu-api.test/v1/ask").mock(side_effect=answer)
    slack.click(ACTION_CHEAPER, Conversation("expired", ("nlp $800",)).to_value("cheaper"))
    [update] = fake_slack.wait_for("response_url")
    assert update.data["replace_original"] is True and "Top pick" in block_text(update.data["blocks"])
    assert ask_bodies(route) == [{"text": "cheaper", "conversation_id": "expired"},
                                 {"text": "nlp $800", "start_conversation": True},
                                 {"text": "cheaper", "conversation_id": "fresh"}]


def test_refine_failure_keeps_the_answer_and_says_why_beside_it(slack, fake_slack, api):
    api.post("http://whichgpu-api.test/v1/ask").mock(side_effect=httpx.ConnectError("refused"))
    slack.click(ACTION_CHEAPER, Conversation("c", ("nlp $800",)).to_value("cheaper"))
    [note] = fake_slack.wait_for("response_url")
    assert note.data["replace_original"] is False and "didn't answer" in block_text(note.data["blocks"])


def test_share_posts_the_answer_on_screen_without_asking_again(slack, fake_slack, ask_api, replies):
    slack.command("nlp $800", key="private")
    [private] = fake_slack.wait_for("response_url")
    share = buttons(private.data["blocks"])[ACTION_SHARE]
    slack.click(ACTION_SHARE, share["value"], key="private")
    _, shared, removed = fake_slack.wait_for("response_url", 3)
    assert shared.data["response_type"] == "in_channel"
    assert "Shared by <@U0ASKER>" in block_text(shared.data["blocks"])
    assert shared.data["blocks"][0] == private.data["blocks"][0]
    assert "Top pick" in block_text(shared.data["blocks"][0])
    assert removed.data["delete_original"] is True
    assert ask_bodies(ask_api) == [{"text": "nlp $800"}], "sharing reuses the answer shown, not asking again"


def test_share_after_a_restart_answers_the_questions_again(slack, fake_slack, ask_api, replies):
    """This process never showed the answer (a restart, another replica): the button's questions are asked
    again."""
    slack.click(ACTION_SHARE, Conversation("conv-7", ("nlp $800",)).to_value(), key="private")
    shared, removed = fake_slack.wait_for("response_url", 2)
    assert shared.data["response_type"] == "in_channel" and shared.data["replace_original"] is False
    text = block_text(shared.data["blocks"])
    assert "Shared by <@U0ASKER>" in text
    assert replies["nlp $800"]["recommendation"]["picks"][0]["name"] in text
    assert not [b for b in shared.data["blocks"] if b["type"] == "actions"]
    assert removed.data["delete_original"] is True and removed.data["_key"] == "private"
    assert ask_bodies(ask_api) == [{"text": "nlp $800"}]


def test_button_with_a_broken_value_gets_a_note(slack, fake_slack, ask_api):
    slack.click(ACTION_CHEAPER, "not json")
    [note] = fake_slack.wait_for("response_url")
    assert "ask again" in note.data["text"] and not ask_api.called


# --- mentions, DMs, home -------------------------------------------------------------

def test_app_mention_is_answered_in_its_thread(slack, fake_slack, ask_api, replies, bot_settings):
    event = {"type": "app_mention", "user": "U0ASKER", "text": "<@UWHICHGPU> cv 2 gpus 3000",
             "ts": "1700000000.000100", "channel": "C0LAB", "event_ts": "1700000000.000100"}
    assert slack.event(event).status_code == 200
    [post] = fake_slack.wait_for("chat.postMessage")
    assert post.data["channel"] == "C0LAB" and post.data["thread_ts"] == "1700000000.000100"
    assert post.data["text"] == replies["cv 2 gpus 3000"]["recommendation"]["summary"]
    assert post.authorization == f"Bearer {bot_settings.slack_bot_token}"
    assert ask_bodies(ask_api) == [{"text": "cv 2 gpus 3000"}]
    actions = buttons(post.data["blocks"])
    assert ACTION_SHARE not in actions and ACTION_CHEAPER in actions  # already public: no share button


def test_follow_up_in_the_same_thread_continues_the_conversation(slack, fake_slack, ask_api, replies):
    first = {"type": "app_mention", "user": "U0ASKER", "text": "<@UWHICHGPU> nlp $800",
             "ts": "1700000000.000100", "channel": "C0LAB", "event_ts": "1700000000.000100"}
    slack.event(first)
    fake_slack.wait_for("chat.postMessage")
    follow = {**first, "text": "<@UWHICHGPU> cheaper?", "ts": "1700000000.000300",
              "thread_ts": "1700000000.000100"}
    slack.post(event_body(follow, event_id="Ev0002"), JSON)
    _, second = fake_slack.wait_for("chat.postMessage", 2)
    assert second.data["thread_ts"] == "1700000000.000100"
    conversation_id = replies["nlp $800"]["conversation_id"]
    assert ask_bodies(ask_api)[1] == {"text": "cheaper?", "conversation_id": conversation_id}


def test_direct_message_is_answered_in_thread_and_the_bots_own_messages_are_ignored(
        slack, fake_slack, ask_api):
    own = {"type": "message", "channel_type": "im", "channel": "D0DM", "user": "UWHICHGPU", "bot_id": BOT_ID,
           "text": "Top pick: …", "ts": "1700000000.000050"}
    assert slack.event(own).status_code == 200
    dm = {"type": "message", "channel_type": "im", "channel": "D0DM", "user": "U0ASKER",
          "text": "fit llama 13b fp16", "ts": "1700000000.000400", "event_ts": "1700000000.000400"}
    assert slack.event(dm).status_code == 200
    [post] = fake_slack.wait_for("chat.postMessage")
    assert post.data["channel"] == "D0DM" and post.data["thread_ts"] == "1700000000.000400"
    assert "Holds the model" in block_text(post.data["blocks"])
    time.sleep(QUIET_S)
    assert len(fake_slack.sent("chat.postMessage")) == 1
    assert ask_bodies(ask_api) == [{"text": "fit llama 13b fp16"}]


def test_mention_without_a_question_gets_help_in_thread(slack, fake_slack, ask_api):
    slack.event({"type": "app_mention", "user": "U0ASKER", "text": "<@UWHICHGPU>", "ts": "1700000000.000500",
                 "channel": "C0LAB", "event_ts": "1700000000.000500"})
    [post] = fake_slack.wait_for("chat.postMessage")
    assert "tells you which GPU" in block_text(post.data["blocks"])
    assert post.data["thread_ts"] == "1700000000.000500"
    assert not ask_api.called


def test_app_home_opened_publishes_the_home_tab(slack, fake_slack, ask_api):
    slack.event({"type": "app_home_opened", "user": "U0ASKER", "channel": "D0DM", "tab": "home",
                 "event_ts": "1700000000.000600"})
    [publish] = fake_slack.wait_for("views.publish")
    assert publish.data["user_id"] == "U0ASKER"
    view = publish.data["view"]
    view = view if isinstance(view, dict) else json.loads(view)
    assert view["type"] == "home" and "/whichgpu nlp $800" in block_text(view["blocks"])
    assert not ask_api.called


# --- hostile requests: checked before any parsing -----------------------------------

def _raw(slack, body: bytes, headers: dict[str, str]) -> httpx.Response:
    with httpx.Client(timeout=10) as client:
        return client.post(f"{slack.url}/slack/events", content=body, headers=headers)


@pytest.mark.parametrize("stamp", ["abc", "", "1e9", "-5", "99999999999999999999", "0x10", "1.5"])
def test_malformed_timestamps_are_401(slack, fake_slack, ask_api, stamp):
    body = command_body("nlp $800", fake_slack.response_url("x"))
    headers = {**signed(slack.secret, body, FORM), "x-slack-request-timestamp": stamp}
    assert _raw(slack, body.encode(), headers).status_code == 401
    assert not ask_api.called


@pytest.mark.parametrize("body, content_type", [
    ("[", JSON), ("null", JSON), ("[]", JSON), ('{"type": "event_callback", "event": {"ty', JSON),
    ("7", JSON),
    ("payload=null", FORM), ("payload=%5B%5D", FORM), ("payload=%7B", FORM), ("%ff%fe=1", FORM),
])
def test_bodies_slack_never_sends_are_4xx_signed_or_not(slack, ask_api, body, content_type):
    unsigned = _raw(slack, body.encode(), {"content-type": content_type})
    assert unsigned.status_code == 401, "the signature is checked before the body is read"
    response = slack.post(body, content_type)
    assert 400 <= response.status_code < 500, response.text
    assert not ask_api.called


def test_a_replayed_signed_request_is_refused(slack, fake_slack, ask_api):
    body = command_body("nlp $800", fake_slack.response_url("r"))
    headers = signed(slack.secret, body, FORM)
    assert _raw(slack, body.encode(), headers).status_code == 200
    fake_slack.wait_for("response_url")
    for _ in range(3):
        replay = _raw(slack, body.encode(), headers)
        assert replay.status_code == 401 and "replay" in replay.text
    time.sleep(QUIET_S)
    assert len(ask_bodies(ask_api)) == 1, "the replays were answered"


def _abort_upload(url: str, path: str) -> None:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: 5000\r\n\r\n{{\"text\": ".encode())
    time.sleep(0.2)


def test_an_aborted_upload_is_one_short_warning(slack, caplog):
    caplog.set_level(logging.INFO)
    for _ in range(3):
        _abort_upload(slack.url, "/slack/events")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and len([r for r in caplog.records if "aborted" in r.getMessage()]) < 3:
        time.sleep(0.05)
    aborted = [r for r in caplog.records if "aborted" in r.getMessage()]
    assert len(aborted) == 3 and all(r.levelno == logging.WARNING and r.exc_info is None for r in aborted)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [r.getMessage() for r in caplog.records]
