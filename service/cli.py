"""The `whichgpu` command: serve the API, ask in the terminal, browse the catalog, manage agents.

Every failure a user can cause ends in one clear line on stderr and a non-zero
exit code (:data:`EXIT_CODES`), never a traceback.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import socket
import sys
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from rules.settings import SettingsError
from service.settings import Settings, effective_settings, get_settings, settings_table

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


def _load_advisor(settings: Settings):
    """The engine over the shipped catalog, with the lab's measurements when a database has any."""
    from rules.advisor import Advisor
    from rules.knowledge.catalog import load_catalog
    from service.measurements import lab_measurements

    return Advisor(
        load_catalog(), lab_measurements(settings.resolved_database_url), settings.electricity_price
    )


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the app is built, so a taken port fails at once and clearly."""
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


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
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
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def cmd_migrate(args: argparse.Namespace, settings: Settings) -> int:
    """Bring the database schema up to date (what `serve` does on start)."""
    from service.db import migrate

    migrate(settings.resolved_database_url)
    print("database is at the newest schema")
    return 0


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    import msgspec

    from rules.ask import ask
    from rules.contract.question import check_text
    from rules.errors import QuestionError

    text = " ".join(args.text)
    try:
        check_text(text)  # the asker's words; --as-of adds to them
        if args.as_of:
            text += f" as of {args.as_of.isoformat()}"
        reply = ask(_load_advisor(settings), text)
    except QuestionError as exc:
        raise CliError(f"{exc.field}: {exc.message}", EXIT_BAD_INPUT) from None
    if args.json:
        print(json.dumps(msgspec.to_builtins(reply), indent=2, ensure_ascii=False))
    else:
        _print_markdown(reply.text)
    return EXIT_NOT_UNDERSTOOD if reply.intent == "clarify" else 0


_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])_(?!_)(.+?)(?<!_)_(?![\w*])")
_CODE = re.compile(r"`([^`]+)`")


def _print_markdown(text: str) -> None:
    """Piped or redirected: the Markdown itself (the Slack answer's text). On a terminal: the same lines with
    bold, italics and code as ANSI styles (no colour with NO_COLOR) — the answers use only those three marks,
    and a full Markdown renderer cost a third of the command's time."""
    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        print(text)
        return
    styled = _BOLD.sub("\x1b[1m\\1\x1b[22m", text)
    styled = _ITALIC.sub("\x1b[3m\\1\x1b[23m", styled)
    print(_CODE.sub("\x1b[36m\\1\x1b[39m", styled))


def cmd_catalog(args: argparse.Namespace, settings: Settings) -> int:
    advisor = _load_advisor(settings)
    as_of = args.as_of or date.today()
    if args.stale:
        return _print_stale(advisor, as_of, args.json)
    rows = advisor.card_rows(args.workload or "general", as_of, args.currency, used_ok=args.used)
    if args.vendor:
        rows = tuple(r for r in rows if r.vendor == args.vendor.lower())
        if not rows:
            raise CliError(
                f"no cards from vendor {args.vendor!r}; vendors: nvidia, amd, intel", EXIT_BAD_INPUT
            )
    if args.json:
        import msgspec

        print(
            json.dumps(
                {
                    "as_of": as_of.isoformat(),
                    "workload": args.workload or "general",
                    "catalog_version": advisor.catalog.version,
                    "reference_gpu": advisor.reference.id,
                    "gpus": msgspec.to_builtins(rows),
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"whichgpu catalog as of {as_of.isoformat()} — {len(rows)} cards, "
        f"performance for {args.workload or 'general'} relative to {advisor.reference.name}"
    )
    for column in ("id", "name", "vendor", "memory", "rel. perf", "basis", "price", "perf/1000"):
        table.add_column(
            column, justify="right" if column in ("memory", "rel. perf", "price", "perf/1000") else "left"
        )
    for row in rows:
        price = row.price
        table.add_row(
            row.gpu,
            row.name,
            row.vendor,
            f"{row.memory_gb:g} GB",
            f"{row.relative_performance:.2f}",
            row.performance_basis,
            f"{price.amount:,.0f} {price.currency} ({price.kind} {price.seen}"
            f"{', estimate' if price.estimate else ''})"
            if price
            else "—",
            f"{row.performance_per_1000:.2f}" if row.performance_per_1000 is not None else "—",
        )
    console = Console()
    if not console.is_terminal:  # piped: do not squeeze the table into 80 columns
        console = Console(width=200)
    console.print(table)
    return 0


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


def cmd_bot(args: argparse.Namespace, settings: Settings) -> int:
    from bot.socket import run

    run(settings.bot)
    return 0


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
    if args.defaults:
        for env, default, doc in settings_table():
            print(f"{env:34} {default or '-':26} {doc}")
        return 0
    rows = effective_settings(settings)
    width = max(len(value) for _, value, _ in rows)
    for env, value, source in rows:
        print(f"{env:34} {value:{width}}  ({source})")
    return 0


def _add_catalog(sub: Any) -> None:
    catalog = sub.add_parser("catalog", help="list the GPU catalog with prices and relative performance")
    catalog.add_argument("--json", action="store_true")
    catalog.add_argument("--as-of", type=_date, help="cards released and prices known by this date")
    catalog.add_argument("--vendor", help="nvidia, amd or intel")
    catalog.add_argument(
        "--workload", choices=("cnn", "rnn", "transformer", "llm", "rl", "kaggle", "general")
    )
    catalog.add_argument("--currency", default="USD", choices=("USD", "EUR", "GBP", "RUB"))
    catalog.add_argument("--used", action="store_true", help="include used prices")
    catalog.add_argument(
        "--stale", action="store_true", help="list the cards whose prices aged out, with the last one seen"
    )
    catalog.set_defaults(run=cmd_catalog)


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
    chart.add_argument(
        "--workload",
        default="transformer",
        choices=("cnn", "rnn", "transformer", "llm", "rl", "kaggle", "general"),
    )
    chart.add_argument("--as-of", type=_date)
    chart.add_argument("--currency", default="USD", choices=("USD", "EUR", "GBP", "RUB"))
    chart.add_argument("--used", action="store_true")
    chart.add_argument("-o", "--output", required=True, help="file.png or file.svg")
    chart.set_defaults(run=cmd_chart)


def build_parser() -> argparse.ArgumentParser:
    codes = "\n".join(f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES.items())
    parser = argparse.ArgumentParser(
        prog="whichgpu",
        description="Which GPU to buy or rent for deep learning, and why.",
        epilog=f"exit codes:\n{codes}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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
        help='ask a question, e.g. whichgpu ask "nlp $800"',
        description=f"Answer a question in plain words. Exits {EXIT_NOT_UNDERSTOOD} when the question was "
        f"not understood (the reply says what is missing), {EXIT_BAD_INPUT} on an invalid value.",
    )
    ask.add_argument("text", nargs="+", help="the question in plain words")
    ask.add_argument("--json", action="store_true", help="print the structured answer")
    ask.add_argument("--as-of", type=_date, help="answer as on this date (YYYY-MM-DD)")
    ask.set_defaults(run=cmd_ask)

    _add_catalog(sub)
    _add_agents(sub)

    bot = sub.add_parser("bot", help="run the Slack bot over Socket Mode")
    bot.set_defaults(run=cmd_bot)

    _add_chart(sub)

    settings_cmd = sub.add_parser(
        "settings", help="print the settings in effect and where each came from (secrets hidden)"
    )
    settings_cmd.add_argument(
        "--defaults", action="store_true", help="print each variable's default and meaning instead"
    )
    settings_cmd.set_defaults(run=cmd_settings)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
