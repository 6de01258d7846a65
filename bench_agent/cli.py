"""``bench-agent``: run the benchmarks once, run them as a daemon when GPUs are idle, show status.

Settings come from :class:`bench_agent.settings.AgentSettings` (``WHICHGPU_*`` environment),
optionally under a TOML file (``--config PATH`` or ``WHICHGPU_AGENT_CONFIG``); the environment
wins over the file.

Exit codes: 0 done; 1 the run failed; 2 bad usage or configuration; 75 the device is
being benchmarked by another agent (try later); 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._version import __version__
from .settings import AgentSettings, SettingsError

EXIT_FAILED, EXIT_USAGE, EXIT_BUSY, EXIT_INTERRUPTED = 1, 2, 75, 130


class CliError(Exception):
    """A failure to report as one line and an exit code."""

    def __init__(self, message: str, code: int = EXIT_FAILED):
        super().__init__(message)
        self.code = code


# --- settings -----------------------------------------------------------------------------


def load_settings(config_path: str | None) -> AgentSettings:
    """The agent's settings (environment over the TOML file); a bad value is a usage error."""
    try:
        return AgentSettings.load(config_path)
    except SettingsError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None


def _lock_dir(settings: AgentSettings, given: str | None) -> Path:
    return Path(given) if given else settings.data_dir / "locks"


# --- run ----------------------------------------------------------------------------------


def _suite_config(args: argparse.Namespace) -> Any:
    from .suite import BENCHMARKS, SuiteConfig
    from .timing import FULL, QUICK, TimingPolicy

    benchmarks = tuple(args.only.split(",")) if args.only else BENCHMARKS
    unknown = [b for b in benchmarks if b not in BENCHMARKS]
    if unknown:
        known = ", ".join(BENCHMARKS)
        raise CliError(f"unknown benchmark(s) {', '.join(unknown)}; known: {known}", EXIT_USAGE)
    policy = None
    if args.warmup is not None or args.seconds is not None:
        base = QUICK if args.quick else FULL
        policy = TimingPolicy(
            warmup_s=base.warmup_s if args.warmup is None else args.warmup,
            run_s=base.run_s if args.seconds is None else args.seconds,
            min_repeats=3 if args.seconds is not None and args.seconds < base.run_s else base.min_repeats,
            max_repeats=base.max_repeats,
            block_s=base.block_s,
        )
    stream_bytes = args.stream_mb and int(args.stream_mb * 1024**2)
    return SuiteConfig(quick=args.quick, policy=policy, benchmarks=benchmarks, tier=args.tier,
                       matmul_n=args.matmul_n, stream_bytes=stream_bytes)


class _Progress:
    """A rich progress bar on stderr (JSON and tables go to stdout)."""

    def __init__(self, enabled: bool):
        self._bar: Any = None  # rich's Progress and TaskID: rich is imported only when the bar is shown
        self._task: Any = None
        if enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn())
            self._bar = Progress(*columns, console=Console(stderr=True), transient=True)

    def __enter__(self) -> _Progress:
        if self._bar:
            self._bar.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._bar:
            self._bar.stop()

    def on_case(self, index: int, total: int, case: Any) -> None:
        if not self._bar:
            return
        if self._task is None:
            self._task = self._bar.add_task("benchmarking", total=total)
        self._bar.update(self._task, completed=index, description=case.label if case else "done")


def _print_table(payload: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    dev = payload["device"]
    table = Table(title=f"{dev['name']} ({dev['type']}) — run {payload['run_id']}")
    for col in ("benchmark", "precision", "value", "unit", "p10–p90", "cv", "flags"):
        table.add_column(col, justify="right" if col in ("value", "cv") else "left")
    for r in payload["results"]:
        if r["error"]:
            table.add_row(r["benchmark"], r["precision"], "—", r["unit"], "", "", f"error: {r['error'][:60]}")
            continue
        spread = f"{r['p10']:.4g}–{r['p90']:.4g}"
        table.add_row(r["benchmark"], r["precision"], f"{r['value']:.4g}", r["unit"], spread,
                      f"{100 * r['cv']:.1f}%", ",".join(r["flags"]))
    Console().print(table)


def _say(message: str) -> None:
    print(f"bench-agent: {message}", file=sys.stderr)


def advice_exclusions(payload: dict[str, Any]) -> list[str]:
    """Why the service keeps a run without letting it into the advice: quick runs understate a GPU, and a
    CPU has no catalog card whose estimate a measurement could replace."""
    reasons = []
    if payload.get("quick"):
        reasons.append("a --quick run (smaller sizes, shorter timing)")
    if payload.get("device", {}).get("type") == "cpu":
        reasons.append("a CPU run (the advice compares GPUs)")
    return reasons


def install_hint() -> str:
    """How to install the agent's extra here: in a source checkout the make target (CPU torch from PyTorch's
    index), elsewhere the package extra."""
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "pyproject.toml").is_file() and (checkout / "Makefile").is_file():
        return f"make -C {checkout} install-agent"
    return "pip install 'whichgpu[agent]'"


