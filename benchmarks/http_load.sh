#!/usr/bin/env bash
# HTTP load test of the real server: wrk, 32 connections, ~10 s per endpoint.
#
#   benchmarks/http_load.sh                 # whichgpu serve-equivalent: uvicorn, 1 worker, no access log
#   WORKERS=2 benchmarks/http_load.sh       # two uvicorn worker processes
#   SERVER=cli benchmarks/http_load.sh      # `whichgpu serve` itself (what the README numbers use)
#   VARY=1 benchmarks/http_load.sh          # a different question per request (few answer-memo hits)
#   VARY=1 MEMO=0 benchmarks/http_load.sh   # ... with the answer memo off: every answer computed
#   WARMUP=0 VARY=1 benchmarks/http_load.sh # ... on a cold server (VARY=1 first asks for WARMUP, 5s, untimed)
#   DURATION=30s CONNECTIONS=64 benchmarks/http_load.sh
#   ROUNDS=3 SERVER=cli VARY=1 benchmarks/http_load.sh  # three rounds on one server, endpoints interleaved; median ratios
#
# Prints req/s, p99 latency and the server's CPU time per request for GET /healthz,
# POST /v1/recommendations and POST /v1/ask, and the ratio of each to /healthz. CPU per request
# barely moves when other programs share the machine; req/s and p99 do, so compare runs by it
# and quote req/s only from a quiet machine (check `uptime`). Needs wrk (apt-get install -y wrk). The database is a
# fresh SQLite file in a temporary directory unless WHICHGPU_DATABASE_URL is set.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PY:-.venv/bin/python}
PORT=${PORT:-8765}
WORKERS=${WORKERS:-1}
SERVER=${SERVER:-uvicorn}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
BASE="http://127.0.0.1:${PORT}"
LUA="benchmarks/post_json.lua"

command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install -y wrk)" >&2; exit 2; }
DATA=$(mktemp -d)
export WHICHGPU_DATA_DIR="$DATA"
export WHICHGPU_DATABASE_URL="${WHICHGPU_DATABASE_URL:-sqlite:///$DATA/whichgpu.db}"
unset SLACK_BOT_TOKEN SLACK_SIGNING_SECRET SLACK_APP_TOKEN
export WHICHGPU_RATE_LIMIT="${WHICHGPU_RATE_LIMIT:-0}"  # every request comes from one address: measure the server, not the limit

# Migrate and load the catalog once, so parallel workers start on a ready database.
"$PY" -c "from service.app import create_app; create_app()" >/dev/null

if [[ "${MEMO:-1}" == 0 ]]; then  # the answer memo off: every request is answered from scratch
    "$PY" -c "import uvicorn, service.snapshot as s; s.ANSWER_CACHE_SIZE = 0; uvicorn.run('service.app:create_app', factory=True,
host='127.0.0.1', port=$PORT, log_level='warning', access_log=False)" >"$DATA/server.log" 2>&1 &
elif [[ "$SERVER" == cli ]]; then
    .venv/bin/whichgpu serve --port "$PORT" >"$DATA/server.log" 2>&1 &
else
    "$PY" -m uvicorn --factory service.app:create_app --host 127.0.0.1 --port "$PORT" \
        --workers "$WORKERS" --no-access-log --log-level warning >"$DATA/server.log" 2>&1 &
fi
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; rm -rf "$DATA"' EXIT

for _ in $(seq 1 150); do
    curl -fsS "$BASE/healthz" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -fsS "$BASE/healthz" >/dev/null || { echo "server did not start:"; cat "$DATA/server.log"; exit 1; }

# One request each first: a wrong answer should stop the benchmark, not be timed.
REC_BODY='{"workload": "transformer", "budget": 800, "currency": "USD", "as_of": "2023-06-01"}'
ASK_BODY='{"text": "nlp $800 as of 2023"}'
curl -fsS -H 'content-type: application/json' -d "$REC_BODY" "$BASE/v1/recommendations" >/dev/null
curl -fsS -H 'content-type: application/json' -d "$ASK_BODY" "$BASE/v1/ask" >/dev/null

