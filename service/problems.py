"""The API's errors, and the one place they become HTTP responses (RFC 9457 problem+json).

Exception tree (each class carries its HTTP status; nothing else maps errors)::

    ApiError                      problem with a status, title and field errors
    ├── MalformedBody             400  the body is not JSON / not UTF-8
    ├── Unauthorized              401  a missing, unknown or revoked agent token
    ├── InvalidInput              422  the JSON breaks the request schema or the question checks
    ├── NotFound                  404  an unknown id or route
    ├── MethodNotAllowed          405
    ├── PayloadTooLarge           413  body over ``settings.max_body_bytes``
    ├── UnsupportedMediaType      415  a POST body that is not ``application/json``
    ├── QuotaExceeded             429  a per-client or per-agent quota is used up
    └── InsufficientStorage       507  the disk or database is full (:func:`service.storage.is_storage_full`)

Errors raised by others are translated here too: :class:`rules.question.QuestionError`
(422, naming its field), :class:`service.conversations.ConversationNotFound` (404),
:class:`service.benchmarks.BenchmarkError` (422), Litestar's own HTTP exceptions (404 unknown route, 405,
413, 400; 422 for a typed query or path parameter it could not take), a client that disconnected mid-upload
(400, one warning line) and, last, any other exception (500, logged, no internals shown).
Every problem has ``type``, ``title``, ``status``, ``detail``, ``instance`` and an
``errors`` list of ``{field, message}``. The OpenAI-compatible routes (``/v1/chat/*``, ``/v1/models``) answer
the same refusals in OpenAI's shape, ``{"error": {message, type, code, param}}``, which its clients read.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from types import MappingProxyType

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, InternalServerException
from litestar.types import ExceptionHandlersMap

from rules.errors import QuestionError
from service.benchmarks import BenchmarkError, InvalidPayload
from service.contract.chat import ErrorDetail, OpenAIError
from service.contract.problem import FieldError, Problem
from service.conversations import ConversationNotFound
from service.storage import is_storage_full

__all__ = [
    "PROBLEM_JSON",
    "ApiError",
    "InsufficientStorage",
    "InvalidInput",
    "MalformedBody",
    "MethodNotAllowed",
    "NotFound",
    "PayloadTooLarge",
    "QuotaExceeded",
    "Unauthorized",
    "UnsupportedMediaType",
    "error_body",
    "exception_handlers",
    "openai_error",
    "problem_body",
    "speaks_openai",
]

PROBLEM_JSON = "application/problem+json"
PARAMETER_SOURCES = ("query", "path")
TYPE_BASE = "https://whichgpu.dev/problems/"
OPENAI_ROUTES = ("/v1/chat", "/v1/models")  # and what lies under them
NOT_PARAMETERS = frozenset({"body", "path", "method", "content-type", "request"})  # fields no request names
log = logging.getLogger("whichgpu.api")


class ApiError(Exception):
    """A request the API refuses; ``errors`` names the offending fields, ``schema`` the schema it broke."""

    status = 400
    title = "Bad request"
    slug = "bad-request"
    headers: Mapping[str, str] = MappingProxyType({})  # the response's extra headers

    def __init__(
        self, detail: str, errors: list[dict[str, str]] | None = None, schema: str | None = None
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = errors if errors is not None else []
        self.schema = schema

    @property
    def code(self) -> str:
        """The refusal as one stable word, for OpenAI's ``error.code``."""
        return self.slug.replace("-", "_")


class MalformedBody(ApiError):
    status, title, slug = 400, "Malformed request body", "malformed-body"


class Unauthorized(ApiError):
    status, title, slug = 401, "Unauthorized", "unauthorized"
    headers = MappingProxyType({"WWW-Authenticate": 'Bearer realm="whichgpu", error="invalid_token"'})


class InvalidInput(ApiError):
    status, title, slug = 422, "Invalid input", "invalid-input"


class NotFound(ApiError):
    status, title, slug = 404, "Not found", "not-found"


class MethodNotAllowed(ApiError):
    status, title, slug = 405, "Method not allowed", "method-not-allowed"


class PayloadTooLarge(ApiError):
    status, title, slug = 413, "Request body too large", "payload-too-large"


class QuotaExceeded(ApiError):
    status, title, slug = 429, "Quota exceeded", "quota-exceeded"


class InsufficientStorage(ApiError):
    status, title, slug = 507, "Insufficient storage", "insufficient-storage"


class UnsupportedMediaType(ApiError):
    status, title, slug = 415, "Unsupported media type", "unsupported-media-type"


_BY_STATUS: dict[int, type[ApiError]] = {
    cls.status: cls
    for cls in (
        MalformedBody,
        Unauthorized,
        InvalidInput,
        NotFound,
        MethodNotAllowed,
        PayloadTooLarge,
        UnsupportedMediaType,
    )
}


def problem_body(error: ApiError, instance: str) -> Problem:
    """The problem details of ``error`` at path ``instance``."""
    return Problem(
        type=TYPE_BASE + error.slug,
        title=error.title,
        status=error.status,
        detail=error.detail,
        instance=instance,
        errors=[FieldError(e["field"], e["message"]) for e in error.errors],
        schema=msgspec.UNSET if error.schema is None else error.schema,
    )


