"""The API's typed contract: the values handlers take and return, and the JSON Schemas published from them.

Litestar writes the OpenAPI document from these types and the engine's own (``Answer``,
``Reply``, ``AskRequest``, ``RecommendationRequest``); ``GET /v1/schemas/{name}.json`` serves
:func:`generate` of the same types (``msgspec.json.schema``). Neither is kept by hand, so
neither can drift from the code. The types, by resource: :mod:`.chat`, :mod:`.catalog`,
:mod:`.benchmarks`, :mod:`.operations`, :mod:`.problem`.
"""

from __future__ import annotations

from typing import Any, Generic, NamedTuple, TypeVar

import msgspec

from rules.contract.answer import Answer, Reply
from rules.contract.question import RecommendationRequest
from rules.contract.text import AskRequest
from service.contract.benchmarks import BenchmarkReceipt, RunListing
from service.contract.catalog import GpuDetail, GpuList, GpuQuery, RuleList
from service.contract.chat import (
    MODEL,
    ChatCompletion,
    ChatCompletionChunk,
    ChatRequest,
    Model,
    ModelList,
    OpenAIError,
)
from service.contract.lab_prices import LabPriceList
from service.contract.operations import Health, SchemaList
from service.contract.problem import Problem

__all__ = ["INPUTS", "PUBLISHED", "Encoded", "Published", "examples", "generate"]

T = TypeVar("T")
DRAFT = "https://json-schema.org/draft/2020-12/schema"


class Published(NamedTuple):
    """A published schema: the type it is generated from, its title and description, and example documents."""

    type: Any
    title: str
    description: str
    examples: tuple[Any, ...] = ()


PUBLISHED: dict[str, Published] = {
    "answer": Published(
        Answer, "Answer", "The engine's answer: ranked picks, the rules behind them, warnings, rent-vs-buy."
    ),
    "ask-request": Published(
        AskRequest,
        "Ask request",
        "POST /v1/ask: free text, optionally continuing a conversation.",
        (
            {"text": "nlp $800"},
            {"text": "nlp $800", "start_conversation": True},
            {"text": "what about 2 of them?", "conversation_id": "3f2a9c"},
        ),
    ),
    "recommendation-request": Published(
        RecommendationRequest,
        "Recommendation request",
        "POST /v1/recommendations: the structured question; every field is optional.",
        (
            {"workload": "transformer", "budget": 800, "currency": "USD"},
            {"workload": "llm", "model": "llama-13b", "task": "inference", "precision": "4-bit", "gpus": 1},
        ),
    ),
    "gpu-query": Published(
        GpuQuery,
        "GPU list query",
        "GET /v1/gpus query parameters (numbers are read from the query string first).",
        ({"workload": "transformer", "max_price": 1000, "limit": 10},),
    ),
    "ask-response": Published(
        Reply, "Ask response", "The answer as Markdown plus the structured data behind it."
    ),
    "chat-completion-request": Published(
        ChatRequest,
        "Chat completion request",
        "POST /v1/chat/completions (OpenAI-compatible). The last user message is answered; earlier user "
        "messages refine it in order; max_tokens (or max_completion_tokens) caps the answer. Other OpenAI "
        "parameters are accepted and ignored. The whole conversation is capped (all contents together, and "
        "the user text read): over the cap is a 413.",
        ({"model": MODEL, "messages": [{"role": "user", "content": "nlp $800"}]},),
    ),
    "chat-completion-response": Published(
        ChatCompletion, "Chat completion", "OpenAI-compatible chat completion."
    ),
    "chat-completion-chunk": Published(
        ChatCompletionChunk, "Chat completion chunk", "One server-sent event of a streamed chat completion."
    ),
    "model-list": Published(ModelList, "Model list", "GET /v1/models (OpenAI-compatible)."),
    "model": Published(Model, "Model", "GET /v1/models/{model} (OpenAI-compatible)."),
    "openai-error": Published(
        OpenAIError,
        "OpenAI error",
        "A refusal on the OpenAI-compatible routes (/v1/chat/*, /v1/models): OpenAI's error shape; "
        "problem+json everywhere else.",
    ),
    "gpu-list": Published(GpuList, "GPU list", "GET /v1/gpus: one page of the catalog, filtered."),
    "gpu": Published(GpuDetail, "GPU", "GET /v1/gpus/{id}: a catalog entry in full."),
    "rule-list": Published(
        RuleList, "Rule list", "GET /v1/rules: the rules of thumb with their citations and parameters."
    ),
    "benchmark-list": Published(
        RunListing, "Benchmark list", "GET /v1/benchmarks: stored runs and per-GPU medians."
    ),
    "benchmark-receipt": Published(
        BenchmarkReceipt, "Benchmark receipt", "POST /v1/benchmarks: stored, or stored before."
    ),
    "lab-price-list": Published(
        LabPriceList,
        "Lab price list",
        "GET and POST /v1/lab-prices (admin token): this deployment's own prices, which its answers use.",
    ),
    "schema-list": Published(SchemaList, "Schema list", "GET /v1/schemas: the published JSON Schemas."),
    "health": Published(Health, "Health", "GET /healthz."),
    "problem": Published(
        Problem, "Problem", "RFC 9457 problem details, with an `errors` list naming each offending field."
    ),
}
# The schemas input is judged by (a body, a query string): one object at the top and a nullable field as
# type [T, null], as a hand-written schema would say it, so that a refusal names the limit broken.
INPUTS = frozenset({"ask-request", "recommendation-request", "gpu-query", "chat-completion-request"})


