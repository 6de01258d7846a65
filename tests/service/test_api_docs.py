"""The OpenAPI docs page loads everything it needs from the service itself (no CDN)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.app_client import app_client


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(tmp_path_factory.mktemp("docs")) as client:
        yield client


def _references(html: str) -> list[str]:
    return re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)


@pytest.mark.parametrize("path", ["/schema", "/schema/swagger"])
def test_the_docs_page_refers_only_to_its_own_assets(client, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    references = _references(page.text)
    assert {Path(r).name for r in references} >= {
        "swagger-ui-bundle.js",
        "swagger-ui.css",
        "swagger-ui-standalone-preset.js",
    }
    assert [r for r in references if "//" in r] == [], "the page loads something from another host"
    for reference in references:
        asset = client.get(reference)
        assert asset.status_code == 200, reference
        assert len(asset.content) > 1000


def test_the_assets_have_their_content_types(client) -> None:
    assert client.get("/docs-assets/swagger-ui-bundle.js").headers["content-type"].split(";")[0] in (
        "text/javascript",
        "application/javascript",
    )
    assert client.get("/docs-assets/swagger-ui.css").headers["content-type"].startswith("text/css")
    assert client.get("/docs-assets/no-such-file.js").status_code == 404
