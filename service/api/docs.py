"""The OpenAPI document: written by Litestar from the handlers' types, completed where a type cannot speak.

Every handler takes and returns types of :mod:`service.contract` (or the engine's), so the
document's schemas come from the code. This module adds what no return type says:

- :func:`problems`: the problem+json refusals a handler answers, with an example; :func:`openai_errors` the
  same in OpenAI's error shape, for the OpenAI-compatible routes;
- :func:`described_body`: a request body's link to its published schema, and its examples;
- :class:`EncodedSchemas`: an :class:`~service.contract.Encoded` answer is documented as the type it encodes;
- :func:`also_served_as`: a success response that may be a stream or an image instead of JSON;
- :func:`judged_by`: a body read raw and judged by a published data schema (the bench agent's run);
- :func:`document_rate_limit` and :func:`document_example`: the 429 every counted operation may answer,
  and a live answer from the catalog, added once the app is built.

:func:`openapi_config` serves the docs page (Swagger UI at ``/schema``) with its JavaScript, CSS and icon from
the installed ``swagger-ui-py`` package through :func:`docs_assets`, so the docs work without internet access.
"""

from __future__ import annotations

import copy
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import msgspec
from litestar.enums import MediaType
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import (
    Example,
    OpenAPI,
    OpenAPIHeader,
    OpenAPIMediaType,
    OpenAPIResponse,
    OpenAPIType,
    Operation,
    Reference,
    RequestBody,
    Schema,
)
from litestar.params import Body
from litestar.plugins import OpenAPISchemaPlugin
from litestar.router import Router
from litestar.static_files import create_static_files_router
from litestar.typing import FieldDefinition

from service import contract
from service.api import inputs
from service.contract.chat import OpenAIError
from service.contract.problem import Problem
from service.problems import PROBLEM_JSON, openai_error, problem_body, speaks_openai
from service.ratelimit import TooManyRequests, limits

__all__ = [
    "ASSETS_PATH",
    "EncodedSchemas",
    "also_served_as",
    "described_body",
    "docs_assets",
    "document_example",
    "document_rate_limit",
    "document_types",
    "judged_by",
    "openai_errors",
    "openapi_config",
    "problems",
]

ASSETS_PATH = "/docs-assets"
ASSET_FILES = (
    "swagger-ui-bundle.js",
    "swagger-ui-standalone-preset.js",
    "swagger-ui.css",
    "favicon-32x32.png",
)
DESCRIPTION = (
    "Which GPU to buy or rent for deep learning, and why. Errors are application/problem+json "
    "(RFC 9457) with an `errors` list naming each field; the JSON Schemas enforced are at /v1/schemas."
)
PROBLEM_REF = Reference("#/components/schemas/Problem")  # the component every problem response refers to
OPENAI_ERROR_REF = Reference("#/components/schemas/OpenAIError")
PROBLEM_EXAMPLE = {
    "type": "https://whichgpu.dev/problems/invalid-input",
    "title": "Invalid input",
    "status": 422,
    "detail": "the request body does not match schema recommendation-request.json: "
    "budget: -5 is less than or equal to the minimum of 0",
    "instance": "/v1/recommendations",
    "errors": [{"field": "budget", "message": "-5 is less than or equal to the minimum of 0"}],
}
ERROR_TEXT = {
    400: "Malformed JSON",
    401: "Unauthorized",
    404: "Unknown resource",
    413: "Body too large",
    415: "Not application/json",
    422: "Input breaks the schema or the question's checks",
    429: "A quota is used up (Retry-After says when to retry)",
    507: "The server's storage is full: nothing was stored",
}


def problems(*statuses: int) -> dict[int, ResponseSpec]:
    """The problem+json responses of a handler, by status."""
    return {
        status: ResponseSpec(
            Problem,
            media_type=PROBLEM_JSON,
            description=ERROR_TEXT.get(status, "Problem"),
            generate_examples=False,
            examples=[Example(summary="problem", value={**PROBLEM_EXAMPLE, "status": status})],
        )
        for status in statuses
    }


def openai_errors(*statuses: int) -> dict[int, ResponseSpec]:
    """The refusals of an OpenAI-compatible handler, by status, in OpenAI's error shape."""
    return {
        status: ResponseSpec(
            OpenAIError,
            description=ERROR_TEXT.get(status, "Refused") + " (OpenAI's error shape)",
            generate_examples=False,
        )
        for status in statuses
    }


def described_body(name: str) -> Any:
    """The ``Body`` of a JSON request judged by published schema ``name``: its link and its examples."""
    return Body(
        media_type=MediaType.JSON,
        description=f"JSON matching [{name}.json](/v1/schemas/{name}.json)",
        examples=[
            Example(summary=f"example {i}", value=value) for i, value in enumerate(contract.examples(name), 1)
        ]
        or None,
    )


class EncodedSchemas(OpenAPISchemaPlugin):
    """``Encoded[T]`` is documented as ``T``: the bytes are a ``T``'s JSON."""

    def is_plugin_supported_field(self, field_definition: FieldDefinition) -> bool:
        return field_definition.origin is contract.Encoded

    def to_openapi_schema(self, field_definition: FieldDefinition, schema_creator: Any) -> Schema:
        return cast(Schema, schema_creator.for_field_definition(field_definition.inner_types[0]))


