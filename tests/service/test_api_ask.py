"""POST /v1/ask and the OpenAI-compatible chat: answers, conversations in the DB, follow-ups, errors."""

from __future__ import annotations

import json

import pytest

from rules.contract.text import MAX_TEXT_CHARS
from service.api.inputs import schema_errors
from tests.app_client import app_client


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(tmp_path_factory.mktemp("ask")) as test_client:
        yield test_client


def ask(client, text: str, conversation_id: str | None = None, start: bool = False) -> dict:
    body = {"text": text} if conversation_id is None else {"text": text, "conversation_id": conversation_id}
    if start:
        body["start_conversation"] = True
    response = client.post("/v1/ask", json=body)
    assert response.status_code == 200, response.text
    reply = response.json()
    assert schema_errors("ask-response", reply) == []
    return reply


def problem(response, status: int, field: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert field in [e["field"] for e in body["errors"]], body
    return body


def test_ask_answers_and_starts_a_conversation(client):
    reply = ask(client, "nlp $800", start=True)
    assert reply["intent"] == "recommend"
    assert reply["query"]["workload"] == "transformer" and reply["query"]["budget"] == 800
    assert reply["recommendation"]["picks"] and reply["answer"].startswith("**")
    assert reply["conversation_id"] and reply["follow_up"]


def test_follow_ups_refine_the_stored_question(client):
    first = ask(client, "nlp $800", start=True)
    two = ask(client, "what about 2 of them?", first["conversation_id"])
    assert two["conversation_id"] == first["conversation_id"]
    assert (
        two["query"]["gpus"] == 2
        and two["query"]["workload"] == "transformer"
        and two["query"]["budget"] == 800
    )
    cheaper = ask(client, "cheaper?", first["conversation_id"])
    assert cheaper["query"]["gpus"] == 2 and cheaper["query"]["budget"] == pytest.approx(560)


def test_more_memory_asks_for_more_than_the_answer_showed_in_a_conversation_and_in_chat(client):
    """'more memory?' means more than the card the answer before led with, in a stored conversation and when
    a chat client resends the turns (folded without their answers): both reach one question and one answer."""
    first = ask(client, "nlp $1500", start=True)
    shown = first["recommendation"]["picks"][0]["memory_gb"]
    more = ask(client, "more memory?", first["conversation_id"])
    assert more["query"]["memory_gb"] > shown, (shown, more["query"])
    cheaper = ask(client, "cheaper?", first["conversation_id"])
    turns = [
        {"role": "user", "content": "nlp $1500"},
        {"role": "assistant", "content": first["answer"]},
        {"role": "user", "content": "more memory?"},
        {"role": "assistant", "content": more["answer"]},
        {"role": "user", "content": "cheaper?"},
    ]
    assert chat(client, turns)["choices"][0]["message"]["content"] == cheaper["answer"]


def test_conversations_are_independent(client):
    a = ask(client, "cv $2000", start=True)
    b = ask(client, "rnn $500", start=True)
    assert ask(client, "what about 2 of them?", a["conversation_id"])["query"]["workload"] == "cnn"
    assert ask(client, "what about 2 of them?", b["conversation_id"])["query"]["workload"] == "rnn"


def test_clarification_is_a_200_reply(client):
    reply = ask(client, "blorp zzz", start=True)
    assert reply["intent"] == "clarify" and reply["recommendation"] is None and reply["conversation_id"]


def test_help(client):
    assert ask(client, "help")["intent"] == "help"


def test_unknown_conversation_is_404(client):
    problem(
        client.post("/v1/ask", json={"text": "cheaper?", "conversation_id": "no-such-one"}),
        404,
        "conversation_id",
    )


# Litestar's lenient decoding would take these
@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "text"),
        ({"text": 5}, "text"),
        ({"text": "x" * (MAX_TEXT_CHARS + 1)}, "text"),
        ({"text": "nlp", "conversation_id": "../etc"}, "conversation_id"),
        ({"text": "nlp", "extra": 1}, "extra"),
        (
            {"text": "nlp", "start_conversation": "true"},
            "start_conversation",
        ),
        ({"text": "nlp", "start_conversation": 1}, "start_conversation"),
        ({"text": "kaggle as of 2009"}, "as_of"),
    ],
)
def test_bad_ask_input_is_422(client, body, field):
    problem(client.post("/v1/ask", json=body), 422, field)


