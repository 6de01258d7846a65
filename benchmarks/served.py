"""A real `whichgpu serve` for the load scripts: a fresh data directory, a free port, up once /healthz is."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Served:
    port: int
    pid: int
    data_dir: Path
    database_url: str


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _healthy(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False


@contextmanager
def whichgpu_serve(**settings: str) -> Iterator[Served]:
    """The server with ``settings`` (environment variables) on SQLite in a temporary directory,
    or on ``WHICHGPU_DATABASE_URL`` when that is set; stopped on exit."""
    data = Path(tempfile.mkdtemp(prefix="whichgpu-bench-"))
    url = os.environ.get("WHICHGPU_DATABASE_URL") or f"sqlite:///{data}/whichgpu.db"
    port = _free_port()
    env = {**os.environ, "WHICHGPU_DATA_DIR": str(data), "WHICHGPU_DATABASE_URL": url,
           "PYTHONPATH": str(ROOT), **settings}
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"):
        env.pop(name, None)
    with open(data / "server.log", "w") as log:
        # its own session: the server does not share the load generator's scheduling group
        command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        try:
            deadline = time.monotonic() + 60  # the port opens before the app is ready: wait for /healthz
            while not _healthy(port):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the server did not start; see {data}/server.log")
                time.sleep(0.1)
            yield Served(port, server.pid, data, url)
        finally:
            server.terminate()
            server.wait(timeout=30)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