def cmd_run(args: argparse.Namespace) -> int:
    from .agent import DeviceBusy, History, benchmark_device
    from .device import DeviceError, available_devices, resolve_device
    from .nvml import open_nvml
    from .report import ServiceClient, flush
    from .spool import Spool

    settings = load_settings(args.config)
    config = _suite_config(args)
    try:
        name = args.device or (settings.agent_devices[0] if settings.agent_devices
                               else available_devices()[0])
        device = resolve_device(name)
    except DeviceError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    nvml = open_nvml() if device.type == "cuda" else None
    try:
        with _Progress(enabled=not args.no_progress) as progress:
            payload = benchmark_device(device, config, nvml=nvml,
                                       idle_threshold_pct=settings.agent_idle_utilization,
                                       lock_dir=_lock_dir(settings, args.lock_dir), on_case=progress.on_case)
    except DeviceBusy as exc:
        raise CliError(str(exc), EXIT_BUSY) from None
    finally:
        if nvml:
            nvml.shutdown()
    spool = Spool(settings.spool_dir)
    entry = spool.put(payload)
    delivery = "spooled"
    if not args.no_send:
        with ServiceClient(settings.api_url, settings.agent_token) as client:
            report = flush(spool, client)
        if payload["run_id"] in report.delivered:
            delivery = "delivered"
            _say(f"run {payload['run_id']} delivered to {settings.api_url}")
            unused = advice_exclusions(payload)
            if unused:
                _say(f"stored, but not used for advice: {'; '.join(unused)} (a full run on a GPU counts)")
        elif payload["run_id"] in report.rejected:
            delivery = "rejected"
            _say(f"the service refused run {payload['run_id']}; kept in {spool.rejected_dir}")
        else:
            why = report.auth_error or report.last_error or "not attempted yet"
            _say(f"run {payload['run_id']} kept in {entry.path} for a later retry ({why})")
    else:
        _say(f"run {payload['run_id']} spooled in {entry.path}")
    History(settings.data_dir / "agent-runs.jsonl").add(payload, delivery)
    if args.json:
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(payload)
    return 0


# --- daemon -------------------------------------------------------------------------------


def cmd_daemon(args: argparse.Namespace) -> int:
    import threading

    from .agent import Daemon, History
    from .device import available_devices
    from .nvml import open_nvml
    from .report import ServiceClient
    from .spool import Spool

    settings = load_settings(args.config)
    if not settings.agent_token:
        raise CliError("no agent token: the service would refuse every run, so the daemon does not start. "
                       "Set WHICHGPU_AGENT_TOKEN (`whichgpu agents add NAME` prints one)", EXIT_USAGE)
    config = _suite_config(args)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s bench-agent %(levelname)s %(message)s",
                        stream=sys.stderr)
    devices = args.devices.split(",") if args.devices else list(settings.agent_devices) or available_devices()
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    nvml = open_nvml()
    interval = settings.agent_interval_s if args.interval is None else args.interval
    logging.getLogger("bench_agent").info("devices %s, every %gs, reporting to %s",
                                          ",".join(devices), interval, settings.api_url)
    unused = [reason for reason, applies in (("--quick", args.quick), ("cpu", "cpu" in devices)) if applies]
    if unused:
        logging.getLogger("bench_agent").warning(
            "runs with %s are stored but never used for advice (a full run on a GPU counts)",
            " or ".join(unused),
        )
    idle_threshold = settings.agent_idle_utilization if args.idle_threshold is None else args.idle_threshold
    try:
        with ServiceClient(settings.api_url, settings.agent_token) as client:
            daemon = Daemon(
                devices=devices, config=config, spool=Spool(settings.spool_dir), client=client,
                history=History(settings.data_dir / "agent-runs.jsonl"),
                lock_dir=_lock_dir(settings, args.lock_dir), idle_threshold_pct=idle_threshold,
                interval_s=interval, nvml=nvml, stop=stop, require_idle=not args.force,
            )
            rounds = daemon.run(max_rounds=args.max_rounds)
    finally:
        if nvml:
            nvml.shutdown()
    logging.getLogger("bench_agent").info("stopped after %d round(s)", rounds)
    return 0


# --- status -------------------------------------------------------------------------------


def cmd_status(args: argparse.Namespace) -> int:
    from .agent import History
    from .report import ServiceClient
    from .spool import Spool

    settings = load_settings(args.config)
    spool = Spool(settings.spool_dir)
    with ServiceClient(settings.api_url, settings.agent_token) as client:
        service = client.reachable()
    status: dict[str, Any] = {
        "agent_version": __version__,
        "data_dir": str(settings.data_dir),
        "last_runs": History(settings.data_dir / "agent-runs.jsonl").recent(args.last),
        "spool": {**spool.size(), "dir": str(settings.spool_dir), "rejected_runs": spool.rejected()[-5:]},
        "service": service,
        "token_configured": bool(settings.agent_token),
    }
    if args.json:
        json.dump(status, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"bench-agent {__version__}, data in {settings.data_dir}")
    if service["reachable"]:
        svc = f"reachable (HTTP {service['status']}, {service['latency_ms']} ms)"
    else:
        svc = f"NOT reachable ({service.get('error') or 'HTTP ' + str(service.get('status'))})"
    print(f"service {service['url']}: {svc}; agent token {'set' if settings.agent_token else 'NOT set'}")
    s = status["spool"]
    print(f"spool: {s['pending']} run(s) waiting ({s['pending_bytes']} bytes), {s['rejected']} rejected, "
          f"{s['unusable']} unusable (set aside on the next round)")
    for r in s["rejected_runs"]:
        print(f"  rejected {r['run_id']}: {r.get('reason')}")
    print(f"last {len(status['last_runs'])} run(s):")
    for r in status["last_runs"]:
        flags = ",".join(r["flags"]) or "-"
        quick = "  (quick)" if r.get("quick") else ""
        print(f"  {r['started_at']}  {r['device']}  {r['delivery']}  flags={flags}  "
              f"errors={r['errors']}{quick}")
    return 0


