"""The service's settings, read from the environment (``rules.settings`` says how).

The service carries the bot's settings (:class:`bot.settings.BotSettings`) because it
serves Slack's HTTP endpoint itself; the bench agent has its own
(:class:`bench_agent.settings.AgentSettings`). :func:`settings_table` and
:func:`effective_settings` cover all three, for the READMEs and `whichgpu settings`.
Nothing reads the environment at import time: call :func:`get_settings` or build
:class:`Settings` directly (tests do).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bench_agent.settings import AgentSettings
from bot.settings import BotSettings
from rules.settings import (
    EnvSettings,
    data_dir_setting,
    effective_rows,
    non_negative_float,
    setting,
    settings_rows,
)

__all__ = ["PACKAGE_SETTINGS", "Settings", "effective_settings", "get_settings", "settings_table"]


@dataclass(frozen=True, repr=False)
class Settings(EnvSettings):
    """Runtime configuration of the service; each field names its environment variable."""

    data_dir: Path = data_dir_setting()
    database_url: str | None = setting(
        "WHICHGPU_DATABASE_URL",
        None,
        "SQLAlchemy URL; SQLite in the data dir when unset, `postgresql://…` for deployments.",
    )
    host: str = setting("WHICHGPU_HOST", "127.0.0.1", "Address `whichgpu serve` listens on.")
    port: int = setting("WHICHGPU_PORT", 8000, "Port `whichgpu serve` listens on.", int)
    electricity_price: float = setting(
        "WHICHGPU_ELECTRICITY_PRICE",
        0.15,
        "Electricity price in USD per kWh, for rent-vs-buy break-even.",
        non_negative_float,
    )
    max_body_bytes: int = setting(
        "WHICHGPU_MAX_BODY_BYTES", 65536, "Largest accepted request body in bytes.", int
    )
    conversation_days: float = setting(
        "WHICHGPU_CONVERSATION_DAYS",
        30.0,
        "Days a conversation of `/v1/ask` is kept after its last turn (0 keeps them forever); "
        "one-shot questions are never stored.",
        non_negative_float,
    )
    conversations_per_client: int = setting(
        "WHICHGPU_CONVERSATIONS_PER_CLIENT",
        200,
        "Conversations of `/v1/ask` one client address (IPv6: its /64) keeps; starting one more drops "
        "its oldest.",
        int,
    )
    max_conversations: int = setting(
        "WHICHGPU_MAX_CONVERSATIONS",
        50_000,
        "Conversations kept in all; starting one more drops the oldest (a conversation is a few KB).",
        int,
    )
    agent_runs_per_hour: int = setting(
        "WHICHGPU_AGENT_RUNS_PER_HOUR",
        120,
        "Runs one agent token may report an hour (an agent sends one per GPU per round); more get 429. "
        "0: no limit.",
        int,
    )
    max_environ_bytes: int = setting(
        "WHICHGPU_MAX_ENVIRON_BYTES",
        16_384,
        "Largest `environ` of a reported run, in bytes of JSON; larger gets 413.",
        int,
    )
    rate_limit: float = setting(
        "WHICHGPU_RATE_LIMIT",
        600.0,
        "Requests a minute one client address (IPv6: its /64) may make to the anonymous endpoints, "
        "in bursts of up to as many; more get 429 with Retry-After. The default is ten a second: no "
        "person reaches it, a script does. `/healthz`, `/metrics`, Slack and agent reports are not "
        "counted. 0: no limit.",
        non_negative_float,
    )
    max_header_bytes: int = setting(
        "WHICHGPU_MAX_HEADER_BYTES",
        16_384,
        "Largest request head (request line and headers) in bytes; more gets 431 and the connection closes.",
        int,
    )
    max_headers: int = setting(
        "WHICHGPU_MAX_HEADERS", 100, "Most header lines in one request; more gets 431.", int
    )
    header_timeout: float = setting(
        "WHICHGPU_HEADER_TIMEOUT",
        10.0,
        "Seconds a connection may take to send a complete request head (from opening, or from its first "
        "byte after an idle keep-alive); then it is closed.",
        non_negative_float,
    )
    body_timeout: float = setting(
        "WHICHGPU_BODY_TIMEOUT",
        30.0,
        "Seconds a request may take to send its body after its head; then the connection is closed.",
        non_negative_float,
    )
    keep_alive: float = setting(
        "WHICHGPU_KEEP_ALIVE",
        5.0,
        "Seconds an idle keep-alive connection stays open between requests.",
        non_negative_float,
    )
    max_connections: int = setting(
        "WHICHGPU_MAX_CONNECTIONS",
        1000,
        "Most open connections; a new one beyond it gets 503 at once. Kept under the open-file limit "
        "(raised to its hard limit at start: systemd `LimitNOFILE`).",
        int,
    )
    max_connections_per_client: int = setting(
        "WHICHGPU_MAX_CONNECTIONS_PER_CLIENT",
        64,
        "Most open connections from one client address (IPv6: its /64); a new one beyond it gets 503. "
        "Proxies in WHICHGPU_TRUSTED_PROXIES are not counted.",
        int,
    )
    trusted_proxies: str = setting(
        "WHICHGPU_TRUSTED_PROXIES",
        "",
        "Comma-separated addresses or networks of reverse proxies whose `X-Forwarded-For` names the client "
        "(rate limits, quotas); empty: the header is ignored and the peer address counts.",
    )
    admin_token: str | None = setting(
        "WHICHGPU_ADMIN_TOKEN",
        None,
        "Bearer token that may read agents, hosts and their hardware in `GET /v1/benchmarks`; "
        "without it everyone sees only runs without them and per-GPU aggregates.",
        secret=True,
    )
    bot: BotSettings = field(default_factory=BotSettings)

    @property
    def resolved_database_url(self) -> str:
        """The database URL, with the embedded SQLite default."""
        return self.database_url or f"sqlite:///{self.data_dir / 'whichgpu.db'}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()


# every variable whichgpu reads is a field of one of these
PACKAGE_SETTINGS = (
    Settings,
    BotSettings,
    AgentSettings,
)


def settings_table() -> list[tuple[str, str, str]]:
    """(variable, default, meaning) rows of the service, bot and agent: READMEs and `whichgpu settings`."""
    return settings_rows(*PACKAGE_SETTINGS)


def effective_settings(settings: Settings, agent: AgentSettings | None = None) -> list[tuple[str, str, str]]:
    """(variable, value in use, where it came from) for `whichgpu settings`; secrets are only said set."""
    rows = effective_rows(settings, settings.bot, agent or AgentSettings())
    if settings.database_url is None:
        rows = [
            (env, settings.resolved_database_url, "default: SQLite in the data dir")
            if env == "WHICHGPU_DATABASE_URL"
            else (env, value, source)
            for env, value, source in rows
        ]
    return rows
