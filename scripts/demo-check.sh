#!/usr/bin/env bash
# `make demo` checked in a real browser (part of `make test`; alone: `make demo-check`): runs
# scripts/demo.sh itself, as `make demo` does, on a scratch DEMO_DIR and port (18095,
# DEMO_CHECK_PORT), takes the admin password it prints, and runs scripts/demo-check.py in Debian's
# chromium (Playwright): a search by a demo venue's name, its week measured, /measure for it,
# /farmer signed in with the printed password showing the venues, check-ins and reports;
# screenshots in screenshots/demo. Then stops the demo as Ctrl-C does (SIGINT to its process
# group; it must exit 0 with its PostgreSQL stopped), starts it again (it must serve the same city,
# not fill it again, with the same password), stops it with SIGTERM, and fails if `make run`'s
# data directory (.hearclear) was created or changed meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${DEMO_CHECK_PORT:-18095}
if ! command -v chromium >/dev/null || ! .venv/bin/python -c "import playwright" 2>/dev/null; then
    echo "demo check: chromium or Playwright is missing; run make deps" >&2
    exit 1
fi
# `make run`'s data directory, as it is before: absent, or every path with its size and mtime.
state() { if [ -e .hearclear ]; then find .hearclear -printf '%p %s %T@\n' | sort; else echo absent; fi; }
before=$(state)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/hearclear-demo-check-XXXXXX")
demo=
cleanup() {
    if [ -n "$demo" ]; then kill -TERM "$demo" 2>/dev/null || true; wait "$demo" 2>/dev/null || true; fi
    rm -rf "$scratch"
}
trap cleanup EXIT

# Starts the demo, in a process group of its own as a terminal's job, into $scratch/$1.log and
# waits for its banner (10 minutes bound a hang, not the fill's speed); sets $demo (also the
# group's id) and $password.
start() {
    DEMO_DIR="$scratch/city" PORT=$port setsid scripts/demo.sh >"$scratch/$1.log" 2>&1 &
    demo=$!
    for _ in $(seq 1 1200); do
        if grep -q "Admin: .*password: " "$scratch/$1.log"; then
            password=$(sed -n 's/.*Admin: .*password: \([a-z0-9-]*\).*/\1/p' "$scratch/$1.log" | head -1)
            return 0
        fi
        if ! kill -0 "$demo" 2>/dev/null; then
            echo "demo check: the demo stopped before serving; its output:" >&2
            cat "$scratch/$1.log" >&2
            exit 1
        fi
        sleep 0.5
    done
    echo "demo check: the demo did not serve within 10 minutes; its output:" >&2
    cat "$scratch/$1.log" >&2
    exit 1
}
# Stops the demo with signal $2 (INT: to its whole group, as Ctrl-C in a terminal; TERM: to the
# script) and fails unless it exits 0 and its PostgreSQL has stopped.
stop() {
    if [ "$2" = INT ]; then kill -INT -- "-$demo"; else kill -TERM "$demo"; fi
    wait "$demo" && status=0 || status=$?
    demo=
    if [ "$status" != 0 ]; then
        echo "demo check: the demo exited $status when stopped; its output:" >&2
        cat "$scratch/$1.log" >&2
        exit 1
    fi
    if [ -e "$scratch/city/postgres/postmaster.pid" ]; then
        echo "demo check: the demo's PostgreSQL still runs after the demo stopped ($2)" >&2
        exit 1
    fi
}

started=$SECONDS
start first
grep "filled in" "$scratch/first.log" || true
first_password=$password
.venv/bin/python scripts/demo-check.py --url "http://127.0.0.1:$port" --password "$password" \
    --truth "$scratch/city/truth.json"
stop first INT

start second
stop second TERM
if grep -q "filling" "$scratch/second.log"; then
    echo "demo check: the second start filled the city again; its output:" >&2
    cat "$scratch/second.log" >&2
    exit 1
fi
[ "$password" = "$first_password" ] || { echo "demo check: the second start printed another password" >&2; exit 1; }

after=$(state)
if [ "$before" != "$after" ]; then
    echo "demo check: make run's data directory .hearclear changed:" >&2
    diff <(echo "$before") <(echo "$after") >&2 || true
    exit 1
fi
[ "$before" = absent ] && untouched="still absent" || untouched="unchanged, $(echo "$before" | wc -l) paths"
echo "demo check: passed in $((SECONDS - started)) s; make run's .hearclear $untouched"
