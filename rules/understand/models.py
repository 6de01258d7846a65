"""Model names and sizes: 'llama 3.1 8b', 'deepseek-r1:32b', 'sdxl' -> ``model``, ``params_b`` and a workload.

A family word from the vocabulary ("llama", "qwen", "r1", "sdxl", "whisper") starts a name; the words after it
that look like a name ("3.1", "8b", "a3b", "distill", "qwen", "dev") are read with it, stopping at counts and
cards ("llama 70b 2 gpus"). Which model the name means is the model table's call, tried in a few spellings
("qwen3 30b", "qwen 3 30b"); ``model`` is the table's id, and its workload counts when no workload word is
said. A size the table lacks still counts: the same family's entry of that size ("qwen2.5 coder 32b" ->
"qwen-32b"), else "family-size" with ``params_b`` ("qwen 110b"). ``params_b`` comes from a size in the text
("13b" -> 13, "350m" -> 0.35; not "8x7b"). The longest alias of the table wins ("flux.1 kontext", not
"flux.1"); a size the family has is that model ("gpt-2 1.5b" -> GPT-2 XL); a variant the table lacks ("mistral
large 3") is an unknown model of the family, said so, never another of its models.

Several models or sizes ("llama 8b and maybe qwen 14b", "sdxl + flux"): each is sized by the job count and the
most demanding one sets ``model`` and ``params_b``; ``understood`` lists the others with their needs. When the
text names more than one job ("run 32b models and do lora on 8b"), each model takes the nearest job word
before it and the heavier job (need in GB) sets task and method too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING, Any

from rules.contract.question import Question
from rules.understand import lookups
from rules.understand.grammar import Grammar, any_of, bounded, grammar
from rules.understand.text import ModelSaid, Scan, WorkloadSaid, clean, whole
from rules.understand.words import METHODS

if TYPE_CHECKING:
    from rules.knowledge.models import ModelSpec

# ":" as in Ollama's tags ("deepseek-r1:32b"); a unit after a decimal is one size ("1.5b")
_TAIL = re.compile(r"[\s_.:-]*([a-z0-9]+(?:\.\d+)*(?:(?<=\d)[bm](?![a-z0-9]))?\+?)")
# a name's numbers: "v3.2", "3.1", "8b", "8x7b", "a3b", "r1"; never thousands ("3k usd", "128k context")
_NAME_TOKEN = re.compile(r"v\d+(?:\.\d+)*[a-z]?|\d+(?:\.\d+)*[a-jl-wyz]?|\d+x\d+b|[ae]\d+(?:\.\d+)?b|[rb]\d")
_SIZE = re.compile(r"(?:\d+x)?\d+(?:\.\d+)?[bm]")
# what makes a number after a model's name a count or an amount, not its version, besides the vocabulary's
# count nouns and money (:func:`_counted`): memory, hours ("20 h/week"), bits, tokens a second, users, epochs,
# cards by their number
_NOT_A_VERSION = re.compile(
    r"\s*(?:[x×]|gb\b|гб|hours?\b|hrs?\b|h\b|h/|час|-?\s*bits?\b|бит"
    r"|tok(?:ens?)?\b|tok/|t/s|users?\b|people\b|persons?\b|пользовател|человек|epochs?\b|эпох"
    r"|\d{4}s?\b)"  # a card by its number: "sdxl 2 3090s" is SDXL on two RTX 3090s
)
_TOKENS = re.compile(r"[a-z0-9]+(?:\.\d+)*")
_VERSION = re.compile(r"v?(\d+(?:\.\d+)*)")  # "3.2", "v3.2", "4": a model's version, not its size
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_ACTIVE = re.compile(r"a(\d+(?:\.\d+)?)b")  # "a3b" of "qwen3-next-80b-a3b": a mixture of experts' active size
_MAX_NAME_TOKENS = 6
# Words that name a tuning of the same weights, not another size: "deepseek r1 distill 32b" is the table's
# "deepseek r1 32b", "llama 3.1 8b instruct" its "llama 3.1 8b".
_SAME_WEIGHTS = frozenset(
    {"instruct", "chat", "it", "base", "hf", "distill", "preview", "thinking", "reasoning"}
)
# A release written onto a name as year and month, joined to it ("qwen3-30b-a3b-instruct-2507",
# "mistral-small-3.2-24b-instruct-2506"): the same weights' update, not a count, a card or an amount
_RELEASE = re.compile(r"2[3-9](?:0[1-9]|1[0-2])")


def _same_weights(token: str) -> bool:
    """A word of a name that names the same weights: a tuning ('instruct') or a dated release ('2507')."""
    return token in _SAME_WEIGHTS or bool(_RELEASE.fullmatch(token))


@dataclass(frozen=True)
class _Families:
    pattern: re.Pattern[str]  # any family word, where a model's name starts
    by_key: dict[str, dict[str, Any]]  # family word without spaces/hyphens -> its vocabulary entry
    name_words: frozenset[str]  # words that may continue a name: 'instruct', 'distill', and family words


SAME_SIZE = 0.1  # a size said within a tenth of the table model's is that model ("gpt-2 124m")


def _families(g: Grammar) -> _Families:
    by_key = {_family_key(alias): entry for entry in g.data["models"] for alias in entry["aliases"]}
    aliases = [alias for entry in g.data["models"] for alias in entry["aliases"]]
    pattern = bounded(any_of(aliases, bound=False) + r"(?![\s.-]*cpp)")  # llama.cpp is a tool, not a model
    return _Families(pattern, by_key, frozenset(clean(w) for w in g.data["model_words"]) | frozenset(by_key))


def _family_key(text: str) -> str:
    return re.sub(r"[\s-]+", "", clean(text))


@dataclass(frozen=True)
class _TableNames:
    """Every alias of the model table as written in a question, by its first letter, the longest first
    ('flux.1 kontext' before 'flux.1'), with the model each means keyed by its letters and digits ('flux.1'
    and 'flux 1' are one name). Read by hand rather than as one alternation of every alias, whose pattern
    took a terminal question 11 ms to compile."""

    by_initial: dict[str, tuple[tuple[str, ...], ...]]  # first letter -> each alias's parts
    models: dict[str, ModelSpec]  # letters and digits of an alias -> its model

    def match(self, text: str, at: int) -> tuple[ModelSpec, int] | None:
        """The first alias, longest first, written at ``at`` and ending where its word ends ('flux 12' is no
        'flux 1'): its model and where it ends. A version's last number written apart from the one before it
        and followed by cards or a count ('deepseek v3 2 gpus') is the count, not the version ('v3.2')."""
        for parts in self.by_initial.get(text[at : at + 1], ()):
            end = _spelled_at(text, at, parts)
            if end is None or text[end : end + 1] in _WORD_CHARACTERS or _a_count(text, end, parts):
                continue
            return self.models["".join(parts)], end
        return None


def _a_count(text: str, end: int, parts: tuple[str, ...]) -> bool:
    """Whether an alias's last number, apart from the number before it, is a count of what follows it."""
    if len(parts) < 2 or not parts[-1].isdigit() or not parts[-2][-1].isdigit():
        return False
    start = end - len(parts[-1])
    return text[start - 1].isspace() and _counted(text, end)


