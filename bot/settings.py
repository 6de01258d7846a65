"""The Slack bot's settings: its Slack tokens, and where it finds the service and its public pages.

Inside the service (``POST /slack/events``) the bot answers from the service's own
engine; ``api_url`` is used only by ``whichgpu bot`` (Socket Mode), which may run on
another host.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.settings import EnvSettings, api_url_setting, setting

__all__ = ["BotSettings"]


@dataclass(frozen=True, repr=False)
class BotSettings(EnvSettings):
    """Runtime configuration of the bot; each field names its environment variable."""

    slack_bot_token: str | None = setting("SLACK_BOT_TOKEN", None, "Slack bot token (xoxb-…).", secret=True)
    slack_signing_secret: str | None = setting(
        "SLACK_SIGNING_SECRET", None,
        "Slack signing secret; enables `POST /slack/events`.", secret=True)
    slack_app_token: str | None = setting(
        "SLACK_APP_TOKEN", None,
        "Slack app-level token (xapp-…) for Socket Mode (`whichgpu bot`).", secret=True)
    slack_api_url: str = setting(
        "WHICHGPU_SLACK_API_URL", "https://slack.com/api/",
        "Slack Web API base URL (tests and proxies point it elsewhere).")
    api_url: str = api_url_setting()
    public_url: str | None = setting(
        "WHICHGPU_PUBLIC_URL", None,
        "Public base URL of the service, for links and chart images in Slack answers.")

    @property
    def http_enabled(self) -> bool:
        """Both Slack secrets are set: the service serves ``POST /slack/events``."""
        return bool(self.slack_bot_token and self.slack_signing_secret)
