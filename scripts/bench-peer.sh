#!/usr/bin/env bash
# HearClear's ingest beside a FastAPI + asyncpg peer's, in one run (docs/ARCHITECTURE.md, "Ingest
# and its ceiling", "Beside a FastAPI + asyncpg peer"; `make bench-peer`): a release build served
# on a scratch data directory with its embedded PostgreSQL; `GET /health` and then HearClear's
# ingest (`hearclear-bench loadtest ingest`: 300-sample gzip check-ins from CLIENTS clients for
# SECONDS s); once its worker has judged what it queued, the peer (scripts/peer-ingest/app.py under
# uvicorn, uvloop and httptools) against the same PostgreSQL, in its own schema `peer`, loaded by
# the same load test, with 1 and then 2 uvicorn workers (emptied and restarted between). Prints
# check-ins/s, p50/p99 and rows stored of each, each as a ratio to HearClear's `GET /health`
# measured just before it (the machine's state then: other work on shared cores comes and goes),
# and HearClear's rate over the peer's, as measured and by those ratios.
#
#   scripts/bench-peer.sh [CLIENTS] [SECONDS]     (defaults 16 and 20)
#
# PEER_WORKERS="1 2" (the default) chooses the peer's runs; PEER_BENCH_PORT (18097) HearClear's
# port, the peer's is the next. The first run installs the peer's Python packages (pinned) into
# the project's .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
clients=${1:-16}
seconds=${2:-20}
workers=${PEER_WORKERS:-1 2}
port=${PEER_BENCH_PORT:-18097}
peer_port=$((port + 1))

# The peer's packages, pinned.
peer_packages=(fastapi==0.165.0 pydantic==2.14.4 uvicorn==0.54.0 uvloop==0.23.0 httptools==0.9.0 asyncpg==0.32.0)
[ -x .venv/bin/python ] || { echo "bench peer: no .venv; run make deps" >&2; exit 1; }
if ! .venv/bin/python - "${peer_packages[@]}" <<'EOF' 2>/dev/null; then
import importlib.metadata as m, sys
sys.exit(any(m.version(p.split("==")[0]) != p.split("==")[1] for p in sys.argv[1:]))
EOF
    echo "installing ${peer_packages[*]} into .venv"
    .venv/bin/pip install --quiet --disable-pip-version-check "${peer_packages[@]}"
fi

. scripts/scratch-server.sh
serve_release_scratch "bench peer" "$port" --log-level warning

peer=""
stop_peer() {
    if [ -n "$peer" ]; then
        kill "$peer" 2>/dev/null || true
        wait "$peer" 2>/dev/null || true
        peer=""
    fi
}
# The scratch server's own clean-up, after the peer's.
scratch_exit=$(trap -p EXIT | sed "s/^trap -- '\(.*\)' EXIT$/\1/")
trap 'stop_peer; eval "$scratch_exit"' EXIT

# Waits (at most 5 minutes) until HearClear's worker has judged everything queued, so that the
# next phase does not share the CPU with it.
drained() {
    for _ in $(seq 1 600); do
        [ "$(q -c "SELECT count(*) FROM aggregation_queue")" = 0 ] && return 0
        sleep 0.5
    done
    echo "bench peer: HearClear's queue not drained after 5 minutes; going on" >&2
}

# `figures FILE NAME`: one line `NAME rate p50 p99 ok failed health` from a load test's output.
figures() {
    local file=$1 name=$2
    echo "$name" \
        "$(sed -n 's/^throughput: \([0-9.]*\) check-ins\/s.*/\1/p' "$file")" \
        "$(sed -n 's/^latency: p50 \([0-9.]*\) ms, p99 \([0-9.]*\) ms.*/\1 \2/p' "$file")" \
        "$(sed -n 's/^check-ins: \([0-9]*\) ok, \([0-9]*\) failed.*/\1 \2/p' "$file")" \
        "$(sed -n 's/^health: .*, \([0-9.]*\) requests\/s.*/\1/p' "$file")"
}

# Rows of the load test alone (not the smoke check's).
loaded() { q -c "SELECT count(*), round(avg(octet_length(c.samples))) FROM $1.checkins c JOIN $1.venues v ON v.id = c.venue_id WHERE v.external_id LIKE 'bench-venue-%'" | tr '|' ' '; }

