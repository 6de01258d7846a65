"""The page in a real browser: the server process over TCP, headless Chromium, a screenshot kept in artifacts/.

Needs ``/usr/bin/chromium`` (Debian: ``apt-get install -y chromium``); skipped without it locally, failed under CI=true.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.web.test_web_charts import png_size

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("WHICHGPU_TEST_CHROMIUM", "/usr/bin/chromium")
QUESTION_URL = "/?q=nlp+%24800"


def _chromium() -> str:
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if not path:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"Chromium is required under CI=true but {CHROMIUM} is missing (apt-get install -y chromium)")
        pytest.skip(f"Chromium not installed at {CHROMIUM}")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``whichgpu serve`` (the real CLI and uvicorn) on a free port with its own SQLite database."""
    data = tmp_path_factory.mktemp("browser")
    port = _free_port()
    env = {**os.environ, "WHICHGPU_DATABASE_URL": f"sqlite:///{data / 'w.db'}", "WHICHGPU_DATA_DIR": str(data)}
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"):
        env.pop(name, None)
    log_path = data / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "service.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
                                   cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                if process.poll() is not None:
                    raise AssertionError(f"server exited: {log_path.read_text()[-2000:]}")
                try:
                    if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "server did not become healthy in 60 s"
                time.sleep(0.2)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def _browse(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", "--window-size=1200,2000", "--virtual-time-budget=15000", *extra, url]
    return subprocess.run(command, capture_output=True, timeout=120, text=True)


def test_the_answer_and_its_charts_render_in_chromium(base_url: str, tmp_path: Path) -> None:
    dom = _browse(base_url + QUESTION_URL, tmp_path / "profile-dom", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    answer = httpx.post(base_url + "/v1/ask", json={"text": "nlp $800"}, timeout=30).json()["recommendation"]
    assert answer["picks"][0]["name"] in html and 'id="answer"' in html
    assert 'src="/v1/charts/perf-per-dollar.svg?workload=transformer' in html
    assert 'src="/v1/charts/question.svg?q=nlp+%24800"' in html
    assert html.count('data-state="loaded"') == 2 and 'data-state="broken"' not in html  # both charts loaded in the browser


def test_a_screenshot_of_the_page_is_kept(base_url: str, tmp_path: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "web-nlp-800.png"
    shot.unlink(missing_ok=True)
    run = _browse(base_url + QUESTION_URL, tmp_path / "profile-shot", f"--screenshot={shot}")
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    data = shot.read_bytes()
    assert png_size(data) == (1200, 2000)
    from matplotlib.image import imread

    pixels = imread(shot)
    assert pixels.std() > 0.05, "the screenshot is (nearly) one colour"
    assert len(data) > 50_000
