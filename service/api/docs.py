"""OpenAPI operations that show the published JSON Schemas.

A body is judged by its published schema (:func:`service.api.inputs.checked_body`) before it is
decoded into the handler's typed ``data``, so the document shows that schema, the one the
errors name. :func:`documented`
makes an ``operation_class`` that puts the published schemas (``$ref`` inlined)
and examples into the operation: request body, success response, and the
problem+json errors. Response examples computed from the live catalog are added
by :func:`set_examples` when the app starts.

:func:`openapi_config` serves the docs page (Swagger UI at ``/schema``) with its
JavaScript, CSS and icon from the installed ``swagger-ui-py`` package through
:func:`docs_assets`, so the docs work without internet access.
"""

from __future__ import annotations

import copy
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import (
    OpenAPI, Example, OpenAPIHeader, OpenAPIMediaType, OpenAPIResponse, OpenAPIType, Operation, Reference, RequestBody, Schema,
)
from litestar.router import Router
from litestar.static_files import create_static_files_router

from service.api import inputs
from service.problems import problem_body
from service.ratelimit import TooManyRequests, limits

__all__ = ["documented", "document_rate_limit", "set_examples", "inline", "openapi_config", "docs_assets", "ASSETS_PATH"]

ASSETS_PATH = "/docs-assets"
ASSET_FILES = ("swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css", "favicon-32x32.png")
DESCRIPTION = ("Which GPU to buy or rent for deep learning, and why. Errors are application/problem+json "
               "(RFC 9457) with an `errors` list naming each field; the JSON Schemas enforced are at /v1/schemas.")

_EXAMPLES: dict[str, Any] = {}
PROBLEM_EXAMPLE = {
    "type": "https://whichgpu.dev/problems/invalid-input", "title": "Invalid input", "status": 422,
    "detail": "the request body does not match schema recommendation-request.json: budget: -5 is less than or equal to the minimum of 0",
    "instance": "/v1/recommendations", "errors": [{"field": "budget", "message": "-5 is less than or equal to the minimum of 0"}],
}
ERROR_TEXT = {400: "Malformed JSON", 404: "Unknown resource", 413: "Body too large", 415: "Not application/json",
              422: "Input breaks the schema or the question's checks"}


def set_examples(examples: dict[str, Any]) -> None:
    """Live response examples by schema name (e.g. an answer from the real catalog)."""
    _EXAMPLES.update(examples)


def inline(name: str) -> dict[str, Any]:
    """Schema ``name`` with every ``$ref`` replaced by its target, for embedding in OpenAPI."""
    root = inputs.schema(name) or {}
    return _inline(copy.deepcopy(root), root, depth=0)


def _inline(node: Any, root: dict[str, Any], depth: int) -> Any:
    if isinstance(node, list):
        return [_inline(n, root, depth) for n in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and depth < 12:
        target_doc, _, pointer = ref.partition("#")
        doc = root if not target_doc else (inputs.schema(target_doc.removesuffix(".json")) or {})
        target: Any = doc
        for part in [p for p in pointer.split("/") if p]:
            target = target[part]
        return _inline(copy.deepcopy(target), doc, depth + 1)
    return {k: _inline(v, root, depth) for k, v in node.items() if k not in ("$schema", "$id", "$defs", "examples")}


def _media(schema_name: str, media_type: str = "application/json", example: Any = None) -> dict[str, OpenAPIMediaType]:
    examples = inputs.schema(schema_name) or {}
    found = list(examples.get("examples", []))
    if example is not None:
        found.insert(0, example)
    shaped: dict[str, Example | Reference] | None = {f"example{i + 1}": Example(value=value) for i, value in enumerate(found)} or None
    return {media_type: _media_type(inline(schema_name), examples=shaped)}


def _media_type(schema: dict[str, Any], examples: dict[str, Example | Reference] | None = None) -> OpenAPIMediaType:
    """A media type whose schema is a plain JSON Schema dict (Litestar writes it into the document as is)."""
    return OpenAPIMediaType(schema=cast(Schema, schema), examples=examples)


def documented(response: str | None, request: str | None = None, errors: tuple[int, ...] = (), *,
               response_media: str = "application/json", response_text: str = "OK",
               content: dict[str, dict[str, Any]] | None = None, also: dict[int, str] | None = None) -> type[Operation]:
    """An ``operation_class`` describing the body, the 200 response and the problem responses.

    ``content`` adds media types (with their JSON Schema) to the 200 response, e.g. a stream
    or an image; ``also`` adds success statuses a handler returns besides its default one.
    """

    @dataclass
    class DocumentedOperation(Operation):
        def __post_init__(self) -> None:
            if request:
                self.request_body = RequestBody(content=_media(request), required=True,
                                                description=f"JSON matching [{request}.json](/v1/schemas/{request}.json)")
            responses = dict(self.responses or {})
            if response:
                responses["200"] = OpenAPIResponse(description=response_text,
                                                   content=_media(response, response_media, _EXAMPLES.get(response)))
            if content:
                ok = responses.get("200") if response else None
                ok = ok if isinstance(ok, OpenAPIResponse) else OpenAPIResponse(description=response_text, content={})
                ok.content = {**(ok.content or {}), **{media: _media_type(schema) for media, schema in content.items()}}
                responses["200"] = ok
            for status, text in (also or {}).items():
                responses[str(status)] = OpenAPIResponse(description=text, content={"application/json": _media_type({"type": "object"})})
            for status in errors:
                example = {**PROBLEM_EXAMPLE, "status": status}
                responses[str(status)] = OpenAPIResponse(
                    description=ERROR_TEXT.get(status, "Problem"),
                    content={"application/problem+json": _media_type(inline("problem"), {"problem": Example(value=example)})})
            self.responses = responses

    return DocumentedOperation


def document_rate_limit(openapi: OpenAPI) -> None:
    """429 with ``Retry-After`` on every operation the per-client limit counts (:func:`service.ratelimit.limits`):
    the document says what the server can answer, whether or not this one has ``WHICHGPU_RATE_LIMIT`` set."""
    example = problem_body(TooManyRequests(1.0, 120), "/v1/ask")
    for path, item in (openapi.paths or {}).items():
        for method in ("get", "put", "post", "delete", "options", "head", "patch", "trace"):
            operation = getattr(item, method, None)
            if operation is None or not limits(method, path):
                continue
            operation.responses = {**(operation.responses or {}), "429": OpenAPIResponse(
                description="Over the per-client rate limit (`WHICHGPU_RATE_LIMIT` requests a minute; off by default)",
                headers={"Retry-After": OpenAPIHeader(schema=Schema(type=OpenAPIType.INTEGER, minimum=1), required=True,
                                                      description="Seconds until the client may ask again")},
                content={"application/problem+json": _media_type(inline("problem"), {"problem": Example(value=example)})})}


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
    return OpenAPIConfig(title="whichgpu", version="1", path="/schema", description=DESCRIPTION, render_plugins=[swagger])


def docs_assets() -> Router:
    """The docs page's JavaScript, CSS and icon, served from the package."""
    return create_static_files_router(path=ASSETS_PATH, directories=[_swagger_ui_dir()], name="docs-assets",
                                      include_in_schema=False)
