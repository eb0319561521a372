#!/usr/bin/env bash
# The TLS proxy check of `make test` (docs/OPERATIONS.md, "Behind a TLS proxy"): the handbook's
# nginx site (docs/deploy/nginx.conf) in front of the debug build, both run as the current user
# in a temporary directory, and checked through HTTPS only:
#
#   * a throwaway certificate authority and a certificate for localhost (openssl); curl trusts
#     that authority alone (--cacert)
#   * the server on a scratch data directory with --trusted-proxies 127.0.0.1,::1 and
#     --admin-secure-cookie, nothing exempt from the rate limits, searches limited to 2 an hour
#     per address
#   * nginx with the site file as written, only its listen ports, upstream port, host name and
#     certificate directory replaced (and the replacements checked to have happened)
#   * /ready; a venue and a v2 check-in (201); a recording metered through the streamed location
#   * the admin's sign-in: both cookies Secure; the dashboard opens
#   * client addresses: two clients (127.0.0.2 and 127.0.0.3, through nginx) get a search bucket
#     each; an X-Forwarded-For the client sends itself does not move it into a fresh one; a
#     guesser held back at /farmer holds back no other client
#   * plain HTTP answers 301 to the same path over HTTPS
#
# PROXY_PORT (default 18443) is the HTTPS port; the HTTP port and the server's are the next two.
set -euo pipefail
cd "$(dirname "$0")/.."
https_port=${PROXY_PORT:-18443}
http_port=$((https_port + 1))
server_port=$((https_port + 2))
site=docs/deploy/nginx.conf
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { echo "proxy check: nginx is missing; run make deps" >&2; exit 1; }
command -v openssl >/dev/null && command -v curl >/dev/null || { echo "proxy check: needs openssl and curl" >&2; exit 1; }
started=$(date +%s)
fail() { echo "proxy check: FAIL: $*" >&2; exit 1; }
say() { echo "proxy check: $*"; }

# The server, as the handbook runs it behind the proxy; the admin password from the environment.
password="proxy-$RANDOM$RANDOM$RANDOM"
. scripts/scratch-server.sh
HEARCLEAR_ADMIN_PASSWORD=$password SCRATCH_RATE_EXEMPT='' serve_scratch "proxy check" "$server_port" \
    --trusted-proxies 127.0.0.1,::1 --admin-secure-cookie --rate-searches-address 2/h
tmp=$data/proxy
mkdir -p "$tmp"
nginx_pid=""
trap 'status=$?
    [ -n "$nginx_pid" ] && { kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; }
    if [ $status -ne 0 ]; then
        echo "--- nginx error log" >&2; tail -20 "$tmp/error.log" >&2 2>/dev/null || true
        echo "--- server log" >&2; tail -30 "$data/serve.log" >&2 || true
    fi
    kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$data"' EXIT

# A certificate authority of this run only, and localhost's certificate signed by it.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=proxy check CA" \
    -keyout "$tmp/ca.key" -out "$tmp/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout "$tmp/privkey.pem" -out "$tmp/req.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n' >"$tmp/san.ext"
openssl x509 -req -in "$tmp/req.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -CAcreateserial -days 1 \
    -extfile "$tmp/san.ext" -out "$tmp/fullchain.pem" 2>/dev/null

# The handbook's site with this run's ports, host name and certificate directory: each
# replacement must match, so a changed site file fails here instead of being tested half.
replace() {
    grep -qF -- "$1" "$tmp/site.conf" || fail "$site no longer has '$1'"
    local from=$1 to=$2
    FROM=$from TO=$to perl -pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/g' "$tmp/site.conf"
}
cp "$site" "$tmp/site.conf"
replace "listen 80;" "listen 127.0.0.1:$http_port;"
replace "listen [::]:80;" "listen [::1]:$http_port;"
replace "listen 443 ssl" "listen 127.0.0.1:$https_port ssl"
replace "listen [::]:443 ssl" "listen [::1]:$https_port ssl"
replace "server 127.0.0.1:8080;" "server 127.0.0.1:$server_port;"
replace "/etc/letsencrypt/live/hearclear.example.org/" "$tmp/"
replace "hearclear.example.org" "localhost"
# The main configuration Debian's /etc/nginx/nginx.conf would be, with every path in $tmp.
{
    [ "$(id -u)" -eq 0 ] && echo "user $(id -un) $(id -gn);"
    cat <<EOF
daemon off;
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/error.log warn;
events { worker_connections 256; }
http {
    access_log $tmp/access.log;
    client_body_temp_path $tmp/client_body;
    proxy_temp_path $tmp/proxy_temp;
    fastcgi_temp_path $tmp/fastcgi_temp;
    uwsgi_temp_path $tmp/uwsgi_temp;
    scgi_temp_path $tmp/scgi_temp;
    include $tmp/site.conf;
}
EOF
} >"$tmp/nginx.conf"
"$nginx" -t -q -p "$tmp" -e "$tmp/error.log" -c "$tmp/nginx.conf" || fail "nginx -t"
"$nginx" -p "$tmp" -e "$tmp/error.log" -c "$tmp/nginx.conf" &
nginx_pid=$!

