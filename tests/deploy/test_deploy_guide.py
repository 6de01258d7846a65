"""The deploy guide's steps, run as written: settings shown, the env file read by a shell,
the PostgreSQL role and database made, and `--quick` runs left out of the advice."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

from deploy_files import DEPLOY, ROOT, SYSTEMD

README = (DEPLOY / "README.md").read_text()
WHICHGPU = str(Path(sys.executable).with_name("whichgpu"))
ENV_EXAMPLE = SYSTEMD / "whichgpu.env.example"


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WHICHGPU_", "SLACK_"))}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def _systemd_shell_line(program_args: str) -> str:
    """The guide's `sudo sh -c '…'` line that runs `whichgpu <program_args>` with the env file."""
    pattern = r"sudo (sh -c '[^'\n]*/opt/whichgpu/bin/whichgpu " + re.escape(program_args) + r"')"
    found = re.findall(pattern, README)
    assert found, f"deploy/README.md has no env-file command for `whichgpu {program_args}`"
    return found[0]


def test_settings_prints_the_values_in_effect_with_secrets_hidden(tmp_path: Path) -> None:
    env = _clean_env(WHICHGPU_DATA_DIR=str(tmp_path), WHICHGPU_PORT="8123",
                     SLACK_BOT_TOKEN="xoxb-very-secret",
                     WHICHGPU_DATABASE_URL="postgresql://whichgpu:hunter2@db.internal:5432/whichgpu")
    done = subprocess.run([WHICHGPU, "settings"], capture_output=True, text=True, env=env, timeout=60,
                          check=True)
    out = done.stdout
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert "8123" in lines["WHICHGPU_PORT"] and "(environment)" in lines["WHICHGPU_PORT"]
    assert "127.0.0.1" in lines["WHICHGPU_HOST"] and "(default)" in lines["WHICHGPU_HOST"]
    assert "db.internal" in lines["WHICHGPU_DATABASE_URL"]
    assert "hunter2" not in out and "xoxb-very-secret" not in out
    assert "set, hidden" in lines["SLACK_BOT_TOKEN"]
    assert "values in effect" in README  # what the guide promises of `whichgpu settings`


def test_the_env_file_command_reads_the_example_despite_its_comments(tmp_path: Path) -> None:
    assert "xargs" not in README  # `env $(cat FILE | xargs)` breaks on the comment lines
    line = _systemd_shell_line("settings").replace("/etc/whichgpu/whichgpu.env", str(ENV_EXAMPLE))
    line = line.replace("/opt/whichgpu/bin/whichgpu", WHICHGPU)
    result = subprocess.run(["bash", "-c", line], capture_output=True, text=True,
                            env=_clean_env(WHICHGPU_DATA_DIR=str(tmp_path)), timeout=60)
    assert result.returncode == 0, result.stderr
    public = next(line for line in result.stdout.splitlines() if line.startswith("WHICHGPU_PUBLIC_URL"))
    assert "https://whichgpu.example.org" in public and "(environment)" in public
    assert "CHANGE-ME" not in result.stdout  # the example's database password stays hidden


def _database_steps() -> tuple[list[str], str]:
    """The guide's SQL for the role and database, and the example env file's database URL."""
    sql = re.search(r"psql -v ON_ERROR_STOP=1 <<'SQL'\n(.*?)\nSQL\n", README, re.S)
    assert sql, "the systemd section does not create the PostgreSQL role and database"
    url = re.search(r"^WHICHGPU_DATABASE_URL=(\S+)$", ENV_EXAMPLE.read_text(), re.M).group(1)
    return [s.strip() for s in sql.group(1).split(";") if s.strip()], url


def test_the_systemd_database_steps_make_what_the_env_file_names() -> None:
    statements, url = _database_steps()
    user, password, database = re.match(r"postgresql://([^:]+):([^@]+)@[^/]+/(\w+)$", url).groups()
    assert statements == [f"CREATE ROLE {user} LOGIN PASSWORD '{password}'",
                          f"CREATE DATABASE {database} OWNER {user}"]


def test_the_systemd_database_steps_let_the_service_migrate(postgres_url: str, tmp_path: Path) -> None:
    """Run the guide's SQL on the real server (names made unique), then `whichgpu migrate` as that role."""
    import psycopg

    statements, url = _database_steps()
    user, _password, database = re.match(r"postgresql://([^:]+):([^@]+)@[^/]+/(\w+)$", url).groups()
    suffix = uuid.uuid4().hex[:8]
    role, db = f"{user}_{suffix}", f"{database}_{suffix}"
    admin_url = postgres_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        for statement in statements:
            admin.execute(statement.replace(f"ROLE {user} ", f"ROLE {role} ")
                          .replace(f"DATABASE {database} ", f"DATABASE {db} ")
                          .replace(f"OWNER {user}", f"OWNER {role}"))
    try:
        host = re.match(r"postgresql://[^@]*@([^/]+)/", admin_url)
        service_url = f"postgresql://{role}:{_password}@{host.group(1) if host else '127.0.0.1:5432'}/{db}"
        env = _clean_env(WHICHGPU_DATA_DIR=str(tmp_path), WHICHGPU_DATABASE_URL=service_url)
        result = subprocess.run([WHICHGPU, "migrate"], capture_output=True, text=True, timeout=120, env=env)
        assert result.returncode == 0, result.stderr
        assert "newest schema" in result.stdout  # migrate only migrates: the catalog is read from the package
    finally:
        from service.db import make_engine

        make_engine(service_url).dispose()
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
            admin.execute(f'DROP ROLE IF EXISTS "{role}"')


def test_quick_runs_are_stored_but_left_out_of_the_advice_as_the_guide_says(sqlite_url: str) -> None:
    from rules.knowledge.loaded import load_catalog
    from service.benchmarks import query
    from service.db import migrate, session_scope
    from service.measurements import lab_measurements
    from tests.service.test_benchmarks import result, run_payload, store

    assert "Runs made with `--quick` do not count for the advice" in README
    migrate(sqlite_url)
    store(sqlite_url, load_catalog(), run_payload(quick=True, results=[result("matmul", "fp16", 60.0)]))
    with session_scope(sqlite_url) as session:
        [run] = query(session)["items"]
    assert run["quick"] is True  # stored and listed
    assert lab_measurements(sqlite_url) == {}  # but not a measurement
