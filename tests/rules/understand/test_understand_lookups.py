"""What understanding asks of the rest of the engine: card and model names, and the memory a job needs."""

from __future__ import annotations

from rules.contract.question import Question
from rules.understand import lookups


def test_card_and_model_names_are_read_by_the_shipped_knowledge() -> None:
    resolution = lookups.catalog().resolve("3090")
    assert resolution.gpu is not None and resolution.gpu.name == "GeForce RTX 3090"
    assert "tpu-v6e" in lookups.catalog().tpus
    spec = lookups.model("llama 3 8b")
    assert spec is not None and spec.id == "llama-8b"
    assert lookups.model("no such model 3000b") is None


def test_a_job_is_sized_and_fitted_by_the_job_count() -> None:
    job = lookups.job(Question(model="llama-70b", task="inference", method="inference"))
    assert job.need.gb > 24
    assert not lookups.fit(job, 24.0, 1).fits and lookups.fit(job, 80.0, 2).fits
    assert lookups.method_name("qlora") == "QLoRA" and lookups.method_name("inference") == "inference"
