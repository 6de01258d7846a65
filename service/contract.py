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
from rules.question import AskRequest

__all__ = ["GENERATED", "SCHEMA_DIR", "generate", "rendered", "main"]

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

# name -> (type, title, description, extra keywords)
GENERATED: dict[str, tuple[Any, str, str, dict[str, Any]]] = {
    "answer": (Answer, "Answer", "The engine's answer: ranked picks, the rules behind them, warnings, rent-vs-buy.", {}),
    "ask-request": (AskRequest, "Ask request", "POST /v1/ask: free text, optionally continuing a conversation.", {
        "examples": [{"text": "nlp $800"}, {"text": "nlp $800", "start_conversation": True},
                     {"text": "what about 2 of them?", "conversation_id": "3f2a9c"}]}),
    "ask-response": (Reply, "Ask response", "The answer as Markdown plus the structured data behind it.", {}),
}


def generate(name: str) -> dict[str, Any]:
    """The schema document ``name`` as its type describes it."""
    kind, title, description, extra = GENERATED[name]
    schema = msgspec.json.schema(kind)
    return {"$schema": DRAFT, "$id": f"https://whichgpu.dev/schemas/{name}.json", "title": title,
            "description": description, **extra, **schema}


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
