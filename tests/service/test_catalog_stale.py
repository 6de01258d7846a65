"""`whichgpu catalog --stale`: the cards whose prices aged out, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

from rules.knowledge.loaded import load_catalog, load_rulebook
from rules.money import Pricing, months_between

WHICHGPU = str(Path(sys.executable).with_name("whichgpu"))
TODAY = date(2026, 11, 23)


def _stale(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "WHICHGPU_DATA_DIR": str(tmp_path),
        "WHICHGPU_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
    }
    return subprocess.run(
        [WHICHGPU, "catalog", "--stale", "--as-of", TODAY.isoformat(), *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_stale_lists_exactly_the_cards_whose_prices_aged_out(tmp_path):
    result = _stale(tmp_path, "--json")
    assert result.returncode == 0, result.stderr
    listed = {row["gpu"]: row for row in json.loads(result.stdout)["stale"]}
    rulebook, catalog = load_rulebook(), load_catalog()
    pricing = Pricing.for_question(catalog, TODAY, "USD", True, rulebook)
    for gpu in catalog.released_by(TODAY):
        aged_out = pricing.best_price(gpu) is None and pricing.last_known(gpu) is not None
        assert (gpu.id in listed) == aged_out, gpu.id
    old_used = listed["rtx-2060"]["last_price"]  # the 2023 eBay survey: too old to offer in 2026
    assert old_used["date"] < "2025-01-01" and old_used["source"]
    assert listed["rtx-2060"]["age_months"] == months_between(date.fromisoformat(old_used["date"]), TODAY)


def test_stale_table_names_the_limits_and_last_prices(tmp_path):
    result = _stale(tmp_path)
    assert result.returncode == 0, result.stderr
    limits = load_rulebook()["cost-efficiency"].parameters
    assert (
        f"new after {limits['new_max_age_months']} months, used after {limits['used_max_age_months']}"
        in result.stdout
    )
    assert "rtx-2060" in result.stdout and "rtx-5080 " not in result.stdout
