"""The in-memory snapshot is rebuilt only when data change."""

from __future__ import annotations

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
    assert holder.get() is first  # not looked at yet: at most once per check_every
    holder.invalidate()
    second = holder.get()
    assert second is not first and holder.builds == 2
    assert second.measurements_version != first.measurements_version
    holder.invalidate()
    assert holder.get() is second and holder.builds == 2  # looked, nothing changed


def test_snapshot_checks_again_after_the_interval(sqlite_url):
    migrate(sqlite_url)
    holder = SnapshotHolder(sqlite_url, check_every=0.0)
    first = holder.get()
    _store_result(sqlite_url, "run-2")
    assert holder.get() is not first


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
