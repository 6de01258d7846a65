"""The bench agent's settings: where it reports, with which token, what and how often it measures.

Read from the ``WHICHGPU_*`` environment, optionally under a TOML file (``--config
PATH`` or ``WHICHGPU_AGENT_CONFIG``) whose keys are the field names (``api_url``,
``agent_token``, ``agent_interval_s``, ``agent_devices``, ``agent_idle_utilization``,
``data_dir``); the environment wins over the file.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from rules.settings import (
    EnvSettings,
    SettingsError,
    api_url_setting,
    comma_list,
    data_dir_setting,
    non_negative_float,
    read_env,
    setting,
)

__all__ = ["AgentSettings", "SettingsError"]


@dataclass(frozen=True, repr=False)
class AgentSettings(EnvSettings):
    """Runtime configuration of the agent; each field names its environment variable."""

    data_dir: Path = data_dir_setting()
    api_url: str = api_url_setting()
    agent_token: str | None = setting(
        "WHICHGPU_AGENT_TOKEN", None,
        "Bearer token the bench agent reports with (`whichgpu agents add`).", secret=True)
    agent_interval_s: float = setting(
        "WHICHGPU_AGENT_INTERVAL", 3600.0,
        "Seconds between the bench agent daemon's benchmark rounds.", non_negative_float)
    agent_devices: tuple[str, ...] = setting(
        "WHICHGPU_AGENT_DEVICES", (),
        "Comma-separated torch devices the agent benchmarks; all GPUs when unset.", comma_list)
    agent_idle_utilization: float = setting(
        "WHICHGPU_AGENT_IDLE_UTILIZATION", 10.0,
        "GPU utilisation (%) under which the daemon treats a GPU as idle.", non_negative_float)

    @property
    def spool_dir(self) -> Path:
        """Where the agent keeps results the service has not accepted yet."""
        return self.data_dir / "spool"

    @classmethod
    def load(cls, config_path: str | None = None) -> AgentSettings:
        """Settings from the environment, over the TOML config file when one is given.

        Raises SettingsError when they are unusable.
        """
        path = config_path or os.environ.get("WHICHGPU_AGENT_CONFIG")
        overrides: dict[str, Any] = {}
        if path:
            try:
                data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
            except OSError as exc:
                raise SettingsError(f"cannot read config file {path}: {exc.strerror or exc}") from None
            except tomllib.TOMLDecodeError as exc:
                raise SettingsError(f"config file {path} is not valid TOML: {exc}") from None
            known = {f.name: f for f in fields(cls)}
            for key, value in data.get("agent", data).items():
                if key not in known:
                    names = ", ".join(sorted(known))
                    raise SettingsError(f"config file {path}: unknown setting {key!r} (known: {names})")
                if read_env(known[key].metadata["env"]) is not None:
                    continue  # the environment wins
                if key == "data_dir":
                    value = Path(value).expanduser()
                elif key == "agent_devices":
                    value = tuple(value) if isinstance(value, list) else comma_list(str(value))
                overrides[key] = value
        return cls(**overrides)
