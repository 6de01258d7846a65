"""What a command wrote to a pseudo-terminal, read until the child closes its end."""

from __future__ import annotations

import os


def read_until_closed(fd: int) -> bytes:
    """Everything on the leader side of a pty until the child exits (Linux answers EIO then)."""
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)
