#!/usr/bin/env bash
# The pages for people in a real browser (part of `make test`; alone: `make pages-browser`), in
# Debian's chromium driven by Playwright with axe-playwright-python (`make deps` installs them;
# Playwright's own browser download is never used): serves the
# debug build on a scratch data directory, fills it with a small simulated city
# (`hearclear-bench simulate`), and runs scripts/pages-browser.py against it: every step by
# keyboard (also "Near me", with the location granted, and the map of its results), axe-core on
# every page, reflow at 320 px, screenshots into screenshots/pages. Then scripts/measure-browser.py:
# /measure with a WAV as the microphone (sox and espeak-ng make them in a temporary folder), its
# levels against `hearclear meter`'s, and its flow by keyboard (about three minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PAGES_PORT:-18090}
bench=.build/debug/hearclear-bench
if ! command -v chromium >/dev/null || ! .venv/bin/python -c "import playwright, axe_playwright_python" 2>/dev/null; then
    echo "pages browser test: chromium or Playwright is missing; run make deps" >&2
    exit 1
fi
. scripts/scratch-server.sh
# A map whose tile server is this server (which has no tiles: the map draws markers on a blank
# ground): Leaflet and the markers are tested without a network.
serve_scratch "pages browser test" "$port" --map-tiles-url "http://127.0.0.1:$port/no-tiles/{z}/{x}/{y}.png" \
    --map-attribution "no tiles in this test"
"$bench" simulate --url "$base" --venues 12 --days 5 --truth "$data/truth.json"
# The first venue's point; the name search looks for the start of the simulated names.
read -r lat lon < <(.venv/bin/python -c "import json,sys; v=json.load(open(sys.argv[1]))['venues'][0]['venue']; print(round(v['latitude'],4), round(v['longitude'],4))" "$data/truth.json")
.venv/bin/python scripts/pages-browser.py --url "$base" --name "Simulated p" --lat "$lat" --lon "$lon" --map
for tool in sox espeak-ng; do
    command -v "$tool" >/dev/null || { echo "pages browser test: $tool is missing; run make deps" >&2; exit 1; }
done
.venv/bin/python scripts/measure-browser.py --url "$base" --venue-name "Simulated p" --hearclear "$binary"
