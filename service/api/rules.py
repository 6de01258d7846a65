"""``GET /v1/rules``: the rules of thumb, each with its citation, reasoning and parameters."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get

from service.api import api_state
from service.catalog_store import gpu_entry

__all__ = ["RuleController"]


class RuleController(Controller):
    path = "/v1/rules"
    tags = ["rules"]

    @get("", operation_id="listRules", summary="The rulebook", sync_to_thread=False)
    def list_rules(self, request: Request) -> dict[str, Any]:
        """Every rule the engine applies; answers cite these ids."""
        rulebook = api_state(request).holder.get().rulebook
        return {"rules": [gpu_entry(rule.to_dict()) for rule in rulebook]}
