#!/usr/bin/env bash
# The server's ingest beside its ceiling, in one run (docs/ARCHITECTURE.md, "Ingest and its
# ceiling"; `make ingest-ceiling`): a release build served on a scratch data directory with its
# embedded PostgreSQL; first `GET /health` alone, then `hearclear-bench loadtest ingest` (300-sample
# check-ins, gzip, CLIENTS clients for SECONDS s); then the very rows the server stored are copied
# out and COPYed back — the same bytes, in CLIENTS sessions at once, each its share, through the
# server's socket (psql's \copy) — into a table of the same shape (`LIKE checkins INCLUDING ALL`:
# columns, defaults, CHECKs and all its indexes), three times, emptied between. Prints
# check-ins/s of each, and the server's share of COPY's.
#
#   scripts/ingest-ceiling.sh [CLIENTS] [SECONDS]     (defaults 16 and 20)
#
# CEILING_SERVE_ARGS adds `serve` options, e.g. `--ingest-group-window-ms 0` for check-ins written
# each alone.
set -euo pipefail
cd "$(dirname "$0")/.."
clients=${1:-16}
seconds=${2:-20}
port=${CEILING_PORT:-18095}
. scripts/scratch-server.sh
# shellcheck disable=SC2086 # options, split on purpose
serve_release_scratch "ingest ceiling" "$port" --log-level warning ${CEILING_SERVE_ARGS:-}

echo "== the server: GET /health, then check-ins"
"$bench" loadtest ingest --url "$base" --clients "$clients" --duration "$seconds" --probe-interval 0 --health \
    | tee "$data/ingest.txt"
ingest=$(sed -n 's/^throughput: \([0-9.]*\) check-ins\/s.*/\1/p' "$data/ingest.txt")
health=$(sed -n 's/^health: .*, \([0-9.]*\) requests\/s.*/\1/p' "$data/ingest.txt")

echo "== COPY of the same rows into a table of the same shape"
# The worker's judgements are not part of either: the rows are copied as stored.
q -c "CREATE TABLE ingest_ceiling (LIKE checkins INCLUDING ALL)"
rows=$(q -c "SELECT count(*) FROM checkins")
q -c "\\copy (SELECT * FROM checkins ORDER BY received_at) TO '$data/rows.copy'"
split -n "l/$clients" -d "$data/rows.copy" "$data/part-"
best=0
for round in 1 2 3; do
    q -c "TRUNCATE ingest_ceiling" -c "CHECKPOINT" >/dev/null
    start=$(date +%s.%N)
    copies=()
    for part in "$data"/part-*; do
        q -c "\\copy ingest_ceiling FROM '$part'" >/dev/null &
        copies+=($!)
    done
    wait "${copies[@]}"  # these alone: the server is a child of this shell too
    end=$(date +%s.%N)
    copied=$(q -c "SELECT count(*) FROM ingest_ceiling")
    rate=$(python3 -c "print(round($copied / ($end - $start), 1))")
    echo "COPY round $round: $copied check-ins in $(python3 -c "print(round($end - $start, 3))") s, $rate check-ins/s"
    best=$(python3 -c "print(max($best, $rate))")
done
q -c "DROP TABLE ingest_ceiling"
python3 - "$ingest" "$best" "$health" "$rows" <<'EOF'
import sys
server, copy, health, rows = (float(x) for x in sys.argv[1:])
print(f"== {int(rows)} check-ins of 300 samples; GET /health alone {health:.0f}/s")
print(f"server ingest {server:.0f} check-ins/s ({server / health:.3f} of /health); "
      f"COPY {copy:.0f} check-ins/s ({copy / health:.3f} of /health); server/COPY {server / copy:.3f}")
EOF
