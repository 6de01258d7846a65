"""Complete run payloads on disk until the service has them: nothing measured is lost.

Layout of the spool directory::

    <run_id>.json          a complete payload, waiting to be delivered
    <run_id>.state.json    its delivery attempts: count, next attempt time, last error
    rejected/<run_id>.json          refused by the service (4xx), never retried
    rejected/<run_id>.reason.json   the status and reason it was refused with

A payload is written to a temporary file, flushed to disk and renamed into place
(``os.replace`` is atomic), so a crash leaves either a whole payload or none; stray
temporary files are removed on the next start.
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Spool", "SpoolEntry", "backoff_s"]

TMP_PREFIX = ".tmp-"


def backoff_s(attempts: int, base_s: float = 60.0, cap_s: float = 6 * 3600.0, jitter: float = 0.1) -> float:
    """Seconds to wait after ``attempts`` failed deliveries: base·2^(attempts-1), capped, ±jitter."""
    delay = min(cap_s, base_s * 2 ** max(0, attempts - 1))
    return delay * (1 + random.uniform(-jitter, jitter))


def write_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write JSON to ``path`` so readers see the old file or the whole new one, never a part."""
    tmp = path.with_name(f"{TMP_PREFIX}{path.name}.{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=None, separators=(",", ":"))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    try:  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


@dataclass(frozen=True)
class SpoolEntry:
    """A spooled payload and its delivery state."""

    run_id: str
    path: Path
    attempts: int = 0
    next_attempt_at: float = 0.0
    last_error: str | None = None

    def payload(self) -> dict[str, Any]:
        return json.loads(self.path.read_text(encoding="utf-8"))


class Spool:
    """The spool directory of one agent (``Settings.spool_dir``)."""

    def __init__(self, root: Path, backoff: Any = backoff_s):
        self.root = Path(root)
        self.rejected_dir = self.root / "rejected"
        self._backoff = backoff

    def _ensure(self) -> None:
        self.rejected_dir.mkdir(parents=True, exist_ok=True)

    def _state_path(self, run_id: str) -> Path:
        return self.root / f"{run_id}.state.json"

    def put(self, payload: dict[str, Any]) -> SpoolEntry:
        """Spool a complete payload (atomically) before any attempt to send it."""
        self._ensure()
        run_id = payload["run_id"]
        path = self.root / f"{run_id}.json"
        write_atomic(path, payload)
        return SpoolEntry(run_id, path)

    def clean_partial(self) -> int:
        """Remove temporary files a crash left behind; how many."""
        removed = 0
        for folder in (self.root, self.rejected_dir):
            for tmp in folder.glob(f"{TMP_PREFIX}*") if folder.is_dir() else []:
                tmp.unlink(missing_ok=True)
                removed += 1
        return removed

    def _entry(self, path: Path) -> SpoolEntry:
        """The entry of a payload file; a state file unreadable or of the wrong shape counts as none."""
        run_id = path.name.removesuffix(".json")
        try:
            state = json.loads(self._state_path(run_id).read_text(encoding="utf-8"))
            state = state if isinstance(state, dict) else {}
            attempts, next_at = int(state.get("attempts", 0)), float(state.get("next_attempt_at", 0.0))
            last_error = state.get("last_error") if isinstance(state.get("last_error"), str) else None
        except (OSError, ValueError, TypeError, OverflowError):
            attempts, next_at, last_error = 0, 0.0, None
        return SpoolEntry(run_id, path, attempts, next_at, last_error)

    def _unusable(self, path: Path) -> str | None:
        """Why a spooled file can never be delivered (not a file, not JSON, not a run), or None."""
        try:
            if not path.is_file():
                return "not a regular file (a broken link or a directory)"
            payload = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            return f"unreadable: {type(exc).__name__}: {str(exc)[:200]}"
        if not isinstance(payload, dict):
            return f"not a JSON object but {type(payload).__name__}"
        if payload.get("run_id") != path.name.removesuffix(".json"):
            return "its run_id is missing or differs from its file name"
        return None

    def _set_aside(self, path: Path, reason: str) -> None:
        """Move an undeliverable file to ``rejected/`` with the reason, so the rest keeps flowing."""
        self._ensure()
        stem = path.name.removesuffix(".json")
        self._write_reason(stem, 0, reason)
        try:
            os.replace(path, self.rejected_dir / path.name)
        except OSError:
            path.unlink(missing_ok=True)
        self._state_path(stem).unlink(missing_ok=True)

    def pending(self, set_aside: bool = True) -> list[SpoolEntry]:
        """Every deliverable payload, oldest first; anything else is set aside in ``rejected/`` (only
        skipped with ``set_aside=False``: ``bench-agent status`` reads and never moves a file)."""
        if not self.root.is_dir():
            return []
        paths = []
        for p in self.root.glob("*.json"):
            if p.name.endswith(".state.json") or p.name.startswith(TMP_PREFIX):
                continue
            if (reason := self._unusable(p)) is not None:
                if set_aside:
                    self._set_aside(p, reason)
                continue
            paths.append(p)
        return [self._entry(p) for p in sorted(paths, key=lambda p: (p.stat().st_mtime, p.name))]

    def due(self, now: float | None = None) -> list[SpoolEntry]:
        """Pending payloads whose back-off has passed."""
        now = time.time() if now is None else now
        return [e for e in self.pending() if e.next_attempt_at <= now]

    def delivered(self, entry: SpoolEntry) -> None:
        """The service has the run: forget it."""
        entry.path.unlink(missing_ok=True)
        self._state_path(entry.run_id).unlink(missing_ok=True)

    def failed(self, entry: SpoolEntry, error: str, now: float | None = None) -> SpoolEntry:
        """A transient failure (connection, 5xx): keep it and back off exponentially."""
        now = time.time() if now is None else now
        attempts = entry.attempts + 1
        state = {
            "attempts": attempts,
            "next_attempt_at": now + self._backoff(attempts),
            "last_error": error[:500],
            "last_attempt_at": now,
        }
        write_atomic(self._state_path(entry.run_id), state)
        return SpoolEntry(entry.run_id, entry.path, attempts, state["next_attempt_at"], state["last_error"])

    def reject(self, entry: SpoolEntry, status: int, reason: str) -> Path:
        """The service refused the payload (4xx): move it aside with the reason, never retry."""
        self._ensure()
        target = self.rejected_dir / entry.path.name
        self._write_reason(entry.run_id, status, reason[:4000])
        os.replace(entry.path, target)
        self._state_path(entry.run_id).unlink(missing_ok=True)
        return target

    def _write_reason(self, run_id: str, status: int, reason: str) -> None:
        """Why a run was set aside, beside it in ``rejected/`` (status 0: never sent)."""
        record = {"status": status, "reason": reason, "rejected_at": time.time()}
        write_atomic(self.rejected_dir / f"{run_id}.reason.json", record)

    def rejected(self) -> list[dict[str, Any]]:
        """Refused payloads with their reasons."""
        if not self.rejected_dir.is_dir():
            return []
        found = []
        for reason in sorted(self.rejected_dir.glob("*.reason.json")):
            try:
                details = json.loads(reason.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(details, dict):
                found.append({"run_id": reason.name.removesuffix(".reason.json"), **details})
        return found

    def size(self) -> dict[str, Any]:
        """Counts and bytes, for ``bench-agent status``: read only, nothing is moved."""
        pending = self.pending(set_aside=False)
        payloads = [
            p
            for p in (self.root.glob("*.json") if self.root.is_dir() else [])
            if not p.name.endswith(".state.json") and not p.name.startswith(TMP_PREFIX)
        ]
        return {
            "pending": len(pending),
            "pending_bytes": sum(e.path.stat().st_size for e in pending),
            "unusable": len(payloads) - len(pending),  # the daemon sets these aside on its next round
            "rejected": len(self.rejected()),
            "next_attempt_at": min((e.next_attempt_at for e in pending), default=None),
        }
