"""The bot's client of ``POST /v1/ask``: answers, problem+json, and every way the service can fail."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from bot.api import QuestionRejected, ServiceUnavailable, WhichgpuAPI

API_URL = "http://whichgpu-api.test"


def ask(api: WhichgpuAPI, text: str = "nlp $800", conversation_id: str | None = None):
    return asyncio.run(api.ask(text, conversation_id))


def test_answer_and_conversation_id(api, replies):
    route = api.post(f"{API_URL}/v1/ask").mock(return_value=httpx.Response(200, json=replies["nlp $800"]))
    reply = ask(WhichgpuAPI(API_URL + "/"), "cheaper", "conv-1")
    assert json.loads(route.calls.last.request.content) == {"text": "cheaper", "conversation_id": "conv-1"}
    assert reply.intent == "recommend" and reply.conversation_id == "conv-0"
    assert reply.recommendation.picks[0].name == replies["nlp $800"]["recommendation"]["picks"][0]["name"]


def test_problem_json_becomes_question_rejected_with_its_detail(api):
    problem = {"title": "Invalid question", "status": 422, "detail": "as_of is in the future",
               "errors": [{"field": "as_of", "message": "must not be after today"}]}
    api.post(f"{API_URL}/v1/ask").mock(return_value=httpx.Response(422, json=problem))
    with pytest.raises(QuestionRejected) as caught:
        ask(WhichgpuAPI(API_URL))
    assert caught.value.status == 422 and caught.value.detail == "as_of is in the future"
    assert caught.value.errors == problem["errors"]


def test_4xx_without_a_body_still_has_a_detail(api):
    api.post(f"{API_URL}/v1/ask").mock(return_value=httpx.Response(413, text="too big"))
    with pytest.raises(QuestionRejected) as caught:
        ask(WhichgpuAPI(API_URL))
    assert caught.value.status == 413 and caught.value.detail


@pytest.mark.parametrize("response", [httpx.Response(500, json={"title": "Internal Server Error"}),
                                      httpx.Response(502, text="bad gateway"),
                                      httpx.Response(200, text="<html>proxy login</html>")])
def test_server_errors_and_non_json_are_unavailable(api, response):
    api.post(f"{API_URL}/v1/ask").mock(return_value=response)
    with pytest.raises(ServiceUnavailable):
        ask(WhichgpuAPI(API_URL))


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_refused_is_unavailable(closed_port):
    with pytest.raises(ServiceUnavailable, match="cannot reach"):
        ask(WhichgpuAPI(f"http://127.0.0.1:{closed_port}"))


@pytest.fixture
def slow_service() -> Iterator[str]:
    """A real HTTP server that takes 2 s to answer."""

    class Slow(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            time.sleep(2)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_slow_service_times_out_as_unavailable(slow_service):
    started = time.perf_counter()
    with pytest.raises(ServiceUnavailable, match=r"within 0\.3 s"):
        ask(WhichgpuAPI(slow_service, timeout_s=0.3))
    assert time.perf_counter() - started < 1.5


def test_default_timeout_is_about_ten_seconds():
    assert WhichgpuAPI("http://x").timeout_s == 10.0
