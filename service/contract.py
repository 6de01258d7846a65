"""The API's published JSON Schemas, generated from the typed contract.

``service/schemas/{name}.schema.json`` for the names below is written from the types
the handlers take and return (``msgspec.json.schema``), so a schema cannot drift
from the code: change a type, run ``python -m service.contract`` and commit the
files; ``tests/service/test_contract.py`` fails while a file differs from its type.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from rules.answer import Answer, Reply
from rules.question import AskRequest, RecommendationRequest
from service.api.gpus import GpuQuery

__all__ = ["GENERATED", "INPUTS", "SCHEMA_DIR", "generate", "rendered", "main"]

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

# The schemas input is judged by (a body, a query string): written as a hand-written schema would be, one
# object at the top and a nullable field as type [T, null], so that a refusal names the limit broken.
INPUTS = {"ask-request", "recommendation-request", "gpu-query"}
# name -> (type, title, description, extra keywords)
GENERATED: dict[str, tuple[Any, str, str, dict[str, Any]]] = {
    "answer": (Answer, "Answer", "The engine's answer: ranked picks, the rules behind them, warnings, rent-vs-buy.", {}),
    "ask-request": (AskRequest, "Ask request", "POST /v1/ask: free text, optionally continuing a conversation.", {
        "examples": [{"text": "nlp $800"}, {"text": "nlp $800", "start_conversation": True},
                     {"text": "what about 2 of them?", "conversation_id": "3f2a9c"}]}),
    "recommendation-request": (RecommendationRequest, "Recommendation request",
                               "POST /v1/recommendations: the structured question; every field is optional.", {
        "examples": [{"workload": "transformer", "budget": 800, "currency": "USD"},
                     {"workload": "llm", "model": "llama-13b", "task": "inference", "precision": "4-bit", "gpus": 1}]}),
    "gpu-query": (GpuQuery, "GPU list query", "GET /v1/gpus query parameters (numbers are read from the query string first).", {
        "examples": [{"workload": "transformer", "max_price": 1000, "limit": 10}]}),
    "ask-response": (Reply, "Ask response", "The answer as Markdown plus the structured data behind it.", {}),
}


def generate(name: str) -> dict[str, Any]:
    """The schema document ``name`` as its type describes it."""
    kind, title, description, extra = GENERATED[name]
    schema = msgspec.json.schema(kind)
    if name in INPUTS:
        schema = _nullable_folded(schema)
    defs = schema.get("$defs", {})
    if name in INPUTS and len(defs) == 1 and schema.get("$ref") == f"#/$defs/{next(iter(defs))}":  # one struct: its object at the top
        schema = {k: v for k, v in next(iter(defs.values())).items() if k not in ("title", "description")}
    return {"$schema": DRAFT, "$id": f"https://whichgpu.dev/schemas/{name}.json", "title": title,
            "description": description, **extra, **schema}


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


def rendered(name: str) -> str:
    """The file's text: two-space indented, non-ASCII kept, one final newline."""
    return json.dumps(generate(name), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.contract", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which files differ from their types (exit 1)")
    args = parser.parse_args(argv)
    stale = []
    for name in sorted(GENERATED):
        path = SCHEMA_DIR / f"{name}.schema.json"
        text = rendered(name)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(path.name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    verb = "differ from their types" if args.check else "written"
    print(f"{len(stale)} schema files {verb}" + (f": {', '.join(stale)}" if stale else ""))
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
