"""`whichgpu` follows the conventions of a command-line tool: --version, a serve that says where it listens,
a catalog that fits 80 columns on a terminal and is tab-separated in a pipe, shell completion."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import shutil
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import httpx
import pytest

from rules.understand.workloads import LISTED_WORKLOADS
from tests.pty_output import read_until_closed

WHICHGPU = str(Path(sys.executable).with_name("whichgpu"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "WHICHGPU_DATA_DIR": str(tmp_path),
        "WHICHGPU_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        **extra,
    }


def run(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([WHICHGPU, *args], capture_output=True, text=True, env=_env(tmp_path), timeout=120)


def on_a_terminal(*args: str, tmp_path: Path, columns: int = 80) -> str:
    """What a person sees: stdout is a pseudo-terminal COLUMNS wide."""
    leader, follower = pty.openpty()
    env = _env(tmp_path, COLUMNS=str(columns), TERM="xterm")
    process = subprocess.Popen([WHICHGPU, *args], stdout=follower, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    out = read_until_closed(leader)
    assert process.wait(timeout=120) == 0, process.stderr.read() if process.stderr else ""
    os.close(leader)
    return ANSI.sub("", out.decode()).replace("\r\n", "\n")


def test_version_names_the_installed_package(tmp_path):
    result = run("--version", tmp_path=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == f"whichgpu {version('whichgpu')}"


def test_serve_says_where_it_listens_and_answers_there(tmp_path):
    process = subprocess.Popen(
        [WHICHGPU, "serve", "--host", "127.0.0.1", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=_env(tmp_path),
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        found = re.fullmatch(r"listening on (http://127\.0\.0\.1:(\d+))", line)
        assert found and found.group(2) != "0", line  # the port actually bound, not the one asked
        for _ in range(300):
            try:
                assert httpx.get(f"{found.group(1)}/healthz", timeout=2).status_code == 200
                break
            except httpx.TransportError:
                process.poll()
                assert process.returncode is None
                time.sleep(0.1)
        else:
            pytest.fail("nothing answered where serve said it listens")
    finally:
        process.terminate()
        process.wait(timeout=20)


def _rows(text: str, delimiter: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text), delimiter=delimiter))


def test_catalog_in_a_pipe_is_tab_separated_and_matches_csv_and_json(tmp_path):
    piped = run("catalog", "--as-of", "2023-06-01", "--workload", "transformer", tmp_path=tmp_path)
    as_csv = run(
        "catalog", "--as-of", "2023-06-01", "--workload", "transformer", "--format", "csv", tmp_path=tmp_path
    )
    as_json = run(
        "catalog", "--as-of", "2023-06-01", "--workload", "transformer", "--format", "json", tmp_path=tmp_path
    )
    assert piped.returncode == as_csv.returncode == as_json.returncode == 0, piped.stderr
    assert "┃" not in piped.stdout and "│" not in piped.stdout  # no box drawing in a pipe
    tsv_rows = _rows(piped.stdout, "\t")
    assert tsv_rows == _rows(as_csv.stdout, ",")
    cards = json.loads(as_json.stdout)["gpus"]
    assert [row["gpu"] for row in tsv_rows] == [card["gpu"] for card in cards]
    for row, card in zip(tsv_rows, cards, strict=True):
        assert float(row["relative_performance"]) == card["relative_performance"]
        if card["price"]:
            assert float(row["price"]) == card["price"]["amount"]
            assert row["price_date"] == card["price"]["date"]
        else:
            assert row["price"] == row["performance_per_1000"] == ""


def test_catalog_on_an_80_column_terminal_fits_and_cuts_no_id(tmp_path):
    screen = on_a_terminal("catalog", "--used", tmp_path=tmp_path)
    assert max(len(line) for line in screen.splitlines()) <= 80, screen
    ids = [row["gpu"] for row in _rows(run("catalog", "--used", tmp_path=tmp_path).stdout, "\t")]
    shown = {line.split()[0] for line in screen.splitlines() if line.strip()}
    assert set(ids) <= shown, set(ids) - shown
    assert "…" not in screen


def test_catalog_and_chart_take_every_listed_workload_and_the_words_ask_reads(tmp_path):
    for workload in LISTED_WORKLOADS:
        result = run("catalog", "--workload", workload, "--format", "json", tmp_path=tmp_path)
        assert result.returncode == 0 and json.loads(result.stdout)["workload"] == workload, result.stderr
    nlp = run("catalog", "--workload", "nlp", tmp_path=tmp_path)
    assert nlp.stdout == run("catalog", "--workload", "transformer", tmp_path=tmp_path).stdout
    drawn = run("chart", "--workload", "whisper", "-o", str(tmp_path / "speech.svg"), tmp_path=tmp_path)
    assert drawn.returncode == 0 and "— speech" in (tmp_path / "speech.svg").read_text(), drawn.stderr
    unknown = run("chart", "--workload", "astrology", "-o", str(tmp_path / "c.svg"), tmp_path=tmp_path)
    assert unknown.returncode == 2 and "image-generation" in unknown.stderr
    assert "Traceback" not in unknown.stderr


BASH_PROBE = """
eval "$("$WHICHGPU" completion bash)"
reply() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _whichgpu_complete;
          echo "${COMPREPLY[*]}"; }
reply whichgpu ""
reply whichgpu cat
reply whichgpu catalog --workload ""
reply whichgpu catalog --format ""
reply whichgpu agents ""
"""


def test_bash_completion_offers_commands_options_and_values():
    bash = shutil.which("bash")
    assert bash, "bash is the shell the completion is written for"
    result = subprocess.run(
        [bash, "-c", BASH_PROBE],
        capture_output=True,
        text=True,
        env={**os.environ, "WHICHGPU": WHICHGPU},
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    commands, cat, workloads, formats, actions = result.stdout.splitlines()
    assert {"ask", "serve", "catalog", "chart", "completion", "--version"} <= set(commands.split())
    assert cat == "catalog"
    assert workloads.split() == list(LISTED_WORKLOADS)
    assert set(formats.split()) == {"table", "csv", "tsv", "json"}
    assert set(actions.split()) >= {"add", "revoke", "list"}


ZSH_PROBE = """
eval "$("$WHICHGPU" completion zsh)"
setopt ksharrays  # what bashcompinit sets around a bash function: arrays from 0, as in bash
COMP_WORDS=(whichgpu catalog --workload ""); COMP_CWORD=3; _whichgpu_complete; echo "${COMPREPLY[*]}"
complete -p
"""


def test_zsh_completion_is_the_bash_function_behind_bashcompinit(tmp_path):
    zsh_script = run("completion", "zsh", tmp_path=tmp_path).stdout
    bash_script = run("completion", "bash", tmp_path=tmp_path).stdout
    assert "bashcompinit" in zsh_script and zsh_script.endswith(bash_script)
    zsh = shutil.which("zsh")
    if zsh:  # where zsh is installed, a bare zsh (no rc file) loads it and completes with it
        done = subprocess.run(
            [zsh, "-fc", ZSH_PROBE],
            capture_output=True,
            text=True,
            env={**os.environ, "WHICHGPU": WHICHGPU},
            timeout=60,
        )
        assert done.returncode == 0 and not done.stderr, done.stderr
        workloads, registered = done.stdout.splitlines()[:2]
        assert workloads.split() == list(LISTED_WORKLOADS)
        assert registered == "complete -o default -F _whichgpu_complete whichgpu"
