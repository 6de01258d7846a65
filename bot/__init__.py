"""whichgpu in Slack: `/whichgpu`, @mentions, direct messages, buttons and the App Home tab.

Modules, one concept each:

- :mod:`bot.api`     — the service's ``POST /v1/ask`` over httpx, and its two failures
- :mod:`bot.blocks`  — an answer as Block Kit (pure functions)
- :mod:`bot.answers` — where answers come from (the service's engine in-process, or its API), and those shown
- :mod:`bot.app`     — the slack-bolt app: ack at once, answer in lazy listeners
- :mod:`bot.http`    — ``POST /slack/events`` for the Litestar service (a small bolt adapter)
- :mod:`bot.socket`  — ``whichgpu bot`` over Socket Mode
- :mod:`bot.settings` — the bot's Slack tokens and URLs, from the environment
"""