_WORD_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def _table_names(g: Grammar) -> _TableNames:
    by_key: dict[str, ModelSpec] = {}
    clashes: set[str] = set()
    for spec in set(lookups.models().values()):
        for alias in spec.aliases:
            key = _letters(alias)
            if by_key.setdefault(key, spec) is not spec:
                clashes.add(key)
    aliases = {a.lower() for spec in by_key.values() for a in spec.aliases if _letters(a) not in clashes}
    ordered = [a for a in sorted(aliases, key=lambda a: (-len(_letters(a)), a)) if _letters(a)]
    by_initial: dict[str, list[tuple[str, ...]]] = {}
    for alias in ordered:
        parts = tuple(p for p in re.split(r"[^a-z0-9]+", alias) if p)
        by_initial.setdefault(parts[0][0], []).append(parts)
    models = {k: v for k, v in by_key.items() if k not in clashes}
    return _TableNames({k: tuple(v) for k, v in by_initial.items()}, models)


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _spelled_at(text: str, at: int, parts: tuple[str, ...]) -> int | None:
    """Where an alias ends when it is written at ``at``: any separator or none between its parts, at least one
    between two numbers ('llama 3.1' as 'llama3.1' or 'llama-3-1', never '31'); None where it is not."""
    end = at
    for i, part in enumerate(parts):
        if i:
            start = end
            while end < len(text) and (text[end] in "._:-" or text[end].isspace()):
                end += 1
            if end == start and parts[i - 1][-1].isdigit() and part[0].isdigit():
                return None
        if not text.startswith(part, end):
            return None
        end += len(part)
    return end


