"""The values a question's fields take and the limits on them, stated once.

The request types (:mod:`rules.contract.question`, :mod:`rules.contract.text`) and the published schema
are generated from these; :meth:`~rules.contract.question.Question.check` reads the same limits.
"""

from __future__ import annotations

from datetime import date
from typing import Literal, get_args

# The values a question's fields take: each Literal is the one list of its field's values (the request
# type and the published schema are generated from it; the tuples below are read from it).
Workload = Literal[
    "cnn", "rnn", "transformer", "llm", "image-generation", "speech", "rl", "kaggle", "general"
]
Precision = Literal[
    "fp32", "16-bit", "fp8", "8-bit", "4-bit"
]  # widest first: the verdict's fallback steps down it
Task = Literal["training", "inference"]
# How the model is used; None lets the engine choose for the job and say so.
Method = Literal["inference", "lora", "qlora", "full", "pretrain"]
# Where the hardware will live: a desktop PC, a server/rack, or only rented in the cloud.
Setting = Literal["desktop", "server", "cloud"]
Language = Literal["en", "ru"]
# The family of runtime an LLM is run with, where the asker names one: llama.cpp (also Ollama, LM Studio)
# loads GGUF files and splits a model by layers; vllm (also SGLang, TGI,
# TensorRT-LLM) serves batches in tensor parallel.
Runtime = Literal["llama.cpp", "vllm"]
# The compute backend the runtime is built for; None: the card's usual one (CUDA on NVIDIA, ROCm on AMD
# Instinct/Radeon, Metal on Apple, SYCL on Intel).
Backend = Literal["cuda", "rocm", "vulkan", "metal", "mlx", "sycl"]
# A weight file format named in the question, where its bits per weight differ from the precision's usual
# file (Q5_K_M and Q6_K, between 4 and 8 bits): the ids of rules/data/models.json "formats".
WeightFormat = Literal[
    "GGUF Q4_K_M", "GGUF Q5_K_M", "GGUF Q6_K", "GGUF Q8_0", "AWQ", "GPTQ", "FP8", "MXFP4", "NVFP4"
]
# What "best" means when the asker says: None = the best within the budget, with diminishing returns.
Objective = Literal["cheapest"]
Experience = Literal["beginner", "hobby", "researcher"]
Intent = Literal["recommend", "compare", "fit", "rent-or-buy", "upgrade", "what-runs-on"]
AnswerDetail = Literal["short", "full"]  # what a person reads first, or the whole reasoning
DETAIL_TEXT = "'short': what a person reads first; 'full': the whole reasoning, every finding."
WORKLOADS: tuple[str, ...] = get_args(Workload)
# The workloads every face lists: the question's, then LLM serving (the llm workload's view bound by memory
# bandwidth per token). Here, beside the question's values, so a face's help lists them without the reader.
LISTED_WORKLOADS: tuple[str, ...] = (*WORKLOADS, "llm_inference")
PRECISIONS: tuple[str, ...] = get_args(Precision)
WEIGHT_FORMATS: tuple[str, ...] = get_args(WeightFormat)
TASKS: tuple[str, ...] = get_args(Task)
METHODS: tuple[str, ...] = get_args(Method)
SETTINGS: tuple[str, ...] = get_args(Setting)
LANGUAGES: tuple[str, ...] = get_args(Language)
OBJECTIVES: tuple[str, ...] = get_args(Objective)
EXPERIENCE: tuple[str, ...] = get_args(Experience)
BACKENDS: tuple[str, ...] = get_args(Backend)
CURRENCIES = ("USD", "EUR", "GBP", "RUB")
MAX_CONTEXT_TOKENS = 2_000_000
MAX_BATCH = 4096
MAX_USERS = 100_000
MAX_TOKENS_PER_USER = 1000.0
EARLIEST_AS_OF = date(2010, 1, 1)
MAX_BUDGET_USD_EQUIVALENT = 10_000_000
RUB_PER_USD_AT_MOST = 120  # the budget limit in roubles: a rouble budget is read in far smaller units
MAX_BUDGET = MAX_BUDGET_USD_EQUIVALENT * RUB_PER_USD_AT_MOST  # in any currency's units
MAX_GPUS = 16
MAX_COMPARED = 6
MAX_NAME_CHARS = 100


def _any_case(word: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in word)


CURRENCY_PATTERN = f"^({'|'.join(_any_case(code) for code in CURRENCIES)})$"
# A real date from 2010 on (EARLIEST_AS_OF); that it is not in the future is left to Question.check,
# which knows today.
AS_OF_PATTERN = (
    "^(20[1-9][0-9]-((0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|(0[13-9]|1[0-2])-(29|30)|(0[13578]|1[02])-31)"
    "|20(1[26]|[2468][048]|[3579][26])-02-29)$"
)
