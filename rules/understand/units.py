"""Numbers with a unit: memory, parameters, hours, llama.cpp types, context, batch, users, teams, counts.

Each pass reads one unit and blanks it, so the number is never read again as a budget. Decisions:

* Memory: "24 GB", "with 16 gb of vram" set ``memory_gb``, the memory the job needs ("cheapest card
  for 24 GB"). With a model or size named (also one kept from the previous question) the number is the
  card's: "will llama 13b fit on 8 GB" sets ``card_memory_gb`` and ``understood`` gives the fit by the job's
  own count; only "at least 48 GB" / "минимум 48 гб" beside a model still states the need. A size beside a
  card name is the card's variant instead ("a100 80gb"): the hardware pass takes it first.
* Parameters: "13b" -> 13, "350m" / "350 million parameters" -> 0.35; "7 billion" without a currency.
* Precision from llama.cpp types rounds up to a width the memory model knows ("q4_k_m" -> 4-bit, "q5_k_m" ->
  8-bit: never claim a fit that is not there).
* Context: "32k context", "128k tokens", "context 8192" (k = 1024 tokens, as model cards count; "45 tokens/s"
  is a speed). Batch: "batch 8", "bs=16"; "for 20 users" is as many sequences at once (vLLM's max_num_seqs).
"""

from __future__ import annotations

import re
from typing import Any

from rules.contract.question import Question
from rules.knowledge.messages import spoken
from rules.understand import lookups
from rules.understand.grammar import NUM, NUMBER_END, Grammar, any_of, bounded, grammar
from rules.understand.text import HINT, JobSaid, ModelSaid, Scan, clean, number, whole

_MEMORY = bounded(
    rf"(?:(?:at\s+least|min(?:imum)?|>=?|не\s+меньше|не\s+менее|от|минимум)\s*)?(?P<n>{NUM})\s*"
    r"(?:gb|gib|гб|gigabytes?|гигабайт\w*)"
    r"(?:\s+(?:of\s+)?(?:gpu\s+)?(?:vram|memory|ram|памяти|видеопамяти))?(?!\w)"
)
_PARAMS = bounded(
    rf"(?P<n>{NUM})(?P<sp>\s?)(?:(?P<b>b|bn|billion|млрд|миллиард\w*)|(?P<m>m|million|млн|миллион\w*))"
    r"(?P<p>\s+(?:params|parameters|параметр\w*))?(?!\w)"
)
# "a few hours a month", "пару часов в неделю": how many such words stand for
_FEW = {
    "a couple of": 2.0,
    "a couple": 2.0,
    "a few": 3.0,
    "several": 4.0,
    "несколько": 3.0,
    "пару": 2.0,
    "пара": 2.0,
}
_FEW_SAID = "|".join(words.replace(" ", r"\s+") for words in _FEW)  # the longest of a kind first
_HOURS = bounded(
    rf"(?:(?P<n>{NUM})|(?P<few>{_FEW_SAID}))\s*(?:h|hrs?|hours?|час\w*|ч)\.?\s*(?:a|per|/|в|each|every)?\s*"
    r"(?:(?P<week>weeks?|wk|w|недел\w*|нед)|(?P<day>days?|d|день|сутки)|(?P<month>months?|mo|месяц\w*))(?!\w)"
)
# "q4_k_m", "Q5_K_M", "q8_0", "iq4_xs": llama.cpp quantisation types. Cleaning turned "_" into spaces.
_QUANT = bounded(
    r"i?q(?P<bits>[1-8])(?:[\s-]*k)?"
    r"(?:[\s-]*(?:xxs|xs|s|m|l|nl)|[\s-]*[01](?![\w.]|\s*[x×]?\s*(?:gpu|card|видеокарт)))?(?!\w)"
)
_CONTEXT = bounded(
    r"(?:(?P<n1>\d+(?:[.,]\d+)?)\s*(?P<k1>k|к|m)?\s*(?:tokens?\s+(?:of\s+)?)?(?:context|ctx)"
    r"(?:[\s-]*(?:length|window|size))?"
    r"|(?P<n2>\d+(?:[.,]\d+)?)\s*(?P<k2>k|к|m)?\s*(?:tokens?|токен\w*)(?!\s*(?:/|per\s|a\s+sec|в\s*сек))"
    r"(?:\s+(?:контекст\w*|of\s+context))?"
    r"|(?:context|ctx|контекст\w*)(?:[\s-]+(?:length|window|size|of|длин\w*|в|на)(?!\w)){0,3}\s*[:=]?\s*"
    r"(?P<n3>\d+(?:[.,]\d+)?)\s*(?P<k3>k|к|m)?"
    r"(?:\s*(?:tokens?|токен\w*))?)(?!\w)"
)
_BATCH = bounded(
    r"(?:batch(?:[\s-]*size)?|bs|батч\w*|размер\w*\s+батча)(?:\s+of)?\s*[:=]?\s*(?P<n>\d{1,4})" + NUMBER_END
)
_TEAM = bounded(
    r"(?:(?:team|group|lab|department)\s+of\s+(?P<team>\d{1,4})(?!\d)|команд\w*\s+из\s+(?P<komanda>\d{1,4})(?!\d)"
    r"|(?P<n>\d{1,4})\s+(?:colleagues|researchers|engineers|developers|analysts|students|pupils"
    r"|коллег\w*|сотрудник\w*|исследовател\w*|разработчик\w*|студент\w*|школьник\w*|учени\w*)(?!\w))"
)

