#!/usr/bin/env python3
"""Generates labelled audio for the sound character's rules: babble, music, bass-heavy music,
steady noise and quiet, clean and mixed, with and without reverb. Everything is made here, from
espeak-ng voices and sox synthesis; nothing is downloaded. Python 3 standard library, sox and
espeak-ng (`make deps` installs both).

Two halves that share no voice, language, tempo or noise realisation:

* `tune`:  espeak-ng languages en-us, de, es, it with variants m1 m2 m3 f1 f2 klatt Andy Annie;
           tempos 92, 100, 116, 128 bpm; 48 and 44.1 kHz; seed 1000.
* `test`:  languages en-gb, fr-fr, nl, pl, pt with variants m4 m5 m6 m7 f3 f4 f5 Alex Gene Jacky
           Michael Steph; tempos 84, 96, 108, 122, 140 bpm; 48, 44.1 and 16 kHz; seed 2000.

Each half first builds a library of 40 s pieces (24 voice tracks; 14 music and 14 bass-heavy
pieces; 12 noises), then 30 s items from them:

* babble: 1, 4 or 8 voices overlapping (each a track at a random offset, ±3 dB);
* music: chords, arpeggios, pads, melodies, a bass line at 125-250 Hz and (in half of the pieces)
  drums with a tight kick (180 falling to 90 Hz), all `sox synth`, looped 4-bar progressions;
  nothing of its own under 80 Hz;
* bass-heavy music: the same kind of piece with a 40-80 Hz bass line and a 45-110 Hz kick on
  every beat, 6-14 dB above the rest;
* steady noise: brown, pink or both, some low- or high-passed, with a slow tremolo
  (0.03-0.3 Hz, 10-60 %);
* mixtures, labelled by their foreground: babble, music or bass-heavy music over steady noise at
  -5 to +15 dB SNR (RMS); babble over music and music over babble at +5 to +15 dB; steady noise
  over babble at +5 to +15 dB (between babble and music an equal mix has no right answer);
* quiet: any of the above at -70 to -80 dBFS RMS;
* a third of all items (clean and mixed) get `sox reverb`.

Items are normalised to a peak of -1 to -12 dBFS (quiet ones excepted), written as 16-bit mono
WAV, and listed with their label and recipe in `<out>/<half>/manifest.json`. The output goes to
a folder outside the repository (default: $TMPDIR/hearclear-sound-character); it is never
committed. The same arguments give the same files, so a half already made there by this very
script (a hash of it in the manifest) is kept unless --force.

    scripts/sound-character/generate.py                 # both halves
    scripts/sound-character/generate.py --half tune --out /tmp/sc
"""

import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

RATE = 44100  # the library's rate; items are resampled to their own
PIECE_SECONDS = 40
ITEM_SECONDS = 30

HALVES = {
    "tune": {
        "languages": ["en-us", "de", "es", "it"],
        "variants": ["m1", "m2", "m3", "f1", "f2", "klatt", "Andy", "Annie"],
        "tempos": [92, 100, 116, 128],
        "rates": [48000, 44100],
        "seed": 1000,
        "noise_reversed": False,
    },
    "test": {
        "languages": ["en-gb", "fr-fr", "nl", "pl", "pt"],
        "variants": ["m4", "m5", "m6", "m7", "f3", "f4", "f5", "Alex", "Gene", "Jacky", "Michael", "Steph"],
        "tempos": [84, 96, 108, 122, 140],
        "rates": [48000, 44100, 16000],
        "seed": 2000,
        "noise_reversed": True,
    },
}

# Items per half: (kind, count).
ITEMS = [
    ("babble-1", 10), ("babble-4", 10), ("babble-8", 10),
    ("music", 20), ("bass", 20), ("noise", 20),
    ("babble/noise", 15), ("music/noise", 10), ("bass/noise", 10),
    ("babble/music", 10), ("music/babble", 10), ("noise/babble", 6),
    ("quiet", 6),
]

