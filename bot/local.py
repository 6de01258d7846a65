"""Try the Slack bot without a workspace: play Slack's side against a running ``whichgpu serve``.

``whichgpu slack-test 'nlp $800'`` signs a ``/whichgpu`` slash command with the signing secret and
posts it to the server's ``POST /slack/events``, as Slack would. The bot answers twice: the
acknowledgement at once, then the answer posted to the command's ``response_url``. Here that URL
is a small local listener (:class:`LocalSlack`), which also answers the bot's Web API calls
(``auth.test`` before its first listener runs), so the server must be started with
``WHICHGPU_SLACK_API_URL`` pointing at it (docs/slack.md). ``press`` then clicks a button of the
answer, as a user would, and waits for what the bot posts back.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlencode

import httpx

__all__ = ["LocalSlack", "SlackTrial", "blocks_as_text", "find_button", "local_slack", "signed_headers"]

TEAM_ID, USER_ID, CHANNEL_ID, APP_ID = "T0LOCAL", "U0LOCAL", "C0LOCAL", "A0LOCAL"
FORM = "application/x-www-form-urlencoded"
AUTH_TEST = {
    "ok": True,
    "url": "https://local.slack.invalid/",
    "team": "local",
    "user": "whichgpu",
    "team_id": TEAM_ID,
    "user_id": "U0WHICHGPU",
    "bot_id": "B0WHICHGPU",
}


def _trigger_id() -> str:
    """Unique per request, as Slack's are: two identical commands in one second are not one replayed."""
    return f"local.{uuid.uuid4().hex}"


def signed_headers(secret: str, body: str, now: float | None = None) -> dict[str, str]:
    """The headers Slack sends with a form ``body``: its timestamp and v0 signature."""
    stamp = str(int(time.time() if now is None else now))
    digest = hmac.new(secret.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"content-type": FORM, "x-slack-request-timestamp": stamp, "x-slack-signature": f"v0={digest}"}


@dataclass
class LocalSlack:
    """What the bot posted to this stand-in for Slack: replies to response URLs, and Web API calls."""

    port: int
    replies: list[dict[str, Any]] = field(default_factory=list)
    api_calls: list[str] = field(default_factory=list)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    @property
    def api_url(self) -> str:
        """What the server's ``WHICHGPU_SLACK_API_URL`` must be."""
        return f"http://127.0.0.1:{self.port}/api/"

    def response_url(self, number: int) -> str:
        return f"http://127.0.0.1:{self.port}/response/{number}"

    def wait_reply(self, count: int, timeout_s: float) -> dict[str, Any] | None:
        """The ``count``-th reply posted to a response URL, once it arrives (None after ``timeout_s``)."""
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.replies) >= count, timeout=timeout_s)
            return self.replies[count - 1] if len(self.replies) >= count else None

    def record(self, path: str, body: bytes) -> dict[str, Any]:
        """Keep what arrived at ``path``; the answer the bot expects from Slack's Web API."""
        with self.arrived:
            if path.startswith("/response/"):
                try:
                    self.replies.append(json.loads(body or b"{}"))
                except ValueError:
                    self.replies.append({"text": body.decode("utf-8", "replace")})
            else:
                self.api_calls.append(path.removeprefix("/api/"))
            self.arrived.notify_all()
        return AUTH_TEST if path == "/api/auth.test" else {"ok": True}