def also_served_as(content: dict[str, Schema], *, json: bool = True) -> type[Operation]:
    """An ``operation_class`` whose success response is also (``json=False``: only) served as ``content``:
    an event stream or an image, which a return type cannot say."""

    @dataclass
    class AlsoServed(Operation):
        def __post_init__(self) -> None:
            responses = dict(self.responses or {})
            status, success = next((s, r) for s, r in responses.items() if s.startswith("2"))
            if not isinstance(success, OpenAPIResponse):
                return
            served = {media: OpenAPIMediaType(schema=schema) for media, schema in content.items()}
            responses[status] = OpenAPIResponse(
                description=success.description,
                headers=success.headers,
                content={**(success.content or {} if json else {}), **served},
            )
            self.responses = responses

    return AlsoServed


def judged_by(schema_name: str) -> type[Operation]:
    """An ``operation_class`` for a body read raw and judged by published schema ``schema_name``: a data
    file's, such as the bench agent's run record, which has no type in the contract (its ``$ref`` inlined)."""

    @dataclass
    class Judged(Operation):
        def __post_init__(self) -> None:
            self.request_body = RequestBody(
                required=True,
                description=f"JSON matching [{schema_name}.json](/v1/schemas/{schema_name}.json)",
                content={MediaType.JSON: OpenAPIMediaType(schema=cast(Schema, _inlined(schema_name)))},
            )

    return Judged


def _inlined(name: str) -> dict[str, Any]:
    """Published schema ``name`` with every ``#`` reference replaced by its target (OpenAPI resolves ``#`` in
    its own document, not in the embedded schema)."""
    root = inputs.schema(name) or {}

    def walk(node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [walk(item, depth) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/") and depth < 12:
            target: Any = root
            for part in ref[2:].split("/"):
                target = target[part]
            return walk(copy.deepcopy(target), depth + 1)
        return {
            k: walk(v, depth) for k, v in node.items() if k not in ("$schema", "$id", "$defs", "examples")
        }

    return cast(dict[str, Any], walk(root, 0))


def document_types(openapi: OpenAPI) -> None:
    """Each struct's component as ``msgspec.json.schema`` writes it, the generator of the published schemas:
    the document and ``/v1/schemas`` then agree keyword for keyword (Litestar's own rendering drops bounds
    of zero and the limits of an annotated type inside an optional or a tuple)."""
    components = openapi.components.schemas if openapi.components else None
    if components is None:
        return
    _, written = msgspec.json.schema_components(
        [kind.type for kind in contract.PUBLISHED.values()], ref_template="#/components/schemas/{name}"
    )
    for name, schema in written.items():
        if name in components:
            components[name] = cast(Schema, schema)  # a JSON Schema object; Litestar writes it as it is


def document_rate_limit(openapi: OpenAPI) -> None:
    """429 with ``Retry-After`` on every operation the per-client limit counts
    (:func:`service.ratelimit.limits`):
    the document says what the server can answer, whether or not this one has ``WHICHGPU_RATE_LIMIT`` set."""
    refusal = TooManyRequests(1.0, 120)
    shapes = {
        False: (PROBLEM_JSON, PROBLEM_REF, msgspec.to_builtins(problem_body(refusal, "/v1/ask"))),
        True: ("application/json", OPENAI_ERROR_REF, msgspec.to_builtins(openai_error(refusal))),
    }
    for path, item in (openapi.paths or {}).items():
        media, reference, example = shapes[speaks_openai(path)]
        for method in ("get", "put", "post", "delete", "options", "head", "patch", "trace"):
            operation = getattr(item, method, None)
            if operation is None or not limits(method, path):
                continue
            operation.responses = {
                **(operation.responses or {}),
                "429": OpenAPIResponse(
                    description="Over the per-client rate limit "
                    "(`WHICHGPU_RATE_LIMIT` requests a minute; off by default)",
                    headers={
                        "Retry-After": OpenAPIHeader(
                            schema=Schema(type=OpenAPIType.INTEGER, minimum=1),
                            required=True,
                            description="Seconds until the client may ask again",
                        )
                    },
                    content={
                        media: OpenAPIMediaType(
                            schema=reference, examples={"refusal": Example(value=example)}
                        )
                    },
                ),
            }


def document_example(openapi: OpenAPI, path: str, method: str, value: Any) -> None:
    """A live example of an operation's JSON success response (an answer from the real catalog)."""
    operation = getattr((openapi.paths or {})[path], method)
    success = next(r for s, r in (operation.responses or {}).items() if s.startswith("2"))
    if isinstance(success, OpenAPIResponse) and success.content and MediaType.JSON in success.content:
        success.content[MediaType.JSON].examples = {"live": Example(summary="a live answer", value=value)}


def _swagger_ui_dir() -> Path:
    """The asset folder of the installed ``swagger-ui-py`` (found without importing it)."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is missing; reinstall whichgpu")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


def openapi_config() -> OpenAPIConfig:
    """OpenAPI at ``/schema`` (Swagger UI; also ``/schema/swagger``, ``/schema/openapi.json``), no CDN."""
    swagger = SwaggerRenderPlugin(
        path="/swagger",
        js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
        css_url=f"{ASSETS_PATH}/swagger-ui.css",
        standalone_preset_js_url=f"{ASSETS_PATH}/swagger-ui-standalone-preset.js",
        favicon=f"<link rel='icon' type='image/png' href='{ASSETS_PATH}/favicon-32x32.png'>",
    )
    return OpenAPIConfig(
        title="whichgpu", version="1", path="/schema", description=DESCRIPTION, render_plugins=[swagger]
    )


def docs_assets() -> Router:
    """The docs page's JavaScript, CSS and icon, served from the package."""
    return create_static_files_router(
        path=ASSETS_PATH, directories=[_swagger_ui_dir()], name="docs-assets", include_in_schema=False
    )
