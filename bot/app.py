"""The slack-bolt app: `/whichgpu`, @mentions, DMs, buttons and the App Home tab.

Every listener acks at once and answers in a lazy listener (bolt runs it after the
ack: a task in this process, or another invocation on FaaS), so Slack's 3-second
limit holds however slow the answer is. Answers come from an
:class:`~bot.answers.AnswerSource`: the service's own engine when the bot runs inside
it, its JSON API otherwise. Slack's Web API is reached at ``settings.slack_api_url``.

Flows:
- slash command: ack "Looking into …" (help and too-long questions are answered in
  the ack itself), then the answer through ``response_url``, ephemeral, replacing it;
- app mention / DM: the answer in the thread, by ``chat.postMessage``;
- refinement buttons: the next question of the conversation, replacing the message;
- "Share in channel": the answer on screen posted for everyone (not asked again), the
  private one deleted;
- "Why?": the full form of the answer on screen (every finding), replacing it;
- ``app_home_opened``: ``views.publish`` of the home tab.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from typing import Any, NamedTuple

import aiohttp
from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_bolt.response import BoltResponse
from slack_sdk.models.blocks import Block
from slack_sdk.web.async_client import AsyncWebClient

from bot.answers import AnswerSource, ServiceAnswers, ShownAnswers
from bot.api import QuestionRejected, Reply, ServiceUnavailable, WhichgpuAPI
from bot.blocks import (
    ACTION_SHARE,
    ACTION_WHY,
    REFINEMENTS,
    Conversation,
    answer_blocks,
    failed_blocks,
    fallback_text,
    help_blocks,
    home_view,
    problem_blocks,
    too_long_blocks,
    unavailable_blocks,
)
from bot.settings import BotSettings
from rules.contract.text import check_text
from rules.errors import QuestionError
from rules.settings import SettingsError

__all__ = ["COMMAND", "Answerer", "create_bolt_app"]

COMMAND = "/whichgpu"
HELP_WORDS = {"", "help", "?", "-h", "--help", "помощь"}
MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^<>]*)?>")  # no "<" inside the label: linear time on any text

log = logging.getLogger("whichgpu.bot")

OUR_FAULT = "Sorry, something went wrong on our side."
Rendered = tuple[list[Block], str, Conversation | None]  # blocks, fallback text, the conversation they show


def _dicts(blocks: list[Block]) -> list[dict[str, Any]]:
    return [block.to_dict() for block in blocks]


class Unanswered(NamedTuple):
    """What the user sees when no answer came: blocks that say why, and their fallback text."""

    blocks: list[Block]
    text: str


class Answerer:
    """Question in, Block Kit out: asks the answer source and turns every outcome into blocks."""

    def __init__(self, source: AnswerSource, public_url: str | None = None,
                 shown: ShownAnswers | None = None) -> None:
        self.source = source
        self.public_url = public_url
        self.shown = shown or ShownAnswers()

    async def answer(self, conversation: Conversation, *, ephemeral: bool,
                     ask: str | None = None) -> Rendered:
        """Blocks, fallback text, and the conversation they show (None when no answer came)."""
        asked = await self._ask(conversation, ask)
        if isinstance(asked, Unanswered):
            return asked.blocks, asked.text, None
        if ephemeral:  # only a private answer has a Share button
            self.shown.put(asked[1], asked[0])
        return self._render(*asked, ephemeral=ephemeral)

    async def share(self, conversation: Conversation, user: str | None) -> Rendered:
        """The answer on screen, for everyone: the one this process showed, else answered again."""
        on_screen = await self._on_screen(conversation)
        if isinstance(on_screen, Unanswered):
            return on_screen.blocks, on_screen.text, None
        return self._render(*on_screen, ephemeral=False, shared_by=user)

    async def explain(self, conversation: Conversation, *, ephemeral: bool) -> Rendered:
        """The full form of the answer on screen: every finding, within Slack's limits."""
        on_screen = await self._on_screen(conversation)
        if isinstance(on_screen, Unanswered):
            return on_screen.blocks, on_screen.text, None
        return self._render(*on_screen, ephemeral=ephemeral, full=True)

    async def _on_screen(self, conversation: Conversation) -> tuple[Reply, Conversation] | Unanswered:
        """The reply this process showed for ``conversation``, else its last question answered again."""
        reply = self.shown.get(conversation)
        return (reply, conversation) if reply is not None else await self._ask(conversation, None)

    async def _ask(self, conversation: Conversation,
                   ask: str | None) -> tuple[Reply, Conversation] | Unanswered:
        question = ask or conversation.questions[-1]
        try:
            reply, shown = await self.source.answer(conversation, ask)
        except ServiceUnavailable as exc:
            log.warning("whichgpu service unavailable for a %d-character question: %s", len(question), exc)
            return Unanswered(unavailable_blocks(question),
                              "The whichgpu service didn't answer in time; please try again.")
        except QuestionRejected as exc:
            log.info("question rejected: %s %s", exc.status, exc.title)
            return Unanswered(problem_blocks(question, exc.detail, exc.errors),
                              f"Sorry, I can't answer that: {exc.detail}")
        except Exception:  # a bug behind the source: say so rather than leave "Looking into …" on screen
            log.exception("no answer for a %d-character question", len(question))
            return Unanswered(failed_blocks(question), OUR_FAULT)
        return reply, shown

    def _render(self, reply: Reply, shown: Conversation, *, ephemeral: bool,
                shared_by: str | None = None, full: bool = False) -> Rendered:
        try:
            blocks = answer_blocks(reply, shown, ephemeral=ephemeral, public_url=self.public_url,
                                   shared_by=shared_by, full=full)
        except (KeyError, TypeError, ValueError, AttributeError):  # an answer shape this bot does not know
            log.exception("could not render the answer (intent %s)", reply.intent)
            return failed_blocks(shown.questions[-1]), OUR_FAULT, None
        return blocks, fallback_text(reply), shown


