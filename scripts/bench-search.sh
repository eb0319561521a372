#!/usr/bin/env bash
# Search benchmark of issue 40 (name search from memory, result pages as fast as the API): a
# release server with its embedded PostgreSQL on loopback, a city of N venues
# (`hearclear-bench loadtest search --setup`: named "<adjective> <noun> <i>", a fifth with data),
# then, once the aggregation worker has judged the set-up's check-ins, in one run, wrk with 2
# threads and 8 connections for S seconds each on: GET /health (the reference), the API's
# search near a point, the API's search by name alone and near a point, the page of results by
# name and by coordinates. Every request of a run differs (random points and words' starts,
# seeded). Prints each's requests/s, p50, p99 and its ratio to /health.
# Usage: scripts/bench-search.sh [VENUES] [SECONDS]   (needs wrk and psql: make deps)
set -euo pipefail
cd "$(dirname "$0")/.."
venues=${1:-100000}
seconds=${2:-15}
port=${BENCH_PORT:-18098}
# BENCH_DATA keeps the city between runs (its set-up then only checks the venues).
data=${BENCH_DATA:-$(mktemp -d /tmp/hearclear-bench-XXXXXX)}
mkdir -p "$data"
url=http://127.0.0.1:$port
bin=.build/release/hearclear-bench
serve_bin=.build/release/hearclear
[ -x "$bin" ] || swift build -c release --product hearclear-bench
[ -x "$serve_bin" ] || swift build -c release --product hearclear
HEARCLEAR_ADMIN_PASSWORD=bench "$serve_bin" serve --port "$port" --data-dir "$data" --log-level warning \
    --rate-exempt 127.0.0.1,::1 >"$data/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; [ -n "${BENCH_DATA:-}" ] || rm -rf "$data"' EXIT
for _ in $(seq 1 120); do curl -sf "$url/ready" >/dev/null && break; sleep 0.5; done
echo "setting up $venues venues…" >&2
"$bin" loadtest search --url "$url" --venues "$venues" --setup --duration 1 --clients 4 >/dev/null
# The index is loaded once the server says so (`/metrics`), before anything is measured.
for _ in $(seq 1 240); do
    curl -s "$url/metrics" | grep -q '^hearclear_search_index_state{state="ready"} 1' && break
    sleep 0.5
done
# The aggregation worker judges the set-up's check-ins for minutes after it (tens of thousands
# queued): measure once its queue is empty, not while it shares the cores. Read from the embedded
# PostgreSQL (`<data>/postgres.socket` names its socket); without psql, measure at once.
socket=$(cat "$data/postgres.socket" 2>/dev/null || true)
if [ -n "$socket" ] && command -v psql >/dev/null; then
    for _ in $(seq 1 900); do
        queued=$(psql "host=$(dirname "$socket") port=${socket##*.} user=hearclear dbname=postgres" -Atc \
            'SELECT count(*) FROM aggregation_queue' 2>/dev/null || echo unknown)
        [ "$queued" = 0 ] || [ "$queued" = unknown ] && break
        sleep 1
    done
    echo "the worker's queue: ${queued:-?} venues left" >&2
fi

# Requests: Sydney's square of 30 km (as the set-up spreads the venues); words' starts of the names.
lua() {
    cat >"$data/$1.lua" <<LUA
math.randomseed(40)
local adjectives = {"quiet", "golden", "red", "old", "corner", "little", "royal", "green", "blue", "silver",
                    "crown", "cafe", "night", "river", "garden", "market"}
local nouns = {"tavern", "arms", "kitchen", "bar", "lounge", "house", "room", "table", "cellar", "terrace",
               "club", "inn", "bistro", "hall", "yard", "deli"}
local function start(word) return string.sub(word, 1, math.random(2, #word)) end
local function point()
  local lat = -33.8688 + (math.random() - 0.5) * 30 / 111.32
  local lon = 151.2093 + (math.random() - 0.5) * 30 / (111.32 * 0.8300)
  return string.format("%.5f", lat), string.format("%.5f", lon)
end
local function words()
  return start(adjectives[math.random(#adjectives)]) .. "%20" .. start(nouns[math.random(#nouns)])
end
request = function()
  local lat, lon = point()
  $2
end
LUA
}
lua near 'return wrk.format("GET", "/api/v2/venues?near=" .. lat .. "," .. lon .. "&radius=1500&at=now&limit=20")'
lua name 'return wrk.format("GET", "/api/v2/venues?q=" .. words() .. "&at=now&limit=20")'
lua name-near 'return wrk.format("GET", "/api/v2/venues?q=" .. words() .. "&near=" .. lat .. "," .. lon .. "&radius=5000&at=now&limit=20")'
lua page-name 'return wrk.format("GET", "/?q=" .. words() .. "&when=now")'
lua page-near 'return wrk.format("GET", "/?lat=" .. lat .. "&lon=" .. lon .. "&when=now")'

run() {
    local out
    out=$(wrk -t2 -c8 -d"${seconds}s" --latency "$@")
    local rate p50 p99 errors
    rate=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    errors=$(echo "$out" | grep -E "Non-2xx|Socket errors" | tr '\n' ' ' || true)
    echo "$rate $p50 $p99 $errors"
}
printf '%-34s %12s %9s %9s %8s\n' "request (wrk -t2 -c8, ${seconds}s)" "requests/s" "p50" "p99" "/health"
read -r health hp50 hp99 herr < <(run "$url/health")
printf '%-34s %12s %9s %9s %8s %s\n' "GET /health" "$health" "$hp50" "$hp99" "1.00" "$herr"
for each in near name name-near page-name page-near; do
    read -r rate p50 p99 err < <(run -s "$data/$each.lua" "$url")
    printf '%-34s %12s %9s %9s %8.3f %s\n' "$each" "$rate" "$p50" "$p99" "$(awk -v a="$rate" -v b="$health" 'BEGIN {print a / b}')" "$err"
done
# Which searches the index answered, and which PostgreSQL did (while the index loads, or with a zone
# only PostgreSQL knows).
curl -s "$url/metrics" | grep -E '^hearclear_searches_total|^hearclear_search_index_(state\{state="ready"\}|venues)'
