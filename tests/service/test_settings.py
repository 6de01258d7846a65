"""Settings: environment, secret files, validation, and secrets never printed."""

from __future__ import annotations

import pytest

from service.settings import Settings, SettingsError


def test_environment_and_defaults(monkeypatch, tmp_path):
    monkeypatch.setenv("WHICHGPU_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("WHICHGPU_PORT", "9001")
    monkeypatch.setenv("WHICHGPU_AGENT_DEVICES", "cuda:0, cuda:1")
    monkeypatch.delenv("WHICHGPU_DATABASE_URL", raising=False)
    settings = Settings()
    assert settings.port == 9001 and settings.agent_devices == ("cuda:0", "cuda:1")
    assert settings.resolved_database_url == f"sqlite:///{tmp_path / 'whichgpu.db'}"


def test_secret_from_a_file(monkeypatch, tmp_path):
    secret = tmp_path / "token"
    secret.write_text("xoxb-from-file\n")
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    monkeypatch.setenv("SLACK_BOT_TOKEN_FILE", str(secret))
    assert Settings().slack_bot_token == "xoxb-from-file"


def test_bad_values_name_the_variable(monkeypatch):
    monkeypatch.setenv("WHICHGPU_PORT", "eighty")
    with pytest.raises(SettingsError, match="WHICHGPU_PORT"):
        Settings()
    monkeypatch.setenv("WHICHGPU_PORT", "8000")
    monkeypatch.setenv("WHICHGPU_ELECTRICITY_PRICE", "-1")
    with pytest.raises(SettingsError, match="WHICHGPU_ELECTRICITY_PRICE"):
        Settings()


def test_secrets_are_not_in_the_repr(monkeypatch):
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "very-secret-value")
    monkeypatch.setenv("WHICHGPU_AGENT_TOKEN", "agent-secret-value")
    text = repr(Settings())
    assert "very-secret-value" not in text and "agent-secret-value" not in text
