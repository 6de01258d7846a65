"""The `whichgpu` command as a user runs it: real subprocesses, real exit codes, no tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WHICHGPU = str(Path(sys.executable).with_name("whichgpu"))


def run(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "WHICHGPU_DATA_DIR": str(tmp_path),
        "WHICHGPU_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
    }
    return subprocess.run([WHICHGPU, *args], capture_output=True, text=True, env=env, timeout=120)


def test_ask_prints_the_answer_with_its_rules(tmp_path):
    result = run("ask", "nlp $800", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "used-cards" in result.stdout and "USD" in result.stdout  # the rules that decided it
    full = run("ask", "nlp $800", "--why", tmp_path=tmp_path)
    assert "workload-priorities" in full.stdout and "workload-priorities" not in result.stdout


def test_ask_json_as_of_a_date(tmp_path):
    result = run("ask", "cv 500 dollars", "--json", "--as-of", "2019-04-03", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    assert reply["query"]["as_of"] == "2019-04-03" and reply["query"]["workload"] == "cnn"
    # which card wins is the engine's business; the date is the CLI's
    pick = reply["recommendation"]["picks"][0]
    assert pick["unit_price"]["date"] <= "2019-04-03" and pick["total_price"]["amount"] <= 500


@pytest.mark.parametrize(
    "args, message",
    [
        (("ask", "nlp", "--as-of", "2099-01-01"), "future"),
        (("ask", "nlp", "--as-of", "yesterday"), "not a date"),
        (("catalog", "--vendor", "acme"), "vendor"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(tmp_path, args, message):
    result = run(*args, tmp_path=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_catalog_json_carries_the_chart_data(tmp_path):
    result = run("catalog", "--json", "--workload", "transformer", "--as-of", "2019-04-03", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    rows = {row["gpu"]: row for row in data["gpus"]}
    assert "rtx-3090" not in rows and rows["rtx-2080-ti"]["price"]["date"] <= "2019-04-03"
    assert rows["rtx-2080-ti"]["performance_basis"] == "estimated"
    assert rows["rtx-2080-ti"]["performance_per_1000"] > 0


def test_catalog_table_by_vendor(tmp_path):
    result = run("catalog", "--vendor", "amd", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "rx-7900-xtx" in result.stdout and "rtx-4090" not in result.stdout


def test_migrate_is_repeatable(tmp_path):
    for _ in range(2):
        result = run("migrate", tmp_path=tmp_path)
        assert result.returncode == 0 and "newest schema" in result.stdout, result.stderr


def test_agent_mistakes_are_one_line_and_exit_2(tmp_path):
    assert run("agents", "add", "lab-a", tmp_path=tmp_path).returncode == 0
    again = run("agents", "add", "lab-a", tmp_path=tmp_path)
    assert again.returncode == 2 and "already exists" in again.stderr and "Traceback" not in again.stderr
    missing = run("agents", "revoke", "nobody", tmp_path=tmp_path)
    assert missing.returncode == 2 and "nobody" in missing.stderr


def test_ask_imports_neither_the_web_stack_nor_the_orm(tmp_path):
    """A terminal answer starts fast: no Litestar, SQLAlchemy, matplotlib or Slack bolt."""
    probe = (
        "import sys; from service.cli import main; code = main(['ask', 'nlp $800']); "
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & "
        "{'litestar', 'sqlalchemy', 'sqlmodel', 'alembic', 'matplotlib', 'slack_bolt', 'uvicorn'}); "
        "print('HEAVY', heavy, code, file=sys.stderr)"
    )
    env = {
        **os.environ,
        "WHICHGPU_DATA_DIR": str(tmp_path),
        "WHICHGPU_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
    }
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120
    )
    assert "HEAVY [] 0" in result.stderr, result.stderr
    assert not (tmp_path / "cli.db").exists()  # asking reads measurements only from a database that is there


def test_a_question_not_understood_is_answered_and_exits_3(tmp_path):
    result = run("ask", "blah blah", tmp_path=tmp_path)
    assert result.returncode == 3, result.stderr
    assert "did not understand" in result.stdout and "Traceback" not in result.stderr
    assert run("ask", "help", tmp_path=tmp_path).returncode == 0  # help is an answer


def test_serve_on_a_taken_port_is_one_line_and_exit_1(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("serve", "--host", "127.0.0.1", "--port", str(port), tmp_path=tmp_path)
    assert result.returncode == 1
    assert result.stderr.strip() == f"whichgpu: cannot listen on 127.0.0.1:{port}: Address already in use"


@pytest.mark.parametrize(
    "args", [("serve", "--port", "99999"), ("serve", "--host", "no-such-host.invalid", "--port", "0")]
)
def test_serve_with_an_impossible_address_exits_2(tmp_path, args):
    result = run(*args, tmp_path=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 3  # argparse: usage + one line; ours: one line


def test_help_and_the_usage_guide_document_the_exit_codes(tmp_path):
    from service.cli import EXIT_CODES

    help_text = run("--help", tmp_path=tmp_path).stdout
    guide = (Path(__file__).resolve().parents[2] / "docs" / "usage.md").read_text(encoding="utf-8")
    for code, meaning in EXIT_CODES.items():
        assert f"{code:<4} {meaning}" in help_text
        assert f"| {code} | {meaning} |" in guide, f"docs/usage.md lacks exit code {code}"


def test_a_reader_that_leaves_early_is_no_error(tmp_path):
    """`whichgpu catalog --json | head -1`: quiet, exit 0."""
    env = {
        **os.environ,
        "WHICHGPU_DATA_DIR": str(tmp_path),
        "WHICHGPU_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
    }
    process = subprocess.Popen(
        [WHICHGPU, "catalog", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert process.stdout.readline().strip() == b"{"
    process.stdout.close()  # the reader leaves, as head does
    assert process.wait(timeout=120) == 0
    assert process.stderr.read() == b""


def test_a_terminal_gets_the_answer_with_ansi_styles_and_no_color_gets_it_plain(monkeypatch, capsys):
    from service import cli

    monkeypatch.setattr(cli.sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    cli._print_markdown("**1 × RTX 3090** — _memory-fit_: 24 GB, `nlp $800`, snake_case_word")
    styled = capsys.readouterr().out
    assert "\x1b[1m1 × RTX 3090\x1b[22m" in styled and "\x1b[3mmemory-fit\x1b[23m" in styled
    assert "\x1b[36mnlp $800\x1b[39m" in styled and "snake_case_word" in styled and "**" not in styled
    monkeypatch.setenv("NO_COLOR", "1")
    cli._print_markdown("**plain**")
    assert capsys.readouterr().out == "**plain**\n"