# Literals every match of a pattern holds: a text with none of them is not scanned for it (the rarely used
# grammar, which most texts would otherwise be scanned for in vain).
_MEMORY_WORDS = ("gb", "gib", "гб", "gigabyte", "гигабайт")
_QUANT_WORDS = ("q",)
_CONTEXT_WORDS = ("context", "ctx", "token", "токен", "контекст")
_BATCH_WORDS = ("batch", "bs", "батч")
_USERS_WORDS = (
    "user",
    "people",
    "person",
    "client",
    "session",
    "request",
    "conversation",
    "пользовател",
    "человек",
    "клиент",
    "запрос",
)
_TEAM_WORDS = (
    "team",
    "group",
    "lab",
    "department",
    "команд",
    "colleagues",
    "researchers",
    "engineers",
    "developers",
    "analysts",
    "students",
    "pupils",
    "коллег",
    "сотрудник",
    "исследовател",
    "разработчик",
    "студент",
    "школьник",
    "учени",
)
NEEDED_LITERALS = {
    _MEMORY: _MEMORY_WORDS,
    _QUANT: _QUANT_WORDS,
    _CONTEXT: _CONTEXT_WORDS,
    _BATCH: _BATCH_WORDS,
    _TEAM: _TEAM_WORDS,
}


# "on 100b tokens", "2t tokens of data": how much the job trains on, never the model's size or a context; "8b
# tokens/s" is a model's size and a rate ("llama 3 8b tokens/s on a 3060"), never an amount of data.
_TRAINING_TOKENS = bounded(
    rf"(?P<n>{NUM})\s*(?P<u>b|bn|billion|t|trillion|млрд|трлн)\s+(?:training\s+)?(?:tokens?|токен\w*)(?!\w)"
    r"(?!\s*(?:/\s*s|/\s*sec|per\s+sec|a\s+sec|в\s+секунд|/\s*с(?!\w)))"
)
# "200 hours of audio", "2000 hours of recorded interviews", "300 часов аудио": how much media to process,
# never a budget or a weekly use.
_MEDIA_HOURS = bounded(
    rf"(?P<n>{NUM})\s*(?:h|hrs?|hours?|час\w*)\s+(?:of\s+)?(?:(?:our|my|the|their|own|domain|recorded|labell?ed"
    r"|transcribed|customer|call|phone|наших|моих|своих)\s+){0,2}(?P<what>audio|video|speech|recordings?"
    r"|podcasts?|meetings?|calls?|interviews?|lectures?|voice|аудио|видео|записей|записи|речи|интервью"
    r"|лекций)(?!\w)"
)


