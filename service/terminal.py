"""Markdown answers on a terminal: wrapped to its width with hanging indents, marks shown as styles.

Piped or redirected, an answer is printed as the Markdown itself. On a terminal each line is wrapped at
word boundaries to the terminal's width; a list item's continuation lines start under its text, not under
its marker, so the list still reads as a list. Bold, italics and code become ANSI styles (none with
NO_COLOR) after wrapping is measured on the visible text, so styles never count toward the width.
"""

from __future__ import annotations

import re
import shutil

__all__ = ["DEFAULT_WIDTH", "styled", "terminal_width", "wrapped"]

DEFAULT_WIDTH = 80
MIN_WIDTH = 20  # narrower than this, a hanging indent leaves no room for words
_MARKER = re.compile(r"^(\s*(?:[-*•]|\d+\.)\s+|\s+)")
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)  # a wrapped bold line spans lines
_ITALIC = re.compile(r"(?<![\w*])_(?!_)(.+?)(?<!_)_(?![\w*])", re.S)
_CODE = re.compile(r"`([^`]+)`")
_MARKS = re.compile(r"\*\*|(?<![\w*])_(?!_)|(?<!_)_(?![\w*])|`")


def terminal_width() -> int:
    """The terminal's columns (``COLUMNS`` first), never fewer than :data:`MIN_WIDTH`."""
    return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def _visible(word: str, marked: bool) -> int:
    """The columns a word takes once its Markdown marks become styles."""
    return len(_MARKS.sub("", word)) if marked else len(word)


def _wrap_line(line: str, width: int, marked: bool) -> list[str]:
    """One line as lines of at most ``width`` columns, continuation lines indented under the text."""
    found = _MARKER.match(line)
    prefix = found.group(0) if found else ""
    indent = " " * len(prefix)
    words = line[len(prefix) :].split()
    if not words:
        return [line.rstrip()]
    out: list[str] = []
    current, used = prefix + words[0], len(prefix) + _visible(words[0], marked)
    for word in words[1:]:
        size = _visible(word, marked)
        if used + 1 + size <= width:
            current, used = f"{current} {word}", used + 1 + size
        else:  # a word longer than the line stands alone on its own line: never broken inside
            out.append(current)
            current, used = indent + word, len(indent) + size
    out.append(current)
    return out


def wrapped(markdown: str, width: int, marked: bool = True) -> str:
    """``markdown`` wrapped to ``width`` columns; ``marked``: its marks will not be shown (styled)."""
    width = max(MIN_WIDTH, width)
    return "\n".join(part for line in markdown.split("\n") for part in _wrap_line(line, width, marked))


def styled(markdown: str) -> str:
    """Bold, italics and code as ANSI styles (the only marks the answers use)."""
    text = _BOLD.sub("\x1b[1m\\1\x1b[22m", markdown)
    text = _ITALIC.sub("\x1b[3m\\1\x1b[23m", text)
    return _CODE.sub("\x1b[36m\\1\x1b[39m", text)
