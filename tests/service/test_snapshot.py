"""The in-memory snapshot is rebuilt only when data change."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from service.db import migrate, session_scope
from service.models import BenchmarkResult, BenchmarkRun
from service.snapshot import SnapshotHolder
from tests.wire import wire


def _store_result(url: str, run_id: str) -> None:
    with session_scope(url) as session:
        session.add(
            BenchmarkRun(
                run_id=run_id,
                agent="lab",
                host="h1",
                device_name="NVIDIA GeForce RTX 3090",
                gpu_id="rtx-3090",
                started_at=datetime.now(UTC),
            )
        )
        session.flush()
        session.add(
            BenchmarkResult(run_id=run_id, benchmark="matmul", precision="fp16", unit="TFLOP/s", value=60.0)
        )


def test_snapshot_is_reused_until_measurements_change(sqlite_url):
    migrate(sqlite_url)
    holder = SnapshotHolder(sqlite_url, check_every=3600)
    first = holder.get()
    assert holder.get() is first and holder.builds == 1
    _store_result(sqlite_url, "run-1")
    assert holder.get() is first  # a request never looks at the database
    second = holder.refresh()
    assert second is not first and holder.get() is second and holder.builds == 2
    assert second.measurements_version != first.measurements_version
    assert holder.refresh() is second and holder.builds == 2  # looked, nothing changed


def _until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_refresher_thread_swaps_in_the_new_snapshot(sqlite_url):
    """The refresher looks off the caller's thread: after invalidate the new snapshot arrives
    without any reader calling into the database."""
    migrate(sqlite_url)
    holder = SnapshotHolder(sqlite_url, check_every=3600)
    first = holder.get()
    holder.start()
    try:
        _store_result(sqlite_url, "run-2")
        assert holder.get() is first
        holder.invalidate()
        assert _until(lambda: holder.get() is not first)
        assert holder.database_ok()
    finally:
        holder.stop()


def test_unreachable_database_keeps_the_snapshot_and_says_so(sqlite_url, tmp_path):
    """A database that cannot be read leaves the snapshot in memory in use, and health turns degraded."""
    migrate(sqlite_url)
    holder = SnapshotHolder(sqlite_url, check_every=0.05, stale_after=0.2)
    first = holder.get()
    holder.database_url = f"sqlite:///{tmp_path}/empty.db"  # no tables: every look fails
    holder.start()
    try:
        assert _until(lambda: not holder.database_ok())
        assert holder.get() is first
    finally:
        holder.stop()


def test_memoised_reply_is_the_encoded_answer_not_its_object_graph(sqlite_url):
    """The free-text memo keeps bytes and strings (full collections never walk them), and the
    bytes are exactly the reply a fresh ``ask`` gives, with the conversation id appended."""
    import gc
    import json
    from datetime import date

    from rules.ask import ask

    migrate(sqlite_url)
    snapshot = SnapshotHolder(sqlite_url).get()
    day = date(2023, 6, 1)
    asked = snapshot.asked("nlp $800", None, day)
    assert snapshot.asked("nlp $800", None, day) is asked
    fresh = ask(snapshot.advisor, "nlp $800", today=day)
    assert json.loads(asked.json_with("abc")) == {
        **json.loads(json.dumps(wire(fresh))),
        "conversation_id": "abc",
    }
    assert json.loads(asked.json_with(None))["conversation_id"] is None
    assert (
        asked.markdown == fresh.text and asked.workload == "transformer" and asked.question == fresh.question
    )
    assert not gc.is_tracked(asked.encoded) and not gc.is_tracked(asked.markdown)
    assert snapshot.asked("hello there", None, day).workload is None  # no recommendation, nothing to count
