#!/usr/bin/env bash
# `make demo`: serves a simulated city in central Berlin from a data directory of its own
# (DEMO_DIR, default .hearclear-demo; never `make run`'s .hearclear) on http://127.0.0.1:PORT
# (default 8080), so that /, a venue's page, /measure and /farmer show data at once.
#
# The first start fills it: `hearclear-bench simulate --engine --place berlin` stores three weeks of
# check-ins ending yesterday (ages relative to the clock of that start) through the engine, judges
# them, and files reports of wrong data; later starts serve the same city. Start afresh by
# deleting DEMO_DIR. The admin password of /farmer is the demo's own, made on the first start and
# kept in clear in DEMO_DIR/admin-password (a demo's, guarding nothing real), and printed at each
# start. Ctrl-C (or SIGTERM) stops the server, and its embedded PostgreSQL, cleanly.
#
# The demo always runs its own embedded PostgreSQL: DATABASE_URL, HEARCLEAR_* and a .env file
# are ignored (the processes run in DEMO_DIR). Arguments are passed on to `hearclear serve`.
# Expects the debug build (`make demo` builds it; DEMO_BIN names another folder of binaries).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
port=${PORT:-8080}
dir=${DEMO_DIR:-.hearclear-demo}
bin=$(cd "${DEMO_BIN:-.build/debug}" && pwd)
# The city: its size keeps the first fill to about half a minute of a debug build on 2 cores.
venues=${DEMO_VENUES:-20}
days=${DEMO_DAYS:-21}

for tool in hearclear hearclear-bench; do
    [ -x "$bin/$tool" ] || { echo "demo: $bin/$tool is missing; build first (make demo does)" >&2; exit 1; }
done

# Nothing of the operator's own set-up reaches the demo's processes.
while read -r name; do unset "$name"; done < <(compgen -e | grep -E '^(HEARCLEAR_|DATABASE_URL$|DATABASE_READ_URL$)' || true)

# DEMO_DIR holds a demo (its marker), or nothing yet; anything else is refused, never deleted.
dir=$(realpath -m "$dir")
run_dir=$(realpath -m .hearclear)
if [ "$dir" = "$run_dir" ] || [ "${dir#"$run_dir"/}" != "$dir" ]; then
    echo "demo: DEMO_DIR is (in) make run's data directory ($dir); choose another" >&2
    exit 1
fi
mkdir -p "$dir"
if [ ! -e "$dir/hearclear-demo" ] && [ -n "$(ls -A "$dir")" ]; then
    echo "demo: $dir holds something that is not a HearClear demo; choose another DEMO_DIR" >&2
    exit 1
fi
if [ -e "$dir/hearclear-demo" ] && [ ! -e "$dir/hearclear-demo-filled" ]; then
    # A first start stopped before the city was in: begin again, unless its PostgreSQL still runs.
    pid=$(head -1 "$dir/postgres/postmaster.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        echo "demo: $dir was not filled to the end and its PostgreSQL (pid $pid) still runs; stop it first" >&2
        exit 1
    fi
    echo "demo: $dir was not filled to the end; starting it afresh"
    find "$dir" -mindepth 1 -delete
fi
cd "$dir"

if [ ! -e hearclear-demo-filled ]; then
    echo "A HearClear demo (scripts/demo.sh): a simulated city, filled once; delete this folder to start afresh." \
        >hearclear-demo
    # 20 characters from 31 unambiguous ones in groups of five, as the server's own passwords.
    (umask 077 && python3 -c "import secrets; a = 'abcdefghjkmnpqrstuvwxyz23456789'; s = ''.join(secrets.choice(a) for _ in range(20)); print('-'.join(s[i:i + 5] for i in range(0, 20, 5)))" >admin-password)
    echo "demo: filling $dir with a simulated city in central Berlin ($venues venues, $days days of check-ins)…"
    started=$SECONDS
    "$bin/hearclear-bench" simulate --engine --data-dir "$dir" --resources "$repo" --place berlin \
        --venues "$venues" --days "$days" --rate 1.2 --hide-cells 0.1 --contamination 0.15 --reports 12 \
        --seed 1 --truth "$dir/truth.json"
    echo "demo: filled in $((SECONDS - started)) s"
    touch hearclear-demo-filled
fi
password=$(cat admin-password)

HEARCLEAR_ADMIN_PASSWORD=$password "$bin/hearclear" serve --port "$port" --data-dir "$dir" --resources "$repo" \
    --rate-exempt 127.0.0.1,::1 "$@" &
server=$!
stop() {
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    exit 0
}
trap stop INT TERM

base="http://127.0.0.1:$port"
until python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=1)" "$base/ready" 2>/dev/null; do
    if ! kill -0 "$server" 2>/dev/null; then
        wait "$server" && status=0 || status=$?
        echo "demo: the server stopped (exit $status); see its log above" >&2
        exit 1
    fi
    sleep 0.5
done
cat <<EOF

  HearClear demo: a simulated city in central Berlin, served from $dir
    Find a quiet place:  $base/
    Measure here:        $base/measure
    Admin:               $base/farmer   user: admin   password: $password
  Its check-ins end the day before $(date -r hearclear-demo-filled +%F), when it was filled.
  Ctrl-C stops it; \`make demo\` serves the same city again; delete $dir to start afresh.

EOF
wait "$server" && status=0 || status=$?
exit "$status"