LABELS = {"babble": "babble", "music": "music", "bass": "bass_heavy_music", "noise": "steady_noise"}


def run(*args):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, args))[:400]}\n{result.stderr}")
    return result


def sox(*args):
    return run("sox", "-V1", *args)


def rms_db(path):
    report = sox(path, "-n", "stats").stderr
    match = re.search(r"RMS lev dB\s+(-?[\d.]+|-inf)", report)
    return float(match.group(1)) if match and match.group(1) != "-inf" else -200.0


def hz(midi):
    return 440.0 * 2 ** ((midi - 69) / 12)


# --- voices --------------------------------------------------------------------------------------

SYLLABLE_ONSETS = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "sh", "ch", "tr", "st"]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ou", "ee"]
CODAS = ["", "", "", "n", "m", "s", "r", "l", "k", "t"]


def pseudo_text(rng, words):
    """Pseudo-words of 1-4 syllables in sentences of 3-12 words, with SSML pauses between."""
    parts = []
    while words > 0:
        count = min(words, rng.randint(3, 12))
        words -= count
        sentence = " ".join(
            "".join(rng.choice(SYLLABLE_ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)
                    for _ in range(rng.choice([1, 1, 2, 2, 2, 3, 3, 4])))
            for _ in range(count))
        ending = rng.choice([".", ".", "?", "!", ","])
        parts.append(sentence.capitalize() + ending)
        parts.append(f'<break time="{rng.randint(150, 1200)}ms"/>')
    return "<speak>" + " ".join(parts) + "</speak>"