THREAD_QUESTIONS = 20  # questions a thread keeps: its first and the newest


class ThreadMemory:
    """The conversation of each thread the bot answered in, so "cheaper?" in a thread refines it.

    In-process and bounded, in threads and in questions per thread: after a restart a follow-up in
    an old thread starts afresh.
    """

    def __init__(self, size: int = 2000) -> None:
        self.size = size
        self._threads: OrderedDict[tuple[str, str], Conversation] = OrderedDict()

    def get(self, channel: str, thread_ts: str) -> Conversation | None:
        return self._threads.get((channel, thread_ts))

    def put(self, channel: str, thread_ts: str, conversation: Conversation) -> None:
        if len(conversation.questions) > THREAD_QUESTIONS:  # the first question and the newest ones
            kept = (conversation.questions[0], *conversation.questions[1 - THREAD_QUESTIONS :])
            conversation = Conversation(conversation.conversation_id, kept)
        self._threads[(channel, thread_ts)] = conversation
        self._threads.move_to_end((channel, thread_ts))
        while len(self._threads) > self.size:
            self._threads.popitem(last=False)


def _question_problem(text: str) -> list[Block] | None:
    """The reply for a question not worth sending to the service (empty, help, too long), else None."""
    if text.lower().strip(" ?!.") in HELP_WORDS or text.strip() in HELP_WORDS:
        return help_blocks()
    try:
        check_text(text)
    except QuestionError:
        return too_long_blocks(len(text))
    return None


