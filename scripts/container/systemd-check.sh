#!/usr/bin/env bash
# The systemd unit of the handbook (docs/deploy/hearclear.service; docs/OPERATIONS.md, "Deploy
# with systemd"), run for real: a Debian 12 container booting systemd as PID 1
# (scripts/container/systemd/Dockerfile: systemd, Debian's PostgreSQL 15 with PostGIS, and the
# release binary with its resources from IMAGE, the image the Dockerfile builds), then the
# handbook's install steps and:
#
#   * the binary's libraries all found (ldd); `systemd-analyze verify` clean; the exposure score
#     of `systemd-analyze security`
#   * `systemctl enable --now hearclear`: /ready within 2 minutes, as a dynamic user; the device
#     key and the admin password's hash in the state directory
#   * check-ins from four phones, judged (scripts/container/probe.py, run inside); the printed
#     admin password signs in
#   * `systemctl restart`: the same check-ins, grids and devices, the same admin password, no new
#     key
#   * `systemctl stop` while check-ins arrive: exit status 0, Result=success, the journal's graceful
#     stop, and after `systemctl start` every check-in acknowledged stored
#
# Usage: scripts/container/systemd-check.sh IMAGE [DEBIAN_IMAGE]. Called by
# scripts/container-check.sh after it builds IMAGE; KEEP=1 leaves the container running.
set -euo pipefail
cd "$(dirname "$0")/../.."
app_image=${1:?usage: systemd-check.sh IMAGE [DEBIAN_IMAGE]}
debian_image=${2:-debian:bookworm-slim}
host_image=hearclear:systemd-check
name=hearclear-systemd-check-$$
started=$(date +%s)
say() { printf '   %s\n' "$*"; }
fail() {
    printf 'FAIL: %s\n' "$*" >&2
    exit 1
}
in_host() { docker exec -i "$name" "$@"; }
cleanup() {
    local status=$?
    if [ $status -ne 0 ]; then
        echo "--- the unit's journal (last 30 lines)" >&2
        in_host journalctl -u hearclear --no-pager -n 30 >&2 2>/dev/null || true
    fi
    if [ "${KEEP:-0}" = 1 ]; then
        echo "KEEP=1: the container $name stays up (docker rm -f $name)"
    else
        docker rm -f "$name" >/dev/null 2>&1 || true
    fi
    say "systemd check: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - started)) s"
}
trap cleanup EXIT
since() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }

from=$(date +%s)
docker build -q --build-arg "DEBIAN_IMAGE=$debian_image" --build-arg "APP_IMAGE=$app_image" \
    -t "$host_image" scripts/container/systemd >/dev/null || fail "building $host_image"
say "$host_image built in $(($(date +%s) - from)) s (systemd, PostgreSQL 15 + PostGIS, /opt/hearclear from $app_image)"

# systemd as PID 1 under dockerd 20.10 with cgroup v1: the host's cgroup hierarchy writable,
# /run and /tmp as tmpfs, the capabilities the unit's sandbox needs to set up its namespaces
# (all but CAP_SYS_RESOURCE, which a nested dockerd may not hold), no seccomp or AppArmor profile
# of Docker's in the way of the unit's own.
from=$(date +%s%N)
docker run -d --name "$name" --cap-add ALL --cap-drop SYS_RESOURCE \
    --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
    --cgroupns=host -v /sys/fs/cgroup:/sys/fs/cgroup:rw --tmpfs /run --tmpfs /run/lock --tmpfs /tmp \
    "$host_image" >/dev/null
state=""
for _ in $(seq 1 120); do
    state=$(in_host systemctl is-system-running 2>/dev/null || true)
    case "$state" in running | degraded) break ;; esac
    sleep 0.5
done
case "$state" in running | degraded) ;; *) fail "systemd did not boot: $state" ;; esac
[ "$state" = running ] || fail "systemd booted degraded: $(in_host systemctl --failed --no-legend | xargs)"
say "booted: $(in_host systemctl --version | head -1) as PID 1 in $(since "$from") s, $(in_host systemctl is-active postgresql@15-main) PostgreSQL"

missing=$(in_host ldd /opt/hearclear/hearclear | grep 'not found' || true)
[ -z "$missing" ] || fail "the binary's libraries missing: $missing"
say "ldd: $(in_host ldd /opt/hearclear/hearclear | wc -l) libraries, all found ($(in_host ldd /opt/hearclear/hearclear | grep -oE 'lib(sndfile|openblas|kissfft[^ ]*|samplerate)[^ ]*' | sort -u | xargs))"

# The handbook's install steps from the database on (docs/OPERATIONS.md, "Deploy with systemd");
# the files and packages before them are the Dockerfile's.
in_host bash -euo pipefail <<'STEPS'
password=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 -c "CREATE ROLE hearclear LOGIN PASSWORD '$password'" \
  -c 'CREATE DATABASE hearclear OWNER hearclear'
runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 -d hearclear -c 'CREATE EXTENSION postgis'
install -d -m 0755 /etc/hearclear && install -m 0600 /dev/null /etc/hearclear/hearclear.env
echo "DATABASE_URL=postgres://hearclear:$password@127.0.0.1:5432/hearclear" >/etc/hearclear/hearclear.env
STEPS
docker cp docs/deploy/hearclear.service "$name:/etc/systemd/system/hearclear.service"
verify=$(in_host systemd-analyze verify /etc/systemd/system/hearclear.service 2>&1) || fail "systemd-analyze verify: $verify"
[ -z "$verify" ] || fail "systemd-analyze verify warns: $verify"
say "systemd-analyze verify: clean"

from=$(date +%s%N)
in_host bash -c 'systemctl daemon-reload && systemctl enable --now hearclear' >/dev/null 2>&1 ||
    fail "systemctl enable --now hearclear"
# /ready answered within 2 minutes (the first start applies every migration).
ready() {
    local _
    for _ in $(seq 1 240); do
        [ "$(in_host curl -s --max-time 2 http://127.0.0.1:8080/ready || true)" = '{"status":"ready"}' ] && return 0
        [ "$(in_host systemctl is-active hearclear)" = failed ] && fail "hearclear.service failed"
        sleep 0.5
    done
    fail "/ready did not answer ready within 2 minutes"
}
ready
say "systemctl enable --now hearclear: /ready in $(since "$from") s"
say "exposure: $(in_host systemd-analyze security hearclear --no-pager | sed -n 's/.*Overall exposure level for hearclear.service: //p')"
pid=$(in_host systemctl show -p MainPID --value hearclear)
uid=$(in_host awk '/^Uid:/ {print $2}' "/proc/$pid/status")
[ "$uid" != 0 ] || fail "the server runs as root"
files=$(in_host ls /var/lib/hearclear | xargs)
[ "$files" = "admin-password.bcrypt device-key" ] || fail "the state directory holds: $files"
say "runs as uid $uid (DynamicUser); /var/lib/hearclear: $files (directory mode $(in_host stat -c %a /var/lib/private/hearclear), owned by uid $(in_host stat -c %u /var/lib/private/hearclear))"
password=$(in_host journalctl -u hearclear --no-pager -o cat | sed -n 's/.*\/farmer password: *\([a-z0-9-]*\).*/\1/p' | tail -1)
[ -n "$password" ] || fail "no generated admin password in the journal"
in_host journalctl -u hearclear --no-pager -o cat | grep -q 'sound model loaded' || fail "no 'sound model loaded' in the journal"

# The admin's sign-in with curl inside: the cookies are Secure (HEARCLEAR_ADMIN_SECURE_COOKIE),
# which curl sends to http://127.0.0.1 as to a secure origin and Python's cookie jar would not.
sign_in() {
    in_host bash -euo pipefail -s "$1" <<'SIGNIN'
jar=$(mktemp)
csrf=$(curl -sS -c "$jar" http://127.0.0.1:8080/farmer | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -1)
curl -sS -b "$jar" -c "$jar" -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/farmer/login \
    --data-urlencode "csrf=$csrf" --data-urlencode next= --data-urlencode username=admin --data-urlencode "password=$1"
rm -f "$jar"
SIGNIN
}
[ "$(sign_in "$password")" = 303 ] || fail "the printed admin password does not sign in"
say "the journal printed the admin password (${#password} characters) once; it signs in (303); 'sound model loaded' logged"

docker cp scripts/container/probe.py "$name:/root/probe.py"
probe() { in_host python3 /root/probe.py --url http://127.0.0.1:8080 "$@" | sed 's/^/   /'; }
probe seed --state /root/seed.json

from=$(date +%s%N)
in_host systemctl restart hearclear
ready
say "systemctl restart: /ready again in $(since "$from") s"
restarted=$(in_host journalctl --no-pager -o cat _SYSTEMD_INVOCATION_ID="$(in_host systemctl show -p InvocationID --value hearclear)")
echo "$restarted" | grep -q 'device key generated' && fail "the restart generated a new device key"
echo "$restarted" | grep -q 'admin password hash read from' || fail "the restart did not read the admin password's hash"
probe verify --state /root/seed.json
[ "$(sign_in "$password")" = 303 ] || fail "the admin password changed across the restart"
say "the same admin password signs in; no key generated"

# The stop while check-ins arrive: every one acknowledged must be stored.
log=$(mktemp)
in_host python3 /root/probe.py --url http://127.0.0.1:8080 burst --max 400 --state /root/burst.json >"$log" 2>&1 &
burst=$!
sleep 3
from=$(date +%s%N)
in_host systemctl stop hearclear
stop_seconds=$(since "$from")
wait "$burst" || { cat "$log"; rm -f "$log"; fail "the burst"; }
sed 's/^/   /' "$log"
rm -f "$log"
result=$(in_host systemctl show -p Result -p ExecMainStatus hearclear | xargs)
[ "$result" = "Result=success ExecMainStatus=0" ] || fail "the stop: $result"
stopped=$(in_host journalctl -u hearclear --no-pager -o cat -n 10)
echo "$stopped" | grep -q 'aggregation worker stopped' && echo "$stopped" | grep -q 'Deactivated successfully' ||
    { echo "$stopped"; fail "no graceful stop in the journal"; }
say "systemctl stop during the check-ins: $stop_seconds s (TimeoutStopSec 30 s), $result; the journal: aggregation worker stopped, Deactivated successfully"
in_host systemctl start hearclear
ready
probe acked --state /root/burst.json
