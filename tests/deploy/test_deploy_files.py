"""The deploy files agree with the code: settings, commands, ports, health path, images.

Each test fails when a deploy file drifts: a renamed setting, a removed subcommand, a
changed port or health route, torch sneaking into the service image, a unit option
systemd does not know, a shell error in the Slurm script.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deploy_files import (
    DEPLOY,
    HEALTH,
    K8S,
    PORT,
    ROOT,
    SBATCH,
    SCRIPT_KNOBS,
    STANDARD_ENV,
    SYSTEMD,
    Command,
    check_command,
    compose,
    containers,
    dockerfile_instructions,
    env_file_keys,
    exec_form,
    k8s_docs,
    known_env,
    pod_spec,
    shell_commands,
    unit_environment,
    unit_options,
)

# --- every variable the files set exists -------------------------------------------------


def _set_variables() -> list[tuple[str, str]]:
    """(file, VARIABLE) for every environment variable any deploy file sets."""
    found: list[tuple[str, str]] = []
    for name, service in compose()["services"].items():
        env = service.get("environment") or {}
        keys = env.keys() if isinstance(env, dict) else [e.split("=", 1)[0] for e in env]
        found += [(f"docker-compose.yml:{name}", k) for k in keys]
    found += [(".env.example", k) for k in env_file_keys(DEPLOY / ".env.example")]
    for path, doc in k8s_docs():
        if doc["kind"] in ("ConfigMap",):
            found += [(path.name, k) for k in doc.get("data", {})]
        if doc["kind"] == "Secret":
            found += [(path.name, k) for k in {**doc.get("stringData", {}), **doc.get("data", {})}]
        for c in containers(doc):
            for e in c.get("env", []):
                found.append((f"{path.name}:{c['name']}", e["name"]))
                source = e.get("valueFrom", {})
                ref = source.get("secretKeyRef") or source.get("configMapKeyRef")
                if ref:
                    found.append((f"{path.name}:{c['name']} key", ref["key"]))
    for unit in SYSTEMD.glob("*.service"):
        found += [(unit.name, k) for k in unit_environment(unit)]
    for env in SYSTEMD.glob("*.env.example"):
        found += [(env.name, k) for k in env_file_keys(env)]
    for dockerfile in DEPLOY.glob("Dockerfile*"):
        for word, rest in dockerfile_instructions(dockerfile):
            if word == "ENV":
                found += [(dockerfile.name, k) for k in re.findall(r"(?:^|\s)([A-Z][A-Z0-9_]*)=", rest)]
    script = SBATCH.read_text()
    found += [(SBATCH.name, k) for k in re.findall(r"\b(WHICHGPU_[A-Z0-9_]+|SLACK_[A-Z0-9_]+)\b", script)]
    found += [(SBATCH.name, k) for k in re.findall(r"\$\{([A-Z][A-Z0-9_]*)[:}]", script)
              if not k.startswith("SLURM")]
    return found


def test_the_files_set_variables_at_all() -> None:
    names = {k for _, k in _set_variables()}
    assert {"WHICHGPU_DATABASE_URL", "WHICHGPU_AGENT_TOKEN", "WHICHGPU_API_URL", "WHICHGPU_DATA_DIR",
            "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"} <= names


def test_every_variable_the_deploy_files_set_is_a_setting_or_a_standard_one() -> None:
    known = known_env()
    unknown = sorted({f"{where}: {name}" for where, name in _set_variables()
                      if name not in known and name not in STANDARD_ENV and name not in SCRIPT_KNOBS})
    assert not unknown, "not in service.settings (nor a known standard variable):\n" + "\n".join(unknown)


def test_the_extra_variables_are_still_read_by_the_code() -> None:
    from deploy_files import EXTRA_WHICHGPU_ENV

    packages = ("service", "bench_agent", "bot", "rules")
    source = "\n".join(p.read_text() for d in packages for p in (ROOT / d).rglob("*.py"))
    for name in EXTRA_WHICHGPU_ENV:
        assert f'"{name}"' in source, f"{name} is allowed in deploy files but no code reads it any more"


def test_compose_interpolations_are_in_the_env_example() -> None:
    text = (DEPLOY / "docker-compose.yml").read_text()
    used = set(re.findall(r"(?<!\$)\$\{([A-Z][A-Z0-9_]*)", text))
    listed = set(env_file_keys(DEPLOY / ".env.example"))
    assert used <= listed, used - listed


# --- every command exists -------------------------------------------------------------------


def _commands() -> list[Command]:
    cmds: list[Command] = []
    for name, service in compose()["services"].items():
        if "command" in service:
            cmds.append(Command(f"docker-compose.yml:{name}", tuple(service["command"])))
    for path, doc in k8s_docs():
        for c in containers(doc):
            argv = tuple(c.get("command", [])) + tuple(c.get("args", []))
            if argv and Path(argv[0]).name in ("whichgpu", "bench-agent"):
                cmds.append(Command(f"{path.name}:{c['name']}", argv))
    for unit in SYSTEMD.glob("*.service"):
        for line in unit_options(unit)["Service"]["ExecStart"]:
            cmds.append(Command(unit.name, tuple(line.split())))
    for dockerfile in DEPLOY.glob("Dockerfile*"):
        for word, rest in dockerfile_instructions(dockerfile):
            if word == "CMD":
                cmds.append(Command(f"{dockerfile.name} CMD", tuple(exec_form(rest))))
    script = SBATCH.read_text()
    for m in re.finditer(r'^\s*"\$\{bench_agent\}"((?: [^\n"$]+)+)', script, re.M):
        cmds.append(Command(SBATCH.name, ("bench-agent", *m.group(1).split())))
    return cmds


def test_the_expected_commands_are_found() -> None:
    programs = {(c.program, c.argv[1]) for c in _commands()}
    assert {("whichgpu", "serve"), ("whichgpu", "bot"), ("whichgpu", "migrate"), ("bench-agent", "daemon"),
            ("bench-agent", "run")} <= programs


@pytest.mark.parametrize("cmd", _commands(), ids=lambda c: f"{c.where}:{' '.join(c.argv[1:3])}")
def test_every_command_is_a_console_script_and_parses(cmd: Command) -> None:
    check_command(cmd)


def test_the_readme_commands_parse() -> None:
    readme = (DEPLOY / "README.md").read_text()
    blocks = re.findall(r"```(?:sh|bash|console|shell)?\n(.*?)```", readme, re.S)
    cmds = [c for i, b in enumerate(blocks) for c in shell_commands(b, f"deploy/README.md block {i + 1}")]
    assert len(cmds) >= 8, "the README shows the commands an admin types"
    for cmd in cmds:
        check_command(cmd)


def test_the_slurm_script_runs_each_node_once() -> None:
    script = SBATCH.read_text()
    assert "#SBATCH --gres=gpu:1" in script and "#SBATCH --ntasks-per-node=1" in script
    assert re.search(r"^set -euo pipefail$", script, re.M)
    assert re.search(r"^srun --ntasks-per-node=1 ", script, re.M)
    (cmd,) = [c for c in _commands() if c.where == SBATCH.name]
    assert cmd.argv[1:3] == ("run", "--once")


# --- ports and the health path ---------------------------------------------------------------


@pytest.fixture(scope="module")
def app_paths(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    from service.app import create_app
    from service.settings import Settings

    data = tmp_path_factory.mktemp("app")
    app = create_app(Settings(data_dir=data, database_url=f"sqlite:///{data / 'db'}"))
    return {route.path for route in app.routes}


def test_health_and_metrics_are_routes_of_the_app(app_paths: set[str]) -> None:
    assert HEALTH in app_paths and "/metrics" in app_paths


def test_the_default_port_is_the_one_deployed() -> None:
    from service.settings import Settings

    assert Settings().port == PORT


def _health_check_url(text: str) -> str:
    (url,) = re.findall(r"https?://[\w.\-]+:\d+/[\w/]*", text)
    return url


def test_dockerfile_serves_on_the_port_and_checks_health() -> None:
    instr = dockerfile_instructions(DEPLOY / "Dockerfile")
    words = [w for w, _ in instr]
    assert ("EXPOSE", str(PORT)) in instr
    (health,) = [r for w, r in instr if w == "HEALTHCHECK"]
    assert _health_check_url(health) == f"http://127.0.0.1:{PORT}{HEALTH}"
    assert "python" in health and "curl" not in health and "wget" not in health
    (cmd,) = [r for w, r in instr if w == "CMD"]
    assert exec_form(cmd) == ["whichgpu", "serve", "--host", "0.0.0.0", "--port", str(PORT)]
    assert words.index("USER") < words.index("CMD")


def test_compose_wires_service_postgres_and_bot() -> None:
    services = compose()["services"]
    api, pg, bot = services["whichgpu"], services["postgres"], services["bot"]
    assert pg["image"].split(":")[1].startswith("16")
    assert "pg_isready" in " ".join(pg["healthcheck"]["test"])
    assert any(v.endswith(":/var/lib/postgresql/data") for v in pg["volumes"])
    assert api["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert any(str(p).endswith(f":{PORT}") for p in api["ports"])
    assert _health_check_url(" ".join(api["healthcheck"]["test"])) == f"http://127.0.0.1:{PORT}{HEALTH}"
    assert api["environment"]["WHICHGPU_DATABASE_URL"].startswith("postgresql://")
    assert "@postgres:5432/" in api["environment"]["WHICHGPU_DATABASE_URL"]
    assert api["build"]["dockerfile"] == "deploy/Dockerfile" and api["env_file"] == ".env"
    assert bot["profiles"] == ["slack"] and bot["command"] == ["whichgpu", "bot"]
    assert bot["environment"]["WHICHGPU_API_URL"] == f"http://whichgpu:{PORT}"


# --- Kubernetes ---------------------------------------------------------------------------------


def _kind(kind: str) -> list[dict]:
    return [d for _, d in k8s_docs() if d["kind"] == kind]


def test_every_k8s_document_has_its_required_fields() -> None:
    docs = k8s_docs()
    assert {d["kind"] for _, d in docs} >= {"Namespace", "ConfigMap", "Secret", "Job", "Deployment",
                                             "Service", "DaemonSet", "Kustomization"}
    for path, doc in docs:
        assert doc.get("apiVersion") and doc.get("kind"), path
        if doc["kind"] != "Kustomization":
            assert doc["metadata"]["name"], path
        if doc["kind"] not in ("Namespace", "Kustomization"):
            assert doc["metadata"]["namespace"] == "whichgpu", f"{path}: {doc['kind']} outside the namespace"
        if pod_spec(doc) is not None:
            labels = doc["spec"]["template"]["metadata"]["labels"]
            if doc["kind"] != "Job":
                assert doc["spec"]["selector"]["matchLabels"].items() <= labels.items(), path
            for c in containers(doc):
                resources = c["resources"]
                assert resources["requests"] and resources["limits"], f"{path}: {c['name']} without resources"
                assert c["securityContext"]["allowPrivilegeEscalation"] is False, f"{path}: {c['name']}"


def test_the_api_deployment_is_replicated_probed_and_non_root() -> None:
    (dep,) = _kind("Deployment")
    assert dep["spec"]["replicas"] >= 2
    spec = dep["spec"]["template"]["spec"]
    assert spec["securityContext"]["runAsNonRoot"] is True and spec["securityContext"]["runAsUser"] != 0
    (c,) = spec["containers"]
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports == {"http": PORT}
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert c[probe]["httpGet"] == {"path": HEALTH, "port": "http"}, probe
    assert {"cpu", "memory"} <= c["resources"]["requests"].keys() and "memory" in c["resources"]["limits"]
    refs = {(k, v["name"]) for e in c["envFrom"] for k, v in e.items()}
    assert refs == {("configMapRef", "whichgpu-config"), ("secretRef", "whichgpu-secrets")}
    (svc,) = _kind("Service")
    assert svc["spec"]["selector"].items() <= dep["spec"]["template"]["metadata"]["labels"].items()
    assert svc["spec"]["ports"] == [{"name": "http", "port": PORT, "targetPort": "http"}]


def test_the_migration_job_uses_the_same_image_and_settings_as_the_api() -> None:
    (job,) = _kind("Job")
    (dep,) = _kind("Deployment")
    (jc,) = job["spec"]["template"]["spec"]["containers"]
    (dc,) = dep["spec"]["template"]["spec"]["containers"]
    assert jc["image"] == dc["image"] and jc["envFrom"] == dc["envFrom"]
    assert jc["command"] == ["whichgpu", "migrate"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] in ("OnFailure", "Never")


def test_the_agent_daemonset_takes_a_gpu_its_token_from_a_secret_and_keeps_its_spool() -> None:
    (ds,) = _kind("DaemonSet")
    spec = ds["spec"]["template"]["spec"]
    assert spec["nodeSelector"] and any(t["key"] == "nvidia.com/gpu" for t in spec["tolerations"])
    (c,) = spec["containers"]
    assert c["command"] == ["bench-agent", "daemon"]
    assert c["resources"]["limits"]["nvidia.com/gpu"] == 1
    env = {e["name"]: e for e in c["env"]}
    ref = env["WHICHGPU_AGENT_TOKEN"]["valueFrom"]["secretKeyRef"]
    secrets = {d["metadata"]["name"]: d for d in _kind("Secret")}
    assert ref["key"] in secrets[ref["name"]]["stringData"]
    (svc,) = _kind("Service")
    assert env["WHICHGPU_API_URL"]["value"] == f"http://{svc['metadata']['name']}.{svc['metadata']['namespace']}.svc.cluster.local:{PORT}"
    data_dir = env["WHICHGPU_DATA_DIR"]["value"]
    (mount,) = [m for m in c["volumeMounts"] if m["mountPath"] == data_dir]
    (volume,) = [v for v in spec["volumes"] if v["name"] == mount["name"]]
    assert volume["hostPath"]["path"].startswith("/var/lib/")
    assert spec["securityContext"]["runAsNonRoot"] is True


def test_the_configmap_holds_no_secret_and_the_secret_every_secret_setting() -> None:
    from dataclasses import fields

    from service.settings import PACKAGE_SETTINGS

    secret_envs = {f.metadata["env"] for cls in PACKAGE_SETTINGS for f in fields(cls)
                   if f.metadata.get("secret")}
    (cm,) = _kind("ConfigMap")
    assert not secret_envs & cm["data"].keys()
    assert "WHICHGPU_DATABASE_URL" not in cm["data"]
    in_secrets = {k for s in _kind("Secret") for k in s["stringData"]}
    assert secret_envs | {"WHICHGPU_DATABASE_URL"} <= in_secrets


def test_kustomization_lists_every_manifest_but_the_secret_template() -> None:
    (kust,) = _kind("Kustomization")
    listed = set(kust["resources"])
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml", "secret.example.yaml"}
    assert listed == on_disk
    images = {i["name"] for i in kust["images"]}
    used = {c["image"].split(":")[0] for _, d in k8s_docs() for c in containers(d)}
    assert used <= images


# --- images -------------------------------------------------------------------------------------


def test_the_service_image_is_slim_non_root_and_has_no_torch() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    instr = dockerfile_instructions(DEPLOY / "Dockerfile")
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.11-slim$", text, re.M)
    assert all(r.startswith("${PYTHON_IMAGE}") for w, r in instr if w == "FROM")
    runs = " ".join(r for w, r in instr if w == "RUN")
    assert re.search(r"pip install \.(\s|$)", runs), "the service image installs the base package"
    assert "[agent]" not in runs and not re.search(r"pip install[^&]*\btorch\b", runs)
    (user,) = [r for w, r in instr if w == "USER"]
    assert user.split(":")[0] not in ("0", "root")
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not [d for d in deps if re.match(r"torch\b", d)], "torch stays an extra: no torch in the service"


def test_the_agent_image_keeps_the_base_images_torch() -> None:
    text = (DEPLOY / "Dockerfile.agent").read_text()
    instr = dockerfile_instructions(DEPLOY / "Dockerfile.agent")
    assert re.search(r"^ARG BASE_IMAGE=pytorch/pytorch:[\w.\-]+-cuda[\d.]+-cudnn\d+-runtime$", text, re.M)
    assert [r for w, r in instr if w == "FROM"] == ["${BASE_IMAGE}"]
    runs = " ".join(r for w, r in instr if w == "RUN")
    assert re.search(r"pip install -c \S+ \"\.\[agent\]\"", runs), "the agent extra, under a torch constraint"
    assert "'torch==' + torch.__version__" in runs
    (user,) = [r for w, r in instr if w == "USER"]
    assert user.split(":")[0] not in ("0", "root")
    assert exec_form(next(r for w, r in instr if w == "CMD")) == ["bench-agent", "daemon"]


def _dockerignore_excluded(path: str, patterns: list[str]) -> bool:
    """Docker's rule: the last pattern matching the path or one of its parents wins."""
    def regex(p: str) -> re.Pattern[str]:
        out = ""
        i = 0
        while i < len(p):
            if p.startswith("**/", i):
                out, i = out + "(?:.*/)?", i + 3
            elif p.startswith("**", i):
                out, i = out + ".*", i + 2
            elif p[i] == "*":
                out, i = out + "[^/]*", i + 1
            elif p[i] == "?":
                out, i = out + "[^/]", i + 1
            else:
                out, i = out + re.escape(p[i]), i + 1
        return re.compile(out + r"\Z")

    parts = path.split("/")
    candidates = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    excluded = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        rx = regex(pattern.lstrip("!").strip("/"))
        if any(rx.match(c) for c in candidates):
            excluded = not negate
    return excluded