def create_bolt_app(settings: BotSettings, *, answers: AnswerSource | None = None,
                    process_before_response: bool = True) -> AsyncApp:
    """The bolt app for both transports; answers from ``answers``, else from the service at ``api_url``.

    ``process_before_response=True``: every listener here is an ack function plus
    lazy listeners, so bolt runs the ack inline and returns its response at once,
    while the lazy listeners go on as asyncio tasks of this same process (bolt's
    default lazy runner). With False bolt would run the ack as a separate task and
    poll for it every 10 ms, adding 10 ms or more to every ack under load
    (benchmarks/slack_ack.py). Nothing slow may go into an ack function.
    """
    if not settings.slack_bot_token:
        raise SettingsError("SLACK_BOT_TOKEN is not set: the bot needs its xoxb- token (see docs/slack.md)")
    app = AsyncApp(token=settings.slack_bot_token, signing_secret=settings.slack_signing_secret,
                   process_before_response=process_before_response, name="whichgpu")
    # bolt takes a client or a token; a client plus the token from the environment warns
    app.client.base_url = settings.slack_api_url
    answerer = Answerer(answers or ServiceAnswers(WhichgpuAPI(settings.api_url)), settings.public_url)
    threads = ThreadMemory()
    _register(app, answerer, threads)
    app.error(_failed)
    return app


SLACK_UNREACHABLE = ("whichgpu could not reach Slack's Web API just now, so it cannot answer here. "
                     "Try again in a minute; `whichgpu ask` in a terminal answers meanwhile.")
FAILED = "whichgpu failed to answer this one; the operator's log has the details. Try again or rephrase."


async def _failed(error: Exception, body: dict[str, Any], logger: logging.Logger) -> BoltResponse:
    """What Slack gets when a middleware or listener fails: never an empty 500.

    Bolt checks the bot token with Slack's ``auth.test`` before the first listener runs;
    when Slack's API cannot be reached that check fails on every request. A slash command
    then gets a short ephemeral reason (the one answer Slack shows for a failed command);
    an event gets 503, which Slack retries. A network failure is one warning line; any
    other error keeps its traceback in the operator's log, never in Slack.
    """
    unreachable = isinstance(error, (aiohttp.ClientError, TimeoutError, OSError))
    if unreachable:
        logger.warning("Slack's Web API unreachable (%s: %s)", type(error).__name__, error)
    else:
        logger.error("Slack request failed", exc_info=error)
    if isinstance(body, dict) and body.get("command"):
        return BoltResponse(status=200, body={"response_type": "ephemeral",
                                              "text": SLACK_UNREACHABLE if unreachable else FAILED})
    return BoltResponse(status=503, body="", headers={"Retry-After": "30"})


def _register(app: AsyncApp, answerer: Answerer, threads: ThreadMemory) -> None:
    """Every listener, in the order bolt tries them: direct messages before the other messages."""
    _register_command(app, answerer)
    _register_threads(app, answerer, threads)
    _register_buttons(app, answerer)
    app.event("app_home_opened")(ack=_ack_only, lazy=[_publish_home])


async def _ack_only(ack: AsyncAck) -> None:
    await ack()


def _register_command(app: AsyncApp, answerer: Answerer) -> None:
    async def ack_command(ack: AsyncAck, command: dict[str, Any]) -> None:
        text = (command.get("text") or "").strip()
        early = _question_problem(text)
        if early is not None:
            await ack(blocks=_dicts(early), text="whichgpu help", response_type="ephemeral")
        else:
            await ack(text=f":mag: Looking into “{text}”…", response_type="ephemeral")

    async def answer_command(command: dict[str, Any], respond: AsyncRespond) -> None:
        text = (command.get("text") or "").strip()
        if _question_problem(text) is not None:
            return  # answered in the ack
        blocks, fallback, _ = await answerer.answer(Conversation(None, (text,)), ephemeral=True)
        await respond(blocks=_dicts(blocks), text=fallback, response_type="ephemeral", replace_original=True)

    app.command(COMMAND)(ack=ack_command, lazy=[answer_command])