# "64x64 images", "1024×1024", "3x3 convolutions": a picture's or a kernel's size, never a count of cards; the
# second number ends where its word does ("2x 2k usd" is two cards and 2,000 USD).
_RESOLUTION = bounded(r"(?P<w>\d{1,5})\s*[x×]\s*(?P<h>\d{1,5})(?:\s*(?:px|pixels?|пикс\w*))?" + NUMBER_END)
# "x4 upscaling", "4x super-resolution": how much a picture is enlarged, never a count of cards.
_UPSCALE = bounded(
    r"(?:[x×]\s*(?P<a>\d{1,2})|(?P<b>\d{1,2})\s*[x×])[\s-]+(?:upscal\w*|super[\s-]?resolution|увеличени\w*)"
)
# "on 50k examples", "10k диалогов": a fine-tune's data; "for 3 epochs", "3 эпохи": passes over it.
_EXAMPLES = bounded(
    r"(?P<n>\d{1,3}(?:[,.\s]\d{3})+|\d+(?:[.,]\d+)?)\s*(?P<k>k|m|тыс\.?|млн)?\s+(?:training\s+|chat\s+)?"
    r"(?:examples?|samples?|conversations?|instructions?|dialogues?|pairs|пример\w*|диалог\w*|образц\w*)(?!\w)"
)
# "100 hours of lora training", "50 gpu hours", "200 часов обучения": GPU time the job takes, never money.
_GPU_HOURS = bounded(
    rf"(?:(?P<n>{NUM})\s*(?:(?:gpu|h100|a100)[\s-]*)?(?:h|hrs?|hours?|час\w*)\s+(?:of\s+)?"
    r"(?P<what>(?:(?:lora|qlora|full)\s+)?(?:training|fine-?tuning|compute|gpu\s+time|inference|use|usage)"
    r"|обучения|дообучения|вычислений|работы)(?!\w)"
    rf"|(?P<m>{NUM})\s*(?:gpu[\s-]*hours?|gpu[\s-]*h|гпу[\s-]*час\w*)(?!\w))"
)
# "on 10k images", "50 тыс. фотографий": items of data a job works through, never money (plural: "4k video"
# is a resolution).
_ITEMS = bounded(
    r"(?P<n>\d{1,3}(?:[,.\s]\d{3})+|\d+(?:[.,]\d+)?)\s*(?P<k>k|m|тыс\.?|млн)?\s+(?:labell?ed\s+|training\s+)?"
    r"(?P<what>images|photos|pictures|videos|clips|documents|pages|files|frames|изображени\w*|картин\w*"
    r"|фото\w*|видео(?:ролик\w*|запис\w*)?|документ\w*|страниц\w*|файл\w*|кадр\w*)(?!\w)"
)
# "for a year", "for 6 months", "на год", "на полгода": how long a served model runs.
_SERVICE = bounded(
    rf"(?:for|на)\s+(?:(?P<one>a|one|1)\s+(?P<u1>year|month)|(?P<n>{NUM})\s+(?P<u>years?|months?|weeks?)"
    r"|(?P<ru>год|полгода|месяц)|(?P<rn>\d+)\s+(?P<rru>месяц\w*|год\w*|лет))(?!\w)"
)
_EPOCHS = bounded(rf"(?P<n>{NUM})\s*(?:epochs?|эпох\w*)(?!\w)")


def read_picture_size(scan: Scan) -> None:
    """'64x64 images', '1024×1024': a picture's size, read before anything else so that neither its '64x' is
    a count of cards nor its '2048' a year."""

    def resolution(m: re.Match[str]) -> bool:
        width, height = int(m.group("w")), int(m.group("h"))
        said = m.group().strip()
        if min(width, height) < 16:  # "2x3090" is two cards; "3x3" is a kernel or a grid
            if width != height or not said.replace("×", "x").replace("x", "").isdigit():
                return False  # "4x 4 people": four cards and four people, written apart
            scan.amounts_of_work.append(f"size: {width}×{height} (from '{said}'; a kernel or a grid)")
            return True
        usual = "the memory is sized at the model's usual resolution"
        scan.amounts_of_work.append(f"image size: {width}×{height} (from '{said}'; {usual})")
        return True

    def upscale(m: re.Match[str]) -> bool:
        factor, said = m.group("a") or m.group("b"), m.group().strip()
        scan.amounts_of_work.append(f"upscaling: {factor}× (from '{said}'; not a count of cards)")
        return True

    scan.take(_RESOLUTION, resolution)
    scan.take(_UPSCALE, upscale)


