"""The per-GPU lock: two agents never benchmark the same device at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench_agent.agent import DeviceBusy, device_lock

HOLDER = """
import sys
from pathlib import Path
from bench_agent.agent import device_lock
with device_lock(Path(sys.argv[1]), "GPU-test"):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_second_holder_in_this_process_is_excluded(tmp_path: Path) -> None:
    with device_lock(tmp_path, "GPU-test"):
        with pytest.raises(DeviceBusy, match="GPU-test"), device_lock(tmp_path, "GPU-test"):
            pass
        with device_lock(tmp_path, "GPU-other"):  # another GPU is free
            pass
    with device_lock(tmp_path, "GPU-test"):  # released on exit
        pass


def test_another_process_holding_the_lock_excludes_us_until_it_lets_go(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(DeviceBusy, match=r"pid \d+"), device_lock(tmp_path, "GPU-test"):
            pass
    finally:
        holder.communicate("\n", timeout=30)
    with device_lock(tmp_path, "GPU-test"):
        pass