def _register_threads(app: AsyncApp, answerer: Answerer, threads: ThreadMemory) -> None:
    """@mentions and direct messages, answered in their thread, which keeps the conversation."""

    async def answer_in_thread(event: dict[str, Any], client: AsyncWebClient) -> None:
        text = MENTION.sub(" ", event.get("text") or "").strip()
        channel, thread_ts = event["channel"], event.get("thread_ts") or event["ts"]
        early = _question_problem(text)
        if early is not None:
            blocks, fallback = early, "whichgpu help"
        else:
            previous = threads.get(channel, thread_ts)
            if previous:
                blocks, fallback, shown = await answerer.answer(previous, ephemeral=False, ask=text)
            else:
                blocks, fallback, shown = await answerer.answer(Conversation(None, (text,)), ephemeral=False)
            if shown:
                threads.put(channel, thread_ts, shown)
        await client.chat_postMessage(channel=channel, thread_ts=thread_ts, blocks=_dicts(blocks),
                                      text=fallback)

    app.event("app_mention")(ack=_ack_only, lazy=[answer_in_thread])
    app.event("message", matchers=[_is_direct_message])(ack=_ack_only, lazy=[answer_in_thread])
    app.event("message")(_ignore_other_messages)


async def _is_direct_message(event: dict[str, Any]) -> bool:
    return event.get("channel_type") == "im" and not event.get("subtype") and not event.get("bot_id")


async def _ignore_other_messages(ack: AsyncAck) -> None:
    await ack()  # edits, joins, the bot's own messages: nothing to answer


def _register_buttons(app: AsyncApp, answerer: Answerer) -> None:
    async def refine(body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond) -> None:
        if (decoded := await _from_button(action, respond)) is None:
            return
        conversation, ask = decoded
        ephemeral = bool((body.get("container") or {}).get("is_ephemeral", True))
        blocks, fallback, shown = await answerer.answer(conversation, ephemeral=ephemeral, ask=ask)
        if shown is None:  # keep the answer on screen; say what went wrong beside it
            await respond(blocks=_dicts(blocks), text=fallback, response_type="ephemeral",
                          replace_original=False)
        else:
            await respond(blocks=_dicts(blocks), text=fallback, replace_original=True)

    refinements = re.compile("^(" + "|".join(re.escape(a) for a in REFINEMENTS) + ")$")
    app.action(refinements)(ack=_ack_only, lazy=[refine])

    async def why(body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond) -> None:
        if (decoded := await _from_button(action, respond)) is None:
            return
        ephemeral = bool((body.get("container") or {}).get("is_ephemeral", True))
        blocks, fallback, shown = await answerer.explain(decoded[0], ephemeral=ephemeral)
        await respond(blocks=_dicts(blocks), text=fallback, replace_original=shown is not None)

    app.action(ACTION_WHY)(ack=_ack_only, lazy=[why])

    async def share(body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond) -> None:
        if (decoded := await _from_button(action, respond)) is None:
            return
        conversation, _ = decoded
        blocks, fallback, shown = await answerer.share(conversation, (body.get("user") or {}).get("id"))
        if shown is None:
            await respond(blocks=_dicts(blocks), text=fallback, response_type="ephemeral",
                          replace_original=False)
            return
        await respond(blocks=_dicts(blocks), text=fallback, response_type="in_channel",
                      replace_original=False)
        await respond(delete_original=True)

    app.action(ACTION_SHARE)(ack=_ack_only, lazy=[share])


async def _from_button(action: dict[str, Any], respond: AsyncRespond) -> tuple[Conversation, Any] | None:
    """The conversation a button carries, or None after telling the user the button is stale."""
    try:
        return Conversation.from_value(action.get("value") or "")
    except ValueError:
        await respond(text="That button is from an older whichgpu; ask again with /whichgpu.",
                      replace_original=False, response_type="ephemeral")
        return None


async def _publish_home(event: dict[str, Any], client: AsyncWebClient) -> None:
    if event.get("tab", "home") == "home":
        await client.views_publish(user_id=event["user"], view=home_view())
