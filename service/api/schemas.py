"""``GET /v1/schemas`` and ``GET /v1/schemas/{name}.json``: the JSON Schemas the service enforces."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Response, get
from litestar.params import FromPath

from service.api import inputs
from service.api.docs import problems
from service.contract.operations import SchemaLink, SchemaList
from service.problems import NotFound

__all__ = ["SCHEMA_JSON", "SchemaController"]

SCHEMA_JSON = "application/schema+json"
JsonSchema = dict[str, Any]  # a JSON Schema document: any JSON object


class SchemaController(Controller):
    path = "/v1/schemas"
    tags = ("schemas",)

    @get("", operation_id="listSchemas", summary="Published JSON Schemas", sync_to_thread=False)
    def list_schemas(self) -> SchemaList:
        """The API's request and response schemas, the catalog data files' and the agent's `benchmark-run`."""
        return SchemaList([SchemaLink(n, f"/v1/schemas/{n}.json") for n in inputs.schema_names()])

    @get(
        "/{filename:str}",
        operation_id="getSchema",
        summary="One JSON Schema",
        sync_to_thread=False,
        media_type=SCHEMA_JSON,
        responses=problems(404),
    )
    def get_schema(self, filename: FromPath[str]) -> Response[JsonSchema]:
        """`/v1/schemas/answer.json`, `/v1/schemas/benchmark-run.json`, `/v1/schemas/gpus.json` …"""
        found = inputs.schema(filename.removesuffix(".json")) if filename.endswith(".json") else None
        if found is None:
            raise NotFound(
                f"no schema {filename[:100]!r}; GET /v1/schemas lists them",
                [{"field": "name", "message": "unknown schema"}],
            )
        return Response(found, media_type=SCHEMA_JSON)
