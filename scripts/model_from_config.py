#!/usr/bin/env python3
"""Regenerate a ``rules/data/models.json`` entry from a model's published ``config.json``.

    python scripts/model_from_config.py CONFIG.json --id qwen3-8b --url URL --date 2025-04-29 [--write]

Reads the shape the memory and speed estimates need (layers, width, attention and key/value heads, head
size, feed-forward width, experts in all and per token, shared experts, sliding or chunked attention,
multi-head latent attention's cache width; Whisper's encoder and decoder) from a Hugging Face
``config.json`` (a ``text_config`` inside a multimodal one is read), counts the parameters where
``--params-b`` does not give the model card's figure, and prints the entry as one JSON line. With
``--write`` it replaces the entry of that id in ``rules/data/models.json``, keeping what a config does not
say (name, aliases, kind, workload, source, training batch, activation figures). Run it by hand and
commit the result; the product never reads config files at run time.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "rules" / "data" / "models.json"
SHAPE_FIELDS = (
    "params_b",
    "active_params_b",
    "layers",
    "encoder_layers",
    "decoder_layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "kv_width",
    "intermediate",
    "vocab",
    "seq_len",
    "experts",
    "active_experts",
    "shared_experts",
    "sliding_window",
    "sliding_layers",
)


def _first(config: Mapping[str, Any], *names: str) -> Any:
    return next((config[n] for n in names if config.get(n) is not None), None)


def text_part(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """The language model's part of a config: ``text_config`` of a multimodal one (Llama 4, Mistral 3.1)."""
    return config.get("text_config") or config


def sliding_layers(config: Mapping[str, Any], layers: int) -> tuple[int | None, int]:
    """(window, layers with local attention): ``layer_types`` where listed (gpt-oss, Gemma 3 in newer
    configs), every ``sliding_window_pattern``-th layer global (Gemma 3), every fourth layer global under
    Llama 4's chunked attention, alternate layers (Gemma 2)."""
    types = config.get("layer_types")
    window = _first(config, "sliding_window", "attention_chunk_size")
    if types:
        local = sum(1 for t in types if t in ("sliding_attention", "chunked_attention"))
        return (window, local) if local else (None, 0)
    if config.get("attention_chunk_size"):
        interval = config.get("no_rope_layer_interval") or 4
        return config["attention_chunk_size"], layers - layers // interval
    if not window or config.get("use_sliding_window") is False:
        return None, 0
    pattern = config.get("sliding_window_pattern")
    if pattern:
        return window, layers - layers // pattern
    if config.get("model_type") == "gemma2":
        return window, layers // 2
    return window, layers  # every layer windowed (Mistral 7B v0.1)


def count_params(shape: Mapping[str, Any], config: Mapping[str, Any]) -> tuple[float, float]:
    """(all, per token) parameters of a decoder from its shape, in billions: embeddings, attention and
    feed-forward (gated: three matrices), experts on the layers that have them. Norms and biases are left out
    (well under 0.1%)."""
    hidden, layers, vocab = shape["hidden"], shape["layers"], shape["vocab"]
    q = shape["heads"] * shape["head_dim"]
    attention = hidden * q * 2 + 2 * hidden * shape["kv_heads"] * shape["head_dim"]
    embeddings = vocab * hidden * (1 if config.get("tie_word_embeddings") else 2)
    dense_ffn = 3 * hidden * (_first(config, "intermediate_size_mlp", "intermediate_size") or 0)
    experts = shape.get("experts")
    if not experts:
        total = embeddings + layers * (attention + dense_ffn)
        return total / 1e9, total / 1e9
    expert = 3 * hidden * shape["intermediate"]
    shared = (shape.get("shared_experts") or 0) * expert
    step = config.get("interleave_moe_layer_step") or 1
    dense_first = config.get("first_k_dense_replace") or 0
    moe_layers = (layers - dense_first) // step
    dense_layers = layers - moe_layers
    base = (
        embeddings + layers * attention + dense_layers * dense_ffn + moe_layers * (shared + hidden * experts)
    )
    total = base + moe_layers * experts * expert
    active = base + moe_layers * shape["active_experts"] * expert
    return total / 1e9, active / 1e9


def _whisper(config: Mapping[str, Any]) -> dict[str, Any]:
    hidden, heads = config["d_model"], config["encoder_attention_heads"]
    encoder, decoder = config["encoder_layers"], config["decoder_layers"]
    return {
        "layers": encoder + decoder,
        "encoder_layers": encoder,
        "decoder_layers": decoder,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": heads,
        "head_dim": hidden // heads,
        "vocab": config["vocab_size"],
        "seq_len": config.get("max_source_positions", 1500),
    }


