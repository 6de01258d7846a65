"""How big the database gets under sustained /v1/ask load, and that retention bounds it.

Run by hand:  .venv/bin/python benchmarks/db_growth.py [--seconds 60] [--keep-seconds 20]
              WHICHGPU_DATABASE_URL=postgresql://postgres@127.0.0.1/NAME ... (an empty database of yours)

Starts a real `whichgpu serve` (fresh SQLite unless WHICHGPU_DATABASE_URL is set) and then:
1. one-shot: 4 clients send a different short question each for ``--oneshot-seconds``: the
   conversation table and the database must not grow (nothing is stored);
2. conversations: 4 clients start a conversation and follow it up three times ("cheaper?",
   "what about 2 of them?", "and for rnn?"), again and again, for ``--seconds``, with the
   retention (WHICHGPU_CONVERSATION_DAYS) set to ``--keep-seconds``; every 5 s it prints the
   rows kept and the bytes the table and the database take.
Prints the bytes one conversation of four turns takes and the size 30 days of the measured
rate would reach with the default retention.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import threading
import time
from pathlib import Path

from sqlalchemy import text

from served import whichgpu_serve

CLIENTS = 4
FOLLOW_UPS = ("cheaper?", "what about 2 of them?", "and for rnn?")
WORDS = ("cv", "rnn", "nlp", "llm", "kaggle", "learning", "transformer")
# SQLite's dbstat table is not always compiled in: count the stored JSON and ids instead
SQLITE_TABLE_BYTES = ("SELECT coalesce(sum(length(id) + length(question) + length(turns) + 64), 0) "
                      "FROM conversation")


def _ask(conn: http.client.HTTPConnection, body: dict) -> dict:
    conn.request("POST", "/v1/ask", body=json.dumps(body).encode(),
                 headers={"content-type": "application/json"})
    response = conn.getresponse()
    payload = response.read()
    if response.status != 200:
        raise RuntimeError(f"/v1/ask answered {response.status}: {payload[:200]!r}")
    return json.loads(payload)


def _client(port: int, until: float, conversations: bool, seed: int, counts: list[int]) -> None:
    rng = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while time.time() < until:
        question = f"{rng.choice(WORDS)} ${rng.randint(300, 9000)}"
        if not conversations:
            _ask(conn, {"text": question})
            counts[0] += 1
            continue
        conversation_id = _ask(conn, {"text": question, "start_conversation": True})["conversation_id"]
        for follow_up in FOLLOW_UPS:
            _ask(conn, {"text": follow_up, "conversation_id": conversation_id})
        counts[0] += 1


def _load(port: int, seconds: float, conversations: bool, report) -> int:
    """Run the clients for ``seconds``, calling ``report()`` every 5 s; how many asks/conversations."""
    until = time.time() + seconds
    counts = [[0] for _ in range(CLIENTS)]
    threads = [threading.Thread(target=_client, args=(port, until, conversations, i, counts[i]))
               for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):
        time.sleep(min(5.0, max(0.1, until - time.time())))
        report(sum(c[0] for c in counts))
    return sum(c[0] for c in counts)


class Sizes:
    """Rows and bytes of the conversation table and of the whole database."""

    def __init__(self, url: str) -> None:
        from service.db import make_engine

        self.url = url
        self.engine = make_engine(url)
        self.sqlite = url.startswith("sqlite")

    def rows(self) -> int:
        with self.engine.connect() as connection:
            return connection.execute(text("SELECT count(*) FROM conversation")).scalar_one()

    def table_bytes(self) -> int:
        with self.engine.connect() as connection:
            if self.sqlite:
                return connection.execute(text(SQLITE_TABLE_BYTES)).scalar_one()
            return connection.execute(text("SELECT pg_total_relation_size('conversation')")).scalar_one()

    def database_bytes(self) -> int:
        if self.sqlite:
            path = Path(self.url.removeprefix("sqlite:///"))
            return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
        with self.engine.connect() as connection:
            return connection.execute(text("SELECT pg_database_size(current_database())")).scalar_one()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--oneshot-seconds", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of conversation load")
    parser.add_argument("--keep-seconds", type=float, default=20.0,
                        help="retention during the run (WHICHGPU_CONVERSATION_DAYS)")
    args = parser.parse_args()

    with whichgpu_serve(WHICHGPU_CONVERSATION_DAYS=repr(args.keep_seconds / 86400)) as server:
        port, url = server.port, server.database_url
        sizes = Sizes(url)
        print(f"database: {'SQLite' if sizes.sqlite else 'PostgreSQL'}; retention {args.keep_seconds:g} s; "
              f"{CLIENTS} clients; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")

        before_rows, before = sizes.rows(), sizes.database_bytes()
        started = time.perf_counter()
        asks = _load(port, args.oneshot_seconds, False, lambda n: None)
        rate = asks / (time.perf_counter() - started)
        print(f"one-shot: {asks} asks ({rate:.0f}/s); conversation rows {before_rows} -> {sizes.rows()}, "
              f"database {before:,} -> {sizes.database_bytes():,} bytes")

        started = time.perf_counter()
        peak = {"rows": 0, "table": 0, "bytes": 0}

        def report(done: int) -> None:
            rows, table, total = sizes.rows(), sizes.table_bytes(), sizes.database_bytes()
            peak.update(rows=max(peak["rows"], rows), table=max(peak["table"], table),
                        bytes=max(peak["bytes"], total))
            print(f"  {time.perf_counter() - started:5.1f} s: {done:6d} conversations made, {rows:6d} kept, "
                  f"table {table:>12,} bytes, database {total:>12,} bytes")

        made = _load(port, args.seconds, True, report)
        elapsed = time.perf_counter() - started
        per_conversation = peak["table"] / max(peak["rows"], 1)
        rate = made / elapsed
        print(f"conversations: {made} of 4 turns in {elapsed:.0f} s ({rate:.1f}/s, {4 * rate:.0f} asks/s); "
              f"{per_conversation:,.0f} bytes each; at most {peak['rows']} kept with {args.keep_seconds:g} s "
              f"retention (the rate × retention is {rate * args.keep_seconds:.0f}); "
              f"database peak {peak['bytes']:,} bytes")
        month = rate * 30 * 86400 * per_conversation
        print(f"30 days of conversations at this rate (the default retention): about {month / 1e9:.1f} GB; "
              f"one-shot asks add nothing")
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
