"""The `whichgpu` command: serve the API, ask in the terminal, browse the catalog, manage agents.

Every failure a user can cause ends in one clear line on stderr and a non-zero
exit code (:data:`EXIT_CODES`), never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # loaded by the commands that use them, so every command starts fast
    import socket

    import httpx

    from bot.local import SlackTrial
    from rules.contract.answer import Reply
    from rules.render.skypilot import Cluster
    from service.settings import Settings

__all__ = ["EXIT_BAD_INPUT", "EXIT_CODES", "EXIT_FAILED", "EXIT_NOT_UNDERSTOOD", "main"]

EXIT_FAILED = 1  # could not do it: the port is taken, the database is unreachable, the data are broken
EXIT_BAD_INPUT = 2  # an argument, setting or question value is invalid
EXIT_NOT_UNDERSTOOD = (
    3  # `ask` printed no advice: the question was not understood (the reply says what is missing)
)
EXIT_CODES = {
    0: "answered / done",
    EXIT_FAILED: "could not do it (port taken, database unreachable, broken data)",
    EXIT_BAD_INPUT: "bad input (argument, setting or question value)",
    EXIT_NOT_UNDERSTOOD: "ask: question not understood, no advice given",
    130: "interrupted",
}


class CliError(Exception):
    """A user-facing failure: the message is printed, the exit code returned."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _date(text: str) -> date:
    """YYYY-MM-DD, or YYYY-MM (its first day), or YYYY (its last day)."""
    padded = {4: f"{text}-12-31", 7: f"{text}-01"}.get(len(text), text)
    try:
        return date.fromisoformat(padded)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date: {text!r} (use YYYY-MM-DD, YYYY-MM or YYYY)") from None


def _port(text: str) -> int:
    """A TCP port number, 0 (any free port) to 65535."""
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"not a port: {text!r} (use 0-65535)")
    return int(text)


def _workload(text: str) -> str:
    """A listed workload, or words that name one ("nlp"): the vocabulary `ask` reads."""
    from rules.errors import QuestionError
    from rules.understand.workloads import workload_named

    try:
        return workload_named(text)
    except QuestionError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def _load_advisor(settings: Settings):
    """The engine over the shipped catalog, with the lab's measurements when a database has any."""
    from rules.advisor import Advisor
    from rules.knowledge.loaded import load_catalog
    from service.lab_quotes import quoted_catalog
    from service.measurements import lab_measurements

    url = settings.resolved_database_url
    return Advisor(quoted_catalog(url, load_catalog()), lab_measurements(url), settings.electricity_price)


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the app is built, so a taken port fails at once and clearly."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, OverflowError) as exc:
        raise CliError(f"cannot listen on {host}:{port}: {exc}", EXIT_BAD_INPUT) from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", EXIT_FAILED) from None
    sock.listen(2048)
    return sock


# The passwords the deploy examples show: a service started with one runs on a password everyone knows.
PLACEHOLDER_PASSWORDS = frozenset({"change-me", "changeme"})


