"""Can abusive clients stall the server for everyone else? Normal users' latency, quiet and under abuse.

Run by hand:  .venv/bin/python benchmarks/abuse_load.py [--duration 20] [--rate-limit 0]

Starts a real `whichgpu serve` on a fresh SQLite database, then:
1. quiet: the normal users alone for a few seconds (GET /v1/models and a different short
   /v1/ask question, alternating, 20 requests a second in all from 16 addresses 127.0.1.x);
2. abused: the same normal users while 4 abusive clients each send as fast as the server
   answers, one kind each, every request different so no cache helps:
   - chat-history: POST /v1/chat/completions with the largest history accepted (4 user turns
     of 2,000 characters of `<http:` and `<@U1|` runs, assistant turns filling the 60,000
     characters);
   - ask-pathological: POST /v1/ask with 2,000 characters of the same runs;
   - ask-varied: POST /v1/ask with a new short question every time (engine work, no cache hit);
   - junk: bodies over the size limit, broken JSON, the wrong media type, unknown routes;
   - header-flood: a request head of endless 1 KB header lines on one socket, again on a new
     socket once the server refuses it (431) and closes;
   - idle-connections: 1,100 connections that never send a byte, each reopened when the server
     closes it (the per-address connection cap answers 503, the head timeout closes the rest).
Each abusive client has its own loopback address (127.0.0.2 …), so `--rate-limit N`
(WHICHGPU_RATE_LIMIT, N ≥ 75 so normal users stay under it) shows what the per-client limit adds.
3. stalled (with `--stall-db SECONDS` and a PostgreSQL WHICHGPU_DATABASE_URL): the server reaches
   the database through a proxy that holds every byte for SECONDS; the normal users' one-shot
   questions and /v1/models must keep answering from the snapshot in memory.
Prints the normal requests' p50 / p99 / max per phase and the abusers' answers by status;
the target is a normal p99 under 100 ms while abused. Exit status 1 when it is missed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import resource
import select
import socket
import time
from collections import Counter

from stall_proxy import StallProxy

from served import cpu_seconds, whichgpu_serve

TARGET_P99_MS = 100.0
NORMAL_EVERY_S = 0.05
NORMAL_USERS = 16  # the normal traffic comes from 16 addresses taking turns: 75 requests a minute each
KINDS = ("chat-history", "ask-pathological", "ask-varied", "junk", "header-flood", "idle-connections")
IDLE_CONNECTIONS = 1100
HEADER_LINE = b"x-filler: " + b"a" * 1000 + b"\r\n"
WORDS = ("cv", "rnn", "nlp", "llm", "kaggle", "learning", "transformer")


def _connection(port: int, source: str) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))


def _request(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None = None,
             content_type: str = "application/json") -> int:
    headers = {"content-type": content_type} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    if response.getheader("connection", "").lower() == "close":
        conn.close()
    return response.status


def _nonce(rng: random.Random) -> str:
    return f"{rng.randrange(16 ** 8):08x}"


def _abusive_request(kind: str, rng: random.Random) -> tuple[str, str, bytes, str]:
    runs = "<http:" * 200 + "<@U1|" * 150  # 1,950 characters of what once took quadratic time
    if kind == "chat-history":
        users = [{"role": "user", "content": (_nonce(rng) + runs)[:2000]} for _ in range(4)]
        answer = {"role": "assistant", "content": "x" * 17_000}  # 4 × 2,000 + 3 × 17,000 < 60,000 characters
        messages = [users[0], answer, users[1], answer, users[2], answer, users[3]]
        body = {"model": "whichgpu", "messages": messages}
        return "POST", "/v1/chat/completions", json.dumps(body).encode(), "application/json"
    if kind == "ask-pathological":
        text = (_nonce(rng) + " " + runs)[:2000]
        return "POST", "/v1/ask", json.dumps({"text": text}).encode(), "application/json"
    if kind == "ask-varied":
        text = f"{rng.choice(WORDS)} ${rng.randint(300, 9000)} {rng.randint(1, 4)} gpus"
        return "POST", "/v1/ask", json.dumps({"text": text}).encode(), "application/json"
    choice = rng.randrange(4)
    if choice == 0:
        return "POST", "/v1/ask", b'{"text": "' + b"a" * 70_000 + b'"}', "application/json"
    if choice == 1:
        return "POST", "/v1/recommendations", b'{"workload": "cnn", "budget": ', "application/json"
    if choice == 2:
        return "POST", "/v1/ask", b"text=nlp", "application/x-www-form-urlencoded"
    return "GET", f"/v1/gpus/{_nonce(rng)}", None, ""  # type: ignore[return-value]


def _status_of(sock: socket.socket) -> int:
    """The status of the response the server sent before closing, 0 when it just closed."""
    try:
        data = sock.recv(4096)
    except OSError:
        return 0
    return int(data.split()[1]) if data.startswith(b"HTTP/1.1 ") else 0


def _header_flood(port: int, source: str, until: float) -> Counter[int]:
    """Endless header lines on one socket; a new socket each time the server refuses and closes."""
    statuses: Counter[int] = Counter()
    while time.time() < until:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
        try:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\n")
            while time.time() < until:
                sock.sendall(HEADER_LINE)
        except OSError:
            pass
        statuses[_status_of(sock)] += 1
        sock.close()
    return statuses


def _idle_connections(port: int, source: str, until: float) -> Counter[int]:
    """Keep IDLE_CONNECTIONS open without sending a byte; reopen each one the server closes."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, IDLE_CONNECTIONS + 64)), hard))
    statuses: Counter[int] = Counter()
    held: list[socket.socket] = []
    while time.time() < until:
        for _ in range(min(100, IDLE_CONNECTIONS - len(held))):  # 100 opened a round at most
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=1, source_address=(source, 0))
                held.append(sock)
            except OSError:
                statuses[-1] += 1  # not even accepted
                break
        poller = select.poll()  # select() cannot watch descriptors over 1,023
        by_fd = {sock.fileno(): sock for sock in held}
        for fd in by_fd:
            poller.register(fd, select.POLLIN)
        for fd, _ in poller.poll(50):  # the server answered (503) or closed it
            sock = by_fd[fd]
            statuses[_status_of(sock)] += 1
            sock.close()
            held.remove(sock)
        time.sleep(0.2)  # a round of at most 100 new connections every 0.2 s
    for sock in held:
        sock.close()
    return statuses


