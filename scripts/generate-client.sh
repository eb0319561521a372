#!/usr/bin/env bash
# HearClearClient's generated code (docs/ARCHITECTURE.md, "HearClearClient"): builds
# swift-openapi-generator from Tools/generate-client (its own package, so the server's build never
# builds it) into .build-generator, and generates the types and client of API/openapi.yaml.
#
#   scripts/generate-client.sh          writes them to Sources/HearClearClient/Generated (make generate)
#   scripts/generate-client.sh --check  fails when the committed files differ from what it generates
#   scripts/generate-client.sh --build  only builds the generator
#
# The first build takes about a minute; later runs take a few seconds. The generator's warnings
# (a schema it cannot represent, whose property the client then lacks) are shown.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-write}
case "$mode" in
    write | --check | --build) ;;
    *)
        echo "usage: $0 [--check | --build]" >&2
        exit 2
        ;;
esac
swift=${SWIFT:-swift}
spec=API/openapi.yaml
config=Tools/generate-client/openapi-generator-config.yaml
committed=Sources/HearClearClient/Generated
scratch=.build-generator

mkdir -p "$scratch"
"$swift" build --package-path Tools/generate-client --scratch-path "$scratch" \
    --product swift-openapi-generator >"$scratch/build.log" 2>&1 || {
    cat "$scratch/build.log" >&2
    echo "generate-client: building swift-openapi-generator failed" >&2
    exit 1
}
[ "$mode" = --build ] && exit 0
generator=$("$swift" build --package-path Tools/generate-client --scratch-path "$scratch" --show-bin-path)/swift-openapi-generator

out=$(mktemp -d "${TMPDIR:-/tmp}/hearclear-client-XXXXXX")
trap 'rm -rf "$out"' EXIT
if ! "$generator" generate "$spec" --config "$config" --output-directory "$out/Generated" >"$out/log" 2>&1; then
    cat "$out/log" >&2
    echo "generate-client: swift-openapi-generator failed on $spec" >&2
    exit 1
fi
grep -E '^(warning|error):' "$out/log" >&2 || true
# Plain imports instead of the generator's `public import`s, which Swift 6.3 warns about where a
# file's public declarations do not use them (the generator silences that only from Swift 6.4
# on). In Swift 6 mode without InternalImportsByDefault a plain import is public all the same.
sed -i -E 's/^(@_spi\(Generated\) )?public import /\1import /' "$out/Generated"/*.swift

if [ "$mode" = --check ]; then
    if ! diff -r -u "$committed" "$out/Generated" >"$out/diff"; then
        head -n 60 "$out/diff" >&2
        echo "generate-client: $committed is stale (it differs from what $spec generates): run make generate" >&2
        exit 1
    fi
    echo "generate-client: $committed is current"
else
    mkdir -p "$committed"
    rm -f "$committed"/*.swift
    cp "$out/Generated"/*.swift "$committed"/
    echo "generate-client: wrote $(ls "$committed" | wc -l) files to $committed"
fi
