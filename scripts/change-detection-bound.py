#!/usr/bin/env python3
"""The best a venue change detector can do on `judge-bench changes`' pubs: an oracle CUSUM.

The oracle is told what no server knows: every hour's true level before the change and the exact
noise of each occasion (an hour's check-ins of one day, pooled). Each pub is judge-bench's: open
11:00-24:00 for 13 days, Poisson(2) check-ins an open hour, a check-in reading the evening's crowd
N(0, 2 dB) shared by the hour's check-ins + its place N(0, 1.5 dB) + its phone's bias N(0, 1 dB),
one in 20 junk 8-15 dB off. Half the pubs change by SHIFT dB five days before the end.

The oracle runs a two-sided tabular CUSUM (Page 1954) over the occasions' standardised mean
residuals, z clipped to +-3, looking once per occasion (a server re-judging looks more often, so
it can only do worse). For each allowance k and decision interval h it prints the share of stable
pubs that alarm within their 13 days and, for the changed pubs, how many check-ins since the
change it took to alarm (median, 90th percentile; never = 999). CUSUM is optimal for a known
shift in known noise (Moustakides 1986), so no detector does better on these pubs: the figures
are a lower bound for docs/ARCHITECTURE.md, "Venues that change".

Usage: scripts/change-detection-bound.py [STABLE_PUBS] [SHIFT_DB] [SEED]   (stdlib only)
"""
import math
import random
import sys


def pub(rng, shift):
    """One pub's occasions in time order: (after the change, check-ins, mean residual dB)."""
    occasions = []
    for day in range(13):
        for _hour in range(11, 24):
            count, product = 0, rng.random()
            while product > math.exp(-2):
                product *= rng.random()
                count += 1
            if count == 0:
                continue
            crowd = rng.gauss(0, 2)
            after = day >= 8
            values = []
            for _ in range(count):
                value = crowd + rng.gauss(0, 1.5) + rng.gauss(0, 1) + (shift if after else 0)
                if rng.random() < 0.05:
                    value += (1 if rng.random() < 0.5 else -1) * (8 + 7 * rng.random())
                values.append(value)
            occasions.append((after, count, sum(values) / count))
    return occasions


def first_alarm(occasions, k, h, clip=3.0):
    """(whether the alarm came after the change, check-ins since the change), or (None, None)."""
    upper = lower = 0.0
    since = 0
    for after, count, mean in occasions:
        z = max(-clip, min(clip, mean / math.sqrt(4 + 3.25 / count)))
        upper = max(0.0, upper + z - k)
        lower = max(0.0, lower - z - k)
        if after:
            since += count
        if upper > h or lower > h:
            return after, since
    return None, None


def main():
    stable_count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    shift = float(sys.argv[2]) if len(sys.argv) > 2 else 6.0
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    rng = random.Random(seed)
    stable = [pub(rng, 0) for _ in range(stable_count)]
    changed = [pub(rng, shift) for _ in range(stable_count // 2)]
    print(f"{stable_count} stable pubs, {len(changed)} changed by {shift} dB, seed {seed}")
    print("   k     h  false %  median  p90")
    for k in (0.5, 0.75, 1.0, 1.25, 1.5, 1.75):
        for h in (2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0):
            false_share = sum(first_alarm(o, k, h)[0] is not None for o in stable) / len(stable)
            delays = []
            for occasions in changed:
                after, since = first_alarm(occasions, k, h)
                if after:
                    delays.append(since)
                elif after is None:
                    delays.append(999)
            delays.sort()
            median = delays[len(delays) // 2] if delays else 999
            p90 = delays[int(len(delays) * 0.9)] if delays else 999
            print(f"{k:5.2f} {h:5.1f} {100 * false_share:7.1f} {median:7d} {p90:4d}")


if __name__ == "__main__":
    main()
