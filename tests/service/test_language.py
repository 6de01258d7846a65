"""A Russian question gets Russian headings in every face: CLI, API, Slack and the web page;
names and numbers stay as they are, and an English question stays English."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from bot.blocks import Conversation, answer_blocks
from rules.contract.answer import Reply
from tests.app_client import app_client
from tests.fake_slack import block_text

RUSSIAN = "какую видеокарту купить для нейросетей за 50000 рублей"
ENGLISH = "which gpu for deep learning for 600 dollars"
RUSSIAN_HEADINGS = ("Почему", "Арендовать или купить")
ENGLISH_HEADINGS = ("Why", "Rent or buy")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    with app_client(tmp_path_factory.mktemp("language")) as client:
        yield client


@pytest.fixture(scope="module")
def replies(client) -> dict[str, dict]:
    return {text: client.post("/v1/ask", json={"text": text}).json() for text in (RUSSIAN, ENGLISH)}


def test_the_parser_reads_the_language(replies) -> None:
    assert replies[RUSSIAN]["recommendation"]["question"]["language"] == "ru"
    assert replies[ENGLISH]["recommendation"]["question"]["language"] in ("en", None)


def test_the_api_answer_has_russian_headings_and_the_same_names_and_numbers(client, replies) -> None:
    reply = replies[RUSSIAN]
    full = client.post("/v1/ask", json={"text": RUSSIAN, "detail": "full"}).json()["answer"]
    text, top = reply["answer"], reply["recommendation"]["picks"][0]
    assert "**Почему**" in text and "**Why**" not in text  # the short answer too
    assert all(f"**{heading}" in full for heading in RUSSIAN_HEADINGS)
    assert not any(f"**{heading}" in full for heading in ENGLISH_HEADINGS)
    amount = f"{top['unit_price']['amount']:,.0f}".replace(",", " ")  # Russian groups digits with a space
    assert top["name"] in text and f"{amount} {top['unit_price']['currency']}" in text
    assert f"({top['memory_gb']:g} ГБ" in text
    assert "эталона" in full and "на 100 000 RUB" in full and f", {top['memory_gb']:g} ГБ" in full
    for shown in (text, full):
        assert not re.search(r"\d,\d{3}\b", shown)  # no English digit groups left anywhere


def test_an_english_question_stays_english(replies) -> None:
    text = replies[ENGLISH]["answer"]
    assert all(f"**{heading}" in text for heading in ENGLISH_HEADINGS) and "Почему" not in text


def test_slack_blocks_follow_the_answers_language(replies) -> None:
    russian = block_text(
        answer_blocks(msgspec.convert(replies[RUSSIAN], Reply), Conversation(None, (RUSSIAN,)))
    )
    english = block_text(
        answer_blocks(msgspec.convert(replies[ENGLISH], Reply), Conversation(None, (ENGLISH,)))
    )
    assert "*Почему*" in russian and "Лучший выбор:" in russian and "Цены на" in russian
    assert "*Why*" in english and "Top pick:" in english and "Почему" not in english
    assert replies[RUSSIAN]["recommendation"]["picks"][0]["name"] in russian


def test_slack_help_follows_the_language(client) -> None:
    reply = msgspec.convert(client.post("/v1/ask", json={"text": "помощь"}).json(), Reply)
    assert "Спрашивайте обычными словами" in block_text(answer_blocks(reply, Conversation(None, ("помощь",))))


def test_the_web_page_answers_in_russian(client) -> None:
    page = client.get("/", params={"q": RUSSIAN}).text
    assert 'lang="ru"' in page and "<h3>Почему</h3>" in page and "<h3>Why</h3>" not in page


def test_help_and_clarification_follow_the_language(client) -> None:
    assert "Спрашивайте обычными словами" in client.post("/v1/ask", json={"text": "помощь"}).json()["answer"]
    assert "Я не понял" in client.post("/v1/ask", json={"text": "абракадабра"}).json()["answer"]
    assert "I did not understand" in client.post("/v1/ask", json={"text": "abracadabra"}).json()["answer"]


def test_the_cli_prints_russian_headings(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "WHICHGPU_DATA_DIR": str(tmp_path),
        "WHICHGPU_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
    }
    result = subprocess.run(
        [str(Path(sys.executable).with_name("whichgpu")), "ask", RUSSIAN, "--why"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert all(f"**{heading}" in result.stdout for heading in RUSSIAN_HEADINGS)
