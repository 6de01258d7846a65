"""Stand-ins for Slack, for the tests and benchmarks/slack_ack.py: no network beyond 127.0.0.1.

- :class:`FakeSlack` is a small Web API server that records what the bot sends
  (``chat.postMessage``, ``views.publish``, ``auth.test``) and the messages posted
  to response URLs it hands out (``fake.response_url("any-id")``).
- :func:`signed` signs a body the way Slack does (v0 HMAC-SHA256 over
  ``v0:{timestamp}:{body}``), and the ``*_body`` helpers build what Slack posts:
  form-encoded slash commands, JSON events, ``payload=`` interactivity.
- :class:`ServerThread` serves an ASGI app with uvicorn on a real TCP port.
- :func:`run_socket_mode_bot` runs ``whichgpu bot`` against a local stand-in for
  Slack's Socket Mode WebSocket.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode

from slack_sdk.signature import SignatureVerifier

if TYPE_CHECKING:
    from bot.settings import BotSettings

__all__ = ["FakeSlack", "LocalHTTPServer", "ServerThread", "SlackCall", "action_body", "block_text",
           "buttons", "command_body", "event_body", "run_socket_mode_bot", "signed", "slash_command_envelope"]

BOT_USER_ID = "UWHICHGPU"
BOT_ID = "BWHICHGPU"
TEAM_ID = "T0WHICHGPU"


@dataclass(frozen=True)
class SlackCall:
    """One request the bot made: a Web API method (``chat.postMessage``) or ``response_url``."""

    method: str
    data: dict[str, Any]
    authorization: str | None
    at: float


class LocalHTTPServer(ThreadingHTTPServer):
    """http.server for bursts: the default listen backlog of 5 resets connections when 20 arrive at once."""

    request_queue_size = 128
    daemon_threads = True


class FakeSlack:
    """A recording Slack Web API on 127.0.0.1:<free port>; use as a context manager."""

    def __init__(self) -> None:
        self.calls: list[SlackCall] = []
        # what apps.connections.open hands out (a test's WebSocket server)
        self.socket_mode_url: str | None = None
        self._changed = threading.Condition()
        self._server = LocalHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-slack", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        """What ``WHICHGPU_SLACK_API_URL`` points at."""
        return f"{self.url}/api/"

    def response_url(self, key: str) -> str:
        return f"{self.url}/respond/{key}"

    def __enter__(self) -> FakeSlack:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def record(self, call: SlackCall) -> None:
        with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    def sent(self, method: str) -> list[SlackCall]:
        """Calls of one kind: ``"chat.postMessage"``, ``"views.publish"``, ``"response_url"``."""
        with self._changed:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, method: str, count: int = 1, timeout: float = 10.0) -> list[SlackCall]:
        """The first ``count`` calls of ``method``, waiting for them; AssertionError on timeout."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(found := [c for c in self.calls if c.method == method]) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [c.method for c in self.calls]
                    raise AssertionError(f"expected {count} {method} call(s) within {timeout:g} s; "
                                         f"Slack saw {seen}")
                self._changed.wait(left)
            return found[:count]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            wbufsize = -1  # headers and body in one write: no 40 ms Nagle/delayed-ACK stall per reply
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0)).decode("utf-8")
                if "json" in (self.headers.get("content-type") or ""):
                    data = json.loads(raw or "{}")
                else:
                    data = dict(parse_qsl(raw))
                auth = self.headers.get("authorization")
                if self.path.startswith("/respond/"):
                    key = self.path.rsplit("/", 1)[1]
                    fake.record(SlackCall("response_url", {**data, "_key": key}, auth, time.time()))
                    self._reply(b"ok", "text/plain")
                    return
                method = self.path.removeprefix("/api/").split("?")[0]
                fake.record(SlackCall(method, data, auth, time.time()))
                answer = _api_answer(method, data)
                if method == "apps.connections.open":
                    url = fake.socket_mode_url
                    answer = {"ok": True, "url": url} if url else {"ok": False, "error": "no_socket"}
                self._reply(json.dumps(answer).encode(), "application/json; charset=utf-8")

            def _reply(self, body: bytes, content_type: str) -> None:
                self.send_response(200)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:  # quiet
                pass

        return Handler


def _api_answer(method: str, data: dict[str, Any]) -> dict[str, Any]:
    if method == "auth.test":
        return {"ok": True, "url": "https://whichgpu-test.slack.com/", "team": "whichgpu test",
                "user": "whichgpu", "team_id": TEAM_ID, "user_id": BOT_USER_ID, "bot_id": BOT_ID,
                "is_enterprise_install": False}
    if method == "chat.postMessage":
        return {"ok": True, "channel": data.get("channel"), "ts": f"{time.time():.6f}",
                "message": {"text": data.get("text")}}
    if method == "views.publish":
        return {"ok": True, "view": {"id": "VHOME", "type": "home"}}
    return {"ok": True}


# --- what Slack posts ----------------------------------------------------------

