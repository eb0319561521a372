# Sourced by the scripts that test a served debug build (contract-test.sh, pages-browser.sh) and
# by the benchmarks on a release build:
# `serve_scratch NAME PORT [ARGS…]` serves `$binary` (default .build/debug/hearclear) on a scratch
# data directory (`$data`, removed on exit with the server stopped) at `$base`, rate limits off
# for loopback (`SCRATCH_RATE_EXEMPT=` exempts nothing), and returns once it is ready; if it
# stops first, its log is printed and the script fails. NAME names the test in messages.
serve_scratch() {
    local name=$1 port=$2
    shift 2
    binary=${HEARCLEAR_BINARY:-.build/debug/hearclear}
    data=$(mktemp -d "${TMPDIR:-/tmp}/hearclear-${name// /-}-XXXXXX")
    local exempt=${SCRATCH_RATE_EXEMPT-127.0.0.1,::1}
    "$binary" serve --port "$port" --data-dir "$data" ${exempt:+--rate-exempt "$exempt"} "$@" >"$data/serve.log" 2>&1 &
    server=$!
    trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$data"' EXIT
    base="http://127.0.0.1:$port"
    for _ in $(seq 1 240); do
        if .venv/bin/python -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=1)" "$base/ready" 2>/dev/null; then
            return 0
        fi
        if ! kill -0 "$server" 2>/dev/null; then
            echo "$name: the server stopped; its log:" >&2
            cat "$data/serve.log" >&2
            exit 1
        fi
        sleep 0.5
    done
    echo "$name: the server was not ready after 2 minutes; its log:" >&2
    cat "$data/serve.log" >&2
    exit 1
}

# `serve_release_scratch NAME PORT [ARGS…]`: `serve_scratch` of the release build, for the
# benchmarks that read the database beside it (ingest-ceiling.sh, sample-bytes.sh). Sets `$bench`
# (the release hearclear-bench, by absolute path) and `$socket`/`$pgport` of the scratch server's
# embedded PostgreSQL, which `q` then queries with Debian's psql (unaligned, stopping at an error).
serve_release_scratch() {
    local name=$1
    psql=$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -1)
    [ -x "$psql" ] || { echo "$name: psql of Debian's PostgreSQL is missing; run make deps" >&2; exit 1; }
    bench=$PWD/.build/release/hearclear-bench
    [ -x .build/release/hearclear ] && [ -x "$bench" ] || { echo "$name: build first: make release" >&2; exit 1; }
    HEARCLEAR_BINARY=.build/release/hearclear
    export HEARCLEAR_BINARY
    serve_scratch "$@"
    socket="$data/run"
    pgport=$(ls -a "$socket" | sed -n 's/^\.s\.PGSQL\.\([0-9]*\)$/\1/p' | head -1)
}

q() { "$psql" -h "$socket" -p "$pgport" -U hearclear -d postgres -X -At -v ON_ERROR_STOP=1 "$@"; }
