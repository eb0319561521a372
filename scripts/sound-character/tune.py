#!/usr/bin/env python3
"""Tunes the thresholds of the sound character's rules on the tuning half, and only on it.

It reads the windows' features that `evaluate.py --half tune --features FILE` wrote, applies the
same decision list as `SoundCharacterRules.classify` (Sources/AudioMetering), and searches each
threshold in turn over a grid (coordinate descent, a few rounds, from the thresholds in force)
for the most windows right among babble / music / bass-heavy music / steady noise, less a
penalty for clean babble called music or the reverse beyond 3 % (the issue allows 5 % on the
held-out half). It prints the thresholds found, in Swift, to be copied into
SoundCharacterRules; the held-out half is never read.

    scripts/sound-character/evaluate.py --half tune --features /tmp/tune.jsonl
    scripts/sound-character/tune.py /tmp/tune.jsonl

`--check FILE` instead verifies that this file's decision list, with the thresholds in force,
gives every window the label the Swift rules gave it (so the two stay the same).
"""

import argparse
import json
import subprocess
import sys

FOUR = {"babble", "music", "bass_heavy_music", "steady_noise"}

# The thresholds in force (SoundCharacterRules' defaults), and the grids searched.
GRIDS = {
    "noiseMinimumFlatnessDB": [x / 2 for x in range(-16, -3)],
    "noiseMaximumDepth": [x / 100 for x in range(4, 42, 2)],
    "bassMinimumLcMinusLaDB": [x / 2 for x in range(8, 27)],
    "bassMinimumLowFrequencyExcessDB": [float(x) for x in range(-2, 15)],
    "babbleMaximumLowFrequencyExcessDB": [float(x) for x in range(-14, 3)],
    "babbleMinimumFlatnessDB": [float(x) for x in range(-16, -3)],
    "musicMaximumFlatnessDB": [float(x) for x in range(-16, -1)],
    "babbleMinimumModulationRatioDB": [x / 2 for x in range(-8, 11)],
    "babbleMinimumLowEnergyShare": [x / 20 for x in range(0, 11)],
    "musicMaximumModulationRatioDB": [x / 2 for x in range(-16, 5)],
}


def classify(f, t):
    """SoundCharacterRules.classify, rule for rule."""
    if f["laeq"] < t["quietBelowDBFS"]:
        return "quiet"
    needed = ["flatness", "modulationDepth", "modulationRatio", "lowEnergyShare", "lowFrequencyExcess"]
    if any(f.get(k) is None for k in needed):
        return "uncertain"
    if f["flatness"] >= t["noiseMinimumFlatnessDB"] and f["modulationDepth"] <= t["noiseMaximumDepth"]:
        return "steady_noise"
    if f["lcMinusLa"] >= t["bassMinimumLcMinusLaDB"] and f["lowFrequencyExcess"] >= t["bassMinimumLowFrequencyExcessDB"]:
        return "bass_heavy_music"
    if (f["lowFrequencyExcess"] <= t["babbleMaximumLowFrequencyExcessDB"]
            and f["flatness"] >= t["babbleMinimumFlatnessDB"]):
        return "babble"
    if f["flatness"] <= t["musicMaximumFlatnessDB"]:
        return "music"
    if (f["modulationRatio"] >= t["babbleMinimumModulationRatioDB"]
            and f["lowEnergyShare"] >= t["babbleMinimumLowEnergyShare"]):
        return "babble"
    if f["modulationRatio"] <= t["musicMaximumModulationRatioDB"]:
        return "music"
    return "uncertain"


def score(windows, t):
    four = [w for w in windows if w["truth"] in FOUR]
    right = sum(classify(w["features"], t) == w["truth"] for w in four)
    babble = [w for w in four if w["truth"] == "babble" and w["clean"]]
    music = [w for w in four if w["truth"] == "music" and w["clean"]]
    b2m = sum(classify(w["features"], t) == "music" for w in babble) / max(1, len(babble))
    m2b = sum(classify(w["features"], t) == "babble" for w in music) / max(1, len(music))
    penalty = 4 * len(four) * (max(0, b2m - 0.03) + max(0, m2b - 0.03))
    return right - penalty, right / max(1, len(four)), b2m, m2b


def rules_in_force(tool):
    return json.loads(subprocess.run([tool, "--rules"], check=True, capture_output=True, text=True).stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("features", help="JSON lines from evaluate.py --features")
    parser.add_argument("--tool", default=".build/release/sound-character-eval")
    parser.add_argument("--check", action="store_true", help="only check this decision list against the Swift labels")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    windows = [json.loads(line) for line in open(args.features)]
    thresholds = rules_in_force(args.tool)
    if args.check:
        differ = [w for w in windows if classify(w["features"], thresholds) != w["label"]]
        for w in differ[:10]:
            print(f"{w['file']} at {w['offset']} s: Swift {w['label']}, Python {classify(w['features'], thresholds)}")
        print(f"{len(windows) - len(differ)}/{len(windows)} windows labelled alike")
        sys.exit(1 if differ else 0)
    if any(w["half"] != "tune" for w in windows):
        sys.exit("only the tuning half may be tuned on")
    best = score(windows, thresholds)
    print(f"in force: {100 * best[1]:.1f} % right, babble→music {100 * best[2]:.1f} %, music→babble {100 * best[3]:.1f} %")

    for _ in range(args.rounds):
        moved = False
        for name, grid in GRIDS.items():
            for value in grid:
                trial = dict(thresholds, **{name: value})
                result = score(windows, trial)
                if result[0] > best[0] + 1e-9:
                    best, thresholds, moved = result, trial, True
        if not moved:
            break
    # Each threshold to the middle of the run of grid values that score as well (others fixed),
    # so that it sits as far from the windows on either side as the grid allows.
    for name, grid in GRIDS.items():
        good = [score(windows, dict(thresholds, **{name: v}))[0] >= best[0] - 1e-9 for v in grid]
        here = min(range(len(grid)), key=lambda i: abs(grid[i] - thresholds[name]))
        low, high = here, here
        while low > 0 and good[low - 1]:
            low -= 1
        while high < len(grid) - 1 and good[high + 1]:
            high += 1
        thresholds[name] = grid[(low + high) // 2]
        edge = " (at the grid's edge)" if low == 0 or high == len(grid) - 1 else ""
        print(f"  {name}: as good from {grid[low]} to {grid[high]}{edge}")
        best = score(windows, thresholds)
    print(f"tuned:    {100 * best[1]:.1f} % right, babble→music {100 * best[2]:.1f} %, music→babble {100 * best[3]:.1f} %")
    for name in ["quietBelowDBFS"] + list(GRIDS):
        print(f"    public var {name} = {thresholds[name]}")


if __name__ == "__main__":
    main()
