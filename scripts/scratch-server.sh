# Sourced by the scripts that test a served debug build (contract-test.sh, pages-browser.sh):
# `serve_scratch NAME PORT [ARGS…]` serves `$binary` (default .build/debug/hearclear) on a scratch
# data directory (`$data`, removed on exit with the server stopped) at `$base`, rate limits off
# for loopback, and returns once it is ready; if it stops first, its log is printed and the
# script fails. NAME names the test in messages.
serve_scratch() {
    local name=$1 port=$2
    shift 2
    binary=${HEARCLEAR_BINARY:-.build/debug/hearclear}
    data=$(mktemp -d "${TMPDIR:-/tmp}/hearclear-${name// /-}-XXXXXX")
    "$binary" serve --port "$port" --data-dir "$data" --rate-exempt 127.0.0.1,::1 "$@" >"$data/serve.log" 2>&1 &
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
