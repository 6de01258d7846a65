"""Headless Chromium driven over the DevTools protocol on a pipe: a phone-sized viewport, layout measured.

``--remote-debugging-pipe`` reads commands on file descriptor 3 and writes answers on 4, each a JSON
message ended by a NUL byte; no port, no websocket library. Enough of the protocol for the page tests:
open a page at a viewport size, wait for it to load, evaluate JavaScript, take a screenshot.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

TIMEOUT_S = 60


class Browser:
    """One Chromium process and one page in it; a context manager that ends the process."""

    def __init__(self, chromium: str, profile: Path) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire() -> None:  # in the child: the pipe ends on the descriptors Chromium reads and writes
            reads, writes = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_r, from_browser_w))
            os.dup2(reads, 3)
            os.dup2(writes, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
             "--disable-background-networking", "--disable-component-update", f"--user-data-dir={profile}",
             "--remote-debugging-pipe", "about:blank"],
            preexec_fn=wire, pass_fds=(3, 4),  # kept open after the wiring
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id, self._buffer, self.session = 0, b"", ""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.send("Page.enable")

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.kill()
        self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Call ``method`` (on the page once attached) and return its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        reply = self._until(lambda m: m.get("id") == self._next_id)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def _until(self, wanted: Any) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message = json.loads(raw)
                if wanted(message):
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise AssertionError("Chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise AssertionError("Chromium closed its pipe")
            self._buffer += chunk

    def open(self, url: str, width: int, height: int) -> None:
        """``url`` in a viewport of ``width`` × ``height`` CSS pixels (a phone: touch, mobile layout)."""
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=True)  # fmt: skip
        self.send("Page.navigate", url=url)
        self._until(lambda m: m.get("method") == "Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"JavaScript failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path) -> bytes:
        """The viewport as PNG, written to ``path``."""
        data = base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])
        path.write_bytes(data)
        return data
