"""Words of a question no reading took reach the asker on every face: the CLI as a user runs it, and the
API's JSON and the OpenAI-compatible chat over TCP from a real server process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server_process import running_server

WHICHGPU = str(Path(sys.executable).with_name("whichgpu"))
LINE = "Not understood: '00', 'zxqv'"


def test_the_cli_names_words_not_understood(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "WHICHGPU_DATA_DIR": str(tmp_path),
        "WHICHGPU_DATABASE_URL": f"sqlite:///{tmp_path / 'c.db'}",
    }
    shown = subprocess.run(
        [WHICHGPU, "ask", "nlp 00 zxqv"], capture_output=True, text=True, env=env, timeout=120
    )
    assert shown.returncode == 0, shown.stderr
    assert LINE in shown.stdout and "single quotes" in shown.stdout
    data = subprocess.run(
        [WHICHGPU, "ask", "nlp 00 zxqv", "--json"], capture_output=True, text=True, env=env, timeout=120
    )
    assert json.loads(data.stdout)["not_understood"] == ["00", "zxqv"]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("not-understood")
    with running_server(f"sqlite:///{data / 'w.db'}", data, cli=False) as url:
        yield url


@pytest.mark.e2e
def test_the_api_carries_them_as_a_field_and_in_the_text(base_url: str) -> None:
    reply = httpx.post(base_url + "/v1/ask", json={"text": "nlp 00 zxqv"}, timeout=30)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["not_understood"] == ["00", "zxqv"] and LINE in body["answer"]
    assert (
        httpx.post(base_url + "/v1/ask", json={"text": "nlp $800"}, timeout=30).json()["not_understood"] == []
    )


@pytest.mark.e2e
def test_the_chat_says_them(base_url: str) -> None:
    from openai import OpenAI

    client = OpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0)
    completion = client.chat.completions.create(
        model="whichgpu", messages=[{"role": "user", "content": "llm qwerty 1200 zxqv"}]
    )
    text = completion.choices[0].message.content
    assert "Not understood: 'qwerty', 'zxqv'" in text


def test_the_cli_answers_ai_questions_it_used_to_refuse(tmp_path: Path) -> None:
    """'ai' was not a word it knew: the question got exit 3 and no answer."""
    env = {
        **os.environ,
        "WHICHGPU_DATA_DIR": str(tmp_path),
        "WHICHGPU_DATABASE_URL": f"sqlite:///{tmp_path / 'c.db'}",
    }
    shown = subprocess.run(
        [WHICHGPU, "ask", "what's the best graphics card for ai stuff"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "Not understood" not in shown.stdout and "×" in shown.stdout
