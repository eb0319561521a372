#!/usr/bin/env bash
# The streaming meter on a long recording (issue 40): generates SECONDS (default 7200, two hours)
# of audio with sox under a temporary directory (removed at the end; never committed), meters it
# with `hearclear meter` (peak resident memory by /usr/bin/time) and through a served
# `POST /api/v2/meter` uploaded chunked (the server's resident memory idle and during the upload,
# the time from the last chunk to the answer: scripts/bench-meter-stream.py), and checks that both
# give the same samples and character.
#
# usage: scripts/bench-meter-stream.sh [SECONDS] [PORT]   (HEARCLEAR_BINARY: default the debug build;
#        SOUND_MODEL: a folder or `off`, default models/yamnet when it is there; API_ONLY=1: skip
#        the CLI and the comparison)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-7200}
port=${2:-18431}
. scripts/scratch-server.sh
command -v sox >/dev/null || { echo "bench-meter-stream: sox is missing (apt-get install sox)" >&2; exit 1; }
binary=${HEARCLEAR_BINARY:-.build/debug/hearclear}
model=${SOUND_MODEL:-}
model_args=()
[ -n "$model" ] && model_args=(--sound-model "$model")

audio=$(mktemp -d "${TMPDIR:-/tmp}/hearclear-meter-stream-XXXXXX")
trap 'rm -rf "$audio"' EXIT
wav="$audio/recording.wav"
# 16 kHz mono 16-bit: pink noise and a 440 Hz tone, their level moving over 10 s (tremolo), so
# the levels change from second to second.
sox -n -r 16000 -b 16 "$wav" synth "$seconds" pinknoise sine 440 remix 1v0.3,2v0.05 tremolo 0.1 60
bytes=$(stat -c %s "$wav")
echo "recording: $seconds s, $bytes bytes ($wav, removed at the end)"
sox "$wav" -n stats 2>&1 | grep -E "RMS lev dB|Pk lev dB|Length s" | sed 's/^/  sox: /'

if [ -z "${API_ONLY:-}" ]; then
echo "== hearclear meter (the CLI), first on 10 s of the same for its baseline"
sox "$wav" "$audio/short.wav" trim 0 10
/usr/bin/time -v "$binary" meter "$audio/short.wav" --json "${model_args[@]}" >/dev/null 2>"$audio/short.time"
grep -E "Maximum resident set size" "$audio/short.time" | sed 's/^\s*/  10 s: /'
rm "$audio/short.wav"
/usr/bin/time -v "$binary" meter "$wav" --json "${model_args[@]}" --start 2026-11-21T21:00:00+00:00 \
    >"$audio/cli.json" 2>"$audio/cli.time"
grep -E "Maximum resident set size|Elapsed \(wall clock\)" "$audio/cli.time" | sed "s/^\s*/  $seconds s: /"
fi

echo "== POST /api/v2/meter, chunked"
serve_scratch "meter stream" "$port" "${model_args[@]}"
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$data" "$audio"' EXIT
# Warm up: one small recording, so the idle figures include what a first request allocates.
sox -n -r 16000 -c 1 -b 16 "$audio/warm.wav" synth 12 pinknoise vol 0.05
curl -sS -o /dev/null "$base/api/v2/meter" -H 'Content-Type: audio/wav' --data-binary @"$audio/warm.wav"
rm "$audio/warm.wav"
sleep 1
.venv/bin/python scripts/bench-meter-stream.py "$base" "$wav" "$server" "$audio/api.json" | tee "$audio/api.report"

[ -n "${API_ONLY:-}" ] && exit 0
echo "== the same levels and character through both"
.venv/bin/python - "$audio/cli.json" "$audio/api.json" <<'PY'
import json, sys
cli, api = (json.load(open(p)) for p in sys.argv[1:3])
strip = lambda samples: [{k: v for k, v in s.items() if k != "t"} for s in samples]
same_samples = strip(cli["samples"]) == strip(api["samples"])
same_character = cli["character"] == api["character"]
print(f"  samples: {len(cli['samples'])} (CLI) {len(api['samples'])} (API), equal: {same_samples}")
print(f"  character windows: {len(cli['character']['windows'])}, classifier {api['character']['classifier']}, equal: {same_character}")
sys.exit(0 if same_samples and same_character else 1)
PY
