"""``GET /v1/rules``: the rules of thumb, each with its citation, reasoning and parameters."""

from __future__ import annotations

from typing import Any

from litestar import Controller, get
from litestar.di import NamedDependency

from service.api import ApiState, plain

__all__ = ["RuleController"]


class RuleController(Controller):
    path = "/v1/rules"
    tags = ["rules"]

    @get("", operation_id="listRules", summary="The rulebook", sync_to_thread=False)
    def list_rules(self, api: NamedDependency[ApiState]) -> dict[str, Any]:
        """Every rule the engine applies; answers cite these ids."""
        return {"rules": [plain(rule.to_dict()) for rule in api.holder.get().rulebook]}