def test_a_body_is_judged_by_its_published_schema_before_it_is_decoded_into_its_type(client):
    body = problem(
        client.post("/v1/ask", json={"text": 5, "start_conversation": "yes"}), 422, "start_conversation"
    )
    assert body["schema"] == "/v1/schemas/ask-request.json" and "ask-request.json" in body["detail"]
    problem(
        client.post("/v1/ask", content=b'{"text": "nlp $800"}', headers={"content-type": "text/plain"}),
        415,
        "content-type",
    )
    problem(
        client.post("/v1/ask", content=b'{"text": NaN}', headers={"content-type": "application/json"}),
        400,
        "body",
    )


# --- OpenAI-compatible -------------------------------------------------------------------


def chat(client, messages, **extra) -> dict:
    response = client.post("/v1/chat/completions", json={"model": "whichgpu", "messages": messages, **extra})
    assert response.status_code == 200, response.text
    completion = response.json()
    assert schema_errors("chat-completion-response", completion) == []
    return completion


def test_models_lists_whichgpu(client):
    body = client.get("/v1/models").json()
    assert schema_errors("model-list", body) == []
    assert [m["id"] for m in body["data"]] == ["whichgpu"]


def test_chat_answers_the_last_user_message_and_ignores_unknown_parameters(client):
    completion = chat(
        client,
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": "nlp $800"}],
        temperature=0.2,
        top_p=1,
        user="x",
        tools=[],
    )
    message = completion["choices"][0]["message"]
    assert message["role"] == "assistant" and "×" in message["content"]
    assert (
        completion["usage"]["total_tokens"]
        == completion["usage"]["prompt_tokens"] + completion["usage"]["completion_tokens"]
    )


def test_earlier_user_messages_act_as_the_conversation(client):
    alone = chat(client, [{"role": "user", "content": "what about 2 of them?"}])["choices"][0]["message"][
        "content"
    ]
    history = [
        {"role": "user", "content": "cv $3000"},
        {"role": "assistant", "content": "…"},
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": "x"}},
                {"type": "text", "text": "what about 2 of them?"},
            ],
        },
    ]
    refined = chat(client, history)["choices"][0]["message"]["content"]
    assert "2 ×" in refined and refined != alone


def test_streaming_sends_chunks_then_done(client):
    response = client.post(
        "/v1/chat/completions",
        json={"model": "whichgpu", "stream": True, "messages": [{"role": "user", "content": "nlp $800"}]},
    )
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = [
        line.removeprefix("data: ") for line in response.text.split("\n\n") if line.startswith("data: ")
    ]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    for chunk in chunks:
        assert schema_errors("chat-completion-chunk", chunk) == []
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
    plain = chat(client, [{"role": "user", "content": "nlp $800"}])["choices"][0]["message"]["content"]
    assert text == plain


@pytest.mark.parametrize(
    "body, status, field",
    [
        ({"model": "gpt-4", "messages": [{"role": "user", "content": "nlp"}]}, 404, "model"),
        ({"model": "whichgpu", "messages": []}, 422, "messages"),
        ({"model": "whichgpu", "messages": [{"role": "system", "content": "hi"}]}, 422, "messages"),
        ({"model": "whichgpu"}, 422, "messages"),
        ({"model": "whichgpu", "messages": [{"role": "user", "content": 7}]}, 422, "messages.0.content"),
        (
            {"model": "whichgpu", "messages": [{"role": "user", "content": "y" * (MAX_TEXT_CHARS + 1)}]},
            422,
            "messages.0.content",
        ),
        (
            {"model": "whichgpu", "messages": [{"role": "user", "content": "kaggle as of 2009"}]},
            422,
            "messages.0.content",
        ),
    ],
)
def test_bad_chat_input_is_an_openai_error(client, body, status, field):
    response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")  # OpenAI's shape, not a problem
    assert response.json()["error"]["param"] == field, response.text
