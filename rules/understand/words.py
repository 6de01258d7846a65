"""Keywords: the vocabulary's words and phrases -> workload, task and method, intents, plain fields.

The keyword pass runs after every grammar with numbers, longest phrase first ("reinforcement learning" before
"learning"). Decisions:

* Task and method: training words beat inference words (the answer covers the heavier job): "lora", "qlora"
  (also 4-bit), "full fine-tune", "pretrain" set the method; a bare "fine-tune"/"дообучение" sets training
  with method None (the engine picks and says so). Inference words and tools ("run", "serve", "ollama",
  "vllm") set inference. Weak words ("use", "chat", "local") mean inference only for jobs people run (LLM,
  image, speech, or a named model): "which gpu to use for cnn" stays a training question.
* Precision: a bit width or format word sets it ("int4", "nf4", "fp8", "bf16" -> 16-bit); "gguf", "awq",
  "gptq" mean 4-bit unless a bit width is also given ("gguf q8_0" -> 8-bit). Nothing said: None, and the
  engine picks the job's usual precision and says so.
* Setting: "cloud only" -> cloud; "server", "rack", "data center" -> server; "desktop", "pc",
  "workstation" -> desktop; else None (the engine's desktop-for-one default).
* Money words: "no money"/"broke" and "little money" are budgets whose amounts the vocabulary gives.
* Workload: the first specific one wins over "general" ("learning nlp" is transformer for a beginner); a
  model's workload is used only when no workload word is present; an RNN word wins over speech ("speech with
  lstm").
* Intent: "help" for empty text, bare "?" or a help word with nothing else; then, the first said of
  "what-runs-on" ("what can I run on a 3090"), "fit" and "rent-or-buy" ("is renting cheaper", "rent 8x h100 or
  buy?"); "compare" with two or more cards (a family word such as "mac" names its cards), or a compare word
  and one card; "upgrade" with an upgrade word or a card already owned ("I have a 3060"); else "recommend".
  "fit" is read from this text only: a follow-up to a fit question is "recommend" unless it says "fit" again.
"""

from __future__ import annotations

import re
from typing import Any

from rules.contract.question import Question
from rules.understand import lookups
from rules.understand.grammar import grammar
from rules.understand.text import (
    HINT,
    INFERENCE,
    TRAINING,
    CardSaid,
    JobSaid,
    JobWord,
    Scan,
    WorkloadSaid,
    note,
)

