"""Whether the service can still write: a full disk is a 507 for the writer and `degraded` health.

A write that fails for lack of space (SQLite "database or disk is full", PostgreSQL's disk_full,
``ENOSPC`` from the file system) is not a server bug: the client is told 507 with problem+json,
and ``/healthz`` says `degraded` for :data:`REMEMBER_S` seconds after, so an operator's monitor
sees it even when the probe file in the data directory still fits.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

__all__ = ["REMEMBER_S", "StorageWatch", "is_storage_full"]

REMEMBER_S = 60.0
_FULL_MESSAGES = ("database or disk is full", "no space left on device", "could not extend file")
_DISK_FULL_SQLSTATE = "53100"


def is_storage_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or the driver error it wraps) says the disk or database is full."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno == errno.ENOSPC:
            return True
        if getattr(current, "sqlstate", None) == _DISK_FULL_SQLSTATE:
            return True
        if any(message in str(current).lower() for message in _FULL_MESSAGES):
            return True
        current = getattr(current, "orig", None) or current.__cause__
    return False


class StorageWatch:
    """Remembers the last failed write and probes the data directory for room."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._full_at: float | None = None

    def failed(self) -> None:
        """A write just failed for lack of space."""
        self._full_at = time.monotonic()

    def writable(self) -> bool:
        """No write failed for lack of space lately, and a probe file can be written and synced."""
        if self._full_at is not None and time.monotonic() - self._full_at < REMEMBER_S:
            return False
        probe = self.data_dir / ".whichgpu-write-probe"
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, b"ok\n" * 1024)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError:
            return False
        return True