def read_work_amounts(scan: Scan) -> None:
    """Amounts of work the job processes: training tokens (the run is timed and priced on them) and hours of
    audio or video. Read first, so "100b" is never a model size and "200 hours" never a budget."""

    def tokens(m: re.Match[str]) -> bool:
        billions = number(m.group("n")) * (1000 if m.group("u") in ("t", "trillion", "трлн") else 1)
        return scan.put("training_tokens_b", whole(billions), m.group())

    def media(m: re.Match[str]) -> bool:
        if m.group("what") not in ("video", "видео"):  # speech: the hours to transcribe, timed and priced
            return scan.put("audio_hours", whole(number(m.group("n"))), m.group())
        scan.amounts_of_work.append(
            f"to process: {whole(number(m.group('n')))} hours of {m.group('what')} "
            f"(from '{m.group().strip()}'; an amount of work, not a budget)"
        )
        return True

    def examples(m: re.Match[str]) -> bool:
        scale = {"k": 1e3, "тыс": 1e3, "тыс.": 1e3, "m": 1e6, "млн": 1e6}.get(m.group("k") or "", 1)
        count = number(re.sub(r"[,.\s](?=\d{3}\b)", "", m.group("n"))) * scale
        return scan.put("examples", round(count), m.group())

    scan.take(_TRAINING_TOKENS, tokens)
    scan.take(_MEDIA_HOURS, media)
    def served_for(m: re.Match[str]) -> bool:
        months_in = {"year": 12, "years": 12, "month": 1, "months": 1, "week": 7 / 30.44, "weeks": 7 / 30.44}
        if m.group("one"):
            months = months_in[m.group("u1")]
        elif m.group("n"):
            months = number(m.group("n")) * months_in[m.group("u")]
        elif m.group("ru"):
            months = {"год": 12, "полгода": 6, "месяц": 1}[m.group("ru")]
        else:
            months = int(m.group("rn")) * (1 if m.group("rru").startswith("месяц") else 12)
        return scan.put("service_months", whole(round(months, 2)), m.group())

    def items(m: re.Match[str]) -> bool:
        if re.fullmatch(r"[248]k\s+(?:videos|frames)", m.group().strip()):  # "4k videos": a resolution
            return False
        scale = {"k": 1e3, "тыс": 1e3, "тыс.": 1e3, "m": 1e6, "млн": 1e6}.get(m.group("k") or "", 1)
        count = number(re.sub(r"[,.\s](?=\d{3}\b)", "", m.group("n"))) * scale
        scan.amounts_of_work.append(
            f"to process: {whole(round(count))} {m.group('what')} "
            f"(from '{m.group().strip()}'; an amount of work, not a budget)"
        )
        return True

    def gpu_hours(m: re.Match[str]) -> bool:
        return scan.put("rent_hours", whole(number(m.group("n") or m.group("m"))), m.group())

    scan.take(_EXAMPLES, examples)
    scan.take(_ITEMS, items)
    scan.take(_GPU_HOURS, gpu_hours)
    scan.take(_SERVICE, served_for)
    scan.take(_EPOCHS, lambda m: scan.put("epochs", whole(number(m.group("n"))), m.group()))


def read_memory(scan: Scan) -> None:
    scan.take(_MEMORY, lambda m: scan.put("memory_gb", whole(number(m.group("n"))), m.group()), _MEMORY_WORDS)


def read_params(scan: Scan) -> None:
    def found(m: re.Match[str]) -> bool:
        if m.group("m") and not (m.group("p") or (m.group("m") == "m" and not m.group("sp"))):
            return False  # "350m" and "350 million parameters" are sizes; "5 m" is not
        value = whole(number(m.group("n")) / (1000 if m.group("m") else 1))
        scan.models.append(ModelSaid(m.start(), None, value, m.group()))
        return scan.put("params_b", value, m.group())

    scan.take(_PARAMS, found)


# "24/7", "around the clock", "круглосуточно": every hour of the week.
_ALWAYS = bounded(r"24\s*/\s*7|24\s*x\s*7|around the clock|round the clock|круглосуточно")