METHODS = {
    "inference": "inference",
    "lora": "LoRA",
    "qlora": "QLoRA",
    "full": "full fine-tuning",
    "pretrain": "pretraining",
}
# A weak word ("use", "local", "chat") means running a model only for jobs people run locally.
RUN_WORKLOADS = ("llm", "image-generation", "speech")
_DEMAND = {"qlora": 1, "lora": 2, "full": 3, "pretrain": 4}  # memory each training method takes, in order
_WORD_START = re.compile(r"(?<![\w$€£₽])[^\s\x00]")
_WORD_CHAR = re.compile(r"\w")
# "will qwen3 235b run on a mac studio?", "llama 70b запустится на 5090?": a model asked on one card
_RUNS_ON = re.compile(
    r"(?<!\w)(?:run|runs|running|работает|запустится|пойд[её]т)\s+(?:\S+\s+){0,6}?(?:on|на)(?!\w)",
    re.IGNORECASE,
)
_ON_A_CARD = re.compile(r"(?<!\w)(?:on|на)(?!\w)", re.IGNORECASE)  # "whisper turbo on an rtx 3060"
# "is 4x b200 enough for deepseek r1", "хватит ли 3090 для qwen3 32b": the card judged for the model
_ENOUGH = re.compile(r"(?<!\w)(?:enough|хватит|хватает|достаточно)(?!\w)", re.IGNORECASE)
# "can one rtx 5090 serve gpt-oss-20b to 32 people": the card asked whether it carries the model
_CAN_IT = re.compile(
    r"(?<!\w)(?:can|could|will|would)\s+(?:\S+\s+){0,5}?(?:serve|run|handle|host)(?!\w)", re.IGNORECASE
)
# "is a mac studio good for running llama 70b", "подойдёт ли 3090 для llama 70b": the card asked, judged
_GOOD_FOR = re.compile(
    r"(?<!\w)(?:good|ok|okay|fine|suitable|decent|viable|a good (?:choice|pick|option))"
    r"(?:\s+enough)?\s+for(?!\w)"
    r"|(?<!\w)(?:хорош\w*|подойд\w*|подходит|годится)\s+(?:\S+\s+){0,4}?для(?!\w)",
    re.IGNORECASE,
)
# "rent 8x h100 or buy?", "купить или арендовать а100?": the two ways set against each other, cards between
_RENT = r"(?:rent|renting|hire|hiring|lease|leasing|аренд\w*|снять)"
_BUYING_WORDS = r"buy|buying|bought|purchase\w*|купить|покупать|покупк\w*|куплю"
_BUY = rf"(?:{_BUYING_WORDS}|own|брать)"  # set against renting, owning and "taking your own" buy too
_RENT_OR_BUY = re.compile(
    rf"(?<!\w)(?:{_RENT}(?!\w)[^.?!]{{0,60}}?(?<!\w)(?:or|vs\.?|versus|или)\s+(?:to\s+)?{_BUY}"
    rf"|{_BUY}(?!\w)[^.?!]{{0,60}}?(?<!\w)(?:or|vs\.?|versus|или)\s+(?:to\s+)?{_RENT})(?!\w)",
    re.IGNORECASE,
)
# "which gpu should i rent", "what does an h100 cost per hour", "арендовать a100": renting, asked for itself
_RENTING = re.compile(
    rf"(?<!\w){_RENT}(?!\w)"
    r"|(?<!\w)(?:cost\w*|price\w*|pay|rate)\s+(?:\S+\s+){0,3}?(?:per|an|a)\s+hour(?!\w)"
    r"|(?<!\w)hourly\s+(?:price|cost|rate)|(?<!\w)(?:стоит|стоимость|цена)\s+(?:\S+\s+){0,3}?в\s+час(?!\w)",
    re.IGNORECASE,
)
_BUYING = re.compile(rf"(?<!\w)(?:{_BUYING_WORDS})(?!\w)", re.IGNORECASE)
_LONE_SIGNS = ("$", "€", "£", "₽")


def read_keywords(scan: Scan) -> None:
    """Longest phrase first; only keywords whose first letter starts a word here are tried."""
    g, text = grammar(), scan.text
    initials = set(_WORD_START.findall(text))
    # a needle missing now stays missing (taking only blanks text): test each once, then again before its turn
    present = [i for c in initials for i in g.keywords_by_initial.get(c, ()) if g.keywords[i][0] in text]
    for i in sorted(present):
        needle, word, meaning = g.keywords[i]
        if needle in scan.text:

            def found(m: re.Match[str], meaning: dict[str, Any] = meaning) -> bool:
                return _meaning(scan, meaning, m.group(), m.start())

            scan.take(g.keyword(word), found)


def read_rental(scan: Scan) -> None:
    """A question that rents and never buys asks what renting costs: the cloud setting, where the answer is
    the rental (rule rent-vs-buy). Not where renting is set against buying ("rent or buy", "is renting
    cheaper", "100 hours of training on an h100"), nor where the question set the setting itself."""
    text = scan.original
    if {"setting", "rent_hours"} & scan.values.keys() or "rent-or-buy" in scan.intents:
        return
    renting = _RENTING.search(text)
    if renting and not _BUYING.search(text) and not _RENT_OR_BUY.search(text):
        scan.put("setting", "cloud", renting.group())


