"""The page in a real browser: the server over TCP, headless Chromium, a screenshot kept in artifacts/.

Needs ``/usr/bin/chromium`` (Debian: ``apt-get install -y chromium``); skipped without it locally,
failed under CI=true.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server_process import running_server
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
            pytest.fail(
                f"Chromium is required under CI=true but {CHROMIUM} is missing (apt-get install -y chromium)"
            )
        pytest.skip(f"Chromium not installed at {CHROMIUM}")
    return path


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``whichgpu serve`` (the real CLI and uvicorn) on a free port with its own SQLite database."""
    data = tmp_path_factory.mktemp("browser")
    with running_server(f"sqlite:///{data / 'w.db'}", data) as url:
        yield url


def _browse(url: str, profile: Path, *extra: str, budget_ms: int = 15000) -> subprocess.CompletedProcess:
    """Headless Chromium on ``url``, a fresh profile; ``extra`` flags (dump, screenshot, hosts) go last."""
    command = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--window-size=1200,2000",
        f"--virtual-time-budget={budget_ms}",
        *extra,
        url,
    ]
    return subprocess.run(command, capture_output=True, timeout=120, text=True)


def test_the_answer_and_its_charts_render_in_chromium(base_url: str, tmp_path: Path) -> None:
    dom = _browse(base_url + QUESTION_URL, tmp_path / "profile-dom", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    answer = httpx.post(base_url + "/v1/ask", json={"text": "nlp $800"}, timeout=30).json()["recommendation"]
    assert answer["picks"][0]["name"] in html and 'id="answer"' in html
    assert 'src="/v1/charts/perf-per-dollar.svg?workload=transformer' in html
    assert 'src="/v1/charts/question.svg?q=nlp+%24800"' in html
    # both charts loaded in the browser
    assert html.count('data-state="loaded"') == 2 and 'data-state="broken"' not in html


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