# --- parser -------------------------------------------------------------------------------


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _add_suite_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true",
                   help="shorter timing and smaller sizes; skips CPU bf16 (what CI runs)")
    p.add_argument("--only", metavar="NAMES", help="comma-separated benchmarks to run (default: all)")
    p.add_argument("--lock-dir", metavar="DIR", help="per-device lock files (default: DATA_DIR/locks); "
                   "share it between agents of one host")
    tune = p.add_argument_group("sizes and timing (defaults come from the device)")
    tune.add_argument("--warmup", type=_positive(float), metavar="S", help="warm-up seconds per case")
    tune.add_argument("--seconds", type=_positive(float), metavar="S", help="measuring seconds per case")
    tune.add_argument("--matmul-n", type=_positive(int), metavar="N", help="square matmul size")
    tune.add_argument("--stream-mb", type=_positive(float), metavar="MB",
                      help="bytes per bandwidth array in MiB (default: >= 4x last-level cache)")
    tune.add_argument("--tier", choices=["tiny", "cpu_quick", "cpu", "gpu_small", "gpu"],
                      help="model size tier")


def build_parser() -> argparse.ArgumentParser:
    about = ("whichgpu bench agent: PyTorch reference benchmarks on this host, "
             "reported to the whichgpu service.")
    parser = argparse.ArgumentParser(prog="bench-agent", description=about)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--config", metavar="PATH",
                        help="TOML file of settings (also WHICHGPU_AGENT_CONFIG); the environment wins")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{run,daemon,status}")

    run = sub.add_parser("run", help="benchmark one device once, spool and report the result")
    run.add_argument("--once", action="store_true",
                     help="one run, then exit (the only mode of `run`; the loop is `daemon`)")
    run.add_argument("--device", metavar="DEV", help="torch device: cuda:0, cpu, mps … "
                     "(default: first of WHICHGPU_AGENT_DEVICES, else the first GPU, else cpu)")
    run.add_argument("--json", action="store_true", help="print the payload as JSON on stdout")
    run.add_argument("--no-send", action="store_true", help="spool the result without contacting the service")
    run.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    _add_suite_options(run)
    run.set_defaults(handler=cmd_run)

    daemon = sub.add_parser("daemon",
                            help="benchmark idle GPUs every interval and deliver results (SIGTERM stops)")
    daemon.add_argument("--devices", metavar="DEVS",
                        help="comma-separated torch devices (default: WHICHGPU_AGENT_DEVICES, else all GPUs)")
    daemon.add_argument("--interval", type=_positive(float), metavar="S",
                        help="seconds between rounds (default: WHICHGPU_AGENT_INTERVAL)")
    daemon.add_argument("--max-rounds", type=_positive(int), metavar="N",
                        help="stop after N rounds (default: run until SIGTERM)")
    daemon.add_argument("--force", action="store_true",
                        help="benchmark devices even when busy (their runs are flagged contended)")
    daemon.add_argument("--idle-threshold", type=_positive(float), metavar="PCT",
                        help="utilisation %% under which a device is idle "
                        "(default: WHICHGPU_AGENT_IDLE_UTILIZATION)")
    _add_suite_options(daemon)
    daemon.set_defaults(handler=cmd_daemon)

    status = sub.add_parser("status", help="last runs, spool size, whether the service answers")
    status.add_argument("--json", action="store_true", help="machine-readable status on stdout")
    status.add_argument("--last", type=_positive(int), default=5, metavar="N",
                        help="how many recent runs to show")
    status.set_defaults(handler=cmd_status)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``bench-agent`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)  # bad usage: argparse prints usage and exits 2
    try:
        return args.handler(args)
    except CliError as exc:
        _say(f"error: {exc}")
        return exc.code
    except KeyboardInterrupt:
        _say("interrupted")
        return EXIT_INTERRUPTED
    except ModuleNotFoundError as exc:
        _say(f"error: {exc.name} is not installed; install the agent's extra: {install_hint()}")
        return EXIT_FAILED
    except Exception as exc:  # never a traceback for the user; the message says what failed
        if os.environ.get("WHICHGPU_DEBUG"):
            raise
        _say(f"error: {type(exc).__name__}: {exc}")
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