def _abuser(kind: str, port: int, source: str, until: float, out: multiprocessing.Queue) -> None:
    if kind in ("header-flood", "idle-connections"):
        flood = _header_flood if kind == "header-flood" else _idle_connections
        out.put((kind, dict(flood(port, source, until))))
        return
    rng = random.Random(hash((kind, source)))
    statuses: Counter[int] = Counter()
    conn = _connection(port, source)
    while time.time() < until:
        method, path, body, content_type = _abusive_request(kind, rng)
        try:
            statuses[_request(conn, method, path, body, content_type)] += 1
        except (OSError, http.client.HTTPException):
            statuses[0] += 1  # the server closed the connection (e.g. after a 413): reconnect
            conn.close()
            conn = _connection(port, source)
    out.put((kind, dict(statuses)))


def _normal(port: int, seconds: float) -> list[float]:
    """Latencies (ms) of the normal users' requests, one every NORMAL_EVERY_S, taking turns."""
    rng = random.Random(7)
    users = [_connection(port, f"127.0.1.{n}") for n in range(1, NORMAL_USERS + 1)]
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        conn = users[i % NORMAL_USERS]
        if i % 2:
            status = _request(conn, "GET", "/v1/models")
        else:
            text = f"{rng.choice(WORDS)} ${rng.randint(300, 9000)}"
            status = _request(conn, "POST", "/v1/ask", json.dumps({"text": text}).encode())
        latencies.append((time.perf_counter() - started) * 1000)
        if status != 200:
            raise SystemExit(f"a normal request got {status}")
        i += 1
        time.sleep(max(0.0, NORMAL_EVERY_S - (time.perf_counter() - started)))
    return latencies