def speaks_openai(path: str) -> bool:
    """Whether ``path`` is one of the OpenAI-compatible routes, whose clients read OpenAI's error shape."""
    return any(path == route or path.startswith(route + "/") for route in OPENAI_ROUTES)


def openai_error(error: ApiError) -> OpenAIError:
    """``error`` in OpenAI's shape: its detail, a type by status, its code, the first field it names."""
    if error.status >= 500:
        kind = "server_error"
    elif error.status == 429:
        kind = "rate_limit_error"
    else:
        kind = "invalid_request_error"
    field = error.errors[0]["field"] if error.errors else None
    param = None if field in NOT_PARAMETERS else field
    return OpenAIError(ErrorDetail(message=error.detail, type=kind, code=error.code, param=param))


def error_body(error: ApiError, path: str) -> tuple[bytes, str]:
    """The encoded refusal at ``path`` and its media type: OpenAI's shape on its routes, else a problem."""
    if speaks_openai(path):
        return msgspec.json.encode(openai_error(error)), "application/json"
    return msgspec.json.encode(problem_body(error, path)), PROBLEM_JSON


def _respond(request: Request, error: ApiError, headers: dict[str, str] | None = None) -> Response[bytes]:
    body, media_type = error_body(error, request.url.path)
    return Response(
        body,
        status_code=error.status,
        media_type=media_type,
        headers=headers or error.headers or None,
    )


def _from_litestar(exc: HTTPException) -> tuple[ApiError, dict[str, str] | None]:
    """Litestar's own refusals (routing, body size, its parameter parsing) as our problems."""
    status = exc.status_code
    cls = _BY_STATUS.get(status)
    if status == 404:
        return NotFound(
            "no such resource", [{"field": "path", "message": "no route or resource at this path"}]
        ), None
    if status == 405:
        return MethodNotAllowed(
            str(exc.detail), [{"field": "method", "message": str(exc.detail)}]
        ), exc.headers
    if status == 413:
        return PayloadTooLarge(
            "the request body is larger than the server accepts",
            [{"field": "body", "message": "request body too large"}],
        ), None
    if cls is None:
        error = ApiError(str(exc.detail))
        error.status, error.title = status, str(exc.detail) or "Error"
        return error, exc.headers
    extra = [e for e in exc.extra if isinstance(e, dict)] if isinstance(exc.extra, list) else []
    errors = [
        {"field": str(e.get("key") or e.get("source") or "request"), "message": str(e.get("message", ""))}
        for e in extra
    ]
    if extra and all(
        e.get("source") in PARAMETER_SOURCES for e in extra
    ):  # a typed parameter out of its type or range
        shown = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:3])
        return InvalidInput(f"invalid parameter: {shown}", errors), None
    return cls(str(exc.detail), errors or [{"field": "request", "message": str(exc.detail)}]), exc.headers


def client_gone(exc: BaseException) -> bool:
    """Litestar's way of saying the client closed the connection while sending its body."""
    return isinstance(exc, InternalServerException) and "disconnected" in str(exc.detail)


def _known(request: Request, exc: Exception) -> ApiError | None:
    """Others' exceptions that say what was wrong with the request (or the storage), as problems."""
    if isinstance(exc, QuestionError):
        return InvalidInput(exc.message, [{"field": exc.field, "message": exc.message}])
    if isinstance(exc, ConversationNotFound):
        return NotFound(
            f"no conversation {exc.args[0]!r}; start one without conversation_id",
            [{"field": "conversation_id", "message": "unknown conversation"}],
        )
    if isinstance(exc, BenchmarkError):
        schema = "/v1/schemas/benchmark-run.json" if isinstance(exc, InvalidPayload) else None
        return InvalidInput(str(exc), exc.errors[:10], schema)
    if is_storage_full(exc):  # not a bug: one line, 507, and health says degraded for a while
        log.error("%s %s: storage is full: %s", request.method, request.url.path, exc)
        api = request.app.state.get("api")
        if api is not None:
            api.storage.failed()
        return InsufficientStorage(
            "the server's storage is full; nothing was stored, try again later",
            [{"field": "body", "message": "not stored: no space left"}],
        )
    return None


def _handle(request: Request, exc: Exception) -> Response:
    if isinstance(exc, ApiError):
        return _respond(request, exc)
    if client_gone(exc):  # nobody reads the answer; one line, no traceback (aborted uploads are common)
        log.warning(
            "%s %s: the client disconnected before its body arrived", request.method, request.url.path
        )
        return _respond(
            request,
            MalformedBody("the request body was cut off", [{"field": "body", "message": "incomplete"}]),
        )
    if (known := _known(request, exc)) is not None:
        return _respond(request, known)
    if isinstance(exc, HTTPException) and exc.status_code < 500:
        error, headers = _from_litestar(exc)
        return _respond(request, error, headers)
    if "\x00" in request.url.path:  # no file or resource is named with NUL (the file system raises on it)
        return _respond(
            request, NotFound("no such resource", [{"field": "path", "message": "contains a NUL character"}])
        )
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    error = ApiError("the server failed to answer; the error is logged")
    error.status, error.title, error.slug = 500, "Internal server error", "internal-error"
    return _respond(request, error)


def exception_handlers() -> ExceptionHandlersMap:
    """The app's one exception handler, for every exception."""
    return {Exception: _handle}
