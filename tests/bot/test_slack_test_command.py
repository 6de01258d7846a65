"""`whichgpu slack-test` against a real `whichgpu serve` process: the bot tried without a Slack workspace.

The command plays Slack's side: it signs a slash command, posts it over TCP, stands in for Slack's Web
API (the server's WHICHGPU_SLACK_API_URL points at it) and prints the answer posted to the response URL.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.local import blocks_as_text, find_button, signed_headers
from tests.server_process import WHICHGPU, ServerProcess, free_port, service_env

SECRET = "slack-test-secret"
pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def slack_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """`whichgpu serve` with Slack configured, and the port its Slack Web API is expected on."""
    data = tmp_path_factory.mktemp("slack-test")
    slack_port = free_port()
    server = ServerProcess(
        f"sqlite:///{data / 'w.db'}",
        data,
        SLACK_BOT_TOKEN="xoxb-local",
        SLACK_SIGNING_SECRET=SECRET,
        WHICHGPU_SLACK_API_URL=f"http://127.0.0.1:{slack_port}/api/",
    )
    try:
        yield server.start().url, slack_port
    finally:
        server.stop()


def slack_test(tmp_path: Path, *args: str, secret: str = SECRET) -> subprocess.CompletedProcess[str]:
    env = service_env(f"sqlite:///{tmp_path / 'cli.db'}", tmp_path, SLACK_SIGNING_SECRET=secret)
    return subprocess.run(
        [WHICHGPU, "slack-test", *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_a_signed_command_prints_the_answer_and_a_pressed_button(slack_server, tmp_path) -> None:
    url, port = slack_server
    done = slack_test(tmp_path, "nlp $800", "--url", url, "--slack-port", str(port), "--press", "Cheaper")
    assert done.returncode == 0, done.stderr
    ack, _, rest = done.stdout.partition("\n")
    assert ack == "ack: :mag: Looking into “nlp $800”…"  # the $ reached the bot intact
    answer, _, pressed = rest.partition("\npressed [")
    assert "Top pick: GeForce RTX 3090" in answer and "[Cheaper]" in answer
    assert pressed.startswith("Cheaper]:") and "Top pick: GeForce RTX 3090" not in pressed
    assert "Top pick:" in pressed and done.stderr == ""


def test_why_gives_the_full_answer_in_slack(slack_server, tmp_path) -> None:
    url, port = slack_server
    done = slack_test(tmp_path, "nlp $800", "--url", url, "--slack-port", str(port), "--press", "why")
    assert done.returncode == 0, done.stderr
    short, _, full = done.stdout.partition("\npressed [Why?]:\n")
    assert "`workload-priorities`" not in short and "`workload-priorities`" in full
    assert "[Why?]" in short and "[Why?]" not in full


def test_json_prints_the_blocks_slack_would_render(slack_server, tmp_path) -> None:
    import json

    url, port = slack_server
    done = slack_test(tmp_path, "cv 2 gpus 3000", "--url", url, "--slack-port", str(port), "--json")
    assert done.returncode == 0, done.stderr
    blocks = json.loads(done.stdout.partition("\n")[2])
    assert 0 < len(blocks) <= 50 and find_button(blocks, "more memory") is not None
    assert "2 ×" in blocks_as_text(blocks)


def test_refusals_say_what_to_fix(slack_server, tmp_path) -> None:
    url, port = slack_server
    wrong = slack_test(tmp_path, "nlp $800", "--url", url, "--slack-port", str(port), secret="not-it")
    assert wrong.returncode == 1 and "use the server's SLACK_SIGNING_SECRET" in wrong.stderr
    assert "Traceback" not in wrong.stderr
    nowhere = slack_test(
        tmp_path, "nlp", "--url", f"http://127.0.0.1:{free_port()}", "--slack-port", str(port)
    )
    assert nowhere.returncode == 1 and "is `whichgpu serve` running?" in nowhere.stderr
    unset = slack_test(tmp_path, "nlp", "--url", url, secret="")
    assert unset.returncode == 2 and "SLACK_SIGNING_SECRET" in unset.stderr


def test_the_same_command_twice_is_not_taken_for_a_replay(slack_server, tmp_path) -> None:
    url, port = slack_server
    runs = [slack_test(tmp_path, "help", "--url", url, "--slack-port", str(port)) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr
    assert all("whichgpu" in r.stdout for r in runs)


def test_signed_headers_match_slacks_scheme() -> None:
    from slack_sdk.signature import SignatureVerifier

    headers = signed_headers(SECRET, "text=nlp", now=1_700_000_000)
    assert headers["x-slack-signature"] == SignatureVerifier(SECRET).generate_signature(
        timestamp="1700000000", body="text=nlp"
    )
