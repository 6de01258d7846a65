"""Helpers of the deploy tests: the repository's paths, the settings' variable names, and
extractors for the commands and environment variables the deploy files use.

Each deploy file is read the way its tool reads it (YAML for compose and Kubernetes,
INI-like key=value for systemd, lines for Dockerfiles and shell), and everything it
names is checked against the code: settings in ``service.settings``, subcommands in the
two argparse parsers, console scripts in ``pyproject.toml``, routes in the app.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
SYSTEMD = DEPLOY / "systemd"
SBATCH = DEPLOY / "slurm" / "bench-agent.sbatch"
PORT = 8000
HEALTH = "/healthz"

# Variables that are not ours but that the files may set: the postgres image's, Python's,
# pip's, matplotlib's and the NVIDIA container runtime's.
STANDARD_ENV = frozenset({
    "POSTGRES_DB", "POSTGRES_USER", "POSTGRES_PASSWORD",
    "PATH", "HOME", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
    "PIP_NO_CACHE_DIR", "PIP_DISABLE_PIP_VERSION_CHECK",
    "MPLCONFIGDIR", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
})
# Read by the code outside Settings (each must still appear in the package source).
EXTRA_WHICHGPU_ENV = frozenset({"WHICHGPU_AGENT_CONFIG", "WHICHGPU_DEBUG", "WHICHGPU_CACHE_DIR"})
# Knobs of the Slurm script itself (documented in its header).
SCRIPT_KNOBS = frozenset({"BENCH_AGENT"})
# Commands the deploy files are designed for but the CLI does not have yet.
# (whichgpu, sub): why — such a command xfails instead of failing while it is missing.
PENDING: dict[tuple[str, str], str] = {
    ("whichgpu", "slack-test"): "the Slack test command (a signed request to a server) is still to come",
}


def settings_env() -> set[str]:
    from service.settings import settings_table

    return {env for env, _default, _doc in settings_table()}


def known_env() -> set[str]:
    """Every variable the code reads: the settings, their ``_FILE`` forms, and the extras."""
    names = settings_env()
    return names | {f"{n}_FILE" for n in names} | set(EXTRA_WHICHGPU_ENV)


def console_scripts() -> dict[str, str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def load_yaml_docs(path: Path) -> list[dict[str, Any]]:
    import yaml

    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def k8s_docs() -> list[tuple[Path, dict[str, Any]]]:
    return [(p, d) for p in sorted(K8S.glob("*.yaml")) for d in load_yaml_docs(p)]


def compose() -> dict[str, Any]:
    return load_yaml_docs(DEPLOY / "docker-compose.yml")[0]


def pod_spec(doc: dict[str, Any]) -> dict[str, Any] | None:
    if doc.get("kind") in ("Deployment", "DaemonSet", "StatefulSet", "Job"):
        return doc["spec"]["template"]["spec"]
    return None


def containers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    spec = pod_spec(doc)
    return [] if spec is None else [*spec.get("initContainers", []), *spec.get("containers", [])]


def env_file_keys(path: Path) -> list[str]:
    """``KEY=value`` lines of an env file, commented-out ones too (admins uncomment them)."""
    keys = []
    for line in path.read_text().splitlines():
        m = re.match(r"^\s*#?\s*([A-Z][A-Z0-9_]*)=", line)
        if m:
            keys.append(m.group(1))
    return keys


# --- systemd ------------------------------------------------------------------------------


def unit_options(path: Path) -> dict[str, dict[str, list[str]]]:
    """Section -> key -> values (a key may repeat, as systemd allows)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        assert current is not None, f"{path.name}: {line!r} before any section"
        key, sep, value = line.partition("=")
        assert sep, f"{path.name}: not a key=value line: {line!r}"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def unit_environment(path: Path) -> list[str]:
    """Names set by ``Environment=`` lines, commented-out ones too."""
    names = []
    for line in path.read_text().splitlines():
        m = re.match(r"^\s*#?\s*Environment=(.*)$", line)
        if m:
            names += [a.split("=", 1)[0] for a in shlex.split(m.group(1))]
    return names


# --- commands -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    where: str
    argv: tuple[str, ...]

    @property
    def program(self) -> str:
        return Path(self.argv[0]).name


def dockerfile_instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in path.read_text().splitlines():
        if raw.lstrip().startswith("#") and not pending:
            continue
        if raw.lstrip().startswith("#"):
            continue
        line = raw.rstrip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def exec_form(text: str) -> list[str]:
    import json

    return json.loads(text)


SHELL_STOP = {"|", "||", "&&", ";", ">", ">>", "2>", "2>&1", "&"}


def shell_commands(text: str, where: str) -> Iterator[Command]:
    """`whichgpu …` and `bench-agent …` invocations in shell text (README blocks, scripts).

    A program token counts when it starts the line, follows ``--``/``exec``/``sudo``/an
    ``A=B`` assignment, or is a ``…/bin/`` path ending in the program's name; ``exec SERVICE
    whichgpu`` (compose, kubectl) counts the token after the service name.
    """
    joined = re.sub(r"\\\n\s*", " ", text)
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        line = line.split(" #", 1)[0]
        try:
            tokens = shlex.split(line)
        except ValueError:
            continue
        for i, token in enumerate(tokens):
            name = Path(token).name
            if name not in ("whichgpu", "bench-agent") or (token != name and "/bin/" not in token):
                continue
            prev = tokens[i - 1] if i else ""
            if not (i == 0 or prev in ("--", "exec", "sudo", "srun", "-c") or "=" in prev or "/bin/" in token
                    or (i >= 2 and tokens[i - 2] == "exec")):
                continue
            if i + 1 < len(tokens) and Path(tokens[i + 1]).name in ("whichgpu", "bench-agent"):
                continue
            args = []
            for arg in tokens[i + 1:]:
                if arg in SHELL_STOP or arg.startswith(("|", ">", ")")):
                    break
                args.append(arg)
            yield Command(where, (token, *args))


def check_command(cmd: Command) -> None:
    """The program is a console script and its arguments parse with the real parser."""
    scripts = console_scripts()
    assert cmd.program in scripts, f"{cmd.where}: {cmd.program} is not a console script in pyproject.toml"
    if cmd.program == "whichgpu":
        from service.cli import build_parser
    else:
        from bench_agent.cli import build_parser
    args = list(cmd.argv[1:])
    try:
        build_parser().parse_args(args)
    except SystemExit as exc:
        if args and (cmd.program, args[0]) in PENDING:
            pytest.xfail(f"{cmd.where}: {PENDING[(cmd.program, args[0])]}")
        pytest.fail(f"{cmd.where}: `{' '.join(cmd.argv)}` does not parse with {cmd.program}'s CLI "
                    f"(exit {exc.code})")
