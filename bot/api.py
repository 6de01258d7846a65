"""The whichgpu JSON API as the bot sees it: ``POST {api_url}/v1/ask`` over httpx.

Over Socket Mode the bot asks the service over HTTP, so it runs beside the service or
on another host (inside the service it answers in-process). The reply is decoded into
the same typed :class:`~rules.answer.Reply` the service encoded. Failures are three exceptions::

    AskError
    ├── ServiceUnavailable   connection refused, timeout, 5xx, a body that is not JSON
    ├── QuestionRejected     a problem+json 4xx (e.g. 422 for a future date): its detail is for the user
    └── UnreadableAnswer     a 200 whose body is not a Reply
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import httpx
import msgspec

from rules.contract.answer import Reply
from rules.contract.text import AskRequest

__all__ = ["AskError", "QuestionRejected", "Reply", "ServiceUnavailable", "UnreadableAnswer", "WhichgpuAPI"]

DEFAULT_TIMEOUT_S = 10.0
JSON_HEADERS = {"accept": "application/json", "content-type": "application/json"}


class AskError(Exception):
    """The service gave no answer the bot can show."""


class ServiceUnavailable(AskError):
    """The service could not be reached, was too slow, or failed (5xx)."""


class QuestionRejected(AskError):
    """The service refused the question with a problem+json 4xx."""

    def __init__(self, status: int, title: str, detail: str,
                 errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(f"{status} {title}: {detail}")
        self.status = status
        self.title = title
        self.detail = detail
        self.errors = errors or []


class UnreadableAnswer(AskError):
    """The service answered 200 with a body that is not a :class:`~rules.answer.Reply`
    (a newer service, a bug)."""


class WhichgpuAPI:
    """A client of the service's ``/v1/ask``, keeping one connection pool per event loop.

    The bot shares one object between uvicorn's loop (HTTP mode) and the Socket Mode
    loop, and tests run many loops, so the pool is per loop rather than global.
    Everything costly is done once: a fresh ``httpx.AsyncClient`` per question would
    build a TLS context (~50 ms of CPU on the event loop) and a new connection each
    time, and every ack in flight would wait for it (benchmarks/slack_ack.py).
    ``transport`` is the seam for tests that want no network at all.
    """

    def __init__(self, base_url: str, timeout_s: float = DEFAULT_TIMEOUT_S,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.transport = transport
        self._tls = httpx.create_ssl_context()
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient]
        self._clients = weakref.WeakKeyDictionary()

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.is_closed:
            client = httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout_s,
                                       transport=self.transport, verify=self._tls)
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close this loop's connection pool (the next question opens a new one)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    async def ask(self, text: str, conversation_id: str | None = None, *, start: bool = False) -> Reply:
        """The service's answer; ``start`` keeps the question for follow-ups (else nothing is stored)."""
        payload = AskRequest(text=text, conversation_id=conversation_id or None,
                             start_conversation=start and not conversation_id)
        try:
            response = await self._client().post("/v1/ask", content=msgspec.json.encode(payload),
                                                 headers=JSON_HEADERS)
        except httpx.TimeoutException as exc:
            raise ServiceUnavailable(f"no answer from {self.base_url} within {self.timeout_s:g} s") from exc
        except httpx.HTTPError as exc:
            raise ServiceUnavailable(f"cannot reach {self.base_url}: {type(exc).__name__}") from exc
        return _reply(response)


def _reply(response: httpx.Response) -> Reply:
    if response.status_code < 300:
        try:
            return msgspec.json.decode(response.content, type=Reply)
        except msgspec.ValidationError as exc:
            raise UnreadableAnswer(f"the service's answer is not a reply this bot reads: {exc}") from None
        except msgspec.DecodeError:
            status = response.status_code
            raise ServiceUnavailable(f"the service answered {status} without a usable answer") from None
    try:
        data = response.json()
    except ValueError:
        data = None
    if 400 <= response.status_code < 500:
        problem = data if isinstance(data, dict) else {}
        raise QuestionRejected(
            response.status_code,
            str(problem.get("title") or response.reason_phrase),
            str(problem.get("detail") or problem.get("title") or "the service could not use this question"),
            [e for e in problem.get("errors") or [] if isinstance(e, dict)],
        )
    raise ServiceUnavailable(f"the service answered {response.status_code} without a usable answer")