https=https://localhost:$https_port
# curl through nginx only, trusting this run's authority alone; --interface picks the client's
# loopback address (127.0.0.0/8 is all loopback on Linux).
c() { curl -sS --cacert "$tmp/ca.pem" --resolve "localhost:$https_port:127.0.0.1" --max-time 60 "$@"; }
for _ in $(seq 1 100); do
    c -o /dev/null "$https/health" 2>/dev/null && break
    kill -0 "$nginx_pid" 2>/dev/null || fail "nginx stopped"
    sleep 0.1
done
say "nginx $("$nginx" -v 2>&1 | sed 's/.*\///') on https://localhost:$https_port and http://127.0.0.1:$http_port, the server on 127.0.0.1:$server_port"

# /ready, a venue and a v2 check-in, over HTTPS.
ready=$(c "$https/ready")
[ "$ready" = '{"status":"ready"}' ] || fail "/ready: $ready"
status=$(c -o "$tmp/venue.json" -w '%{http_code}' -X PUT "$https/api/v2/venues/proxy-check-arms" \
    -H 'Content-Type: application/json' \
    -d '{"name":"The Proxy Arms","latitude":-33.8688,"longitude":151.2093,"timezone":"Australia/Sydney"}')
[ "$status" = 201 ] || [ "$status" = 200 ] || fail "PUT venue: $status $(cat "$tmp/venue.json")"
python3 -c '
import json, sys
sys.path.insert(0, "scripts/container")
import probe
venue = ("proxy-check-arms", "The Proxy Arms", -33.8688, 151.2093, "Australia/Sydney")
print(json.dumps(probe.checkin(venue, "c0ffee00-0000-4000-8000-0000000000aa", -30.0)))' >"$tmp/checkin.json"
status=$(c -o "$tmp/answer.json" -w '%{http_code}' -X POST "$https/api/v2/checkins" \
    -H 'Content-Type: application/json' --data-binary @"$tmp/checkin.json")
[ "$status" = 201 ] || fail "v2 check-in: $status $(cat "$tmp/answer.json")"
say "https: /ready $ready; a venue and a v2 check-in 201"

# A 3-second WAV, sent chunked to the meter's own location (passed on as it arrives).
python3 -c '
import math, struct, sys, wave
with wave.open(sys.argv[1], "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(48000)
    w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / 48000))) for i in range(3 * 48000)))
' "$tmp/tone.wav"
status=$(c -o "$tmp/meter.json" -w '%{http_code}' -X POST "$https/api/v2/meter" -H 'Content-Type: audio/wav' \
    -H 'Transfer-Encoding: chunked' --data-binary @"$tmp/tone.wav")
[ "$status" = 200 ] || fail "meter: $status $(head -c 300 "$tmp/meter.json")"
seconds=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["samples"]))' "$tmp/meter.json")
[ "$seconds" = 3 ] || fail "meter: $seconds samples for 3 s of audio"
say "https: a 3 s recording streamed to /api/v2/meter: 200, $seconds samples"

