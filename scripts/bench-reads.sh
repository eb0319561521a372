#!/usr/bin/env bash
# Read benchmark of issue "Reads from memory": a release server with its embedded PostgreSQL on
# loopback, N venues with cells, then in one run: wrk on GET /health (this machine's HTTP ceiling)
# and on the grids of the N venues (gzip, as phones ask), and `hearclear-bench loadtest read` without
# and with 5 % ingest mixed in (staleness: how long a new check-in takes to show in a read).
# Usage: scripts/bench-reads.sh [VENUES] [SECONDS]   (needs wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
venues=${1:-1000}
seconds=${2:-20}
port=${BENCH_PORT:-18099}
data=$(mktemp -d /tmp/hearclear-bench-XXXXXX)
url=http://127.0.0.1:$port
bin=.build/release/hearclear-bench
serve_bin=.build/release/hearclear
[ -x "$bin" ] || swift build -c release --product hearclear-bench
[ -x "$serve_bin" ] || swift build -c release --product hearclear
HEARCLEAR_ADMIN_PASSWORD=bench "$serve_bin" serve --port "$port" --data-dir "$data" --log-level warning --rate-exempt 127.0.0.1,::1 \
    >"$data/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 120); do curl -sf "$url/ready" >/dev/null && break; sleep 0.5; done
"$bin" loadtest read --url "$url" --venues "$venues" --setup --duration 1 --clients 4 >/dev/null

lua="$data/grids.lua"
cat >"$lua" <<LUA
local n = $venues
request = function()
  return wrk.format("GET", "/api/v2/venues/read-" .. math.random(0, n - 1) .. "/loudness",
                    {["Accept-Encoding"] = "gzip"})
end
LUA
echo "== wrk, 2 threads, 16 connections, ${seconds}s each"
echo "-- GET /health"
wrk -t2 -c16 -d"${seconds}s" --latency "$url/health" | grep -E "Requests/sec|50%|99%|Non-2xx|Socket errors"
echo "-- GET /api/v2/venues/{id}/loudness over $venues venues"
wrk -t2 -c16 -d"${seconds}s" --latency -s "$lua" "$url" | grep -E "Requests/sec|50%|99%|Non-2xx|Socket errors"
echo "== hearclear-bench loadtest read (grid 8 : venue 1 : bands 1), 16 clients"
"$bin" loadtest read --url "$url" --venues "$venues" --duration "$seconds" --clients 16
echo "== the same with 5 % ingest"
"$bin" loadtest read --url "$url" --venues "$venues" --duration "$seconds" --clients 16 --ingest-share 0.05
