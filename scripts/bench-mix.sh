#!/usr/bin/env bash
# The live mix of issue 42: a release server with its embedded PostgreSQL on loopback, a city of N
# venues (`hearclear-bench loadtest search --setup`, a fifth with data), then, once the aggregation
# worker has judged the set-up's check-ins, in one run: `/health` (the reference), and the mix
# people make from C clients for S seconds: searches near a point, grids and venue pages of venues
# with data, and 5 % check-ins, with the visibility probe (check-in answered → counted by search).
# Beside it, every second: the aggregation worker's backlog (entries and venues in
# `aggregation_queue`). At the end: each request's figures and ratio to `/health`, the backlog over
# time, and the deadlocks PostgreSQL detected meanwhile (its log's `deadlock detected` lines and
# `pg_stat_database.deadlocks`).
# Usage: scripts/bench-mix.sh [VENUES] [SECONDS] [CLIENTS]   (needs psql: make deps)
#   MIX_GRID_SHARE (0.3), MIX_PAGE_SHARE (0.1), MIX_INGEST_SHARE (0.05): the shares of the requests;
#   BENCH_DATA=DIR keeps the city between runs (its set-up then only checks the venues).
set -euo pipefail
cd "$(dirname "$0")/.."
venues=${1:-100000}
seconds=${2:-30}
clients=${3:-16}
grid_share=${MIX_GRID_SHARE:-0.3}
page_share=${MIX_PAGE_SHARE:-0.1}
ingest_share=${MIX_INGEST_SHARE:-0.05}
port=${BENCH_PORT:-18099}
data=${BENCH_DATA:-$(mktemp -d /tmp/hearclear-mix-XXXXXX)}
mkdir -p "$data"
url=http://127.0.0.1:$port
bin=.build/release/hearclear-bench
serve_bin=.build/release/hearclear
command -v psql >/dev/null || { echo "bench-mix needs psql (make deps)" >&2; exit 1; }
[ -x "$bin" ] || swift build -c release --product hearclear-bench
[ -x "$serve_bin" ] || swift build -c release --product hearclear
HEARCLEAR_ADMIN_PASSWORD=bench "$serve_bin" serve --port "$port" --data-dir "$data" --log-level warning \
    --rate-exempt 127.0.0.1,::1 >"$data/server.log" 2>&1 &
server=$!
sampler=
trap '[ -z "$sampler" ] || kill $sampler 2>/dev/null; kill $server 2>/dev/null; wait $server 2>/dev/null;
      [ -n "${BENCH_DATA:-}" ] || rm -rf "$data"' EXIT
for _ in $(seq 1 120); do curl -sf "$url/ready" >/dev/null && break; sleep 0.5; done
socket=$(cat "$data/postgres.socket")
sql() { psql "host=$(dirname "$socket") port=${socket##*.} user=hearclear dbname=postgres" -Atc "$1"; }
pglog=$(find "$data" -name postgres.log | head -n 1)

echo "setting up $venues venues…" >&2
"$bin" loadtest search --url "$url" --venues "$venues" --setup --duration 1 --clients 4 >/dev/null
for _ in $(seq 1 1800); do
    [ "$(sql 'SELECT count(*) FROM aggregation_queue')" = 0 ] && break
    sleep 1
done
echo "the worker's queue: $(sql 'SELECT count(*) FROM aggregation_queue') entries left" >&2

deadlocks_before=$(sql 'SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()')
logged_before=$(grep -c 'deadlock detected' "$pglog" || true)
# The backlog every second: seconds since the start, entries, venues.
: >"$data/backlog.txt"
(
    start=$(date +%s)
    while true; do
        echo "$(($(date +%s) - start)) $(sql 'SELECT count(*), count(DISTINCT venue_id) FROM aggregation_queue' | tr '|' ' ')" \
            >>"$data/backlog.txt"
        sleep 1
    done
) &
sampler=$!
"$bin" loadtest search --url "$url" --venues "$venues" --clients "$clients" --duration "$seconds" --label '' \
    --ingest-share "$ingest_share" --grid-share "$grid_share" --page-share "$page_share"
# What the worker still had when the load stopped, until it has caught up (at most 60 s).
for _ in $(seq 1 60); do
    [ "$(sql 'SELECT count(*) FROM aggregation_queue')" = 0 ] && break
    sleep 1
done
kill $sampler 2>/dev/null || true
wait $sampler 2>/dev/null || true
sampler=
sleep 1  # PostgreSQL's statistics reach pg_stat_database within a second of a transaction's end
deadlocks_after=$(sql 'SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()')
logged_after=$(grep -c 'deadlock detected' "$pglog" || true)

echo "backlog (seconds since the load began: queue entries, venues), every 5 s and the last:"
awk 'NR % 5 == 1 { printf "  %4d s: %6d entries, %6d venues\n", $1, $2, $3 } { last = $0 }
     END { split(last, f, " "); printf "  last (%d s): %d entries, %d venues\n", f[1], f[2], f[3] }' "$data/backlog.txt"
awk '$2 > max { max = $2; at = $1 } END { printf "backlog at most: %d entries (at %d s)\n", max, at }' "$data/backlog.txt"
echo "deadlocks: $((logged_after - logged_before)) in PostgreSQL's log, $((deadlocks_after - deadlocks_before)) in pg_stat_database"
