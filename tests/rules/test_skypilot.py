"""The SkyPilot task written for a job's rent path, read back by SkyPilot's own task parser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from rules.contract.answer import JobCost
from rules.jobcost import amortised_per_hour, job_cost
from rules.knowledge.datafile import load_data
from rules.render.skypilot import skypilot_task
from tests.rules.test_jobcost import CATALOG, _costing, _rentals


def _task(tmp_path: Path, text: str) -> Any:
    """The task as SkyPilot reads it (imported here: SkyPilot is heavy and only these tests need it)."""
    import sky

    path = tmp_path / "task.yaml"
    path.write_text(text, encoding="utf-8")
    return sky.Task.from_yaml(str(path))


def _job(tokens_b: float = 20, need_gb: float = 30) -> JobCost:
    own = (CATALOG.gpu("rtx-4090"), 2, amortised_per_hour(3200.0, 2, 20))
    return job_cost(_costing(tokens_b, need_gb), _rentals(), owned=own, tpu_suits=True)


def test_skypilot_reads_the_task_with_resources_in_order_of_the_jobs_cost(tmp_path: Path) -> None:
    job = _job()
    text = skypilot_task(job, "Pretrain a 1B model on 20B tokens", resumable=False)
    names = load_data("skypilot")["accelerators"]
    expected = [
        (names[o.gpu], o.count) for o in job.options if o.way == "rent" and o.gpu in names
    ]  # the options are cheapest first; TPUs are named by their slice
    resources = list(_task(tmp_path, text).resources)
    read = [pair for r in resources for pair in r.accelerators.items() if not pair[0].startswith("tpu-")]
    assert read == expected
    assert all(r.use_spot is False for r in resources)


def test_spot_comes_before_on_demand_when_the_job_resumes(tmp_path: Path) -> None:
    job = _job()
    spot_options = [o for o in job.options if o.spot_cost is not None and o.way in ("rent", "tpu")]
    text = skypilot_task(job, "job", resumable=True)
    resources = list(_task(tmp_path, text).resources)
    if spot_options:
        assert any(r.use_spot for r in resources)
    assert text.index("ordered:") < text.index("run: |")


def test_the_labs_own_cluster_comes_first_when_it_has_one(tmp_path: Path) -> None:
    job = _job()
    text = skypilot_task(job, "job", cluster="k8s")
    own = next(o for o in job.options if o.way == "own")
    resources = list(_task(tmp_path, text).resources)
    if own.cost.usd <= min(o.cost.usd for o in job.options):
        assert "RTX4090" in resources[0].accelerators
    assert any("RTX4090" in r.accelerators and r.accelerators["RTX4090"] == 2 for r in resources)
    assert 'infra: "k8s"' in text


def test_a_job_no_rental_can_name_is_refused() -> None:
    job = _job()
    bought_only = msgspec.structs.replace(job, options=tuple(o for o in job.options if o.way == "buy"))
    with pytest.raises(ValueError, match="SkyPilot name"):
        skypilot_task(bought_only, "job")


def test_a_transcription_task_names_its_audio_not_tokens(tmp_path: Path) -> None:
    from datetime import date

    from rules.ask import ask
    from tests.rules.test_jobcost import ADVISOR

    reply = ask(ADVISOR, "transcribe 2,000 hours of audio with whisper large-v3", today=date(2026, 11, 26))
    job = reply.recommendation.job_cost if reply.recommendation else None
    assert job is not None and job.audio_hours == 2000
    text = skypilot_task(job, "Transcribe 2,000 hours of audio")
    assert text.splitlines()[0].startswith("# Transcribe 2,000 hours of audio: 2,000 hours of audio, about")
    assert "0B tokens" not in text
    assert _task(tmp_path, text).resources  # SkyPilot reads it