def make_voice(config, index, path, work):
    rng = random.Random(config["seed"] * 7 + index)
    language = config["languages"][index % len(config["languages"])]
    variant = config["variants"][(index // len(config["languages"]) + index) % len(config["variants"])]
    raw = os.path.join(work, f"voice-{index}.wav")
    run("espeak-ng", "-m", "-v", f"{language}+{variant}", "-s", rng.randint(135, 190), "-p", rng.randint(30, 70),
        "-g", rng.randint(0, 4), "-w", raw, pseudo_text(rng, 160))
    # Loop if short, then cut to the piece's length at the library's rate.
    sox(raw, "-r", RATE, "-c", 1, path, "repeat", 2, "trim", 0, PIECE_SECONDS, "norm", -3)
    return {"voice": f"{language}+{variant}"}


# --- music ---------------------------------------------------------------------------------------

PROGRESSIONS = [[0, 4, 5, 3], [0, 5, 3, 4], [0, 3, 4, 4], [5, 3, 0, 4], [0, 5, 1, 4], [0, 3, 0, 4]]
MAJOR = [0, 2, 4, 5, 7, 9, 11]
MINOR = [0, 2, 3, 5, 7, 8, 10]


CHANNELS = 4  # synth makes one channel per waveform: chords are built in 4 channels, then mixed


def segment(duration, specs, envelope, gain, extra=""):
    """One sox effects chain: up to 4 `specs` (synth waveforms, one channel each, the rest
    silent) mixed to mono, shaped and scaled."""
    specs = list(specs)[:CHANNELS]
    if not specs:
        return f"synth {duration:.4f} {' '.join(['sine 0'] * CHANNELS)} remix -"
    specs += ["sine 0"] * (CHANNELS - len(specs))
    return f"synth {duration:.4f} {' '.join(specs)} {extra} remix - {envelope} vol {gain:.3f}".replace("  ", " ")


def render_track(path, chains, work):
    """Concatenates effects chains (`:`) into one mono track of the library's rate."""
    args = ["-r", RATE, "-c", CHANNELS, "-n", "-c", 1, path]
    for i, chain in enumerate(chains):
        if i:
            args.append(":")
        args.extend(chain.split())
    sox(*args)


def make_music(config, index, path, work, bass_heavy):
    rng = random.Random(config["seed"] * 11 + index * 2 + (1 if bass_heavy else 0))
    tempo = config["tempos"][index % len(config["tempos"])]
    beat = 60.0 / tempo
    bar = 4 * beat
    scale = rng.choice([MAJOR, MINOR])
    root = rng.randint(55, 66)
    progression = rng.choice(PROGRESSIONS)

    def chord(degree, octave_shift=0):
        notes = []
        for step in (0, 2, 4) + ((6,) if rng.random() < 0.3 else ()):
            d = degree + step
            notes.append(root + scale[d % 7] + 12 * (d // 7) + 12 * octave_shift)
        return notes

    chords = [chord(d) for d in progression]
    parts = rng.sample(["arpeggio", "block", "pad", "lead"], k=rng.randint(2, 3))
    drums = rng.random() < 0.5 or bass_heavy
    tracks = []

    def add(name, chains, gain_db):
        track = os.path.join(work, f"m{index}-{int(bass_heavy)}-{name}.wav")
        render_track(track, chains, work)
        tracks.append((track, gain_db))

    wave = rng.choice(["pluck", "triangle", "square"])
    for part in parts:
        chains = []
        for notes in chords:
            if part == "arpeggio":
                order = rng.choice(["up", "down", "random"])
                sequence = notes if order == "up" else notes[::-1]
                for i in range(8):
                    note = rng.choice(notes) if order == "random" else sequence[i % len(sequence)]
                    chains.append(segment(beat / 2, [f"pluck {hz(note):.2f}"], f"fade 0 {beat / 2:.4f} {beat / 4:.4f}", 0.5))
            elif part == "block":
                for i in range(4):
                    specs = [f"{wave} {hz(n):.2f}" for n in notes]
                    delays = " ".join(f"{0.012 * j:.3f}" for j in range(CHANNELS))
                    chains.append(segment(beat, specs, f"fade 0 {beat:.4f} {beat * 0.6:.4f}", 0.25 if wave == "square" else 0.4,
                                          f"delay {delays}"))
            elif part == "pad":
                # An octave down, but not below 125 Hz: under 80 Hz is bass-heavy music's.
                specs = [f"{rng.choice(['sine', 'triangle'])} {hz(n - 12 if hz(n - 12) >= 125 else n):.2f}" for n in notes]
                chains.append(segment(bar, specs, f"fade h 0.08 {bar:.4f} 0.3", 0.35, "tremolo 5 20"))
            else:  # lead: a melody on the scale, quarters and eighths
                t = 0.0
                while t < bar - 1e-6:
                    length = min(rng.choice([beat / 2, beat, beat]), bar - t)
                    if rng.random() < 0.15:
                        chains.append(segment(length, [], "", 0))
                    else:
                        note = root + 12 + scale[rng.randrange(7)]
                        voice = rng.choice(["sawtooth", "triangle", "square"])
                        chains.append(segment(length, [f"{voice} {hz(note):.2f}"],
                                              f"fade h 0.01 {length:.4f} {length * 0.3:.4f} lowpass 3000", 0.3))
                    t += length
        add(part, chains, rng.uniform(-4, 2))
    # A bass line in octave 3 (130-250 Hz): roots on the beats.
    chains = []
    for notes in chords:
        bass_note = notes[0] - 12
        while hz(bass_note) > 250:
            bass_note -= 12
        while hz(bass_note) < 125:
            bass_note += 12
        for i in range(4):
            chains.append(segment(beat, [f"triangle {hz(bass_note):.2f}"], f"fade 0 {beat:.4f} {beat * 0.5:.4f}", 0.5))
    add("bass", chains, rng.uniform(-8, -3))
    if drums:
        chains = []
        for _ in chords:
            for i in range(8):
                half = beat / 2
                if i % 4 == 0 and not bass_heavy:
                    # A tight kick, 180 Hz falling to 90: music has no 40-80 Hz content of its own.
                    chains.append(segment(half, ["sine 180:90"], f"fade 0 {half:.4f} {half * 0.8:.4f}", 0.5))
                elif i % 4 == 2:
                    chains.append(segment(half, ["whitenoise"], f"fade 0 {min(half, 0.15):.4f} 0.12 sinc 1000-6000", 0.3))
                else:
                    chains.append(segment(half, ["whitenoise"], "fade 0 0.05 0.04 highpass 7000", 0.25))
        add("drums", chains, rng.uniform(-6, -1))
    if bass_heavy:
        # 40-80 Hz: a bass line an octave or two under the roots, and a kick on every beat.
        chains = []
        for notes in chords:
            sub = notes[0]
            while hz(sub) > 80:
                sub -= 12
            if hz(sub) < 40:
                sub += 12
            sub_wave = rng.choice(["sine", "square", "sawtooth"])
            for i in range(4):
                chains.append(segment(beat, [f"{sub_wave} {hz(sub):.2f}"], f"fade h 0.01 {beat:.4f} {beat * 0.3:.4f} lowpass 120", 0.7))
        add("sub", chains, rng.uniform(6, 14))
        chains = []
        kick = rng.uniform(45, 60)
        for _ in chords:
            for i in range(4):
                chains.append(segment(beat, [f"sine {kick * 2:.1f}:{kick:.1f}"], f"fade 0 {min(beat, 0.3):.4f} 0.25", 0.8))
        add("kick", chains, rng.uniform(6, 14))

    loop = os.path.join(work, f"m{index}-{int(bass_heavy)}-loop.wav")
    mix = ["-m"]
    for track, gain_db in tracks:
        mix += ["-v", f"{10 ** (gain_db / 20):.4f}", track]
    sox(*mix, loop, "norm", -3)
    repeats = math.ceil(PIECE_SECONDS / (4 * bar))
    sox(loop, path, "repeat", repeats, "trim", 0, PIECE_SECONDS, "norm", -3)
    return {"tempo": tempo, "parts": parts + ["bass"] + (["drums"] if drums else []) + (["sub", "kick"] if bass_heavy else [])}


# --- noise ---------------------------------------------------------------------------------------

def make_noise_banks(config, work):
    banks = {}
    for colour in ("brown", "pink"):
        path = os.path.join(work, f"bank-{colour}.wav")
        effects = ["reverse"] if config["noise_reversed"] else []
        sox("-R", "-n", "-r", RATE, "-c", 1, path, "synth", 400, f"{colour}noise", *effects)
        banks[colour] = path
    return banks


def make_noise(config, index, path, work, banks):
    rng = random.Random(config["seed"] * 13 + index)
    colour = rng.choice(["brown", "pink", "both"])
    parts = []
    for c in (["brown", "pink"] if colour == "both" else [colour]):
        part = os.path.join(work, f"n{index}-{c}.wav")
        sox(banks[c], part, "trim", rng.uniform(0, 400 - PIECE_SECONDS - 1), PIECE_SECONDS)
        parts.append(part)
    shaped = os.path.join(work, f"n{index}.wav")
    if len(parts) == 2:
        sox("-m", parts[0], parts[1], shaped)
    else:
        shutil.copy(parts[0], shaped)
    shaping = rng.choice([[], [], ["lowpass", rng.randint(800, 6000)], ["highpass", rng.randint(30, 150)]])
    speed = rng.uniform(0.03, 0.3)
    depth = rng.uniform(10, 60)
    sox(shaped, path, *shaping, "tremolo", f"{speed:.3f}", f"{depth:.1f}", "norm", -3)
    return {"colour": colour, "shaping": " ".join(map(str, shaping)), "tremolo": [round(speed, 3), round(depth, 1)]}


# --- items ---------------------------------------------------------------------------------------

def cut(source, path, rng):
    sox(source, path, "trim", f"{rng.uniform(0, PIECE_SECONDS - ITEM_SECONDS - 0.5):.3f}", ITEM_SECONDS)


def make_item(config, number, kind, library, out_dir, work):
    rng = random.Random(config["seed"] * 17 + number)
    name = f"{number:04d}.wav"
    recipe = {"file": name, "kind": kind}
    base = os.path.join(work, f"item-{number}")

    def babble(voices, path):
        chosen = rng.sample(library["voices"], voices)
        parts = []
        for i, voice in enumerate(chosen):
            part = f"{path}-v{i}.wav"
            # A circular shift by 1 … 39 s: the track from there on, then its start.
            offset = rng.uniform(1, PIECE_SECONDS - 1)
            head, tail = f"{path}-v{i}a.wav", f"{path}-v{i}b.wav"
            sox(voice, head, "trim", f"{offset:.3f}")
            sox(voice, tail, "trim", 0, f"{offset:.3f}")
            sox(head, tail, part)
            parts.append((part, rng.uniform(-3, 3)))
        if len(parts) == 1:
            sox(parts[0][0], path, "norm", -3)
        else:
            mix = ["-m"]
            for part, gain_db in parts:
                mix += ["-v", f"{10 ** (gain_db / 20):.4f}", part]
            sox(*mix, path, "norm", -3)
        return [library["voice_names"][library["voices"].index(v)] for v in chosen]

    def source(component, path):
        """A 30 s cut of one component: babble-N, music, bass or noise."""
        whole = path + "-whole.wav"
        if component.startswith("babble"):
            voices = int(component.split("-")[1]) if "-" in component else rng.choice([1, 4, 8])
            recipe.setdefault("voices", babble(voices, whole))
            recipe.setdefault("voiceCount", voices)
        else:
            pool = {"music": "music", "bass": "bass", "noise": "noise"}[component]
            piece = rng.randrange(len(library[pool]))
            shutil.copy(library[pool][piece], whole)
            recipe.setdefault("pieces", []).append(f"{pool}{piece}")
        cut(whole, path, rng)

    if kind == "quiet":
        inner = rng.choice(["babble", "music", "noise"])
        fg = base + "-fg.wav"
        source(inner, fg)
        recipe["label"] = "quiet"
        recipe["of"] = inner
        mixed = fg
    elif "/" in kind:
        foreground, background = kind.split("/")
        fg, bg = base + "-fg.wav", base + "-bg.wav"
        source(foreground, fg)
        source(background, bg)
        snr = rng.choice([-5, 0, 5, 10, 15]) if background == "noise" else rng.choice([5, 10, 15])
        gain = rms_db(fg) - rms_db(bg) - snr
        mixed = base + "-mix.wav"
        sox("-m", fg, "-v", f"{10 ** (gain / 20):.5f}", bg, mixed)
        recipe.update({"label": LABELS[foreground], "background": background, "snrDb": snr})
    else:
        component = kind
        fg = base + "-fg.wav"
        source(component, fg)
        recipe["label"] = LABELS[component.split("-")[0]]
        mixed = fg

    effects = []
    if rng.random() < 1 / 3:
        reverberance = rng.randint(30, 90)
        effects += ["reverb", reverberance, 50, rng.randint(50, 100)]
        recipe["reverb"] = reverberance
    rate = rng.choice(config["rates"])
    recipe["sampleRate"] = rate
    if kind == "quiet":
        target = rng.uniform(-80, -70)
        level = base + "-level.wav"
        sox(mixed, level, *effects, "trim", 0, ITEM_SECONDS, "norm", -3)
        gain = target - rms_db(level)
        sox(level, "-r", rate, "-b", 16, os.path.join(out_dir, name), "gain", f"{gain:.2f}", "rate", "-v", rate)
        recipe["rmsDbfs"] = round(target, 1)
    else:
        peak = rng.uniform(-12, -1)
        sox(mixed, "-r", rate, "-b", 16, os.path.join(out_dir, name), *effects, "trim", 0, ITEM_SECONDS,
            "rate", "-v", rate, "norm", f"{peak:.1f}")
        recipe["peakDbfs"] = round(peak, 1)
    for leftover in [f for f in os.listdir(work) if f.startswith(f"item-{number}-")]:
        os.remove(os.path.join(work, leftover))
    return recipe


def fingerprint(half):
    """What a half's files depend on: this script and the half's settings."""
    with open(__file__, "rb") as f:
        source = f.read()
    return hashlib.sha256(source + json.dumps(HALVES[half], sort_keys=True).encode()).hexdigest()


def current(half, out_root):
    """Whether the half in `out_root` was made by this very script and is complete."""
    try:
        with open(os.path.join(out_root, half, "manifest.json")) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return False
    return manifest.get("generator") == fingerprint(half) and all(
        os.path.exists(os.path.join(out_root, half, item["file"])) for item in manifest["items"])


def generate(half, out_root, jobs):
    config = HALVES[half]
    out_dir = os.path.join(out_root, half)
    os.makedirs(out_dir, exist_ok=True)
    stale = os.path.join(out_dir, "manifest.json")
    if os.path.exists(stale):
        os.remove(stale)
    work = tempfile.mkdtemp(prefix=f"sound-character-{half}-")
    try:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            library = {"voices": [], "voice_names": [], "music": [], "bass": [], "noise": []}
            banks = make_noise_banks(config, work)
            futures = []
            for i in range(24):
                path = os.path.join(work, f"lib-voice-{i}.wav")
                futures.append(("voices", path, pool.submit(make_voice, config, i, path, work)))
            for i in range(14):
                for bass_heavy in (False, True):
                    path = os.path.join(work, f"lib-{'bass' if bass_heavy else 'music'}-{i}.wav")
                    futures.append(("bass" if bass_heavy else "music", path,
                                    pool.submit(make_music, config, i, path, work, bass_heavy)))
            for i in range(12):
                path = os.path.join(work, f"lib-noise-{i}.wav")
                futures.append(("noise", path, pool.submit(make_noise, config, i, path, work, banks)))
            pieces = {}
            for pool_name, path, future in futures:
                info = future.result()
                library[pool_name].append(path)
                pieces[os.path.basename(path)] = info
                if pool_name == "voices":
                    library["voice_names"].append(info["voice"])
            print(f"{half}: library of {len(futures)} pieces made", file=sys.stderr)

            kinds = [kind for kind, count in ITEMS for _ in range(count)]
            item_futures = [pool.submit(make_item, config, n, kind, library, out_dir, work)
                            for n, kind in enumerate(kinds, start=1)]
            items = [f.result() for f in item_futures]
        manifest = {"half": half, "config": config, "itemSeconds": ITEM_SECONDS, "items": items, "library": pieces,
                    "generator": fingerprint(half)}
        with open(os.path.join(out_dir, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
        print(f"{half}: {len(items)} items in {out_dir}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "hearclear-sound-character"),
                        help="output folder, outside the repository (default: %(default)s)")
    parser.add_argument("--half", choices=["tune", "test", "both"], default="both")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--force", action="store_true",
                        help="make a half again even when the files there came from this script")
    args = parser.parse_args()
    for tool in ("sox", "espeak-ng"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not on PATH; install it (make deps)")
    repository = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    if os.path.realpath(args.out).startswith(repository + os.sep):
        sys.exit("the generated audio must not go inside the repository; choose --out elsewhere")
    for half in (["tune", "test"] if args.half == "both" else [args.half]):
        if not args.force and current(half, args.out):
            print(f"{half}: already in {os.path.join(args.out, half)}, made by this script (--force to redo)",
                  file=sys.stderr)
            continue
        generate(half, args.out, args.jobs)


if __name__ == "__main__":
    main()