def shape_from_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The entry's shape fields read from ``config`` (parameters counted, not taken from a model card)."""
    if config.get("model_type") == "whisper":
        return _whisper(config)
    text = text_part(config)
    hidden = _first(text, "hidden_size", "d_model", "n_embd")
    heads = _first(text, "num_attention_heads", "n_head")
    layers = _first(text, "num_hidden_layers", "n_layer", "num_layers")
    shape: dict[str, Any] = {
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": _first(text, "num_key_value_heads") or heads,
        "head_dim": _first(text, "head_dim", "v_head_dim") or hidden // heads,
        "vocab": text["vocab_size"],
        "seq_len": _first(text, "max_position_embeddings", "n_positions"),
    }
    experts = _first(text, "num_local_experts", "n_routed_experts", "num_experts")
    if experts:
        shared = _first(text, "n_shared_experts", "num_shared_experts")
        if shared is None and text.get("model_type") == "llama4_text":
            shared = 1  # Llama 4 routes each token to one expert and always through one shared expert
        shape.update(experts=experts, active_experts=text["num_experts_per_tok"])
        shape["shared_experts"] = shared if shared else None
        shape["intermediate"] = _first(text, "moe_intermediate_size", "intermediate_size")
    else:
        shape["intermediate"] = text.get("intermediate_size")
    if text.get("kv_lora_rank"):
        shape["kv_width"] = text["kv_lora_rank"] + text["qk_rope_head_dim"]  # the latent and the rotary key
    window, local = sliding_layers(text, layers)
    if window and local:
        shape.update(sliding_window=window, sliding_layers=local)
    total, active = count_params(shape, text)
    shape["params_b"] = round(total, 2 if total < 100 else 1)
    if experts:
        shape["active_params_b"] = round(active, 2 if active < 100 else 1)
    return {k: v for k, v in shape.items() if v is not None}


def entry_from_config(
    config: Mapping[str, Any], base: Mapping[str, Any], overrides: Mapping[str, Any]
) -> dict[str, Any]:
    """``base`` (the current entry, or the fields given) with its shape replaced by the config's, then
    ``overrides`` (the model card's parameter counts, the url and date), in the file's field order."""
    shape = shape_from_config(config)
    kept = {k: v for k, v in base.items() if k not in SHAPE_FIELDS}
    merged = {**kept, **shape, **{k: v for k, v in overrides.items() if v is not None}}
    order = ["id", "name", "aliases", "kind", "workload", *SHAPE_FIELDS]
    head = {k: merged[k] for k in order if k in merged}
    return head | {k: v for k, v in merged.items() if k not in head}


def write_entry(entry: Mapping[str, Any], path: Path = MODELS) -> None:
    """Replace (or append) the entry of ``entry['id']`` in ``models.json``, one model a line."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    models = [m for m in doc["models"] if m["id"] != entry["id"]]
    index = next((i for i, m in enumerate(doc["models"]) if m["id"] == entry["id"]), len(models))
    models.insert(index, dict(entry))
    lines = ",\n".join("    " + json.dumps(m, ensure_ascii=False) for m in models)
    text = '{\n  "models": [\n' + lines + "\n  ]"
    if "formats" in doc:
        formats = ",\n".join("    " + json.dumps(f, ensure_ascii=False) for f in doc["formats"])
        text += ',\n  "formats": [\n' + formats + "\n  ]"
    path.write_text(text + "\n}\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("config", type=Path, help="the model's config.json")
    ap.add_argument("--id", required=True, help="the entry's id in models.json")
    ap.add_argument("--name", help="display name (a new entry needs it)")
    ap.add_argument("--kind", default="llm", help="for a new entry: llm, speech, transformer")
    ap.add_argument("--url", help="where the config is published")
    ap.add_argument("--date", help="the config's publication date, YYYY-MM-DD")
    ap.add_argument("--source", help="what the figures come from (a new entry needs it)")
    ap.add_argument("--params-b", type=float, help="the model card's parameter count, billions")
    ap.add_argument("--active-params-b", type=float, help="the model card's active parameters, billions")
    ap.add_argument("--models", type=Path, default=MODELS, help="models.json to read and write")
    ap.add_argument("--write", action="store_true", help="replace the entry in models.json")
    args = ap.parse_args(argv)
    try:
        config = json.loads(args.config.read_text(encoding="utf-8"))
        current = {m["id"]: m for m in json.loads(args.models.read_text(encoding="utf-8"))["models"]}
    except (OSError, ValueError) as err:
        print(f"cannot read: {err}", file=sys.stderr)
        return 2
    base = current.get(args.id) or {
        "id": args.id,
        "name": args.name,
        "kind": args.kind,
        "workload": "speech" if args.kind == "speech" else args.kind,
        "train_batch": 1,
        "source": args.source,
    }
    if base.get("name") is None or base.get("source") is None:
        print(f"{args.id} is not in {args.models}: give --name and --source", file=sys.stderr)
        return 2
    overrides = {
        "params_b": args.params_b,
        "active_params_b": args.active_params_b,
        "url": args.url,
        "date": args.date,
        "name": args.name,
        "source": args.source,
    }
    try:
        entry = entry_from_config(config, base, overrides)
    except (KeyError, TypeError, ZeroDivisionError) as err:
        print(f"{args.config}: not a config this script reads (missing {err})", file=sys.stderr)
        return 2
    print(json.dumps(entry, ensure_ascii=False))
    if args.write:
        write_entry(entry, args.models)
    return 0


if __name__ == "__main__":
    sys.exit(main())
