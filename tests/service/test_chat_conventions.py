"""OpenAI's conventions on the chat routes: ``max_tokens`` cuts cleanly, ``usage`` is reported (streamed when
asked), and refusals come in OpenAI's error shape there and as problem+json everywhere else."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.contract.text import MAX_TEXT_CHARS
from service.api.chat import CHARS_PER_TOKEN, within_tokens
from service.api.inputs import schema_errors
from tests.app_client import app_client

CHAT = "/v1/chat/completions"


def ask(text: str, **extra: object) -> dict[str, object]:
    return {"model": "whichgpu", "messages": [{"role": "user", "content": text}], **extra}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(tmp_path_factory.mktemp("chat"), raise_server_exceptions=False, max_body_bytes=8192) as c:
        yield c


words = st.text(alphabet=st.sampled_from("ab×é* \n"), max_size=300)


@given(text=words, limit=st.integers(1, 80))
def test_a_cut_answer_is_a_prefix_within_the_limit_ending_at_a_word(text: str, limit: int) -> None:
    cut, finish = within_tokens(text, limit)
    room = limit * CHARS_PER_TOKEN
    assert len(cut) <= room
    if len(text) <= room:
        assert (cut, finish) == (text, "stop")
        return
    assert finish == "length" and cut.count("**") % 2 == 0, "bold marks come in pairs"
    kept = cut.removesuffix("**") if not text.startswith(cut) else cut  # a closing mark may be added
    assert text.startswith(kept)
    breaks = [i for i, ch in enumerate(text[: room - 1]) if ch in " \n" and i > 0]
    if breaks and kept == cut:  # whole words or lines are kept: the cut falls on a break
        assert cut == "" or text[len(cut)] in " \n" or len(cut) == room


def test_a_line_is_kept_whole_when_it_keeps_most_of_the_room() -> None:
    answer = "Buy a used RTX 3090, about $750.\nSecond line goes on and on and on"
    assert within_tokens(answer, 10) == ("Buy a used RTX 3090, about $750.", "length")
    assert within_tokens(answer, 4) == ("Buy a used RTX", "length")
    assert within_tokens("Unbreakable" * 3, 1) == ("Unbr", "length")
    assert within_tokens(answer, None) == (answer, "stop")
    bold = "**Buy a used RTX 3090, about $750** and more words"
    assert within_tokens(bold, 5) == ("**Buy a used RTX**", "length")
    assert within_tokens("One. **Bold words here**", 2) == ("One.", "length")
    assert within_tokens("**Bold** then **more bold words**", 5) == ("**Bold** then", "length")


def test_max_tokens_keeps_the_first_line_and_says_length(client) -> None:
    full = client.post(CHAT, json=ask("nlp $800")).json()
    first_line = full["choices"][0]["message"]["content"].split("\n", 1)[0]
    limit = -(-len(first_line) // CHARS_PER_TOKEN) + 2
    for field in ("max_tokens", "max_completion_tokens"):
        body = client.post(CHAT, json=ask("nlp $800", **{field: limit})).json()
        choice = body["choices"][0]
        assert choice["finish_reason"] == "length" and choice["message"]["content"] == first_line
        assert body["usage"]["completion_tokens"] <= limit
        assert (
            body["usage"]["total_tokens"]
            == body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
        )
    roomy = client.post(CHAT, json=ask("nlp $800", max_tokens=100_000)).json()
    assert roomy["choices"][0] == full["choices"][0]
    assert schema_errors("chat-completion-response", body) == []


def _chunks(text: str) -> list[dict]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]


def test_a_stream_ends_with_usage_only_when_asked(client) -> None:
    asked = _chunks(
        client.post(CHAT, json=ask("nlp $800", stream=True, stream_options={"include_usage": True})).text
    )
    *content, last = asked
    assert last["choices"] == [] and last["usage"]["completion_tokens"] > 0
    assert all(c["usage"] is None for c in content) and content[-1]["choices"][0]["finish_reason"] == "stop"
    streamed = "".join(c["choices"][0]["delta"].get("content", "") for c in content)
    assert last["usage"]["completion_tokens"] == -(-len(streamed) // CHARS_PER_TOKEN)
    plain = _chunks(client.post(CHAT, json=ask("nlp $800", stream=True)).text)
    assert all("usage" not in c for c in plain)
    cut = _chunks(client.post(CHAT, json=ask("nlp $800", stream=True, max_tokens=5)).text)
    assert cut[-1]["choices"][0]["finish_reason"] == "length"
    for chunk in asked + plain + cut:
        assert schema_errors("chat-completion-chunk", chunk) == []


REFUSALS = [
    ("post", CHAT, {"json": ask("nlp", model="gpt-4o")}, 404, "model_not_found", "model"),
    ("post", CHAT, {"json": ask("nlp", max_tokens=0)}, 422, "invalid_input", "max_tokens"),
    ("post", CHAT, {"json": {"model": "whichgpu", "messages": []}}, 422, "invalid_input", "messages"),
    (
        "post",
        CHAT,
        {"content": b"{", "headers": {"content-type": "application/json"}},
        400,
        "malformed_body",
        None,
    ),
    (
        "post",
        CHAT,
        {"content": b"{}", "headers": {"content-type": "text/plain"}},
        415,
        "unsupported_media_type",
        None,
    ),
    (
        "post",
        CHAT,
        {"content": b"x" * 9000, "headers": {"content-type": "application/json"}},
        413,
        "payload_too_large",
        None,
    ),
    ("post", CHAT, {"json": ask("x" * (MAX_TEXT_CHARS + 1))}, 422, "invalid_input", "messages.0.content"),
    ("get", "/v1/models/gpt-4o", {}, 404, "model_not_found", "model"),
    ("post", "/v1/models", {"json": {}}, 405, "method_not_allowed", None),
    ("get", "/v1/chat/nothing-here", {}, 404, "not_found", None),
]


@pytest.mark.parametrize("refusal", REFUSALS, ids=[f"{r[1]}-{r[3]}-{r[4]}" for r in REFUSALS])
def test_refusals_on_the_openai_routes_are_in_openais_shape(client, refusal) -> None:
    method, path, send, status, code, param = refusal
    response = client.request(method.upper(), path, **send)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert schema_errors("openai-error", body) == [], body
    error = body["error"]
    assert (error["code"], error["param"]) == (code, param) and error["message"]
    assert error["type"] == "invalid_request_error"


def test_other_routes_keep_problem_json(client) -> None:
    for response in (client.post("/v1/ask", json={"text": 5}), client.get("/v1/gpus/voodoo-5")):
        assert response.headers["content-type"].startswith("application/problem+json")
        assert schema_errors("problem", response.json()) == []


def test_the_one_model_is_retrieved(client) -> None:
    model = client.get("/v1/models/whichgpu").json()
    assert model == client.get("/v1/models").json()["data"][0]
    assert schema_errors("model", model) == []