def _refuse_placeholder_password(database_url: str) -> None:
    from urllib.parse import unquote, urlsplit

    password = urlsplit(database_url).password
    if password is not None and unquote(password).lower() in PLACEHOLDER_PASSWORDS:
        raise CliError(
            "WHICHGPU_DATABASE_URL still holds the example's placeholder password; "
            "set a real one for the database role and in the URL",
            EXIT_BAD_INPUT,
        )


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    _refuse_placeholder_password(settings.resolved_database_url)
    host, port = args.host or settings.host, args.port if args.port is not None else settings.port
    sock = _listen(host, port)
    import uvicorn

    from service.app import create_app
    from service.server import ConnectionLimits, bounded_protocol, raise_file_limit

    app = create_app(settings)
    gc.collect()
    # the catalog and snapshot live for the whole process: keep them out of full collections (p99)
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)  # fewer young-generation passes over per-request garbage
    limits = ConnectionLimits(
        max_header_bytes=settings.max_header_bytes,
        max_headers=settings.max_headers,
        header_timeout_s=settings.header_timeout,
        body_timeout_s=settings.body_timeout,
        keep_alive_s=settings.keep_alive,
        max_connections=raise_file_limit(settings.max_connections),
        max_connections_per_client=settings.max_connections_per_client,
        trusted_proxies=frozenset(p.strip() for p in settings.trusted_proxies.split(",") if p.strip()),
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="info",
        access_log=args.access_log,
        http=bounded_protocol(limits),
        timeout_keep_alive=max(1, round(limits.keep_alive_s)),
        proxy_headers=bool(settings.trusted_proxies.strip()),
        forwarded_allow_ips=settings.trusted_proxies.strip() or None,
        server_header=False,
    )
    print(f"listening on {_url(sock)}", flush=True)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _url(sock: socket.socket) -> str:
    """The address a browser opens, with the port actually bound (``--port 0`` picks one)."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    """Bring the database schema up to date (what `serve` does on start)."""
    from service.db import migrate

    migrate(settings.resolved_database_url)
    print("database is at the newest schema")
    return 0


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    import msgspec

    from rules.ask import ask
    from rules.contract.text import check_text
    from rules.errors import QuestionError

    text = " ".join(args.text)
    try:
        check_text(text)  # the asker's words; --as-of adds to them
        if args.as_of:
            text += f" as of {args.as_of.isoformat()}"
        reply = ask(_load_advisor(settings), text, detail="full" if args.why else "short")
    except QuestionError as exc:
        raise CliError(f"{exc.field}: {exc.message}", EXIT_BAD_INPUT) from None
    if args.skypilot:
        _write_skypilot(args.skypilot, reply, text, args.cluster)
    if args.json:
        print(json.dumps(msgspec.to_builtins(reply), indent=2, ensure_ascii=False))
    else:
        _print_markdown(reply.text)
    return EXIT_NOT_UNDERSTOOD if reply.intent == "clarify" else 0


def _write_skypilot(path: Path, reply: Reply, title: str, cluster: Cluster | None) -> None:
    """The rent path of a priced training job as a SkyPilot task, written before the answer is shown."""
    from rules.render.skypilot import skypilot_task

    job = reply.recommendation.job_cost if reply.recommendation is not None else None
    if job is None:
        raise CliError(
            "--skypilot: the answer has no training run to launch; ask for one with its size and tokens, "
            "e.g. 'pretrain a 1b model on 20b tokens'",
            EXIT_BAD_INPUT,
        )
    try:
        path.write_text(skypilot_task(job, title, cluster=cluster), encoding="utf-8")
    except ValueError as exc:
        raise CliError(f"--skypilot: {exc}", EXIT_BAD_INPUT) from None
    except OSError as exc:
        raise CliError(f"--skypilot: cannot write {path}: {exc.strerror}", EXIT_BAD_INPUT) from None
    print(f"SkyPilot task written to {path} (sky launch {path})", file=sys.stderr)


def _print_markdown(text: str) -> None:
    """Piped or redirected: the Markdown itself. On a terminal: wrapped to its width with hanging indents,
    bold, italics and code as ANSI styles (the marks themselves with NO_COLOR)."""
    if not sys.stdout.isatty():
        print(text)
        return
    from service.terminal import styled, terminal_width, wrapped

    plain = bool(os.environ.get("NO_COLOR"))
    shown = wrapped(text, terminal_width(), marked=not plain)
    print(shown if plain else styled(shown))


def cmd_catalog(args: argparse.Namespace, settings: Settings) -> int:
    advisor = _load_advisor(settings)
    as_of = args.as_of or date.today()
    if args.stale:
        return _print_stale(advisor, as_of, args.json)
    workload = args.workload or "general"
    rows = advisor.card_rows(workload, as_of, args.currency, used_ok=args.used)
    if args.vendor:
        rows = tuple(r for r in rows if r.vendor == args.vendor.lower())
        if not rows:
            raise CliError(
                f"no cards from vendor {args.vendor!r}; vendors: nvidia, amd, intel", EXIT_BAD_INPUT
            )
    output = "json" if args.json else args.format or ("table" if sys.stdout.isatty() else "tsv")
    if output == "json":
        import msgspec

        print(
            json.dumps(
                {
                    "as_of": as_of.isoformat(),
                    "workload": workload,
                    "catalog_version": advisor.catalog.version,
                    "reference_gpu": advisor.reference.id,
                    "gpus": msgspec.to_builtins(rows),
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    elif output == "table":
        _print_catalog_table(
            rows,
            f"{len(rows)} cards as of {as_of.isoformat()}, {workload} speed "
            f"relative to the {advisor.reference.name}",
        )
    else:
        _print_delimited(rows, "," if output == "csv" else "\t")
    return 0


CATALOG_FIELDS = (
    "gpu",
    "name",
    "vendor",
    "memory_gb",
    "relative_performance",
    "performance_basis",
    "price",
    "currency",
    "price_kind",
    "price_date",
    "price_estimate",
    "performance_per_1000",
)


def _print_delimited(rows: Sequence[Any], delimiter: str) -> None:
    """One header line, then one line per card: every figure in its own column, for a spreadsheet or awk."""
    import csv

    writer = csv.writer(sys.stdout, delimiter=delimiter, lineterminator="\n")
    writer.writerow(CATALOG_FIELDS)
    for row in rows:
        price = row.price
        priced = (price.amount, price.currency, price.kind, price.seen, price.estimate) if price else [""] * 5
        per_1000 = row.performance_per_1000 if row.performance_per_1000 is not None else ""
        writer.writerow(
            (
                row.gpu,
                row.name,
                row.vendor,
                row.memory_gb,
                row.relative_performance,
                row.performance_basis,
                *priced,
                per_1000,
            )
        )


def _print_catalog_table(rows: Sequence[Any], title: str) -> None:
    """A terminal table that fits 80 columns: ids never cut, the name and price details left to the other
    formats."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=title,
        caption="~ estimated price, u used; --format csv|tsv|json gives every field",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("id", no_wrap=True, min_width=max((len(r.gpu) for r in rows), default=2))
    for column in ("memory", "speed", "price", "/1000"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("basis", no_wrap=True)
    for row in rows:
        price = row.price
        table.add_row(
            row.gpu,
            f"{row.memory_gb:g} GB",
            f"{row.relative_performance:.2f}",
            f"{'~' if price.estimate else ''}{price.amount:,.0f} {price.currency}"
            f"{' u' if price.kind == 'used' else ''}"
            if price
            else "—",
            f"{row.performance_per_1000:.2f}" if row.performance_per_1000 is not None else "—",
            "meas" if row.performance_basis == "measured" else "est",
        )
    Console().print(table)


def _print_stale(advisor, as_of: date, as_json: bool) -> int:
    """The cards whose every price aged out (rule cost-efficiency), with the last one seen."""
    import msgspec

    from rules.money import Pricing, months_between

    pricing = Pricing.for_question(advisor.catalog, as_of, "USD", True, advisor.rulebook)
    stale: list[dict[str, Any]] = [
        {
            "gpu": gpu.id,
            "name": gpu.name,
            "last_price": msgspec.to_builtins(pricing.money(point.price_usd, point)),
            "age_months": months_between(point.seen, as_of),
        }
        for gpu, point in pricing.stale(advisor.catalog.released_by(as_of))
    ]
    if as_json:
        print(json.dumps({"as_of": as_of.isoformat(), "stale": stale}, indent=2, ensure_ascii=False))
        return 0
    print(
        f"{len(stale)} cards without a current price on {as_of.isoformat()} (new after "
        f"{pricing.new_max_age_months} months, used after {pricing.used_max_age_months}):"
    )
    for row in stale:
        last = row["last_price"]
        print(
            f"{row['gpu']:<28} last {last['kind']} {last['date']} at {last['usd']:,.0f} USD "
            f"({row['age_months']} months; {last['source']})"
        )
    return 0


def cmd_agents(args: argparse.Namespace, settings: Settings) -> int:
    from service import agents
    from service.db import migrate

    url = settings.resolved_database_url
    migrate(url)
    if args.action == "add":
        token = agents.add_agent(url, args.name)
        print(f"Agent {args.name!r} added. Its token (shown once, store it now):\n{token}")
    elif args.action == "revoke":
        agents.revoke_agent(url, args.name)
        print(f"Agent {args.name!r} revoked.")
    else:
        rows = agents.list_agents(url)
        if args.json:
            print(json.dumps(rows, indent=2, default=str))
        elif not rows:
            print("No agents yet: `whichgpu agents add NAME`.")
        else:
            for row in rows:
                state = "revoked" if row.get("revoked_at") else "active"
                print(
                    f"{row['name']:30} {state:8} created {row['created_at']}  "
                    f"last seen {row.get('last_seen_at') or 'never'}"
                )
    return 0


def cmd_prices(args: argparse.Namespace, settings: Settings) -> int:
    """The deployment's own prices (vendor quotes, trusted price lists): its answers use them."""
    from rules.knowledge.loaded import load_catalog
    from service import lab_prices
    from service.db import migrate

    url = settings.resolved_database_url
    migrate(url)
    today = date.today()
    if args.action in ("add", "import"):
        if args.action == "add":
            seen = args.date or today.isoformat()
            given = dict(gpu=args.gpu, price=args.price, currency=args.currency, source=args.source)
            new = [lab_prices.validate(load_catalog(), **given, seen=seen, today=today)]
        else:
            try:
                text = Path(args.file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise CliError(f"cannot read {args.file}: {exc}", EXIT_BAD_INPUT) from None
            new = lab_prices.parse_csv(text, load_catalog(), today)
        for row in lab_prices.add_prices(url, new):
            print(f"added #{row.id}: {row.gpu_id} {row.price:,.2f} {row.currency} ({row.seen}; {row.source})")
    elif args.action == "remove":
        if not lab_prices.remove_price(url, args.id):
            raise CliError(f"no price #{args.id}: `whichgpu prices list` shows their numbers", EXIT_BAD_INPUT)
        print(f"removed #{args.id}")
    else:
        rows = lab_prices.list_prices(url)
        if args.json:
            print(json.dumps([lab_prices.row_json(r) for r in rows], indent=2))
        elif not rows:
            print("No prices of your own yet: `whichgpu prices add GPU PRICE --source TEXT`")
        for row in rows if not args.json else ():
            print(f"#{row.id:<4} {row.gpu_id:24} {row.price:>12,.2f} {row.currency} {row.seen}  {row.source}")
    return 0


def cmd_bot(args: argparse.Namespace, settings: Settings) -> int:
    from bot.socket import run

    run(settings.bot)
    return 0


def cmd_slack_test(args: argparse.Namespace, settings: Settings) -> int:
    """Play Slack against a running server: a signed /whichgpu command, then the answer it posts back."""
    from bot.local import SlackTrial, local_slack

    secret = args.secret or settings.bot.slack_signing_secret
    if not secret:
        raise CliError("no signing secret: set SLACK_SIGNING_SECRET to the server's, or pass --secret", 2)
    server = args.url or f"http://127.0.0.1:{settings.port}"
    with ExitStack() as stack:
        try:
            slack = stack.enter_context(local_slack(args.slack_port))
        except OSError as exc:
            raise CliError(
                f"cannot listen on 127.0.0.1:{args.slack_port} for Slack's side: {exc.strerror}"
            ) from None
        return _slack_conversation(SlackTrial(server, secret, slack, args.wait), " ".join(args.text), args)


def _slack_conversation(trial: SlackTrial, text: str, args: argparse.Namespace) -> int:
    """The command, its acknowledgement and answer printed; then the pressed button's answer, if any."""
    import httpx

    from bot.local import find_button

    try:
        ack = trial.command(text)
    except httpx.HTTPError as exc:
        raise CliError(
            f"cannot reach {trial.server} ({exc}): is `whichgpu serve` running? --url says where"
        ) from None
    _check_slack_ack(trial, ack)
    acked = ack.json() if ack.headers.get("content-type", "").startswith("application/json") else {}
    print(f"ack: {acked.get('text') or ack.text or '(empty)'}")
    if acked.get("blocks"):  # help and refusals are answered in the acknowledgement itself
        _print_blocks(acked["blocks"], args.json)
        return 0
    reply = _slack_reply(trial, 1)
    _print_blocks(reply.get("blocks") or [], args.json, reply.get("text", ""))
    if args.press:
        button = find_button(reply.get("blocks") or [], args.press)
        if button is None:
            raise CliError(f"the answer has no button {args.press!r}", EXIT_BAD_INPUT)
        _check_slack_ack(trial, trial.press(button, 2))
        print(f"\npressed [{(button.get('text') or {}).get('text', args.press)}]:")
        pressed = _slack_reply(trial, 2)
        _print_blocks(pressed.get("blocks") or [], args.json, pressed.get("text", ""))
    return 0


def _check_slack_ack(trial: SlackTrial, ack: httpx.Response) -> None:
    """A refused request as the reason a person can act on."""
    if ack.status_code == 404:
        raise CliError(
            f"{trial.server} serves no Slack endpoint: start it with SLACK_BOT_TOKEN and "
            "SLACK_SIGNING_SECRET set (docs/slack.md)"
        )
    if ack.status_code == 401:
        hint = ": use the server's SLACK_SIGNING_SECRET" if "signature" in ack.text else ""
        raise CliError(f"the server refused the request ({ack.text}){hint}")
    if ack.status_code != 200:
        raise CliError(f"the server answered {ack.status_code}: {ack.text[:300]}")


def _slack_reply(trial: SlackTrial, number: int) -> dict[str, Any]:
    reply: dict[str, Any] | None = trial.slack.wait_reply(number, trial.timeout_s)
    if reply is None:
        raise CliError(
            f"no answer reached the response URL within {trial.timeout_s:g} s; the server must be started "
            f"with WHICHGPU_SLACK_API_URL={trial.slack.api_url} (docs/slack.md)"
        )
    return reply


def _print_blocks(blocks: list[dict[str, Any]], as_json: bool, fallback: str = "") -> None:
    from bot.local import blocks_as_text

    print(json.dumps(blocks, ensure_ascii=False, indent=2) if as_json else blocks_as_text(blocks) or fallback)


def cmd_chart(args: argparse.Namespace, settings: Settings) -> int:
    from service.charts import write_chart

    write_chart(
        _load_advisor(settings),
        args.kind,
        args.workload,
        args.as_of or date.today(),
        args.output,
        currency=args.currency,
        used_ok=args.used,
    )
    print(f"wrote {args.output}")
    return 0


def cmd_settings(args: argparse.Namespace, settings: Settings) -> int:
    """The values in use and where each came from (secrets hidden); --defaults: the documented table."""
    from service.settings import effective_settings, settings_table

    if args.defaults:
        for env, default, doc in settings_table():
            print(f"{env:34} {default or '-':26} {doc}")
        return 0
    rows = effective_settings(settings)
    width = max(len(value) for _, value, _ in rows)
    for env, value, source in rows:
        print(f"{env:34} {value:{width}}  ({source})")
    return 0


def _workload_help() -> str:
    from rules.contract.values import LISTED_WORKLOADS

    return f"{', '.join(LISTED_WORKLOADS)}, or words that name one ('nlp')"


def _add_catalog(sub: Any) -> None:
    catalog = sub.add_parser("catalog", help="list the GPU catalog with prices and relative performance")
    catalog.add_argument(
        "--format",
        choices=("table", "csv", "tsv", "json"),
        help="default: a table on a terminal, tab-separated values when piped",
    )
    catalog.add_argument("--json", action="store_true", help="the same as --format json")
    catalog.add_argument("--as-of", type=_date, help="cards released and prices known by this date")
    catalog.add_argument("--vendor", help="nvidia, amd or intel")
    catalog.add_argument("--workload", type=_workload, help=_workload_help())
    catalog.add_argument("--currency", default="USD", choices=("USD", "EUR", "GBP", "RUB"))
    catalog.add_argument("--used", action="store_true", help="include used prices")
    catalog.add_argument(
        "--stale", action="store_true", help="list the cards whose prices aged out, with the last one seen"
    )
    catalog.set_defaults(run=cmd_catalog)


def _add_prices(sub: Any) -> None:
    prices = sub.add_parser("prices", help="manage this deployment's own prices (vendor quotes, price lists)")
    prices_sub = prices.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = prices_sub.add_parser("add", help="add a price: prices add 'rtx 4090' 1850 --source 'Vendor quote'")
    add.add_argument("gpu", help="the card, as the catalog names it ('rtx 4090', 'h100 sxm')")
    add.add_argument("price", help="the amount for one card")
    add.add_argument("--currency", default="USD", help="currency of the amount (default USD)")
    add.add_argument("--date", help="when the price was given, YYYY-MM-DD (default today)")
    add.add_argument("--source", required=True, help="where it comes from: 'Vendor X quote 2026-11-20'")
    imported = prices_sub.add_parser("import", help="add every row of a CSV: gpu,price,currency,date,source")
    imported.add_argument("file", help="the CSV file")
    listing = prices_sub.add_parser("list", help="list the prices")
    listing.add_argument("--json", action="store_true", help="as JSON")
    remove = prices_sub.add_parser("remove", help="remove a price by its number")
    remove.add_argument("id", type=int, help="the number `prices list` shows")
    prices.set_defaults(run=cmd_prices)


def _add_agents(sub: Any) -> None:
    agents = sub.add_parser("agents", help="manage bench-agent tokens")
    agents_sub = agents.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = agents_sub.add_parser("add", help="create an agent token (shown once)")
    add.add_argument("name")
    revoke = agents_sub.add_parser("revoke", help="revoke an agent's token")
    revoke.add_argument("name")
    listing = agents_sub.add_parser("list", help="list agents")
    listing.add_argument("--json", action="store_true")
    agents.set_defaults(run=cmd_agents)


def _add_chart(sub: Any) -> None:
    chart = sub.add_parser("chart", help="draw a chart to a PNG or SVG file")
    chart.add_argument(
        "--kind", default="perf-per-dollar", choices=("perf-per-dollar", "relative-performance")
    )
    chart.add_argument("--workload", default="transformer", type=_workload, help=_workload_help())
    chart.add_argument("--as-of", type=_date)
    chart.add_argument("--currency", default="USD", choices=("USD", "EUR", "GBP", "RUB"))
    chart.add_argument("--used", action="store_true")
    chart.add_argument("-o", "--output", required=True, help="file.png or file.svg")
    chart.set_defaults(run=cmd_chart)


def _add_slack_test(sub: Any) -> None:
    slack_test = sub.add_parser(
        "slack-test",
        help="try the bot offline: whichgpu slack-test 'nlp $800'",
        description="Send a signed /whichgpu command to a running server, as Slack would, and print the "
        "blocks it answers. The server needs SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET and "
        "WHICHGPU_SLACK_API_URL=http://127.0.0.1:PORT/api/ (PORT: --slack-port); see docs/slack.md.",
    )
    slack_test.add_argument("text", nargs="+", help="what follows /whichgpu, e.g. 'nlp $800'")
    slack_test.add_argument("--url", help="the server (default http://127.0.0.1:WHICHGPU_PORT)")
    slack_test.add_argument("--secret", help="the signing secret (default SLACK_SIGNING_SECRET)")
    slack_test.add_argument(
        "--slack-port", type=_port, default=3011, help="where Slack's side listens (default 3011)"
    )
    slack_test.add_argument("--press", metavar="BUTTON", help="then press this button of the answer")
    slack_test.add_argument("--wait", type=float, default=30.0, help="seconds to wait for each answer")
    slack_test.add_argument("--json", action="store_true", help="print the blocks as JSON")
    slack_test.set_defaults(run=cmd_slack_test)


def build_parser() -> argparse.ArgumentParser:
    codes = "\n".join(f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES.items())
    parser = argparse.ArgumentParser(
        prog="whichgpu",
        description="Which GPU to buy or rent for deep learning, and why.",
        epilog=f"exit codes:\n{codes}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the API (and Slack endpoint when configured)")
    serve.add_argument("--host", help="listen address (default WHICHGPU_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=_port, help="port (default WHICHGPU_PORT or 8000)")
    serve.add_argument("--access-log", action="store_true", help="log every request (costs throughput)")
    serve.set_defaults(run=cmd_serve)

    migrate = sub.add_parser("migrate", help="migrate the database, then exit")
    migrate.set_defaults(run=cmd_migrate)

    ask = sub.add_parser(
        "ask",
        help="ask a question: whichgpu ask 'nlp $800' (in single quotes)",
        description=f"Answer a question in plain words. Exits {EXIT_NOT_UNDERSTOOD} when the question was "
        f"not understood (the reply says what is missing), {EXIT_BAD_INPUT} on an invalid value.",
    )
    ask.add_argument("text", nargs="+", help="the question in plain words")
    ask.add_argument("--json", action="store_true", help="print the structured answer")
    ask.add_argument(
        "--why", action="store_true", help="the full answer: every finding and the rule behind it"
    )
    ask.add_argument("--as-of", type=_date, help="answer as on this date (YYYY-MM-DD)")
    ask.add_argument(
        "--skypilot",
        type=Path,
        metavar="FILE",
        help="for a training run with its tokens: write a SkyPilot task whose resources are the rentals in "
        "order of what the whole job costs",
    )
    ask.add_argument(
        "--cluster",
        choices=("k8s", "slurm"),
        help="with --skypilot: the lab's Kubernetes or Slurm cluster holds the asker's cards: list it first",
    )
    ask.set_defaults(run=cmd_ask)

    _add_catalog(sub)
    _add_agents(sub)
    _add_prices(sub)

    bot = sub.add_parser("bot", help="run the Slack bot over Socket Mode")
    bot.set_defaults(run=cmd_bot)
    _add_slack_test(sub)

    _add_chart(sub)

    settings_cmd = sub.add_parser(
        "settings", help="print the settings in effect and where each came from (secrets hidden)"
    )
    settings_cmd.add_argument(
        "--defaults", action="store_true", help="print each variable's default and meaning instead"
    )
    settings_cmd.set_defaults(run=cmd_settings)

    completion = sub.add_parser(
        "completion",
        help="print a shell completion script",
        description='bash: eval "$(whichgpu completion bash)" in ~/.bashrc; '
        'zsh: eval "$(whichgpu completion zsh)" in ~/.zshrc',
    )
    completion.add_argument("shell", choices=("bash", "zsh"))
    completion.set_defaults(run=cmd_completion)
    return parser


class _VersionAction(argparse.Action):
    """``--version``, its number looked up only when asked: importlib.metadata costs every start ~10 ms."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, nargs=0,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"{parser.prog} {_version()}")
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("whichgpu")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def cmd_completion(args: argparse.Namespace, settings: Settings) -> int:
    from service.completion import completion_script

    print(completion_script(build_parser(), args.shell))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # --help and --version exit here, having loaded no settings
    from rules.settings import SettingsError
    from service.settings import get_settings

    run: Callable[[argparse.Namespace, Settings], int] = args.run
    try:
        return run(args, get_settings())
    except CliError as exc:
        print(f"whichgpu: {exc}", file=sys.stderr)
        return exc.code
    except SettingsError as exc:
        print(f"whichgpu: setting error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `whichgpu ask … | head`: the reader left; nothing to report
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 — keeps the interpreter's final flush quiet
        return 0
    except Exception as exc:  # the last line of defence: one line, no traceback
        message, code = _describe(exc)
        print(f"whichgpu: {message}", file=sys.stderr)
        return code


def _describe(exc: Exception) -> tuple[str, int]:
    """(one-line message, exit code): 2 when the user's input was at fault."""
    name = type(exc).__name__
    if name in ("CatalogError", "DataFileError"):
        return f"the catalog data is broken: {exc}", EXIT_FAILED
    if name == "OperationalError":
        return (
            f"cannot reach the database ({str(exc).splitlines()[0]}); check WHICHGPU_DATABASE_URL",
            EXIT_FAILED,
        )
    if isinstance(exc, ValueError):  # AgentError, QuestionError …
        return str(exc).strip("'\""), EXIT_BAD_INPUT
    if isinstance(exc, LookupError):
        return str(exc).strip("'\""), EXIT_FAILED
    return f"{name}: {exc}", EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