def _meaning(scan: Scan, meaning: dict[str, Any], phrase: str, at: int = 0) -> bool:
    """Record what a keyword means: a job, a workload, an intent, a follow-up, or a field's value."""
    if "task" in meaning or "task_hint" in meaning:
        task = meaning.get("task") or meaning["task_hint"]
        strength = HINT if "task_hint" in meaning else TRAINING if task == "training" else INFERENCE
        method = meaning.get("method") or ("inference" if task == "inference" else None)
        scan.jobs.append(JobSaid(strength, task, method, phrase))
        if strength > HINT:
            scan.job_words.append(JobWord(at, task, method, phrase))
    for name, value in meaning.items():
        if name in ("task", "task_hint", "method", "data"):
            continue
        if name == "workload":
            scan.workloads.append(WorkloadSaid(value, phrase, at, of_data=bool(meaning.get("data"))))
        elif name == "intent":
            scan.intents.append(value)
        elif name == "refers":
            scan.references.append((value, phrase))
        elif name == "family":  # "mac": the catalog's cards of that family, compared
            scan.cards += [CardSaid(at, gpu_id) for gpu_id in value]
            scan.family_said = True
        elif name == "adjust":
            scan.adjust.append(value)
        elif name == "outside":  # "best laptop gpu": said under the answer, which is for the cards it holds
            scan.outside.append(value)
        elif name == "budget_usd":
            scan.put("budget", (value, "USD"), phrase)
        else:
            if name == "used_ok" and value is True:
                scan.used_said = phrase
            scan.put(name, value, phrase)
    return True


def pick_workload(scan: Scan) -> tuple[str, str] | None:
    """The specific workload word that asks most of a card (the first, of equals), else a model's workload,
    else 'general' words: one card does every kind of work said ("CNNs and small transformers" is sized as
    transformers). A word for the data ("images") yields to a model named: "sdxl images" are generated."""
    said = _said_workloads(scan)
    from_model = [(w.workload, w.phrase) for w in scan.workloads if w.by_model]
    specific = _specific(said)
    if len({w for w, _ in specific}) > 1:
        most = max(lookups.workload_memory_gb(w) for w, _ in specific)
        specific = [w for w in specific if lookups.workload_memory_gb(w[0]) == most]
    ranked = specific + from_model + said
    return ranked[0] if ranked else None


def other_workloads(scan: Scan, chosen: str) -> list[str]:
    """The other kinds of work the text names beside the one that sizes the card, in the order said."""
    said = _said_workloads(scan)
    return list(dict.fromkeys(w for w, _ in _specific(said) if w != chosen))


def _said_workloads(scan: Scan) -> list[tuple[str, str]]:
    """(workload, phrase) of the workload words said, in order; a word for the data left out where a model
    is named, whose own workload says the job."""
    modelled = any(w.by_model for w in scan.workloads)
    return [
        (w.workload, w.phrase)
        for w in sorted(scan.workloads, key=lambda w: w.at)
        if not w.by_model and not (w.of_data and modelled)
    ]