def _table_name(text: str, at: int, families: _Families) -> tuple[ModelSpec, int] | None:
    """The longest alias of the model table written at ``at``, followed by nothing but words for the same
    weights ('instruct'): its model, and where the name ends."""
    found = grammar().patterns(_table_names).match(text, at)
    if found is None:
        return None
    spec, after = found
    tokens, end = _name_tokens(text, after, families.name_words)
    if not all(map(_same_weights, tokens)):
        return None
    return spec, end


def read_models(scan: Scan) -> None:
    families = grammar().patterns(_families)
    read_to = [0]

    def found(m: re.Match[str]) -> tuple[int, int] | bool:
        if m.start() < read_to[0]:  # a family word inside a name already read: "deepseek r1 1.5b", its "r1"
            return False
        span = _model_found(scan, m, families)
        read_to[0] = span[1]
        return span

    scan.take(families.pattern, found)


def _name_tokens(text: str, at: int, words: frozenset[str]) -> tuple[list[str], int]:
    """The words after a family that belong to the model's name ('3.1', '8b', 'a3b', 'distill', 'qwen'), and
    where they end."""
    end = at
    tokens: list[str] = []
    while len(tokens) < _MAX_NAME_TOKENS:
        m = _TAIL.match(text, end)
        if not m:
            break
        token = m.group(1)
        if tokens and _RELEASE.fullmatch(token) and m.group()[:1] in "-_":  # "...-instruct-2507"
            tokens.append(token)
            end = m.end()
            continue
        bare_number = token.replace(".", "").isdigit() or (token[:-1].isdigit() and token.endswith("s"))
        after_number = bool(tokens) and not tokens[-1].isalpha()  # "mistral large 3": a version of "large"
        if bare_number and (after_number or len(token) > 3 or _counted(text, m.end())):
            break  # "llama 70b 2 gpus", "llama 4090", "flux 3090s", "flux 700 dollars": a count, cards, money
        single = len(token) == 1 and not token.isdigit()
        if not (_NAME_TOKEN.fullmatch(token) or token in words) or (single and m.group()[:1].isspace()):
            break
        tokens.append(token)
        end = m.end()
    return tokens, end


def _counted(text: str, at: int) -> bool:
    """Whether what follows a number makes it a count, a memory size or an amount of money."""
    return bool(_NOT_A_VERSION.match(text, at) or grammar().patterns(_counts_or_money).match(text, at))


def _counts_or_money(g: Grammar) -> re.Pattern[str]:
    """What the vocabulary reads a number before as a count ("2 gpus", "4 гпу", "2 карты") or as money (a
    currency, or thousands of one: "100к рублей", "3k usd")."""
    return re.compile(rf"\s*(?:{any_of(g.data['count_nouns'])}|(?:{g.thousands}\s*)?{g.cur})")


def _model_found(scan: Scan, m: re.Match[str], families: _Families) -> tuple[int, int]:
    """A model name: the model table (its aliases) says which model; a size it lacks still gives params_b."""
    entry = families.by_key[_family_key(m.group())]
    tokens, end = _name_tokens(scan.text, m.end(), families.name_words)
    family = re.sub(r"[\s-]+", " ", m.group())
    table = _table_name(scan.text, m.start(), families)
    if table is not None and table[1] >= end:  # the longest name the table knows: 'flux kontext dev'
        end = table[1]
        tokens = _TOKENS.findall(scan.text, m.end(), end)
    phrase = scan.text[m.start() : end]
    size = next((t for t in tokens if _SIZE.fullmatch(t)), None)
    active = next((float(a.group(1)) for t in tokens if (a := _ACTIVE.fullmatch(t))), None)
    spec = table[0] if table is not None and table[1] == end else None
    spec = spec or next(filter(None, map(lookups.model, _candidates(family, tokens, entry))), None)
    if spec is not None and not tokens:  # "stable diffusion" alone: the model of that name on the date
        spec = _dated(phrase, scan) or spec
    if spec is None and size:
        inner = [families.by_key[_family_key(t)] for t in tokens if _family_key(t) in families.by_key]
        spec = lookups.model(f"{(inner or [entry])[-1]['slug']} {size}")  # "qwen 2.5 32b coder": its 32b
    if spec is None and size and "x" not in size:  # "gpt-2 1.5b": the family's model of that size
        spec = _of_size(family, float(size[:-1]) / (1000 if size.endswith("m") else 1), active)
    if spec is None and not size and tokens:  # "llama 4 scout": a version the table lacks and no size
        scan.unknown_models.append(phrase.strip())
    if spec is not None and _other_version(tokens, spec):  # "gemma 4 27b": sized as Gemma 3 27B, said so
        scan.stand_ins.append((phrase.strip(), spec.name))
    elif spec is None and size and "x" not in size:  # "qwen3.5 27b": sized as a bare 27B model, said so
        scan.stand_ins.append((phrase.strip(), ""))
    workload = spec.workload if spec and spec.workload else entry["workload"]
    scan.workloads.append(WorkloadSaid(workload, phrase, m.start(), by_model=True))
    params = None
    if size and "x" not in size:  # "8x7b" (mixture of experts) is not 56b of weights; the model table knows
        params = whole(float(size[:-1]) / (1000 if size.endswith("m") else 1))
        scan.put("params_b", params, phrase)
        if spec is None and active is not None and active < params:  # sized as a generic mixture of experts
            scan.put("active_params_b", whole(active), phrase)
    model = spec.id if spec is not None else f"{entry['slug']}-{size}" if size else None
    if model:
        scan.put("model", model, phrase)
        scan.models.append(ModelSaid(m.start(), model, params, phrase))
    return m.start(), end


