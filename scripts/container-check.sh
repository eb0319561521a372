#!/usr/bin/env bash
# `make container-check`: the image and the compose stack as an operator meets them, on this
# machine's Docker (docs/OPERATIONS.md, "The container check"). In order:
#
#   1. the base images, made as stand-ins when no registry gives them (container/base-images.sh)
#   2. the image built from the Dockerfile (both stages) by `compose build`; sizes; the runtime
#      stage holds no compiler and no test tool; the documents name only commands it has
#      (container/doc-names.py)
#   3. the stack up under its own project name on a free port; both health checks
#   4. through the published port: check-ins, their cells, /, a venue, /farmer and the admin's
#      sign-in with the password the first start printed, /metrics; the process not root; the
#      model loaded (its log line)
#   5. `down` and `up`: every check-in, the same grids, each phone the same device, the same admin
#      password
#   6. SIGTERM during a stream of check-ins: a graceful stop within the grace period, and every
#      check-in acknowledged stored
#   7. operations from docs/OPERATIONS.md: a lost admin password; backup (pg_dump and the data
#      volume) and restore onto a fresh stack (same grids, same devices); the systemd unit in a
#      container booting systemd (container/systemd-check.sh, on the image of step 2)
#   8. `down -v` of its own project
#
# CHECK_PROJECT (hearclear-check) and CHECK_PORT (a free one) choose the project and the port;
# KEEP=1 leaves the stack up. Needs docker (dockerd running), debootstrap for the stand-ins, curl
# and python3. Run as root or as a member of the docker group (debootstrap needs root: sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

project=${CHECK_PROJECT:-hearclear-check}
image=${CHECK_IMAGE:-hearclear:container-check}
port=${CHECK_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
url=http://127.0.0.1:$port
work=$(mktemp -d /tmp/hearclear-container-check.XXXXXX)
started=$(date +%s)
probe=(python3 scripts/container/probe.py --url "$url")

if docker compose version >/dev/null 2>&1; then
    compose=(docker compose)
elif command -v docker-compose >/dev/null; then
    compose=(docker-compose)
else
    echo "neither 'docker compose' nor docker-compose is installed" >&2
    exit 1
fi
compose+=(-p "$project" -f docker-compose.yml)
export HEARCLEAR_IMAGE=$image HEARCLEAR_PUBLISH=127.0.0.1:$port

step_started=$started
step() {
    local now
    now=$(date +%s)
    printf '\n== %s  [%s s so far]\n' "$*" "$((now - started))"
    step_started=$now
}
say() { printf '   %s\n' "$*"; }
fail() {
    printf 'FAIL: %s\n' "$*" >&2
    exit 1
}
cleanup() {
    local status=$?
    if [ $status -ne 0 ]; then
        echo "--- the app's last log lines" >&2
        "${compose[@]}" logs --no-color --tail=30 app >&2 2>/dev/null || true
    fi
    if [ "${KEEP:-0}" = 1 ]; then
        echo "KEEP=1: the stack stays up as project $project on $url (down -v: ${compose[*]} down -v)"
    else
        "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
    fi
    rm -rf "$work"
    echo "container check: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - started)) s"
}
trap cleanup EXIT

container() { "${compose[@]}" ps -q "$1"; }
health() { docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$(container "$1")"; }
wait_healthy() {
    local deadline=$(($(date +%s) + ${2:-180})) service
    for service in $1; do
        until [ "$(health "$service")" = healthy ]; do
            [ "$(date +%s)" -lt "$deadline" ] || fail "$service not healthy: $(health "$service")"
            sleep 1
        done
    done
}
app_logs() { "${compose[@]}" logs --no-color app; }
# The password the first start printed (only its hash is kept, in the appdata volume).
generated_password() { app_logs | sed -n 's/.*\/farmer password: *\([a-z0-9-]*\).*/\1/p' | tail -1; }
# Seconds since $1 (date +%s%N), to a tenth.
since() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }
up() {
    local from
    from=$(date +%s%N)
    "${compose[@]}" up -d --no-build "$@" >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "compose up"; }
    wait_healthy "db app"
    say "up $* : db and app healthy in $(since "$from") s"
}

step "1. base images"
./scripts/container/base-images.sh

step "2. the image, from the Dockerfile by compose build"
"${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
build_from=$(date +%s)
"${compose[@]}" build app >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; fail "compose build"; }
say "built in $(($(date +%s) - build_from)) s ($(grep -c 'Using cache' "$work/build.log" || true) steps from the cache)"
# The build stage alone, tagged for its size (every step cached by the build above).
docker build -q --target build -t "$image-build" . >/dev/null
size() { docker image inspect -f '{{.Size}}' "$1" | numfmt --to=iec-i --suffix=B; }
say "sizes: runtime $image $(size "$image"), build stage $(size "$image-build"), base debian:bookworm-slim $(size debian:bookworm-slim)"
say "the binary: $(docker run --rm --entrypoint sh "$image" -c 'ls -l /app/hearclear' | awk '{print $5}' | numfmt --to=iec-i --suffix=B); the model: $(docker run --rm --entrypoint sh "$image" -c 'du -sh /app/models' | cut -f1)"
docker run --rm --entrypoint sh "$image" -c '
    found=""
    for tool in swift swiftc clang gcc cc c++ ld python3 pip pip3 apt-get chromium sox espeak-ng stress-ng pg_dump psql postgres; do
        command -v "$tool" >/dev/null 2>&1 && found="$found $tool"
    done
    echo "$found"' >"$work/tools"