def _phase(name: str, port: int, seconds: float, server_pid: int) -> float:
    """Run the normal users for ``seconds``; print their latencies and the server's CPU use; the p99."""
    cpu, started = cpu_seconds(server_pid), time.perf_counter()
    latencies = _normal(port, seconds)
    busy = (cpu_seconds(server_pid) - cpu) / (time.perf_counter() - started)
    return _summary(name, latencies, busy)


def _summary(name: str, latencies: list[float], busy: float) -> float:
    ordered = sorted(latencies)
    p50 = ordered[len(ordered) // 2]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(f"normal users, {name:8}: {len(ordered):4d} requests, p50 {p50:6.1f} ms, p99 {p99:6.1f} ms, "
          f"max {ordered[-1]:6.1f} ms; server busy {busy:4.0%} of a core")
    return p99


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds under abuse")
    parser.add_argument("--quiet", type=float, default=5.0, help="seconds of the normal users alone first")
    parser.add_argument("--abusers", default=",".join(KINDS),
                        help=f"which abusive clients, comma-separated (default: all of {', '.join(KINDS)})")
    parser.add_argument("--rate-limit", type=float, default=0.0,
                        help="WHICHGPU_RATE_LIMIT for the server (0: off)")
    parser.add_argument("--stall-db", type=float, default=0.0,
                        help="seconds the PostgreSQL of WHICHGPU_DATABASE_URL stalls after abuse (0: none)")
    args = parser.parse_args()
    database = os.environ.get("WHICHGPU_DATABASE_URL", "")
    if args.stall_db and not database.startswith("postgres"):
        raise SystemExit("--stall-db needs a PostgreSQL WHICHGPU_DATABASE_URL (the proxy stalls its TCP)")
    proxy = StallProxy(database) if args.stall_db else None
    settings = {"WHICHGPU_RATE_LIMIT": str(args.rate_limit)}
    if proxy is not None:
        settings["WHICHGPU_DATABASE_URL"] = proxy.url
    with whichgpu_serve(**settings) as server:
        print(f"server: whichgpu serve, pid {server.pid}; rate limit: {args.rate_limit:g}/min; "
              f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}")
        _normal(server.port, 2.0)  # warm-up, not counted: the first answers fill the engine's per-date caches
        _phase("quiet", server.port, args.quiet, server.pid)
        until = time.time() + args.duration + 1.0
        results: multiprocessing.Queue = multiprocessing.Queue()
        kinds = [kind for kind in args.abusers.split(",") if kind]
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise SystemExit(f"unknown abusive clients {sorted(unknown)}; choose from {', '.join(KINDS)}")
        abusers = [multiprocessing.Process(target=_abuser,
                                           args=(kind, server.port, f"127.0.0.{i + 2}", until, results))
                   for i, kind in enumerate(kinds)]
        for process in abusers:
            process.start()
        time.sleep(0.5)  # let them reach full speed
        p99 = _phase("abused", server.port, args.duration, server.pid)
        for _ in abusers:
            kind, statuses = results.get(timeout=120)
            shown = ", ".join(f"{n} × {status or 'reset'}" for status, n in sorted(statuses.items()))
            print(f"abuser {kind:16}: {shown}")
        for process in abusers:
            process.join()
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        if proxy is not None:
            time.sleep(max(0.0, until - time.time()) + 2.0)  # the abusers gone, their sockets closed
            proxy.stall()
            stalled = _phase("stalled", server.port, args.stall_db, server.pid)
            proxy.resume()
            p99 = max(p99, stalled)
        met = p99 < TARGET_P99_MS
        print(f"normal p99 under abuse {p99:.1f} ms (< {TARGET_P99_MS:g} ms: {'met' if met else 'NOT met'})")
        return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
