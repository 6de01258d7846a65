"""Short by default, the full reasoning on request, on the API and the chat: `"detail": "full"` on /v1/ask
and /v1/recommendations, "why?" (or "почему?") in a chat."""

from __future__ import annotations

import pytest

from service.api.chat import asks_why
from service.api.inputs import schema_errors
from tests.app_client import app_client

QUESTIONS = ["nlp $800", "cv 2 gpus 3000", "fit llama 70b 4-bit", "нлп 80000 руб"]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(tmp_path_factory.mktemp("detail")) as c:
        yield c


def words(text: str) -> int:
    return len(text.split())


@pytest.mark.parametrize("text", QUESTIONS)
def test_ask_is_short_unless_the_full_answer_is_asked_for(client, text) -> None:
    short = client.post("/v1/ask", json={"text": text}).json()
    full = client.post("/v1/ask", json={"text": text, "detail": "full"}).json()
    assert short["recommendation"] == full["recommendation"], "the data behind both is the same"
    assert words(short["answer"]) < words(full["answer"])
    for finding in full["recommendation"]["findings"]:  # the full form loses nothing
        assert finding["reason"] in full["answer"], finding
    assert short["answer"].split("\n", 1)[0] == full["answer"].split("\n", 1)[0], "the same first line"


@pytest.mark.parametrize("text", QUESTIONS[:2])
def test_recommendations_give_the_deciding_findings_unless_full(client, text) -> None:
    question = client.post("/v1/ask", json={"text": text}).json()["query"]
    body = {k: v for k, v in question.items() if k in ("workload", "budget", "gpus", "currency")}
    short = client.post("/v1/recommendations", json=body).json()
    full = client.post("/v1/recommendations", json={**body, "detail": "full"}).json()
    assert schema_errors("answer", short) == [] and schema_errors("answer", full) == []
    assert len(short["picks"]) <= 3 and len(short["findings"]) <= 5 and short["excluded"] == []
    assert all(f in full["findings"] for f in short["findings"])
    assert len(full["findings"]) > len(short["findings"])
    assert short["picks"] == full["picks"][:3] and short["headline"] == full["headline"]
    refused = client.post("/v1/recommendations", json={**body, "detail": "long"})
    assert refused.status_code == 422 and refused.json()["errors"][0]["field"] == "detail"


def chat(client, *turns: str) -> str:
    messages = []
    for turn in turns:
        messages += [{"role": "user", "content": turn}, {"role": "assistant", "content": "…"}]
    body = {"model": "whichgpu", "messages": messages[:-1]}
    return client.post("/v1/chat/completions", json=body).json()["choices"][0]["message"]["content"]


def test_why_in_a_chat_gives_the_full_form_of_the_answer_before(client) -> None:
    short = chat(client, "nlp $800")
    full = client.post("/v1/ask", json={"text": "nlp $800", "detail": "full"}).json()["answer"]
    assert chat(client, "nlp $800", "why?") == full != short
    assert chat(client, "nlp $800", "Why?", "почему?") == full
    refined = chat(client, "nlp $800", "what about 2 of them?")
    assert chat(client, "nlp $800", "what about 2 of them?", "Почему?").startswith(refined.split("\n", 1)[0])
    assert chat(client, "why?") == chat(client, "why")  # nothing before: answered as it stands


@pytest.mark.parametrize("text", ["why?", "Why", " почему? ", "WHY SO?", "подробнее", "explain!"])
def test_why_is_read_in_any_case_and_punctuation(text: str) -> None:
    assert asks_why(text)


@pytest.mark.parametrize("text", ["why 3090", "nlp $800", "почему не 4090", ""])
def test_a_question_with_more_in_it_is_not_a_why(text: str) -> None:
    assert not asks_why(text)