def _other_version(tokens: list[str], spec: ModelSpec) -> bool:
    """Whether the name said carries a version the model found does not ("4" of "gemma 4 27b" when the table
    holds Gemma 3 27B): the family's model of that size stands in, and the reply must say so."""
    said = {
        v.group(1)
        for t in tokens
        if not _SIZE.fullmatch(t) and not _same_weights(t) and (v := _VERSION.fullmatch(t))
    }
    known = {n for name in (spec.name, spec.id, *spec.aliases) for n in _NUMBER.findall(name.lower())}
    return not said <= known


def _dated(phrase: str, scan: Scan) -> ModelSpec | None:
    """The model a family's plain name meant on the question's date (its 'as of', else today), from
    vocabulary.json ``dated_model_names``; None for a name that is not dated."""
    said = re.sub(r"[\s-]+", " ", phrase.strip().lower())
    on = scan.values.get("as_of", (scan.today,))[0]
    for entry in grammar().data.get("dated_model_names", {}).get("names", ()):
        if said in entry["words"]:
            meant = [m for m in entry["means"] if date.fromisoformat(m["from"]) <= on]
            return lookups.model(meant[-1]["model"]) if meant else None
    return None


def _of_size(family: str, said_b: float, active_b: float | None = None) -> ModelSpec | None:
    """The family's model (an alias starting with the family's name) within a tenth of the size said; where an
    active size is said ("80b-a3b"), a mixture of experts within a tenth of it too (a 72B dense model is no
    stand-in for an 80B model that reads 3B a token)."""
    key = _letters(family)
    near = [
        spec
        for spec in set(lookups.models().values())
        if any(_letters(a).startswith(key) for a in spec.aliases)
        and abs(spec.params_b / said_b - 1) <= SAME_SIZE
        and (
            active_b is None
            or (spec.active_params_b is not None and abs(spec.active_params_b / active_b - 1) <= SAME_SIZE)
        )
    ]
    return min(near, key=lambda spec: (abs(spec.params_b / said_b - 1), spec.id), default=None)


def _closed_pattern(g: Grammar) -> tuple[tuple[re.Pattern[str], dict[str, Any]], ...]:
    return tuple((bounded(any_of(entry["words"])), entry) for entry in g.data["closed_models"]["models"])


def read_closed_models(scan: Scan) -> None:
    """A model with no weights to download ("gpt-5", "claude"): the open model of a comparable class is sized
    in its place, and the reply says so (:data:`vocabulary.json` ``closed_models``)."""
    for pattern, entry in grammar().patterns(_closed_pattern):

        def found(m: re.Match[str], entry: dict[str, Any] = entry) -> bool:
            scan.closed_models.append((entry["name"], entry["maker"], entry["open_model"]))
            scan.put("model", entry["open_model"], m.group())
            spec = lookups.model(entry["open_model"])
            workload = spec.workload if spec and spec.workload else "llm"
            scan.workloads.append(WorkloadSaid(workload, m.group(), m.start(), by_model=True))
            scan.models.append(ModelSaid(m.start(), entry["open_model"], None, m.group()))
            return True

        scan.take(pattern, found)


