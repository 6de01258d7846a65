"""How every package reads its settings from the environment, in one place.

The service, the Slack bot and the bench agent each have a settings class of their
own (``service.settings``, ``bot.settings``, ``bench_agent.settings``), so none of
them imports another for its configuration; they share this machinery, which lives
here because ``rules`` is the one package all three may import.

Names carry the ``WHICHGPU_`` prefix, except Slack's usual ``SLACK_*`` variables.
A secret may also come from a file: ``NAME_FILE=/run/secrets/name`` is read when
``NAME`` itself is unset (container and systemd credential style). Nothing reads the
environment at import time: a settings object reads it when it is built.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import field, fields
from pathlib import Path
from typing import Any

from rules.errors import SettingsError

__all__ = [
    "EnvSettings",
    "SettingsError",
    "api_url_setting",
    "comma_list",
    "data_dir_setting",
    "effective_rows",
    "non_negative_float",
    "read_env",
    "setting",
    "settings_rows",
]


def read_env(name: str) -> str | None:
    """The value of ``name``, or of the file that ``name_FILE`` points to."""
    value = os.environ.get(name)
    if value is None and (path := os.environ.get(f"{name}_FILE")):
        value = Path(path).read_text(encoding="utf-8").strip()
    return value if value not in (None, "") else None


def setting(
    env: str,
    default: Any,
    doc: str,
    parse: Callable[[str], Any] = str,
    secret: bool = False,
    shown: str | None = None,
) -> Any:
    """A dataclass field read from ``env`` when the object is built (``default`` may be a factory)."""

    def factory() -> Any:
        raw = read_env(env)
        if raw is None:
            return default() if callable(default) else default
        try:
            return parse(raw)
        except ValueError as exc:
            raise SettingsError(f"{env}={raw!r} is not valid: {exc}") from None

    return field(
        default_factory=factory,
        metadata={"env": env, "doc": doc, "default": default if shown is None else shown, "secret": secret},
    )


def non_negative_float(raw: str) -> float:
    value = float(raw)
    if value < 0:
        raise ValueError("must not be negative")
    return value


def comma_list(raw: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in raw.split(",") if part.strip())


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "whichgpu"


# The two variables more than one package reads, defined once so they mean one thing.


def data_dir_setting() -> Any:
    return setting(
        "WHICHGPU_DATA_DIR",
        _default_data_dir,
        "Directory for the embedded SQLite database and the agent spool.",
        Path,
        shown="~/.local/share/whichgpu",
    )


def api_url_setting() -> Any:
    return setting(
        "WHICHGPU_API_URL",
        "http://127.0.0.1:8000",
        "Base URL of the service, used by the bench agent and by the bot over Socket Mode.",
    )


class EnvSettings:
    """Base of the settings dataclasses (declared with ``repr=False``): a repr that never prints secrets."""

    def __repr__(self) -> str:
        described = fields(self)  # type: ignore[arg-type]
        shown = {f.name: getattr(self, f.name) for f in described}
        shown |= {f.name: "***" for f in described if f.metadata.get("secret") and shown[f.name]}
        return f"{type(self).__name__}({shown})"


def _env_fields(settings: Any) -> list[Any]:
    """The fields of a settings class or object that name a variable (a nested settings object names none)."""
    return [f for f in fields(settings) if "env" in f.metadata]


def settings_rows(*classes: type) -> list[tuple[str, str, str]]:
    """(variable, default, meaning) rows of these settings classes, each variable once, for the READMEs."""
    rows: dict[str, tuple[str, str, str]] = {}
    for cls in classes:
        for f in _env_fields(cls):
            row = (
                f.metadata["env"],
                "" if f.metadata["default"] in (None, ()) else str(f.metadata["default"]),
                f.metadata["doc"],
            )
            if rows.setdefault(row[0], row) != row:
                raise SettingsError(f"{row[0]} is defined twice with different defaults or meanings")
    return list(rows.values())


def _shown(value: Any) -> str:
    if value in (None, ()):
        return "—"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return re.sub(r"://([^:/@]+):[^@]*@", r"://\1:***@", str(value))  # a password inside a URL


def _source(env: str) -> str:
    if os.environ.get(env):
        return "environment"
    if os.environ.get(f"{env}_FILE"):
        return f"file {os.environ[f'{env}_FILE']}"
    return "default"


def effective_rows(*objects: Any) -> list[tuple[str, str, str]]:
    """(variable, value in use, where it came from) of these settings objects, each variable once;
    secrets are only said to be set."""
    rows: dict[str, tuple[str, str, str]] = {}
    for settings in objects:
        for f in _env_fields(settings):
            env, value = f.metadata["env"], getattr(settings, f.name)
            shown = ("set, hidden" if value else "—") if f.metadata["secret"] else _shown(value)
            rows.setdefault(env, (env, shown, _source(env)))
    return list(rows.values())