def read_hours(scan: Scan) -> None:
    def found(m: re.Match[str]) -> bool:
        said = number(m.group("n")) if m.group("n") else _FEW[" ".join(m.group("few").lower().split())]
        value = said * (7 if m.group("day") else 7 / 30.44 if m.group("month") else 1)
        return scan.put("hours_per_week", whole(round(value, 1)), m.group())

    scan.take(_ALWAYS, lambda m: scan.put("hours_per_week", 168, m.group()))
    scan.take(_HOURS, found)


def read_quantisation(scan: Scan) -> None:
    """A llama.cpp type sets the precision, rounded up: q2-q4 -> 4-bit, q5-q8 -> 8-bit."""

    def found(m: re.Match[str]) -> bool:
        bits = int(m.group("bits"))
        precision = "4-bit" if bits <= 4 else "8-bit"
        phrase = re.sub(r"\s+", "_", m.group().strip())
        scan.jobs.append(JobSaid(HINT, "inference", "inference", phrase))  # a llama.cpp file is to run
        known = lookups.weight_format(phrase)
        if known is not None and bits not in (4, 8):  # Q5_K_M, Q6_K: sized by their own bits per weight
            scan.put("weight_format", known, phrase)
            return scan.put("precision", precision, f"{phrase}, sized as {known}")
        rounded = "" if bits in (4, 8) else f", {bits}-bit rounded up"
        return scan.put("precision", precision, f"{phrase}{rounded}")

    scan.take(_QUANT, found, _QUANT_WORDS)


def read_context(scan: Scan) -> None:
    """'32k context', '128k tokens', 'context 8192': k is 1024 tokens, as model cards count."""

    def found(m: re.Match[str]) -> bool:
        n = next(g for g in (m.group("n1"), m.group("n2"), m.group("n3")) if g)
        k = m.group("k1") or m.group("k2") or m.group("k3")
        tokens = number(n) * {None: 1, "k": 1024, "к": 1024, "m": 1024 * 1024}[k]
        return scan.put("context_tokens", round(tokens), m.group())

    scan.take(_CONTEXT, found, _CONTEXT_WORDS)


# "50 tokens per second", "at 20 tok/s each", "30 токенов в секунду": the speed each user needs, never a
# budget or a count.
_SPEED = bounded(
    rf"(?:at\s+)?(?P<n>{NUM})\s*(?:tokens?|tok|t)\s*(?:/\s*s(?:ec)?|per\s+sec(?:ond)?|a\s+sec(?:ond)?)(?!\w)"
    r"(?:\s+(?:each|per\s+user|per\s+person|for\s+each))?"
    rf"|(?P<r>{NUM})\s*токен\w*\s*(?:/\s*с(?!\w)|в\s+секунду)(?:\s+на\s+(?:пользователя|человека))?"
)


def read_speed(scan: Scan) -> None:
    """A speed asked for each user (question field tokens_per_user): the configuration must deliver it."""

    def found(m: re.Match[str]) -> bool:
        value = number(m.group("n") or m.group("r"))
        return value > 0 and scan.put("tokens_per_user", value, m.group())

    if "/" in scan.text or "sec" in scan.text or "секунд" in scan.text or "/с" in scan.text:
        scan.take(_SPEED, found)


def read_batch(scan: Scan) -> None:
    scan.take(_BATCH, lambda m: scan.put("batch", int(m.group("n")), m.group()), _BATCH_WORDS)


def _users_pattern(g: Grammar) -> re.Pattern[str]:
    """People served at once, in digits or in words ('40 users', 'a few dozen people', 'десятки
    пользователей')."""
    crowd = {**g.number_words, **g.crowd_words}
    return bounded(
        rf"(?:(?P<n>\d{{1,4}})|(?P<w>{any_of(crowd)}))\s+"
        r"(?:concurrent\s+|simultaneous\s+|active\s+|parallel\s+|одновременн\w*\s+)?"
        r"(?:users?|people|person|clients?|sessions?|requests?|conversations?|пользовател\w*|человек|клиент\w*"
        r"|запрос\w*)"
        r"(?!\w)(?:\s*(?:at\s+once|at\s+the\s+same\s+time|concurrently|simultaneously|одновременно"
        r"|/\s*s(?:ec)?|per\s+second|a\s+second|в\s+секунду)(?!\w))?"
    )


