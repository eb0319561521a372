#!/usr/bin/env bash
# The upgrade of docs/OPERATIONS.md, tried: the compose stack on OLD_IMAGE with check-ins from
# known phones, then NEW_IMAGE over the same volumes (`compose run --rm app migrate`, then
# `compose up -d app`): the migrations the old version lacked applied, every check-in there, the
# same grids, each phone the same device, the admin password the same; then `down -v`.
#
#   scripts/container/upgrade-check.sh OLD_IMAGE NEW_IMAGE
#
# OLD_IMAGE is an image of an earlier commit built with this Dockerfile, e.g.
#   git worktree add /tmp/old COMMIT && cp Dockerfile .dockerignore /tmp/old/ && docker build -t hearclear:old /tmp/old
# Not part of `make container-check`: it needs a second release build.
set -euo pipefail
cd "$(dirname "$0")/../.."
old=$1 new=$2
project=${CHECK_PROJECT:-hearclear-upgrade}
port=${CHECK_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
url=http://127.0.0.1:$port
work=$(mktemp -d /tmp/hearclear-upgrade-check.XXXXXX)
if docker compose version >/dev/null 2>&1; then compose=(docker compose); else compose=(docker-compose); fi
compose+=(-p "$project" -f docker-compose.yml)
export HEARCLEAR_PUBLISH=127.0.0.1:$port
probe=(python3 scripts/container/probe.py --url "$url")
trap '"${compose[@]}" down -v >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
say() { printf '   %s\n' "$*"; }
healthy() {
    local c
    c=$("${compose[@]}" ps -q "$1")
    for _ in $(seq 1 180); do
        [ "$(docker inspect -f '{{.State.Health.Status}}' "$c")" = healthy ] && return 0
        sleep 1
    done
    echo "FAIL: $1 not healthy" >&2
    exit 1
}
migrations() { "${compose[@]}" logs --no-color app | grep -o '"migration":"[0-9a-z_]*.sql"' | sed 's/"migration":"//; s/"//' | xargs; }

echo "== the old version: $old"
HEARCLEAR_IMAGE=$old "${compose[@]}" up -d --no-build >/dev/null 2>&1
healthy db
healthy app
say "migrations applied at its first start: $(migrations | wc -w), the last $(migrations | tr ' ' '\n' | tail -1)"
"${probe[@]}" seed --state "$work/seed.json"
"${probe[@]}" snapshot --from "$work/seed.json" --state "$work/before.json" >/dev/null
HEARCLEAR_IMAGE=$old "${compose[@]}" stop app >/dev/null 2>&1
# Older versions kept the generated password in stdout's buffer until they exited.
password=$("${compose[@]}" logs --no-color app | sed -n 's/.*\/farmer password: *\([a-z0-9-]*\).*/\1/p' | tail -1)
[ -n "$password" ] || { echo "FAIL: no admin password in the old version's log" >&2; exit 1; }

echo "== the new version over the same volumes: $new"
from=$(date +%s)
HEARCLEAR_IMAGE=$new "${compose[@]}" run --rm -T app migrate >"$work/migrate.log" 2>&1 \
    || { cat "$work/migrate.log" >&2; exit 1; }
say "compose run --rm app migrate: $(grep -o '"migration":"[0-9a-z_]*.sql"' "$work/migrate.log" | sed 's/"migration":"//; s/"//' | xargs | sed 's/^$/nothing/') applied"
HEARCLEAR_IMAGE=$new "${compose[@]}" up -d --no-build app >/dev/null 2>&1
healthy app
say "the new app healthy $(($(date +%s) - from)) s after the old one stopped; its start applied: $(migrations | sed 's/^$/nothing more/')"
"${compose[@]}" logs --no-color app | grep -q 'device key generated' && { echo "FAIL: a new device key" >&2; exit 1; }
"${probe[@]}" verify --state "$work/before.json"
"${probe[@]}" admin --password "$password"
"${probe[@]}" pages --min-checkins 1
echo "upgrade check: passed"