def signed(secret: str, body: str, content_type: str, timestamp: int | None = None) -> dict[str, str]:
    """Headers Slack sends with ``body``: content type, timestamp and the v0 signature."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    return {"content-type": content_type, "x-slack-request-timestamp": ts, "x-slack-signature": signature}


FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


def command_body(text: str, response_url: str, *, user_id: str = "U0ASKER", channel_id: str = "C0LAB",
                 command: str = "/whichgpu") -> str:
    return urlencode({
        "token": "legacy-verification-token", "team_id": TEAM_ID, "team_domain": "whichgpu-test",
        "channel_id": channel_id, "channel_name": "lab", "user_id": user_id, "user_name": "asker",
        "command": command, "text": text, "api_app_id": "A0WHICHGPU", "is_enterprise_install": "false",
        "response_url": response_url, "trigger_id": "1.2.3",
    })


def event_body(event: dict[str, Any], event_id: str = "Ev0001") -> str:
    return json.dumps({
        "token": "legacy-verification-token", "team_id": TEAM_ID, "api_app_id": "A0WHICHGPU", "event": event,
        "type": "event_callback", "event_id": event_id, "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
    })


def action_body(action_id: str, value: str, response_url: str, *, ephemeral: bool = True,
                user_id: str = "U0ASKER", channel_id: str = "C0LAB") -> str:
    payload = {
        "type": "block_actions", "team": {"id": TEAM_ID, "domain": "whichgpu-test"},
        "user": {"id": user_id, "username": "asker", "team_id": TEAM_ID}, "api_app_id": "A0WHICHGPU",
        "token": "legacy-verification-token", "trigger_id": "1.2.4", "response_url": response_url,
        "container": {"type": "message", "message_ts": "1700000000.000200", "channel_id": channel_id,
                      "is_ephemeral": ephemeral},
        "channel": {"id": channel_id, "name": "lab"},
        "actions": [{"type": "button", "action_id": action_id, "block_id": "whichgpu.actions", "value": value,
                     "text": {"type": "plain_text", "text": action_id}, "action_ts": f"{time.time():.6f}"}],
    }
    return urlencode({"payload": json.dumps(payload)})


def block_text(blocks: Any) -> str:
    """Every text, value and URL in some blocks (or a view), one per line, for assertions."""
    out: list[str] = []

    def walk(node: Any) -> None:
        if hasattr(node, "to_dict"):
            node = node.to_dict()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("text", "value", "alt_text", "image_url") and isinstance(value, str):
                    out.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(blocks)
    return "\n".join(out)


def buttons(blocks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The buttons in some blocks (as Slack receives them), by action id."""
    return {e["action_id"]: e for b in blocks if b["type"] == "actions" for e in b["elements"]}


# --- a real TCP server for an ASGI app -----------------------------------------

class ServerThread:
    """Serve an ASGI app with uvicorn on 127.0.0.1:<free port> in a thread; a context manager.

    The port is bound at construction, so ``url`` is known before the app is made
    (an app that must know its own URL is set with ``server.app = ...``).
    """

    def __init__(self, app: Callable[..., Any] | None = None, *, lifespan: str = "auto") -> None:
        self.app = app
        self.lifespan = lifespan
        self.server: Any = None
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ServerThread:
        import uvicorn

        if self.app is None:
            raise RuntimeError("ServerThread needs an app before it starts")
        config = uvicorn.Config(self.app, log_level="warning", lifespan=self.lifespan, access_log=False)
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self._socket]},
                                        name="uvicorn", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.server is not None:
            self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._socket.close()


# --- Socket Mode -----------------------------------------------------------------

def slash_command_envelope(text: str, response_url: str, envelope_id: str = "env-1") -> dict[str, Any]:
    """What Slack sends over the Socket Mode WebSocket for ``/whichgpu text``."""
    payload = {"command": "/whichgpu", "text": text, "user_id": "U0ASKER", "channel_id": "C0LAB",
               "team_id": TEAM_ID, "response_url": response_url, "trigger_id": "1.2.3"}
    return {"envelope_id": envelope_id, "type": "slash_commands", "payload": payload,
            "accepts_response_payload": True}


def run_socket_mode_bot(fake: FakeSlack, settings: BotSettings, envelopes: list[dict[str, Any]],
                        until: Callable[[], Any], timeout_s: float = 30) -> list[dict[str, Any]]:
    """Run ``whichgpu bot`` (:func:`bot.socket.serve`) against a local Socket Mode WebSocket.

    ``fake`` hands out the socket's URL from ``apps.connections.open``; the socket says
    hello, sends ``envelopes``, and records what the bot sends back (its acks), which
    are returned once ``until()`` (run in a thread, e.g. ``fake.wait_for``) returns.
    """
    import asyncio

    from aiohttp import WSMsgType, web

    from bot.socket import serve

    received: list[dict[str, Any]] = []

    async def socket_mode(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(json.dumps({"type": "hello", "num_connections": 1}))
        for envelope in envelopes:
            await ws.send_str(json.dumps(envelope))
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                received.append(json.loads(message.data))
        return ws

    async def scenario() -> None:
        server = web.Application()
        server.router.add_get("/link", socket_mode)
        runner = web.AppRunner(server)
        await runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        await web.SockSite(runner, sock).start()
        fake.socket_mode_url = f"ws://127.0.0.1:{sock.getsockname()[1]}/link"
        bot = asyncio.create_task(serve(settings))
        try:
            await asyncio.get_running_loop().run_in_executor(None, until)
        finally:
            bot.cancel()
            await asyncio.gather(bot, return_exceptions=True)
            await runner.cleanup()

    asyncio.run(asyncio.wait_for(scenario(), timeout_s))
    return received