def _handler(slack: LocalSlack) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            answer = json.dumps(slack.record(self.path, self.rfile.read(length))).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the command prints what matters."""

    return Handler


@contextmanager
def local_slack(port: int) -> Iterator[LocalSlack]:
    """The stand-in for Slack listening on 127.0.0.1:``port`` for the block (``OSError`` if it is taken)."""
    server = ThreadingHTTPServer(("127.0.0.1", port), BaseHTTPRequestHandler)
    slack = LocalSlack(server.server_address[1])
    server.RequestHandlerClass = _handler(slack)
    thread = threading.Thread(target=server.serve_forever, name="local-slack", daemon=True)
    thread.start()
    try:
        yield slack
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class SlackTrial:
    """One conversation with the bot at ``server`` (its base URL), signed with ``secret``."""

    server: str
    secret: str
    slack: LocalSlack
    timeout_s: float = 30.0

    def post(self, body: str) -> httpx.Response:
        """Send a signed request to the server's Slack endpoint (``httpx.HTTPError`` when unreachable)."""
        return httpx.post(
            self.server.rstrip("/") + "/slack/events",
            content=body.encode(),
            headers=signed_headers(self.secret, body),
            timeout=self.timeout_s,
        )

    def command(self, text: str) -> httpx.Response:
        """``/whichgpu text`` as Slack sends it; its reply arrives at response URL 1."""
        return self.post(
            urlencode(
                {
                    "token": "local",
                    "team_id": TEAM_ID,
                    "team_domain": "local",
                    "channel_id": CHANNEL_ID,
                    "channel_name": "local",
                    "user_id": USER_ID,
                    "user_name": "you",
                    "command": "/whichgpu",
                    "text": text,
                    "api_app_id": APP_ID,
                    "response_url": self.slack.response_url(1),
                    "trigger_id": _trigger_id(),
                }
            )
        )

    def press(self, button: dict[str, Any], reply_number: int) -> httpx.Response:
        """Click ``button`` of an ephemeral answer, as Slack sends it; its reply comes to ``reply_number``."""
        action = {
            "type": "button",
            "action_id": button.get("action_id", ""),
            "block_id": "local",
            "value": button.get("value", ""),
            "text": button.get("text", {}),
            "action_ts": f"{time.time():.6f}",
        }
        payload = {
            "type": "block_actions",
            "team": {"id": TEAM_ID, "domain": "local"},
            "user": {"id": USER_ID, "username": "you", "team_id": TEAM_ID},
            "api_app_id": APP_ID,
            "token": "local",
            "trigger_id": _trigger_id(),
            "response_url": self.slack.response_url(reply_number),
            "container": {"type": "message", "channel_id": CHANNEL_ID, "is_ephemeral": True},
            "channel": {"id": CHANNEL_ID, "name": "local"},
            "actions": [action],
        }
        return self.post(urlencode({"payload": json.dumps(payload)}))


def _buttons(blocks: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for block in blocks:
        for element in block.get("elements", ()) if block.get("type") == "actions" else ():
            if element.get("type") == "button":
                yield element
        accessory = block.get("accessory") or {}
        if accessory.get("type") == "button":
            yield accessory


def find_button(blocks: list[dict[str, Any]], label: str) -> dict[str, Any] | None:
    """The button whose label or action id is ``label`` (any case, without its emoji or punctuation)."""
    wanted = _plain_label(label)
    for button in _buttons(blocks):
        shown = _plain_label(str((button.get("text") or {}).get("text", "")))
        if wanted in (shown, _plain_label(str(button.get("action_id", "")))):
            return button
    return None


def _plain_label(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum() or ch == " ").strip()


def blocks_as_text(blocks: list[dict[str, Any]]) -> str:
    """Block Kit as a terminal shows it: sections' text, context lines, buttons in brackets, rules."""
    lines: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind in ("section", "header"):
            text = (block.get("text") or {}).get("text", "")
            fields = [f.get("text", "") for f in block.get("fields") or ()]
            lines += [part for part in (text, *fields) if part]
        elif kind == "context":
            lines.append("  ".join(str(e.get("text") or e.get("alt_text") or "") for e in block["elements"]))
        elif kind == "actions":
            labels = [(e.get("text") or {}).get("text", "") for e in block.get("elements", ())]
            lines.append(" ".join(f"[{label}]" for label in labels if label))
        elif kind == "divider":
            lines.append("─" * 40)
        elif kind == "image":
            lines.append(f"[image: {block.get('alt_text', '')}] {block.get('image_url', '')}")
        else:
            lines.append(f"[{kind} block]")
    return "\n".join(lines)
