"""``GET /v1/rules``: the rules of thumb, each with its citation, reasoning and parameters."""

from __future__ import annotations

import msgspec
from litestar import Controller, get
from litestar.di import NamedDependency

from service.contract.catalog import RuleList
from service.snapshot import Snapshot

__all__ = ["RuleController"]


class RuleController(Controller):
    path = "/v1/rules"
    tags = ("rules",)

    @get("", operation_id="listRules", summary="The rulebook", sync_to_thread=False)
    def list_rules(self, snapshot: NamedDependency[Snapshot]) -> RuleList:
        """Every rule the engine applies; answers cite these ids."""
        return msgspec.convert({"rules": [rule.to_dict() for rule in snapshot.rulebook]}, RuleList)
