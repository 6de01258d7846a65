"""A SkyPilot task for the rent path of a whole job: the rentals in order of what the job costs on each.

SkyPilot launches a task on the first of its ``ordered`` resources that it can get; listing the
job's rentals cheapest first (spot before on-demand where the job can resume from a checkpoint)
makes it pick the option the answer priced. The lab's own cluster (Kubernetes or Slurm) comes first
when the asker has one, since its cards cost only their amortised price. Names follow
``rules/data/skypilot.json``; an accelerator or provider SkyPilot does not know is left out, and the
file says so rather than guess.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from rules.contract.answer import JobCost, JobOption
from rules.knowledge.datafile import load_data

__all__ = ["Cluster", "skypilot_task"]

Cluster = Literal["k8s", "slurm"]
DISK_GB = 256  # room for the data shards and checkpoints; the user sizes it


def _accelerator(option: JobOption, names: dict[str, Any]) -> str | None:
    """``NAME:COUNT`` as SkyPilot writes it, or None when SkyPilot has no name for the unit."""
    if option.way == "tpu":
        tpu = names["tpus"].get(option.gpu)
        if tpu is None:
            return None
        cores = option.count * tpu["cores_per_chip"]
        return str(tpu["pattern"].format(chips=option.count, cores=cores))
    name = names["accelerators"].get(option.gpu)
    return None if name is None else f"{name}:{option.count}"


def _entries(
    job: JobCost, names: dict[str, Any], resumable: bool, cluster: Cluster | None
) -> list[dict[str, Any]]:
    entries: list[tuple[float, dict[str, Any]]] = []
    for option in job.options:
        accelerator = _accelerator(option, names)
        if accelerator is None:
            continue
        if option.way == "own":
            if cluster is not None:
                entries.append((option.cost.usd, {"infra": cluster, "accelerators": accelerator}))
            continue
        if option.way == "buy":
            continue
        cloud = names["clouds"].get(option.provider or "")
        entry: dict[str, Any] = {"accelerators": accelerator}
        if cloud is not None:
            entry = {"infra": cloud, **entry}
        entries.append((option.cost.usd, entry))
        if resumable and option.spot_cost is not None:
            entries.append((option.spot_cost.usd, {**entry, "use_spot": True}))
    entries.sort(key=lambda pair: pair[0])
    unique: list[dict[str, Any]] = []
    for _, entry in entries:
        if entry not in unique:
            unique.append(entry)
    return unique


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "job"


def skypilot_task(job: JobCost, title: str, resumable: bool = True, cluster: Cluster | None = None) -> str:
    """The task YAML for ``job``: its resources in order of the job's cost, with setup and run to fill in.

    ``resumable``: the job checkpoints and can continue after a spot instance is taken back, so spot
    offers are listed before their on-demand price. Raises ValueError when no option can be named."""
    names = load_data("skypilot")
    entries = _entries(job, names, resumable, cluster)
    if not entries:
        raise ValueError("none of the job's rentals has a SkyPilot name")
    work = f"{job.audio_hours:,g} hours of audio" if job.audio_hours else f"{job.tokens_b:g}B tokens"
    lines = [
        f"# {title}: {work}, about {job.flops:.2g} FLOPs.".replace("e+", "e"),
        "# Resources in the order of what the whole job costs on each (spot first where it resumes).",
        f"name: {_slug(title)}",
        "resources:",
        f"  disk_size: {DISK_GB}",
        "  ordered:",
    ]
    for entry in entries:
        first = True
        for key, value in entry.items():
            lines.append(f"    {'- ' if first else '  '}{key}: {json.dumps(value)}")
            first = False
    lines += [
        "num_nodes: 1",
        "setup: |",
        "  # Install your training code and its dependencies here.",
        "  echo 'fill in setup'",
        "run: |",
        "  # Start the job here; write checkpoints to a bucket so a spot restart resumes.",
        "  echo 'fill in run'",
    ]
    return "\n".join(lines) + "\n"
