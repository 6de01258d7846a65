"""The OpenAPI docs in headless Chromium with every host but the server unreachable: it must render."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server_process import running_server
from tests.web.test_web_browser import ARTIFACTS, _browse

pytestmark = pytest.mark.e2e
# Every name resolves to nothing except the server's own address: a CDN request fails.
OFFLINE = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("docs-browser")
    with running_server(f"sqlite:///{data / 'w.db'}", data) as url:
        yield url


def _offline_browse(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    return _browse(url, profile, OFFLINE, *extra, budget_ms=20000)


def test_the_api_docs_render_without_internet(base_url: str, tmp_path: Path) -> None:
    dom = _offline_browse(base_url + "/schema", tmp_path / "profile", "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert 'class="swagger-ui' in html  # Swagger UI's script ran and built its page
    assert "opblock-tag" in html and "/v1/recommendations" in html and "/v1/chat/completions" in html
    assert "Failed to load API definition" not in html and "Unable to render this definition" not in html


def test_a_screenshot_of_the_docs_is_kept(base_url: str, tmp_path: Path) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "api-docs-offline.png"
    shot.unlink(missing_ok=True)
    run = _offline_browse(base_url + "/schema", tmp_path / "profile-shot", f"--screenshot={shot}")
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    from matplotlib.image import imread

    assert imread(shot).std() > 0.05, "the docs page is blank"