server_cpu_ticks() {  # user + system clock ticks of the server and its worker processes
    local total=0 pid
    for pid in "$SERVER_PID" $(pgrep -P "$SERVER_PID" || true); do
        [[ -r /proc/$pid/stat ]] && total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
    done
    echo "$total"
}

run() {  # name, then wrk arguments; prints "name req/s p99 CPU-ms-per-request"
    local name=$1; shift
    local out before after
    before=$(server_cpu_ticks)
    out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@")
    after=$(server_cpu_ticks)
    local rps p99 errors requests cpu
    rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
    requests=$(awk '/requests in/ {print $1}' <<<"$out")
    cpu=$(awk -v t=$((after - before)) -v n="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", 1000 * t / hz / n}')
    errors=$(awk '/Non-2xx or 3xx responses:/ {print $NF} /Socket errors:/ {print}' <<<"$out")
    printf '%-28s %10s req/s   p99 %8s   server CPU %s ms/request   %s\n' "$name" "$rps" "$p99" "$cpu" "${errors:+errors: $errors}"
    echo "$rps" >"$DATA/rps.$name"
    echo "$cpu" >"$DATA/cpu.$name"
}

ROUNDS=${ROUNDS:-1}
echo "server: $SERVER, workers: $WORKERS, vary: ${VARY:-0}, warm-up: ${WARMUP:-5s} (VARY=1), memo: ${MEMO:-1}, $CONNECTIONS connections, $THREADS wrk threads, $DURATION each, $ROUNDS round(s), $(nproc) CPUs"
if [[ "${VARY:-0}" == 1 && "${WARMUP:-5s}" != 0 ]]; then
    # A running service has its per-date tables and per-job configurations built: warm them with other
    # questions (another seed) than the timed run asks, untimed, as a server that has answered a while.
    WRK_KIND=ask WRK_SEED=7000 wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP:-5s}" -s benchmarks/post_varied.lua "$BASE/v1/ask" >/dev/null
fi
# Several rounds on one server (ROUNDS=3) interleave the endpoints, so a shared machine's load falls on all of them
# alike; each round asks new questions (its own seed) and the last line gives the median of the rounds' ratios.
for round in $(seq 1 "$ROUNDS"); do
    [[ "$ROUNDS" -gt 1 ]] && echo "round $round"
    export WRK_SEED=$((1000 + 100 * (round - 1)))
    run healthz "$BASE/healthz"
    if [[ "${VARY:-0}" == 1 ]]; then
        WRK_KIND=recommendations run recommendations -s benchmarks/post_varied.lua "$BASE/v1/recommendations"
        WRK_KIND=ask run ask -s benchmarks/post_varied.lua "$BASE/v1/ask"
    else
        WRK_BODY="$REC_BODY" run recommendations -s "$LUA" "$BASE/v1/recommendations"
        WRK_BODY="$ASK_BODY" run ask -s "$LUA" "$BASE/v1/ask"
    fi
    base=$(cat "$DATA/rps.healthz")
    base_cpu=$(cat "$DATA/cpu.healthz")
    for name in recommendations ask; do
        awk -v n="$name" -v a="$(cat "$DATA/rps.$name")" -v b="$base" -v c="$(cat "$DATA/cpu.$name")" -v bc="$base_cpu" \
            'BEGIN {printf "%-28s %5.0f%% of healthz throughput; healthz CPU / its CPU per request: %3.0f%%\n", n, 100 * a / b, 100 * bc / c}'
        awk -v a="$(cat "$DATA/rps.$name")" -v b="$base" 'BEGIN {printf "%.4f\n", a / b}' >>"$DATA/ratios.$name"
    done
done
if [[ "$ROUNDS" -gt 1 ]]; then
    for name in recommendations ask; do
        sort -n "$DATA/ratios.$name" | awk -v n="$name" '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
            printf "%-28s median %3.0f%% of healthz throughput over %d rounds\n", n, 100 * m, NR}'
    done
fi