def read_users(scan: Scan) -> None:
    """'for 20 users', '50 concurrent requests', 'a few dozen people': sequences served at once, each with
    its KV cache. 'A team of 10', '12 colleagues': the same when the job is inference (a server sized for all
    of them asking at once); for training a team's size says nothing of the batch, so the build decides."""

    def served(m: re.Match[str]) -> bool:
        said = m.group("w")
        n = int(m.group("n")) if m.group("n") else grammar().crowd_size(said)
        if n > 1:  # one user is the asker alone: nobody to serve, one sequence at a time
            scan.put("users", n, m.group())  # the serving field; batch sizes the KV cache today
        return scan.put("batch", n, m.group())

    if any(word in scan.text for word in _USERS_WORDS):  # the pattern is written for the texts that need it
        scan.take(grammar().patterns(_users_pattern), served)

    def team(m: re.Match[str]) -> tuple[int, int]:
        said = next(g for g in ("n", "team", "komanda") if m.group(g))
        scan.team = scan.team or (int(m.group(said)), m.group().strip())
        return m.span() if said == "n" else m.span(said)  # "team of" / "для команды" stay for the setting

    scan.take(_TEAM, team, _TEAM_WORDS)


def _count_patterns(g: Grammar) -> tuple[re.Pattern[str], ...]:
    n = rf"(?:(?P<n>\d{{1,3}})|(?P<w>{any_of(g.number_words)}))"
    return (
        # "8 gpus", "2x cards", "8-gpu server"
        bounded(rf"{n}(?:\s*[x×]?\s*|-)(?:{any_of(g.data['count_nouns'])})"),
        bounded(r"(?P<n>\d{1,2})\s*[x×](?![a-zа-я]|\d+(?:\.\d+)?[bm](?!\w))"),  # "8x7b" is a model's size
        re.compile(r"(?<![\w.])[x×]\s*(?P<n>\d{1,2})(?!\w|[.,]\d)"),  # "x3..." ends; "x3.5" is no count
    )


def read_counts(scan: Scan) -> None:
    """'8 gpus', 'two cards', '2x', 'x4': how many cards; after the cards took theirs ('2x 3090')."""
    for pattern in grammar().patterns(_count_patterns):
        scan.take(pattern, lambda m: _count_said(scan, count_of(m), m.group()))


def count_of(m: re.Match[str]) -> int:
    """The count a match says in digits (group 'n') or in words (group 'w')."""
    if m.groupdict().get("n"):
        return int(m.group("n"))
    return grammar().number_words[clean(m.group("w"))]


_OF_THEM = re.compile(r"of (?:them|those|these|it)|таких|такие")


def _count_said(scan: Scan, count: int, phrase: str) -> bool:
    """A count in so many words; "a single gpu" also says no more cards are wanted; "2 of them" counts the
    card the answer before led with."""
    if _OF_THEM.search(phrase):
        scan.references.append(("first", phrase.strip()))
    if count == 1 and "gpus" not in scan.values:
        scan.put("gpus_fixed", True, phrase)
    return scan.put("gpus", count, phrase)


_AT_LEAST = re.compile(r"(?:at\s+least|min|>|не\s+меньше|не\s+менее|от|минимум)")


def sizes_a_card(scan: Scan, changes: dict[str, Any], base: Question, fresh: bool) -> bool:
    """With a model named, 'on 8 GB' is the card's memory; the model says what the job needs.

    "At least 48 GB" still states the need, as without a model ("cheapest card for 24 GB").
    """
    model = changes.get("model") or changes.get("params_b") or (not fresh and (base.model or base.params_b))
    return bool(model) and not _AT_LEAST.match(scan.values["memory_gb"][1])


def fit_note(question: Question) -> str:
    """'fit: does not fit in 8 GB (…)', by the job's own count."""
    job = lookups.job(question)
    fit = lookups.fit(job, question.card_memory_gb or 0.0, question.gpus)
    verdict = "fits" if fit.fits else "does not fit"
    cards = f"{question.gpus} × " if question.gpus > 1 else ""
    said = f"{spoken(fit.said, question.language)}; {spoken(job.need.how, question.language)}"
    return f"fit: {verdict} in {cards}{question.card_memory_gb:g} GB ({said})"