def _candidates(family: str, tokens: list[str], entry: dict[str, Any]) -> Iterable[str]:
    """Spellings of one name for the table: 'qwen 3 30b', 'qwen3 30b', 'deepseek r1 70b'."""
    plain = [t for t in tokens if not _same_weights(t)]
    for words in (tokens, plain) if plain != tokens else (tokens,):
        for name in (family, entry["slug"] + " " + family if family != entry["slug"] else None):
            if name is None:
                continue
            yield " ".join([name, *words])
            if words:
                yield " ".join([name + words[0], *words[1:]])
                # "yolov8x" -> "yolov8 x"
                yield " ".join([name + re.sub(r"(\d)([a-z])$", r"\1 \2", words[0]), *words[1:]])


_Sized = tuple[float, str, Question, str]  # (GB needed, the model's words, its question, the method's name)


def _sized(scan: Scan, question: Question) -> list[_Sized]:
    """Each model named, sized for its job: the job word nearest before it when the text names more than one
    job, else the question's job."""
    # A bare training word ("обучение", "train") and one training method ("lora") name one job: the method's.
    methods = {w.method for w in scan.job_words if w.task == "training" and w.method}
    only = next(iter(methods)) if len(methods) == 1 else None
    words = [
        (at, task, only if task == "training" and not method and only else method, p)
        for at, task, method, p in scan.job_words
    ]
    jobs = {(task, method) for _, task, method, _ in words}
    sized = []
    for at, model, params, phrase in scan.models:
        options = [(question.task, question.method)]
        if len(jobs) > 1:  # the job word nearest before the model; with none before it, each job named
            before = [w for w in words if w[0] < at]
            # "fine-tune ... with LoRA": LoRA's
            named = [j for j in jobs if j[1] or not any(o[0] == j[0] and o[1] for o in jobs)]
            nearest = max(before, key=lambda w: w[0])[1:3] if before else None
            if nearest is not None and nearest[1] is None:  # "fine-tune 8B-14B with LoRA and QLoRA": both
                options = sorted((j for j in named if j[0] == nearest[0]), key=str) or [nearest]
            else:
                options = [nearest] if nearest is not None else sorted(named, key=str)
        for task, method in options:
            candidate = replace(
                question,
                model=model,
                params_b=params if model is None or params else None,
                task=task,
                method=method,
            )
            job = lookups.job(candidate)
            sized.append((job.need.gb, phrase, candidate, lookups.method_name(job.method)))
    return sized


def jobs_apart(scan: Scan) -> bool:
    """One model named beside jobs of two kinds, one of them about another subject: "train small cnns and run
    7b llms" runs the 7B (the training is the CNNs'), where "fine-tune and serve 70b" does both to the 70B."""
    tasks = {w.task for w in scan.job_words}
    if len(scan.models) != 1 or len(tasks) < 2:
        return False
    at = scan.models[0].at
    before = sorted(w.at for w in scan.job_words if w.at < at)
    if not before:
        return False
    subjects = [w.at for w in scan.workloads if not w.by_model and w.at < before[-1]]
    start = max(subjects, default=-1)  # the other subject said before this model's nearest job word
    return {w.task for w in scan.job_words if start < w.at < at} != tasks


def most_demanding(scan: Scan, question: Question, understood: list[str], today: date) -> Question:
    """Several models ("llama 8b and maybe qwen 14b", "run 32b and lora on 8b"): the job that needs most
    sizes it.

    The lines the first model wrote into ``understood`` now name the chosen job; the others are listed after
    them.
    """
    sized = _sized(scan, question)
    best = max(range(len(sized)), key=lambda i: sized[i][0])
    gb, phrase, chosen, method = sized[best]
    if chosen.model is not None and chosen.params_b is None and question.params_b is not None:
        spec = lookups.model(chosen.model)
        chosen = replace(chosen, params_b=spec.params_b if spec is not None else None)
    chosen.check(today)
    for i, line in enumerate(understood):
        label = line.split(":")[0]
        name = {"parameters (billions)": "params_b"}.get(label, label)
        if name not in ("model", "params_b", "task", "method"):
            continue
        value = getattr(chosen, name)
        if value != getattr(question, name):
            shown = METHODS.get(value, value) if name == "method" else value
            understood[i] = (
                f"{label}: {shown} (for '{phrase}', the most demanding job)"
                if len(sized) > 1
                else f"{label}: {shown} (for '{phrase}', the job said beside it)"
            )
    others = "; ".join(f"'{p}' ({m}) ~{g:.1f} GB" for i, (g, p, _, m) in enumerate(sized) if i != best)
    if others:
        sizes = f"'{phrase}' ({method}) ~{gb:.1f} GB sizes the job"
        understood.append(f"models: {sizes}, the most demanding named; also {others}")
    return chosen
