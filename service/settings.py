"""Every setting of whichgpu, read from the environment in one place.

Names carry the ``WHICHGPU_`` prefix, except Slack's usual ``SLACK_*`` variables.
A secret may also come from a file: ``NAME_FILE=/run/secrets/name`` is read when
``NAME`` itself is unset (container and systemd credential style).
Nothing reads the environment at import time: call :func:`get_settings` or build
:class:`Settings` directly (tests do).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

__all__ = ["Settings", "get_settings", "settings_table", "effective_settings", "SettingsError"]


class SettingsError(ValueError):
    """A setting has a value that cannot be used."""


def read_env(name: str) -> str | None:
    """The value of ``name``, or of the file that ``name_FILE`` points to."""
    value = os.environ.get(name)
    if value is None and (path := os.environ.get(f"{name}_FILE")):
        value = Path(path).read_text(encoding="utf-8").strip()
    return value if value not in (None, "") else None


def _setting(env: str, default: Any, doc: str, parse: Callable[[str], Any] = str, secret: bool = False,
             shown: str | None = None) -> Any:
    def factory() -> Any:
        raw = read_env(env)
        if raw is None:
            return default() if callable(default) else default
        try:
            return parse(raw)
        except ValueError as exc:
            raise SettingsError(f"{env}={raw!r} is not valid: {exc}") from None

    return field(default_factory=factory, metadata={"env": env, "doc": doc, "default": default if shown is None else shown, "secret": secret})


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "whichgpu"


def _positive_float(raw: str) -> float:
    value = float(raw)
    if value < 0:
        raise ValueError("must not be negative")
    return value


def _devices(raw: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in raw.split(",") if part.strip())


@dataclass(frozen=True)
class Settings:
    """Runtime configuration; each field names its environment variable."""

    data_dir: Path = _setting("WHICHGPU_DATA_DIR", _default_data_dir, "Directory for the embedded SQLite database and the agent spool.", Path,
                              shown="~/.local/share/whichgpu")
    database_url: str | None = _setting("WHICHGPU_DATABASE_URL", None, "SQLAlchemy URL; SQLite in the data dir when unset, `postgresql://…` for deployments.")
    host: str = _setting("WHICHGPU_HOST", "127.0.0.1", "Address `whichgpu serve` listens on.")
    port: int = _setting("WHICHGPU_PORT", 8000, "Port `whichgpu serve` listens on.", int)
    api_url: str = _setting("WHICHGPU_API_URL", "http://127.0.0.1:8000", "Base URL of the service, used by the bot and the bench agent.")
    public_url: str | None = _setting("WHICHGPU_PUBLIC_URL", None, "Public base URL of the service, for links and chart images in Slack answers.")
    electricity_price: float = _setting("WHICHGPU_ELECTRICITY_PRICE", 0.15, "Electricity price in USD per kWh, for rent-vs-buy break-even.", _positive_float)
    max_body_bytes: int = _setting("WHICHGPU_MAX_BODY_BYTES", 65536, "Largest accepted request body in bytes.", int)
    conversation_days: float = _setting("WHICHGPU_CONVERSATION_DAYS", 30.0, "Days a conversation of `/v1/ask` is kept after its last turn (0 keeps them forever); one-shot questions are never stored.", _positive_float)
    agent_token: str | None = _setting("WHICHGPU_AGENT_TOKEN", None, "Bearer token the bench agent reports with (`whichgpu agents add`).", secret=True)
    admin_token: str | None = _setting("WHICHGPU_ADMIN_TOKEN", None, "Bearer token that may read agents, hosts and their hardware in `GET /v1/benchmarks`; without it everyone sees only runs without them and per-GPU aggregates.", secret=True)
    agent_interval_s: float = _setting("WHICHGPU_AGENT_INTERVAL", 3600.0, "Seconds between the bench agent daemon's benchmark rounds.", _positive_float)
    agent_devices: tuple[str, ...] = _setting("WHICHGPU_AGENT_DEVICES", (), "Comma-separated torch devices the agent benchmarks; all GPUs when unset.", _devices)
    agent_idle_utilization: float = _setting("WHICHGPU_AGENT_IDLE_UTILIZATION", 10.0, "GPU utilisation (%) under which the daemon treats a GPU as idle.", _positive_float)
    slack_bot_token: str | None = _setting("SLACK_BOT_TOKEN", None, "Slack bot token (xoxb-…).", secret=True)
    slack_signing_secret: str | None = _setting("SLACK_SIGNING_SECRET", None, "Slack signing secret; enables `POST /slack/events`.", secret=True)
    slack_app_token: str | None = _setting("SLACK_APP_TOKEN", None, "Slack app-level token (xapp-…) for Socket Mode (`whichgpu bot`).", secret=True)
    slack_api_url: str = _setting("WHICHGPU_SLACK_API_URL", "https://slack.com/api/", "Slack Web API base URL (tests and proxies point it elsewhere).")

    @property
    def resolved_database_url(self) -> str:
        """The database URL, with the embedded SQLite default."""
        return self.database_url or f"sqlite:///{self.data_dir / 'whichgpu.db'}"

    @property
    def spool_dir(self) -> Path:
        """Where the bench agent keeps results the service has not accepted yet."""
        return self.data_dir / "spool"

    @property
    def slack_enabled(self) -> bool:
        return bool(self.slack_bot_token and self.slack_signing_secret)

    def __repr__(self) -> str:  # never print secrets
        shown = {f.name: ("***" if f.metadata["secret"] and getattr(self, f.name) else getattr(self, f.name)) for f in fields(self)}
        return f"Settings({shown})"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()


def settings_table() -> list[tuple[str, str, str]]:
    """(variable, default, meaning) rows, for the README and `whichgpu settings`."""
    return [
        (f.metadata["env"], "" if f.metadata["default"] in (None, ()) else str(f.metadata["default"]), f.metadata["doc"])
        for f in fields(Settings)
    ]


def _shown(value: Any) -> str:
    if value in (None, ()):
        return "—"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return re.sub(r"://([^:/@]+):[^@]*@", r"://\1:***@", str(value))  # a password inside a URL


def effective_settings(settings: Settings) -> list[tuple[str, str, str]]:
    """(variable, value in use, where it came from) for `whichgpu settings`; secrets are only said to be set."""
    rows = []
    for f in fields(Settings):
        env, value = f.metadata["env"], getattr(settings, f.name)
        if os.environ.get(env):
            source = "environment"
        elif os.environ.get(f"{env}_FILE"):
            source = f"file {os.environ[f'{env}_FILE']}"
        else:
            source = "default"
        if f.name == "database_url" and value is None:
            value, source = settings.resolved_database_url, "default: SQLite in the data dir"
        shown = ("set, hidden" if value else "—") if f.metadata["secret"] else _shown(value)
        rows.append((env, shown, source))
    return rows