def _specific(said: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The kinds of work said that are not 'general'. An RNN is an architecture that wins over the domain it
    works in: "speech with lstm" and "lstm language models" are LSTM jobs (a transformer said as such stays
    beside it)."""
    specific = [w for w in said if w[0] != "general"]
    if any(w == "rnn" for w, _ in specific):
        specific = [
            (w, phrase)
            for w, phrase in specific
            if w != "speech" and (w != "transformer" or "transformer" in phrase.lower())
        ]
    return specific


def job_changes(scan: Scan, changes: dict[str, Any], base: Question, fresh: bool) -> list[str]:
    """Task and method from the strongest job words, then the precision, into ``changes``; returns what
    ``understood`` says of them."""
    understood = []
    job = _task_and_method(scan, changes.get("workload"), base, fresh)
    if job is not None:
        task, method, phrase, method_phrase = job
        changes["task"] = task
        understood.append(
            f"task: {task} (from '{phrase}')"
            if phrase
            else "task: inference (a model named without a training word: running it)"
        )
        if method:
            changes["method"] = method
            if method_phrase:
                understood.append(f"method: {METHODS[method]} (from '{method_phrase}')")
        elif task == "training":
            changes["method"] = None
            understood.append("method: not said; the answer picks one for the job and says so")
    lighter = (
        {j.phrase for j in scan.jobs if j.method == "qlora"}
        if changes.get("method") not in (None, "qlora")
        else set()
    )
    if "precision" in scan.values and scan.values["precision"][1] in lighter:
        understood.append(
            f"precision: left to the method (the 4-bit of '{scan.values['precision'][1]}' is "
            "for the lighter method named)"
        )
    elif "precision" in scan.values:
        value, phrase = scan.values["precision"]
        changes["precision"] = value
        understood.append(note("precision", value, phrase))
    elif "precision_default" in scan.values:
        value, phrase = scan.values["precision_default"]
        changes["precision"] = value
        understood.append(f"precision: {value} (from '{phrase}', its usual width; no bit width given)")
    return understood


def _task_and_method(
    scan: Scan, workload: str | None, base: Question, fresh: bool
) -> tuple[str, str | None, str, str] | None:
    """(task, method, task words, method words): training words > inference words > a hint.

    A hint ("use", "q4_k_m") counts only for jobs people run; a model of such a job named
    with no job word at all ("which gpu for gpt-oss 120b") is one to run. A follow-up
    changes the job only with a strong word ("fine-tune llama 8b" -> "and 70b at q4?" stays
    training).
    """
    runs = (workload or base.workload) in RUN_WORKLOADS or "model" in scan.values or "params_b" in scan.values
    strength = max((job.strength for job in scan.jobs), default=None)
    if strength is None or (strength == HINT and not (runs and fresh)):
        if strength is None and fresh and "model" in scan.values and workload in RUN_WORKLOADS:
            return "inference", "inference", "", ""
        if strength is None and fresh and workload in (None, "llm") and (_said_size(scan) or 0) >= 1:
            # "upgrade for 32b models": billions of parameters and no job word: models people run
            return "inference", "inference", "", ""
        return None
    said = [job for job in scan.jobs if job.strength == strength]
    methods = [(job.method, job.phrase) for job in said if job.method]
    # several methods named ("with LoRA and QLoRA"): the machine must run the most demanding of them
    method, method_phrase = max(methods, key=lambda m: _DEMAND.get(m[0], 0)) if methods else (None, "")
    return said[0].task, method, said[0].phrase, method_phrase


def _said_size(scan: Scan) -> float | None:
    """Billions of parameters said ("32b models"), or None."""
    value = scan.values.get("params_b")
    return float(value[0]) if value else None


def intent(scan: Scan, question: Question, changed: tuple[str, ...]) -> str:
    """help, what-runs-on, fit, rent-or-buy, compare, upgrade or recommend (see the module's docstring)."""
    asked_help = not _WORD_CHAR.search(scan.original) or set(scan.intents) == {"help"}
    if asked_help and not changed:
        return "help"
    for said in ("what-runs-on", "fit", "rent-or-buy"):
        if said in scan.intents:
            return said
    if "rent_hours" in scan.values or _RENT_OR_BUY.search(scan.original):
        return "rent-or-buy"  # "100 hours of training on an h100": rent those hours or buy the card
    model_said = question.model is not None or question.params_b is not None
    owned_alone = not question.compare and question.owned_gpu is not None and "upgrade" not in scan.intents
    one_card = len(question.compare) == 1 or owned_alone  # "can my rtx 3060 run qwen3 32b": the card owned
    placed = (  # a model on a card, with nothing to buy and no run to cost ("7b on 2t tokens on 16 a100")
        any(cue.search(scan.original) for cue in (_ON_A_CARD, _ENOUGH, _CAN_IT, _GOOD_FOR))
        and question.budget is None
        and question.training_tokens_b is None
    )
    if model_said and one_card and (_RUNS_ON.search(scan.original) or question.asked_speed or placed):
        return "fit"
    family_only = scan.family_said and len(scan.cards) == len(question.compare)
    if (
        family_only and "compare" in scan.intents
    ):  # "mac or pc": the family named beside the rest, not instead
        return "recommend"
    if len(question.compare) >= 2 or ("compare" in scan.intents and question.compare):
        return "compare"
    if "upgrade" in scan.intents or "owned_gpu" in changed:
        return "upgrade"
    return "recommend"


def unknown(scan: Scan) -> tuple[str, ...]:
    """The words no pass took, less filler words, each once; a currency sign with no amount is one of them
    (what a shell leaves of "$800" in double quotes)."""
    fillers = grammar().fillers
    words = [
        w
        for w in scan.leftovers()
        if (w and _WORD_CHAR.search(w) and not fillers.fullmatch(w)) or w in _LONE_SIGNS
    ]
    return tuple(dict.fromkeys(words))