# The admin's sign-in: the login form's CSRF cookie and the session cookie are both Secure.
jar=$tmp/cookies
c -c "$jar" -D "$tmp/form.headers" -o "$tmp/form.html" "$https/farmer"
csrf=$(sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' "$tmp/form.html" | head -1)
[ -n "$csrf" ] || fail "/farmer: no sign-in form"
grep -i '^set-cookie: hearclear_login=' "$tmp/form.headers" | grep -qi '; *secure' ||
    fail "the login cookie is not Secure: $(grep -i '^set-cookie' "$tmp/form.headers")"
status=$(c -b "$jar" -c "$jar" -D "$tmp/login.headers" -o /dev/null -w '%{http_code}' "$https/farmer/login" \
    --data-urlencode "csrf=$csrf" --data-urlencode next= --data-urlencode username=admin \
    --data-urlencode "password=$password")
[ "$status" = 303 ] || fail "sign-in: $status"
cookie=$(grep -i '^set-cookie: hearclear_admin=' "$tmp/login.headers" | tr -d '\r')
echo "$cookie" | grep -qi '; *secure' || fail "the session cookie is not Secure: $cookie"
status=$(c -b "$jar" -o "$tmp/dashboard.html" -w '%{http_code}' "$https/farmer/dashboard")
[ "$status" = 200 ] && grep -q /farmer/logout "$tmp/dashboard.html" || fail "the dashboard: $status"
say "https: signed in at /farmer: $(echo "$cookie" | sed 's/=[^;]*;/=…;/; s/^[Ss]et-[Cc]ookie: //'); the dashboard 200"

# Client addresses. Searches (GET /) are limited to 2 an hour per address: if the server saw
# nginx's address, every client would share one bucket.
search() { c -o /dev/null -w '%{http_code}' "$@" "$https/"; }
a=$(search --interface 127.0.0.2)" "$(search --interface 127.0.0.2)" "$(search --interface 127.0.0.2)
[ "$a" = "200 200 429" ] || fail "client 127.0.0.2's searches: $a (expected 200 200 429)"
b=$(search --interface 127.0.0.3)
[ "$b" = 200 ] || fail "client 127.0.0.3's first search: $b: it shares 127.0.0.2's bucket"
forged=$(search --interface 127.0.0.2 -H 'X-Forwarded-For: 198.51.100.99')" "$(search --interface 127.0.0.2 -H 'X-Forwarded-For: 127.0.0.1')
[ "$forged" = "429 429" ] || fail "127.0.0.2 with its own X-Forwarded-For: $forged: the client chose its address"
say "client addresses: 127.0.0.2's searches $a, 127.0.0.3's $b (a bucket each); 127.0.0.2 sending X-Forwarded-For 198.51.100.99, then 127.0.0.1: $forged"

# The admin's login backoff keys on the client too: a guesser at 127.0.0.2 (another user name,
# so only its address is held back) tries until it is held back, then 127.0.0.3 signs in.
guess() {
    local form
    form=$(c --interface 127.0.0.2 -c "$tmp/guesser" "$https/farmer" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -1)
    c --interface 127.0.0.2 -b "$tmp/guesser" -o /dev/null -w '%{http_code}' "$https/farmer/login" \
        --data-urlencode "csrf=$form" --data-urlencode next= --data-urlencode username=mallory \
        --data-urlencode password=guess
}
held=""
for attempt in $(seq 1 15); do
    answer=$(guess)
    [ "$answer" = 429 ] && { held=$attempt; break; }
    [ "$answer" = 401 ] || fail "a wrong password from 127.0.0.2: $answer"
done
[ -n "$held" ] || fail "15 wrong passwords from 127.0.0.2 were never held back"
rm -f "$tmp/other"
form=$(c --interface 127.0.0.3 -c "$tmp/other" "$https/farmer" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -1)
status=$(c --interface 127.0.0.3 -b "$tmp/other" -o /dev/null -w '%{http_code}' "$https/farmer/login" \
    --data-urlencode "csrf=$form" --data-urlencode next= --data-urlencode username=admin \
    --data-urlencode "password=$password")
[ "$status" = 303 ] || fail "the admin at 127.0.0.3 while 127.0.0.2 is held back: $status (the backoff keys on nginx's address)"
say "admin backoff: 127.0.0.2 held back (429) at its attempt $held; the admin at 127.0.0.3 signs in meanwhile (303)"

# Plain HTTP: a redirect to the same path over HTTPS, for both address families.
redirect=$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' "http://127.0.0.1:$http_port/ready?x=1")
[ "$redirect" = "301 https://127.0.0.1/ready?x=1" ] || fail "plain http: $redirect"
redirect6=$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' -H 'Host: localhost' "http://[::1]:$http_port/farmer")
[ "$redirect6" = "301 https://localhost/farmer" ] || fail "plain http over IPv6: $redirect6"
say "plain http: $redirect; over IPv6 (Host: localhost): $redirect6"
say "passed in $(($(date +%s) - started)) s"
