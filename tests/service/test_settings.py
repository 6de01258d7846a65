"""Settings of the service, bot and agent: environment, secret files, validation, secrets never printed."""

from __future__ import annotations

import pytest

from bench_agent.settings import AgentSettings
from bot.settings import BotSettings
from rules.settings import SettingsError
from service.settings import Settings, effective_settings, settings_table


def test_environment_and_defaults(monkeypatch, tmp_path):
    monkeypatch.setenv("WHICHGPU_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("WHICHGPU_PORT", "9001")
    monkeypatch.setenv("WHICHGPU_AGENT_DEVICES", "cuda:0, cuda:1")
    monkeypatch.delenv("WHICHGPU_DATABASE_URL", raising=False)
    settings, agent = Settings(), AgentSettings()
    assert settings.port == 9001 and agent.agent_devices == ("cuda:0", "cuda:1")
    assert settings.resolved_database_url == f"sqlite:///{tmp_path / 'whichgpu.db'}"
    assert agent.data_dir == settings.data_dir == tmp_path and agent.spool_dir == tmp_path / "spool"


def test_the_service_carries_the_bots_settings(monkeypatch):
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-env")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "signing-env")
    monkeypatch.setenv("WHICHGPU_API_URL", "http://api.example:8000")
    settings = Settings()
    assert settings.bot == BotSettings() and settings.bot.http_enabled
    assert settings.bot.api_url == AgentSettings().api_url == "http://api.example:8000"
    monkeypatch.delenv("SLACK_SIGNING_SECRET")
    assert not Settings().bot.http_enabled  # Socket Mode only: no /slack/events


def test_secret_from_a_file(monkeypatch, tmp_path):
    secret = tmp_path / "token"
    secret.write_text("xoxb-from-file\n")
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    monkeypatch.setenv("SLACK_BOT_TOKEN_FILE", str(secret))
    assert BotSettings().slack_bot_token == "xoxb-from-file"
    assert ("SLACK_BOT_TOKEN", "set, hidden", f"file {secret}") in effective_settings(Settings())


def test_bad_values_name_the_variable(monkeypatch):
    monkeypatch.setenv("WHICHGPU_PORT", "eighty")
    with pytest.raises(SettingsError, match="WHICHGPU_PORT"):
        Settings()
    monkeypatch.setenv("WHICHGPU_PORT", "8000")
    monkeypatch.setenv("WHICHGPU_ELECTRICITY_PRICE", "-1")
    with pytest.raises(SettingsError, match="WHICHGPU_ELECTRICITY_PRICE"):
        Settings()
    monkeypatch.setenv("WHICHGPU_AGENT_INTERVAL", "soon")
    with pytest.raises(SettingsError, match="WHICHGPU_AGENT_INTERVAL"):
        AgentSettings()


def test_secrets_are_not_in_the_repr(monkeypatch):
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "very-secret-value")
    monkeypatch.setenv("WHICHGPU_AGENT_TOKEN", "agent-secret-value")
    monkeypatch.setenv("WHICHGPU_ADMIN_TOKEN", "admin-secret-value")
    text = repr(Settings()) + repr(AgentSettings())
    assert (
        "very-secret-value" not in text
        and "agent-secret-value" not in text
        and "admin-secret-value" not in text
    )
    assert "slack_signing_secret" in text and "***" in text


def test_the_table_names_every_variable_of_the_three_packages_once():
    from dataclasses import fields

    table = [env for env, _default, _doc in settings_table()]
    declared = {
        f.metadata["env"]
        for cls in (Settings, BotSettings, AgentSettings)
        for f in fields(cls)
        if "env" in f.metadata
    }
    assert len(table) == len(set(table)) and set(table) == declared
    assert {"WHICHGPU_DATA_DIR", "WHICHGPU_API_URL", "SLACK_APP_TOKEN", "WHICHGPU_AGENT_TOKEN"} <= declared


def test_effective_settings_say_where_each_value_came_from(monkeypatch, tmp_path):
    monkeypatch.setenv("WHICHGPU_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("WHICHGPU_DATABASE_URL", raising=False)
    monkeypatch.setenv("WHICHGPU_AGENT_TOKEN", "agent-secret-value")
    monkeypatch.delenv("WHICHGPU_AGENT_TOKEN_FILE", raising=False)
    rows = {env: (value, source) for env, value, source in effective_settings(Settings())}
    assert rows["WHICHGPU_DATA_DIR"] == (str(tmp_path), "environment")
    assert rows["WHICHGPU_DATABASE_URL"] == (
        f"sqlite:///{tmp_path / 'whichgpu.db'}",
        "default: SQLite in the data dir",
    )
    assert rows["WHICHGPU_AGENT_TOKEN"] == ("set, hidden", "environment")
    assert set(rows) == {env for env, _default, _doc in settings_table()}
