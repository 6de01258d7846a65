"""`whichgpu ask ... --skypilot FILE`: a training run's rent path as a SkyPilot task, or a clear refusal."""

from __future__ import annotations

from pathlib import Path

from tests.service.test_cli import run


def test_a_question_without_a_training_run_writes_nothing_and_says_why(tmp_path: Path) -> None:
    task = tmp_path / "task.yaml"
    result = run("ask", "nlp $800", "--skypilot", str(task), tmp_path=tmp_path)
    assert result.returncode == 2
    assert "no training run" in result.stderr and "tokens" in result.stderr
    assert "Traceback" not in result.stderr
    assert not task.exists()

