"""scripts/model_from_config.py: a models.json entry regenerated from a published config.json.

The configs under ``configs/`` hold the fields of the published files (Qwen/Qwen3-8B,
mistralai/Mixtral-8x7B-v0.1, google/gemma-3-27b-it, openai/whisper-large-v3-turbo on Hugging Face); the
entries they must give are the catalog's own, so the script and the data check each other.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = Path(__file__).resolve().parent / "configs"
SCRIPT = ROOT / "scripts" / "model_from_config.py"
_spec = importlib.util.spec_from_file_location("model_from_config", SCRIPT)
assert _spec and _spec.loader
script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(script)

SHAPE = (
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "intermediate",
    "vocab",
    "experts",
    "active_experts",
    "sliding_window",
    "sliding_layers",
    "encoder_layers",
    "decoder_layers",
)


def _models() -> dict[str, dict]:
    return {m["id"]: m for m in json.loads((ROOT / "rules/data/models.json").read_text())["models"]}


@pytest.mark.parametrize("model_id", ["qwen3-8b", "mixtral-8x7b", "gemma-3-27b", "whisper-large-v3-turbo"])
def test_the_config_gives_the_catalogs_shape(model_id):
    shape = script.shape_from_config(json.loads((CONFIGS / f"{model_id}.json").read_text()))
    entry = _models()[model_id]
    for field in SHAPE:
        assert shape.get(field) == entry.get(field), (model_id, field, shape.get(field), entry.get(field))


@pytest.mark.parametrize("model_id, rel", [("qwen3-8b", 0.01), ("mixtral-8x7b", 0.01), ("gemma-3-27b", 0.03)])
def test_counted_parameters_match_the_model_card(model_id, rel):
    shape = script.shape_from_config(json.loads((CONFIGS / f"{model_id}.json").read_text()))
    entry = _models()[model_id]
    assert shape["params_b"] == pytest.approx(entry["params_b"], rel=rel)
    if "active_params_b" in entry:
        assert shape["active_params_b"] == pytest.approx(entry["active_params_b"], rel=0.02)


def test_a_deepseek_style_config_caches_its_latent_and_counts_shared_experts():
    config = {
        "model_type": "deepseek_v3",
        "hidden_size": 7168,
        "num_hidden_layers": 61,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "v_head_dim": 128,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "n_routed_experts": 256,
        "n_shared_experts": 1,
        "num_experts_per_tok": 8,
        "moe_intermediate_size": 2048,
        "intermediate_size": 18432,
        "first_k_dense_replace": 3,
        "vocab_size": 129280,
        "max_position_embeddings": 163840,
    }
    shape = script.shape_from_config(config)
    assert shape["kv_width"] == 576 and shape["shared_experts"] == 1 and shape["experts"] == 256
    assert shape["intermediate"] == 2048 and shape["active_params_b"] < shape["params_b"] / 10


def test_the_script_rewrites_an_entry_keeping_what_a_config_does_not_say(tmp_path):
    models = tmp_path / "models.json"
    models.write_text((ROOT / "rules/data/models.json").read_text())
    before = _models()["qwen3-8b"]
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            str(CONFIGS / "qwen3-8b.json"),
            "--id",
            "qwen3-8b",
            "--params-b",
            "8.19",
            "--models",
            str(models),
            "--write",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    after = {m["id"]: m for m in json.loads(models.read_text())["models"]}["qwen3-8b"]
    assert after["aliases"] == before["aliases"] and after["source"] == before["source"]
    assert after["params_b"] == 8.19 and after["layers"] == 36 and after["seq_len"] == 40960
    assert json.loads(models.read_text())["formats"]  # the rest of the file is kept


def test_a_file_that_is_no_config_is_a_clear_error(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text('{"hello": 1}')
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(bad), "--id", "qwen3-8b"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "not a config this script reads" in done.stderr
    assert "Traceback" not in done.stderr