def generate(name: str) -> dict[str, Any]:
    """The schema document ``name`` as its type describes it."""
    kind, title, description, shown = PUBLISHED[name]
    schema = msgspec.json.schema(kind)
    if name in INPUTS:
        schema = _root_at_top(_nullable_folded(schema))
    extra = {"examples": list(shown)} if shown else {}
    return {
        "$schema": DRAFT,
        "$id": f"https://whichgpu.dev/schemas/{name}.json",
        "title": title,
        "description": description,
        **extra,
        **schema,
    }


def examples(name: str) -> tuple[Any, ...]:
    """Example documents of schema ``name`` (the OpenAPI document shows them too)."""
    return PUBLISHED[name].examples


def _root_at_top(schema: dict[str, Any]) -> dict[str, Any]:
    """The referenced struct's object at the top (its title and description left to the document's), the
    other structs kept in ``$defs``."""
    defs = dict(schema.get("$defs", {}))
    root = defs.pop(str(schema.get("$ref", "")).rpartition("/")[2], None)
    if root is None:
        return schema
    top = {k: v for k, v in root.items() if k not in ("title", "description")}
    return {**top, "$defs": defs} if defs else top


def _nullable_folded(node: Any) -> Any:
    """``anyOf: [{type: T, ...}, {type: null}]`` written as ``type: [T, null]`` and a nullable enum with null
    last: a refusal then names the limit broken ("-5 is less than or equal to the minimum of 0"), not
    "is not valid under any of the given schemas"."""
    if isinstance(node, list):
        return [_nullable_folded(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {k: _nullable_folded(v) for k, v in node.items()}
    branches = node.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
        other = branches[0] if branches[1] == {"type": "null"} else branches[1]
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        if isinstance(other.get("type"), str):
            node = {**other, "type": [other["type"], "null"], **rest}
        elif isinstance(other.get("enum"), list) and len(other) == 1:
            node = {"enum": [*other["enum"], None], **rest}
    if isinstance(node.get("enum"), list) and None in node["enum"]:
        node["enum"] = [v for v in node["enum"] if v is not None] + [None]
    return node


class Encoded(Generic[T]):
    """A ``T`` already encoded as JSON. The snapshot memoises answers as bytes (the garbage collector never
    walks them); a handler returns them as the type they are, the app writes the bytes as they are
    (:meth:`raw`) and the OpenAPI document shows ``T``."""

    __slots__ = ("encoded",)

    def __init__(self, encoded: bytes) -> None:
        self.encoded = encoded

    def raw(self) -> msgspec.Raw:
        return msgspec.Raw(self.encoded)
