"""A real whichgpu server process on a free local port, for the end-to-end tests.

One home for starting `whichgpu serve` (or uvicorn on the app factory), waiting for
/healthz, and stopping it, so every test that crosses TCP starts servers the same way.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
WHICHGPU = str(Path(sys.executable).with_name("whichgpu"))
START_TIMEOUT_S = 90


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def service_env(database_url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    """This process's environment without any WHICHGPU_/SLACK_ setting, pointed at one database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WHICHGPU_", "SLACK_"))}
    return {**env, "PYTHONPATH": str(ROOT), "WHICHGPU_DATABASE_URL": database_url,
            "WHICHGPU_DATA_DIR": str(data_dir), "MPLCONFIGDIR": str(data_dir / "mpl"), **extra}


class ServerProcess:
    """`whichgpu serve` (``cli=True``) or uvicorn on ``service.app:create_app``; restartable on its port."""

    def __init__(self, database_url: str, data_dir: Path, cli: bool = True, **env: str) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = service_env(database_url, data_dir, **env)
        self.log = data_dir / f"server-{self.port}.log"
        self.cli = cli
        self.process: subprocess.Popen | None = None

    def start(self, wait: bool = True) -> ServerProcess:
        if self.cli:
            command = [WHICHGPU, "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        else:
            command = [sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app",
                       "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                raise AssertionError(f"the server exited:\n{self.log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"the server did not answer /healthz within {START_TIMEOUT_S} s:\n"
                             f"{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


@contextmanager
def running_server(database_url: str, data_dir: Path, cli: bool = True, **env: str) -> Iterator[str]:
    """A started server for the block; yields its base URL."""
    server = ServerProcess(database_url, data_dir, cli, **env)
    try:
        yield server.start().url
    finally:
        server.stop()