# apt-get is Debian's own; everything else named must be absent.
extra=$(sed 's/ apt-get//' "$work/tools" | xargs)
[ -z "$extra" ] || fail "the runtime image carries:$extra"
say "the runtime image holds no compiler, Python, browser, test tool or PostgreSQL program"
# Every make target, link and hearclear command line the operator's documents name is real.
python3 scripts/container/doc-names.py --hearclear "docker run --rm --entrypoint /app/hearclear $image" | sed 's/^/   /'

step "3. compose up (project $project, $url)"
up
say "the app runs as $(docker exec "$(container app)" sh -c 'id -un; grep ^Uid: /proc/1/status' | xargs)"
[ "$(docker exec "$(container app)" awk '/^Uid:/ {print $2}' /proc/1/status)" != 0 ] || fail "the server runs as root"
app_logs | grep -q '"sound model loaded"' || fail "no 'sound model loaded' log line"
say "log: $(app_logs | grep -o '"message":"sound model loaded"' | head -1), $(app_logs | grep -o '"message":"device key generated[^"]*"' | cut -c1-40)…"
password=$(generated_password)
[ -n "$password" ] || fail "no generated admin password in the log"
say "the first start printed an admin password (${#password} characters); its hash is in the appdata volume"

step "4. through the published port"
curl -fsS "$url/health" >/dev/null && curl -fsS "$url/ready" >/dev/null
"${probe[@]}" seed --state "$work/seed.json"
"${probe[@]}" pages --min-checkins 8
"${probe[@]}" admin --password "$password"

step "5. down and up again: the same check-ins, grids, devices and admin password"
from=$(date +%s)
"${compose[@]}" down >/dev/null 2>&1
say "down in $(($(date +%s) - from)) s; the volumes stay: $(docker volume ls -q | grep "^${project}_" | xargs)"
up
app_logs | grep -q 'device key generated' && fail "a new device key was generated"
app_logs | grep -q 'admin password hash read from' || fail "the admin password hash was not read from the data directory"
"${probe[@]}" verify --state "$work/seed.json"
"${probe[@]}" admin --password "$password"

step "6. SIGTERM while check-ins arrive"
"${probe[@]}" burst --max 400 --state "$work/burst.json" >"$work/burst.log" 2>&1 &
burst=$!
sleep 3
from=$(date +%s%N)
"${compose[@]}" stop app >/dev/null 2>&1
stop_seconds=$(since "$from")
wait "$burst" || { cat "$work/burst.log"; fail "the burst"; }
cat "$work/burst.log" | sed 's/^/   /'
code=$(docker inspect -f '{{.State.ExitCode}}' "$(container app)")
app_logs | tail -5 >"$work/stop.log"
say "stopped in $stop_seconds s (grace period 30 s), exit code $code"
[ "$code" = 0 ] || fail "the server did not stop gracefully (exit code $code)"
up
"${probe[@]}" acked --state "$work/burst.json"

step "7a. a lost admin password (docs/OPERATIONS.md)"
docker exec "$(container app)" rm /app/data/admin-password.bcrypt
"${compose[@]}" restart app >/dev/null 2>&1
wait_healthy app
new_password=$(generated_password)
[ -n "$new_password" ] && [ "$new_password" != "$password" ] || fail "no new password printed"
"${probe[@]}" admin --password "$new_password"
"${probe[@]}" admin --password "$password" --expect-refused
password=$new_password

step "7b. backup (pg_dump, the data volume) and restore onto a fresh stack (docs/OPERATIONS.md)"
"${probe[@]}" snapshot --from "$work/seed.json" --burst "$work/burst.json" --state "$work/backup.json"
"${compose[@]}" exec -T db pg_dump -U hearclear -d hearclear -Fc >"$work/hearclear.dump"
"${compose[@]}" exec -T app tar -C /app/data -cf - . >"$work/appdata.tar"
say "backup: database $(stat -c %s "$work/hearclear.dump" | numfmt --to=iec-i --suffix=B) (pg_dump -Fc), data directory: $(tar -tf "$work/appdata.tar" | grep -v '/$' | xargs)"
"${compose[@]}" down -v >/dev/null 2>&1
say "down -v: $(docker volume ls -q | grep -c "^${project}_" || true) volumes of $project left"
from=$(date +%s%N)
"${compose[@]}" up -d db >/dev/null 2>&1
wait_healthy db
# The fresh database already has PostGIS's extensions, which the dump makes too: restore into an
# empty one.
"${compose[@]}" exec -T db psql -q -v ON_ERROR_STOP=1 -U hearclear -d postgres \
    -c 'DROP DATABASE hearclear' -c 'CREATE DATABASE hearclear' >/dev/null
"${compose[@]}" exec -T db pg_restore -U hearclear -d hearclear --exit-on-error --single-transaction \
    <"$work/hearclear.dump" 2>"$work/restore.log" || { cat "$work/restore.log" >&2; fail "pg_restore"; }
"${compose[@]}" run --rm -T --no-deps --entrypoint tar app -C /app/data -xf - <"$work/appdata.tar" >/dev/null 2>&1
up
say "restored and up in $(since "$from") s"
app_logs | grep -q 'device key generated' && fail "the restored stack generated a new device key"
"${probe[@]}" verify --state "$work/backup.json"
"${probe[@]}" admin --password "$password"

step "7c. the systemd unit (docs/OPERATIONS.md), in a container booting systemd"
./scripts/container/systemd-check.sh "$image" debian:bookworm-slim

step "8. down -v"
