"""`whichgpu ask` on a terminal: wrapped to 80 columns with hanging indents (checked on a pseudo-terminal),
plain Markdown when piped; `--why` gives the full answer."""

from __future__ import annotations

import fcntl
import itertools
import os
import pty
import re
import struct
import subprocess
import termios
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.terminal import styled, wrapped
from tests.pty_output import read_until_closed
from tests.server_process import WHICHGPU, service_env

ANSI = re.compile(r"\x1b\[[0-9;]*m")
MARKS = re.compile(r"\*\*|`|(?<![\w*])_|_(?![\w*])")


def on_terminal(tmp_path: Path, *args: str, columns: int = 80) -> str:
    """`whichgpu ask ARGS` on a pseudo-terminal ``columns`` wide; its screen text without styles."""
    env = service_env(f"sqlite:///{tmp_path / 'w.db'}", tmp_path)
    env.pop("COLUMNS", None)
    env.pop("NO_COLOR", None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command on the terminal's slave side
        os.execve(WHICHGPU, [WHICHGPU, "ask", *args], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    out = read_until_closed(fd)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, out.decode(errors="replace")[-2000:]
    return ANSI.sub("", out.decode()).replace("\r\n", "\n").rstrip("\n")


def piped(tmp_path: Path, *args: str) -> str:
    env = service_env(f"sqlite:///{tmp_path / 'w.db'}", tmp_path)
    done = subprocess.run([WHICHGPU, "ask", *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.rstrip("\n")


def words(markdown: str) -> list[str]:
    return MARKS.sub("", markdown).split()


@pytest.mark.parametrize("why", [(), ("--why",)], ids=["short", "full"])
def test_an_answer_fits_80_columns_with_hanging_indents(tmp_path, why) -> None:
    screen = on_terminal(tmp_path, "nlp $800", *why)
    markdown = piped(tmp_path, "nlp $800", *why)
    assert max(len(line) for line in markdown.split("\n")) > 80, "piped: the Markdown as it is, unwrapped"
    lines = screen.split("\n")
    assert max(len(line) for line in lines) <= 80
    assert words(screen) == words(markdown), "every word shown whole, in order"
    continued = [b for a, b in itertools.pairwise(lines) if re.match(r"\s*(-|\d+\.) ", a) and b]
    assert continued and all(b.startswith(("  ", "- ", "1", "2", "3")) for b in continued)
    assert any(b.startswith("  ") and not b.startswith("   -") for b in continued), "a hanging indent"


def test_why_gives_every_finding_and_the_short_answer_stays_short(tmp_path) -> None:
    short, full = piped(tmp_path, "nlp $800"), piped(tmp_path, "nlp $800", "--why")
    assert short.split("\n", 1)[0] == full.split("\n", 1)[0]
    assert len(short.split()) <= 200 < len(full.split())
    for rule in ("cloud-role", "memory-fit", "power-and-slots", "rent-vs-buy"):
        assert rule in full


@given(
    text=st.lists(
        st.tuples(
            st.sampled_from(["", "- ", "1. ", "   - "]), st.lists(st.text("ab**_`×", min_size=1, max_size=9))
        ),
        max_size=6,
    ),
    width=st.integers(20, 100),
)
def test_wrapping_keeps_every_word_within_the_width(text, width) -> None:
    markdown = "\n".join(marker + " ".join(ws) for marker, ws in text)
    out = wrapped(markdown, width, marked=False)
    assert out.split() == markdown.split()
    for line in out.split("\n"):
        assert len(line) <= width or " " not in line.strip(), line


def test_styles_span_a_wrapped_line() -> None:
    shown = styled(wrapped("**" + "word " * 30 + "end**", 40))
    assert "**" not in shown and shown.startswith("\x1b[1m") and shown.endswith("\x1b[22m")
