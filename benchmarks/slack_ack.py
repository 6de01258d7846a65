"""How fast the Slack endpoint acks: request → ack latency of signed slash commands.

Slack gives an app 3 seconds to acknowledge; whichgpu's target is p99 < 100 ms with
20 commands in flight. The script starts the HTTP-mode bot (the real bolt pipeline
in a Litestar app under uvicorn, in its own process), a local fake Slack and a
local fake whichgpu API (answering with a real engine answer), then fires, from a
third process, rounds of concurrent signed ``/whichgpu`` commands and reports
the ack latency (request sent → HTTP response) and, for context, the answer latency
(request sent → answer posted to the response URL).

    python benchmarks/slack_ack.py [--concurrency 20] [--rounds 10] [--warmup 2] [--gc-freeze] [--json]

Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fake Slack lives with the tests
from tests.fake_slack import FORM, FakeSlack, LocalHTTPServer, command_body, signed

SECRET = "benchmark-signing-secret"
TOKEN = "xoxb-benchmark-not-a-real-token"
TARGET_P99_MS = 100.0


def engine_answer(text: str) -> dict[str, Any]:
    """What /v1/ask returns for ``text``, from the real engine (so the bot renders a real answer)."""
    from rules.advisor import Advisor
    from rules.ask import ask
    from rules.knowledge.loaded import load_catalog

    return {**msgspec.to_builtins(ask(Advisor(load_catalog()), text)), "conversation_id": "benchmark"}


class FakeAPI:
    """``POST /v1/ask`` answering one canned reply at once, on 127.0.0.1."""

    def __init__(self, reply: dict[str, Any]) -> None:
        body = json.dumps(reply).encode()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            wbufsize = -1  # headers and body in one write: no 40 ms Nagle/delayed-ACK stall per reply
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = LocalHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(port: int, gc_freeze: bool) -> None:
    """The bot's HTTP endpoint alone, configured from the environment (the child process).

    ``gc_freeze``: move everything alive after start-up out of the collector's reach
    (``gc.freeze()``). Without it a full collection walks every object of Litestar,
    bolt and friends, 70–110 ms of a blocked event loop on a small VM, and the acks
    in flight wait for it.
    """
    import gc

    import uvicorn
    from litestar import Litestar

    from bot.http import slack_routes
    from bot.settings import BotSettings

    app = Litestar(route_handlers=slack_routes(BotSettings()))
    if gc_freeze:
        gc.collect()
        gc.freeze()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


class BotServer:
    """The bot endpoint in a child process, configured through its environment."""

    def __init__(self, env: dict[str, str], gc_freeze: bool) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, __file__, "--serve", str(self.port)]
        if gc_freeze:
            command.append("--gc-freeze")
        self.process = subprocess.Popen(command, env={**os.environ, **env})
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the bot server exited with {self.process.returncode}")
            try:
                if httpx.post(f"{self.url}/slack/events", content=b"", timeout=1).status_code == 401:
                    return  # up, and refusing unsigned requests
            except httpx.TransportError:
                time.sleep(0.1)
        raise RuntimeError("the bot server did not start within 60 s")

    def cpu_s(self) -> float | None:
        """CPU seconds the bot process has used so far (Linux /proc; None elsewhere)."""
        try:
            stat = Path(f"/proc/{self.process.pid}/stat").read_text(encoding="ascii")
            fields = stat.rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


async def one_command(client: httpx.AsyncClient, url: str, respond_base: str, key: str,
                      sent_at: dict[str, float]) -> float:
    body = command_body("nlp $800", f"{respond_base}/{key}")
    headers = signed(SECRET, body, FORM)
    started = time.perf_counter()
    sent_at[key] = time.time()
    response = await client.post(f"{url}/slack/events", content=body.encode(), headers=headers)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"ack failed: {response.status_code} {response.text[:200]}")
    return elapsed * 1000


async def run_rounds(url: str, respond_base: str, concurrency: int, rounds: int,
                     warmup: int) -> tuple[list[float], dict[str, float]]:
    acks: list[float] = []
    sent_at: dict[str, float] = {}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=10, limits=limits) as client:
        for index in range(warmup + rounds):
            keys = [f"r{index}-{n}" for n in range(concurrency)]
            commands = (one_command(client, url, respond_base, k, sent_at) for k in keys)
            results = await asyncio.gather(*commands)
            if index >= warmup:
                acks += results
            else:
                for key in keys:
                    sent_at.pop(key, None)
            await asyncio.sleep(0.05)
    return acks, sent_at


def fire(bot_url: str, respond_base: str, args: argparse.Namespace) -> tuple[list[float], dict[str, float]]:
    """Run the load generator in a child process; its ack latencies and send times."""
    command = [sys.executable, __file__, "--fire", bot_url, respond_base,
               "--concurrency", str(args.concurrency), "--rounds", str(args.rounds),
               "--warmup", str(args.warmup)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["acks"], result["sent_at"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[rank]


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50_ms": percentile(values, 50), "p90_ms": percentile(values, 90),
            "p99_ms": percentile(values, 99), "max_ms": max(values), "mean_ms": statistics.fmean(values),
            "stdev_ms": statistics.pstdev(values)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=20, help="commands in flight per round")
    parser.add_argument("--rounds", type=int, default=10, help="measured rounds")
    parser.add_argument("--warmup", type=int, default=2,
                        help="rounds before measuring (first auth.test, imports)")
    parser.add_argument("--json", action="store_true", help="print the result record as JSON")
    parser.add_argument("--gc-freeze", action="store_true",
                        help="gc.freeze() in the bot process after start-up (no full-collection pauses)")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--fire", nargs=2, metavar=("BOT_URL", "RESPOND_BASE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.gc_freeze)
        return 0
    if args.fire:  # the load generator, in its own process so the fakes' threads do not share its GIL
        acks, sent_at = asyncio.run(run_rounds(*args.fire, args.concurrency, args.rounds, args.warmup))
        print(json.dumps({"acks": acks, "sent_at": sent_at}))
        return 0

    api = FakeAPI(engine_answer("nlp $800"))
    with FakeSlack() as fake, tempfile.TemporaryDirectory() as data_dir:
        env = {"SLACK_BOT_TOKEN": TOKEN, "SLACK_SIGNING_SECRET": SECRET,
               "WHICHGPU_SLACK_API_URL": fake.api_url, "WHICHGPU_API_URL": api.url,
               "WHICHGPU_DATA_DIR": data_dir}
        bot = BotServer(env, args.gc_freeze)
        try:
            cpu_before = bot.cpu_s()
            acks, sent_at = fire(bot.url, fake.response_url("").rstrip("/"), args)
            total = (args.warmup + args.rounds) * args.concurrency
            try:
                fake.wait_for("response_url", total, timeout=30)
                error = None
            except AssertionError as exc:  # recorded, not fatal: the ack numbers stand on their own
                error = str(exc)[:300]
            answered = fake.sent("response_url")
            cpu_after = bot.cpu_s()
        finally:
            bot.close()
            api.close()
    answers = [(c.at - sent_at[c.data["_key"]]) * 1000 for c in answered if c.data["_key"] in sent_at]
    cpu_per_command = None
    if cpu_before is not None and cpu_after is not None:
        commands = len(sent_at) + args.warmup * args.concurrency
        cpu_per_command = (cpu_after - cpu_before) * 1000 / max(1, commands)
    record = {
        "name": "slack_ack",
        "environ": {"python": platform.python_version(), "machine": platform.machine(),
                    "cpus": os.cpu_count(),
                    "load_average_1m": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
                    "concurrency": args.concurrency,
                    "rounds": args.rounds, "warmup": args.warmup,
                    "gc_freeze": args.gc_freeze},
        "metrics": {"ack": summary(acks), "answer": summary(answers) if answers else None,
                    "answered": len(answers), "target_p99_ms": TARGET_P99_MS,
                    "bot_cpu_ms_per_command": cpu_per_command},
        "error": error,
    }
    if args.json:
        print(json.dumps(record, indent=2))
    else:
        ack, answer = record["metrics"]["ack"], record["metrics"]["answer"]
        print(f"slack ack: {ack['n']} signed /whichgpu commands, {args.concurrency} concurrent, "
              f"{args.rounds} rounds (+{args.warmup} warm-up)"
              f"{', gc.freeze() in the bot' if args.gc_freeze else ''}")
        print(f"  ack     p50 {ack['p50_ms']:.1f} ms  p90 {ack['p90_ms']:.1f} ms  "
              f"p99 {ack['p99_ms']:.1f} ms  max {ack['max_ms']:.1f} ms")
        if answer:
            print(f"  answer  p50 {answer['p50_ms']:.1f} ms  p99 {answer['p99_ms']:.1f} ms  "
                  f"(request → response_url post, {len(answers)}/{len(acks)} answered)")
        if record["metrics"]["bot_cpu_ms_per_command"] is not None:
            environ = record["environ"]
            print(f"  bot CPU {cpu_per_command:.1f} ms per command (ack + answer); "
                  f"{environ['cpus']} CPUs, load average {environ['load_average_1m']:.1f}")
        if error:
            print(f"  error: {error}")
        verdict = "meets" if ack["p99_ms"] < TARGET_P99_MS else "MISSES"
        print(f"  p99 ack {verdict} the {TARGET_P99_MS:.0f} ms target (Slack's limit is 3000 ms)")
        if ack["stdev_ms"] > ack["p50_ms"]:
            print("  warning: the spread is larger than the median; the machine may be busy, run again")
    return 0 if record["metrics"]["ack"]["p99_ms"] < TARGET_P99_MS else 1


if __name__ == "__main__":
    sys.exit(main())