.venv/bin/python scripts/peer-ingest/smoke.py "$base"
q -c "CHECKPOINT" >/dev/null
echo "== HearClear: GET /health, then check-ins"
"$bench" loadtest ingest --url "$base" --clients "$clients" --duration "$seconds" --probe-interval 0 --health \
    | tee "$data/hearclear.txt"
reference=$(sed -n 's/^health: .*, \([0-9.]*\) requests\/s.*/\1/p' "$data/hearclear.txt")
echo "$(figures "$data/hearclear.txt" hearclear) $(loaded public) $reference" >"$data/figures.txt"
echo "waiting for HearClear's worker to judge what it queued…"
start=$(date +%s.%N)
drained
echo "HearClear's worker judged the rest in $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s after the load"

for w in $workers; do
    q -c "SET client_min_messages TO warning" -c "DROP SCHEMA IF EXISTS peer CASCADE" >/dev/null
    PEER_PGHOST=$socket PEER_PGPORT=$pgport PEER_PGUSER=hearclear PEER_PGDATABASE=postgres \
        .venv/bin/python -m uvicorn --app-dir scripts/peer-ingest app:app --host 127.0.0.1 --port "$peer_port" \
        --workers "$w" --loop uvloop --http httptools --no-access-log --log-level warning \
        >"$data/peer-$w.log" 2>&1 &
    peer=$!
    for _ in $(seq 1 120); do
        .venv/bin/python -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=1)" \
            "http://127.0.0.1:$peer_port/health" 2>/dev/null && break
        kill -0 "$peer" 2>/dev/null || { echo "bench peer: the peer stopped; its log:" >&2; cat "$data/peer-$w.log" >&2; exit 1; }
        sleep 0.5
    done
    .venv/bin/python scripts/peer-ingest/smoke.py "http://127.0.0.1:$peer_port"
    q -c "CHECKPOINT" >/dev/null
    # HearClear's /health again: the machine as it is now (other work on it comes and goes).
    "$bench" loadtest read --url "$base" --mix health=1 --clients "$clients" --duration 5 >"$data/health-$w.txt"
    reference=$(sed -n 's/^requests: [0-9]*, \([0-9.]*\)\/s.*/\1/p' "$data/health-$w.txt")
    echo "HearClear's GET /health now: $reference/s"
    echo "== the peer, $w uvicorn worker(s): GET /health, then check-ins"
    "$bench" loadtest ingest --url "http://127.0.0.1:$peer_port" --clients "$clients" --duration "$seconds" \
        --probe-interval 0 --health | tee "$data/peer-$w.txt"
    stop_peer
    echo "$(figures "$data/peer-$w.txt" "peer-$w") $(loaded peer) $reference" >>"$data/figures.txt"
done
q -c "SET client_min_messages TO warning" -c "DROP SCHEMA IF EXISTS peer CASCADE" >/dev/null

python3 - "$data/figures.txt" "$clients" "$seconds" <<'EOF'
import sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
figures = {r[0]: dict(rate=float(r[1]), p50=float(r[2]), p99=float(r[3]), ok=int(r[4]), failed=int(r[5]),
                      health=float(r[6]), stored=int(r[7]), bytes=int(float(r[8] or 0)), reference=float(r[9]))
           for r in rows}
ours = figures["hearclear"]
print(f"== {sys.argv[2]} clients, {sys.argv[3]} s each; /health: HearClear's GET /health measured just before")
print(f"{'':22} {'check-ins/s':>11} {'/health':>7} {'to /health':>10} {'p50 ms':>7} {'p99 ms':>7} {'ok':>6} "
      f"{'failed':>6} {'stored':>6} {'sample B':>8} {'own /health':>11} {'HearClear/it':>12} {'by /health':>10}")
for name, f in figures.items():
    label = "HearClear" if name == "hearclear" else f"peer, {name[5:]} worker(s)"
    ratio = "" if name == "hearclear" else f"{ours['rate'] / f['rate']:.2f}"
    relative = "" if name == "hearclear" else \
        f"{(ours['rate'] / ours['reference']) / (f['rate'] / f['reference']):.2f}"
    print(f"{label:22} {f['rate']:>11.0f} {f['reference']:>7.0f} {f['rate'] / f['reference']:>10.4f} "
          f"{f['p50']:>7.1f} {f['p99']:>7.1f} {f['ok']:>6} {f['failed']:>6} {f['stored']:>6} {f['bytes']:>8} "
          f"{f['health']:>11.0f} {ratio:>12} {relative:>10}")
EOF
