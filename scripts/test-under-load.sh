#!/usr/bin/env bash
# `make test` with two CPU hogs beside it for its whole run (stress-ng --cpu 2, Debian's
# stress-ng), as on a CI machine whose shared cores are busy: the suite must pass the same.
# Prints the wall time. Extra arguments go to make (e.g. SWIFT=...).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v stress-ng >/dev/null || { echo "stress-ng is missing: run make deps" >&2; exit 1; }
stress-ng --cpu 2 --quiet &
hogs=$!
trap 'kill $hogs 2>/dev/null || true; wait $hogs 2>/dev/null || true' EXIT
start=$(date +%s)
status=0
make test "$@" || status=$?
echo "make test beside stress-ng --cpu 2: exit $status after $(( $(date +%s) - start )) s"
exit $status