def _dockerignore_patterns() -> list[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _tracked(*paths: str) -> list[str]:
    """The files git tracks (under ``paths``, when given)."""
    done = subprocess.run(["git", "ls-files", *paths], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.split()


def _build_context(dest: Path) -> list[str]:
    """Copy what the service Dockerfile COPYs from the context .dockerignore leaves; return the files."""
    patterns = _dockerignore_patterns()
    context = [f for f in _tracked() if (ROOT / f).is_file() and not _dockerignore_excluded(f, patterns)]
    copied = []
    for word, rest in dockerfile_instructions(DEPLOY / "Dockerfile"):
        if word != "COPY" or rest.startswith("--from"):
            continue
        *sources, _target = rest.split()
        for src in sources:
            for f in context:
                if f == src or f.startswith(src.rstrip("/") + "/"):
                    (dest / f).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / f, dest / f)
                    copied.append(f)
    return copied


def test_dockerignore_keeps_secrets_and_junk_out_and_the_package_in() -> None:
    patterns = _dockerignore_patterns()
    for path in ("deploy/.env", ".env", ".venv/bin/python", ".git/config", "tests/conftest.py",
                 "service/__pycache__/app.cpython-311.pyc", "whichgpu.egg-info/PKG-INFO"):
        assert _dockerignore_excluded(path, patterns), path
    for path in ("pyproject.toml", "README.md", "service/app.py", "rules/data/x.json", "bench_agent/cli.py",
                 "bot/app.py"):
        assert not _dockerignore_excluded(path, patterns), path


def test_the_image_context_builds_a_complete_package(tmp_path: Path) -> None:
    """What the Dockerfile copies builds a wheel holding every tracked package file."""
    import zipfile

    ctx = tmp_path / "ctx"
    copied = _build_context(ctx)
    assert "pyproject.toml" in copied and "README.md" in copied
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path / "w"), str(ctx)], check=True, capture_output=True, text=True)
    (wheel,) = (tmp_path / "w").glob("whichgpu-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [f for f in _tracked("service", "rules", "bot", "bench_agent") if f not in names]
    assert not missing, f"the image would lack these package files: {missing}"
    meta = next(zipfile.ZipFile(wheel).read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    torch_reqs = [line for line in meta.splitlines() if line.startswith("Requires-Dist: torch")]
    assert torch_reqs and all("extra == \"agent\"" in line for line in torch_reqs)
    entry_points = next(zipfile.ZipFile(wheel).read(n).decode() for n in names
                        if n.endswith("entry_points.txt"))
    assert "whichgpu = service.cli:main" in entry_points
    assert "bench-agent = bench_agent.cli:main" in entry_points


# --- systemd ------------------------------------------------------------------------------------

UNITS = {"whichgpu.service": ("whichgpu", "serve"), "bench-agent.service": ("bench-agent", "daemon")}


@pytest.mark.parametrize("unit", sorted(UNITS))
def test_systemd_units_are_hardened_and_keep_state(unit: str) -> None:
    opts = unit_options(SYSTEMD / unit)["Service"]
    one = {k: v[-1] for k, v in opts.items()}
    state = one["StateDirectory"]
    assert one["DynamicUser"] == "yes"
    assert f"WHICHGPU_DATA_DIR=%S/{state}" in opts["Environment"]
    assert one["EnvironmentFile"].startswith("-/etc/whichgpu/") and one["EnvironmentFile"].endswith(".env")
    env_example = SYSTEMD / (Path(one["EnvironmentFile"][1:]).name + ".example")
    assert env_example.is_file(), f"{unit}: no {env_example.name} to copy"
    hardening = {"ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes",
                 "NoNewPrivileges": "yes", "Restart": "on-failure"}
    for key, value in hardening.items():
        assert one[key] == value, f"{unit}: {key}={one.get(key)}"
    program, sub = UNITS[unit]
    assert one["ExecStart"].split()[:2] == [f"/opt/whichgpu/bin/{program}", sub]
    assert unit_options(SYSTEMD / unit)["Install"]["WantedBy"] == ["multi-user.target"]


def test_the_agent_unit_can_reach_the_gpus() -> None:
    opts = unit_options(SYSTEMD / "bench-agent.service")["Service"]
    assert opts["PrivateDevices"] == ["no"], "PrivateDevices=yes hides /dev/nvidia*"
    assert "char-nvidia-frontend rw" in opts["DeviceAllow"] and "char-nvidia-uvm rw" in opts["DeviceAllow"]


@pytest.mark.skipif(not shutil.which("systemd-analyze"),
                    reason="systemd-analyze is not installed (apt-get install systemd)")
@pytest.mark.parametrize("unit", sorted(UNITS))
def test_systemd_analyze_verify_accepts_the_units(unit: str, tmp_path: Path) -> None:
    """systemd's own parser: unknown keys and bad values are reported (as warnings, so any output fails)."""
    program = shutil.which("true")
    text = (SYSTEMD / unit).read_text()
    for name in ("whichgpu", "bench-agent"):  # the binaries live in /opt/whichgpu on a real host only
        text = text.replace(f"/opt/whichgpu/bin/{name}", program)
    (tmp_path / unit).write_text(text)
    done = subprocess.run(["systemd-analyze", "verify", str(tmp_path / unit)], capture_output=True, text=True,
                          cwd=tmp_path)
    complaints = [line for line in (done.stdout + done.stderr).splitlines() if unit in line]
    assert done.returncode == 0 and not complaints, "\n".join(complaints) or done.stderr


# --- Slurm --------------------------------------------------------------------------------------


def test_the_slurm_script_is_valid_bash() -> None:
    done = subprocess.run(["bash", "-n", str(SBATCH)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not shutil.which("shellcheck"),
                    reason="shellcheck is not installed (apt-get install shellcheck)")
def test_shellcheck_accepts_the_slurm_script() -> None:
    done = subprocess.run(["shellcheck", "--severity=style", str(SBATCH)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_the_slurm_script_refuses_to_run_without_a_service_url(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["bash", str(SBATCH)], capture_output=True, text=True, env=env)
    assert done.returncode != 0 and "WHICHGPU_API_URL" in done.stderr
    done = subprocess.run(["bash", str(SBATCH)], capture_output=True, text=True,
                          env={**env, "WHICHGPU_API_URL": "http://x"})
    assert done.returncode == 2 and "agent-token" in done.stderr
