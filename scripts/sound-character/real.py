#!/usr/bin/env python3
"""Builds an evaluation set for the sound character from REAL recorded sound that Debian packages
ship (speech prompts and game dialogue, game music and music on hold, recorded wind, rain, water,
engines, machinery and city noise), cut into labelled 20 s items (two ~10 s windows each), in a
tuning half and a held-out half that share no source recording.

The packages are fetched at run time with `apt-get download` (not installed; `apt-get update` is
run once only if a download fails) into a cache outside the repository (default
$TMPDIR/hearclear-sound-real), extracted there with `dpkg-deb -x`, and kept for later runs. The
items go to `<out>/real/tune/` and `<out>/real/test/`, each with a `manifest.json` in the format
of generate.py (items with `file`, `label`, `kind`, optional `background`/`snrDb`) plus, per item,
`source` (package and path of every recording in it) and `licence`. Nothing is written inside
the repository; no audio is ever committed. The same script over the same package versions gives
the same files, so a half already cut is kept unless --force.

Packages (about 133 MB of .deb in all; licences from each package's debian/copyright):

  package                         gives                                            licence
  asterisk-core-sounds-en-gsm     US-English phone prompts, 1 female voice, 8 kHz  CC-BY-SA-3.0
  asterisk-prompt-es-co           Colombian Spanish prompts, 8 kHz                 GPL-2+
  asterisk-prompt-fr-armelle      French prompts (Armelle Desjardins), 8 kHz       GPL-2+
  asterisk-prompt-it-menardi-gsm  Italian prompts, 8 kHz                           CC-BY-SA-3.0
  fillets-ng-data-nl              Dutch game dialogue, ~100 min, several actors,   GPL-2
                                  22.05 kHz
  asterisk-moh-opsound-gsm        5 music-on-hold tracks (opsound.org), 8 kHz      CC-BY-SA-3.0
  wordwarvi-sound                 5 songs/game tunes (band recordings), 44.1 kHz   CC-BY-SA-3.0 / GPL-2+
  drascula-music                  31 soundtrack pieces of a point-and-click game   Drascula licence
                                                                                   (BSD-like, DFSG)
  scorched3d-data                 3 music loops; recorded rain, ocean waves, lava, GPL-2+; apoc mod
                                  factory, city traffic, tank, helicopter (11 kHz) files CC-BY-SA-3.0
  ufoai-sound                     recorded wind, mine pump, fountain, water, hum,  CC-BY-SA-3.0, CC-BY-3.0
                                  fire, wind turbine, diesel vehicle (44.1/48 kHz) (minepump), GPL-2(+)
  stormbaancoureur-data           a recorded car engine (Camaro), 44.1 kHz         GPL-3

Labels:

* babble: recorded speech streams (utterances of one speaker group strung together with
  0.15-0.6 s pauses): one stream (`speech-1`), or 2, 3 or 4 streams from different packages where
  possible, mixed at ±3 dB (`babble-2/3/4`): real multi-talker babble;
* music: a stretch of a recorded piece;
* steady_noise: a stretch of a recorded noise (sources under 20 s are looped whole);
* bass_heavy_music: LEFT OUT. No package checked ships music whose energy under 100 Hz comes near
  that of club music: the most bass-weighted real pieces found (lugaru, singularity, nexuiz
  electronic tracks) have their <100 Hz band 5.5-8 dB under the full band, as ordinary music
  does; boosting the low end of real music would not be real, so there is no such class here;
* mixtures of two real parts of the same half, labelled by the foreground, which is always at
  least 5 dB (RMS) above the background: babble over music (+5/+10/+15 dB), babble over noise
  (+5/+10/+15), music over babble (+5/+10/+15), music over noise (+5/+10/+15), noise over babble
  (+10/+15); an equal mix has no right answer and is not made;
* quiet: any clean item of the half brought down to -70 to -80 dBFS RMS.

Items are mono 16-bit WAV at the source's rate (8 kHz becomes 16 kHz, 11.025 kHz 22.05 kHz;
mixtures at the foreground's), normalised to a peak of -1 to -12 dBFS (quiet excepted).

Split: within each package the source recordings (a file; for fillets-ng a level's folder of
lines) are shuffled with a fixed seed and dealt alternately to tune and test, so each half has
about half of every package's sources and none of the other half's.

    scripts/sound-character/real.py                  # fetch, cut both halves
    scripts/sound-character/real.py --out /tmp/real  # elsewhere
    scripts/sound-character/evaluate.py --set real --out /tmp/real
"""

import argparse
import concurrent.futures
import glob
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

SEED = 16
ITEM_SECONDS = 20
ALLOWED_RATES = [16000, 22050, 44100, 48000]


def item_rate(rate):
    """The item's rate for a source's: the lowest allowed one at or above it (8 kHz -> 16 kHz)."""
    return next((r for r in ALLOWED_RATES if r >= rate), ALLOWED_RATES[-1])


PACKAGES = {
    # package: (what it gives, licence)
    "asterisk-core-sounds-en-gsm": ("US-English phone prompts, 8 kHz", "CC-BY-SA-3.0"),
    "asterisk-prompt-es-co": ("Colombian Spanish phone prompts, 8 kHz", "GPL-2+"),
    "asterisk-prompt-fr-armelle": ("French phone prompts, 8 kHz", "GPL-2+"),
    "asterisk-prompt-it-menardi-gsm": ("Italian phone prompts, 8 kHz", "CC-BY-SA-3.0"),
    "fillets-ng-data-nl": ("Dutch game dialogue, 22.05 kHz", "GPL-2"),
    "asterisk-moh-opsound-gsm": ("music on hold, 8 kHz", "CC-BY-SA-3.0"),
    "wordwarvi-sound": ("songs and game music, 44.1 kHz", "CC-BY-SA-3.0 / GPL-2+"),
    "drascula-music": ("game soundtrack, 44.1 kHz", "Drascula licence (BSD-like)"),
    "scorched3d-data": ("music loops; rain, waves, lava, factory, city, tank, helicopter", "GPL-2+ / CC-BY-SA-3.0"),
    "ufoai-sound": ("wind, pump, fountain, water, hum, fire, turbine, diesel", "CC-BY-SA-3.0 / CC-BY-3.0 / GPL-2+"),
    "stormbaancoureur-data": ("car engine, 44.1 kHz", "GPL-3"),
}

S3D = "usr/share/games/scorched3d/data/globalmods/"
UFO = "ufoai.pk3:"  # members of ufoai-sound's pk3 (a zip)
# role -> list of (package, glob under the extracted package, how sources are grouped, licence or None)
SOURCES = {
    "speech": [
        ("asterisk-core-sounds-en-gsm", "usr/share/asterisk/sounds/en_US_f_Allison/*.gsm", "file", None),
        ("asterisk-prompt-es-co", "usr/share/asterisk/sounds/es/*.gsm", "file", None),
        ("asterisk-prompt-fr-armelle", "usr/share/asterisk/sounds/fr/*.gsm", "file", None),
        ("asterisk-prompt-it-menardi-gsm", "usr/share/asterisk/sounds/it_IT_f_Menardi/*.gsm", "file", None),
        ("fillets-ng-data-nl", "usr/share/games/fillets-ng/sound/*/nl/*.ogg", "folder", None),
    ],
    "music": [
        ("asterisk-moh-opsound-gsm", "usr/share/asterisk/moh/*.gsm", "file", None),
        ("wordwarvi-sound", "usr/share/wordwarvi/sounds/*.ogg", "file", None),
        ("drascula-music", "usr/share/scummvm/drascula/audio/*.ogg", "file", None),
        ("scorched3d-data", S3D + "none/data/music/*.ogg", "file", "GPL-2+"),
    ],
    "noise": [
        ("scorched3d-data", S3D + "none/data/wav/misc/oceanwaves.wav", "file", "GPL-2+"),
        ("scorched3d-data", S3D + "none/data/wav/misc/lava2.wav", "file", "GPL-2+"),
        ("scorched3d-data", S3D + "none/data/wav/misc/rain.wav", "file", "GPL-2+"),
        ("scorched3d-data", S3D + "none/data/wav/movement/tankmove.wav", "file", "GPL-2+"),
        ("scorched3d-data", S3D + "apoc/data/wav/misc/factoryloop1.wav", "file", "CC-BY-SA-3.0"),
        ("scorched3d-data", S3D + "apoc/data/wav/misc/citysounds.wav", "file", "CC-BY-SA-3.0"),
        ("scorched3d-data", S3D + "apoc/data/wav/misc/helicopter.wav", "file", "CC-BY-SA-3.0"),
        ("ufoai-sound", UFO + "sound/ambience/arcticwind.ogg", "file", "CC-BY-SA-3.0"),
        ("ufoai-sound", UFO + "sound/ambience/minepump03.ogg", "file", "CC-BY-3.0"),
        ("ufoai-sound", UFO + "sound/ambience/waterfontain.ogg", "file", "CC-BY-SA-3.0"),
        ("ufoai-sound", UFO + "sound/ambience/sand-city.ogg", "file", "CC-BY-SA-3.0"),
        ("ufoai-sound", UFO + "sound/ambience/water01.ogg", "file", "CC-BY-SA-3.0"),
        ("ufoai-sound", UFO + "sound/ambience/wind_turbine.ogg", "file", "CC-BY-SA-3.0"),
        ("ufoai-sound", UFO + "sound/ambience/fire.ogg", "file", "CC-BY-SA-3.0"),
        ("ufoai-sound", UFO + "sound/ambience/smallfire.ogg", "file", "CC-BY-SA-3.0"),
        ("ufoai-sound", UFO + "sound/ambience/hum2.ogg", "file", "GPL-2+"),
        ("ufoai-sound", UFO + "sound/ugv/diesel-move.ogg", "file", "GPL-2+"),
        ("stormbaancoureur-data", "usr/share/games/stormbaancoureur/sounds/camaro_s16_le.wav", "file", None),
    ],
}
MIN_MUSIC_SECONDS = 40  # shorter files of the music packages are jingles and effects

# Items per half: (kind, count). Mixtures are "foreground/background".
ITEMS = [
    ("speech-1", 12), ("babble-2", 12), ("babble-3", 12), ("babble-4", 12),
    ("music", 45), ("noise", 45),
    ("babble/music", 12), ("babble/noise", 15), ("music/babble", 9), ("music/noise", 12), ("noise/babble", 9),
    ("quiet", 20),
]
LABELS = {"speech": "babble", "babble": "babble", "music": "music", "noise": "steady_noise"}
SNRS = {"noise/babble": [10, 15]}
DEFAULT_SNRS = [5, 10, 15]


def run(*command, **kwargs):
    return subprocess.run([str(c) for c in command], check=True, capture_output=True, text=True, **kwargs)


def fetch(cache):
    """Downloads and extracts every package not already in the cache; returns {package: version}."""
    debs = os.path.join(cache, "debs")
    os.makedirs(debs, exist_ok=True)
    versions, fetched = {}, []
    updated = False
    for package in PACKAGES:
        found = sorted(glob.glob(os.path.join(debs, f"{package}_*.deb")))
        if not found:
            options = ["-o", "APT::Sandbox::User=root"] if os.geteuid() == 0 else []
            for attempt in range(2):
                download = subprocess.run(["apt-get", *options, "download", package], cwd=debs,
                                          capture_output=True, text=True)
                if download.returncode == 0 or updated:
                    break
                print(f"apt-get download {package} failed; running apt-get update once", flush=True)
                subprocess.run(["apt-get", "update"], capture_output=True, text=True)
                updated = True
            if download.returncode != 0:
                sys.exit(f"apt-get download {package} failed:\n{download.stderr}")
            found = sorted(glob.glob(os.path.join(debs, f"{package}_*.deb")))
            fetched.append(f"{os.path.basename(found[-1])} ({os.path.getsize(found[-1]) / 1e6:.1f} MB)")
        deb = found[-1]
        versions[package] = os.path.basename(deb)
        target = os.path.join(cache, "pkgs", package)
        stamp = os.path.join(target, ".extracted")
        if not (os.path.exists(stamp) and open(stamp).read() == versions[package]):
            shutil.rmtree(target, ignore_errors=True)
            os.makedirs(target)
            run("dpkg-deb", "-x", deb, target)
            if package == "ufoai-sound":
                wanted = {s[1][len(UFO):] for s in SOURCES["noise"] if s[0] == package}
                for pk3 in glob.glob(os.path.join(target, "**", "*.pk3"), recursive=True):
                    with zipfile.ZipFile(pk3) as z:
                        for name in z.namelist():
                            if name in wanted:
                                z.extract(name, os.path.join(target, "pk3"))
            with open(stamp, "w") as f:
                f.write(versions[package])
    print("fetched: " + (", ".join(fetched) if fetched else "nothing (all packages already in the cache)"))
    total = sum(os.path.getsize(os.path.join(debs, v)) for v in versions.values())
    print(f"packages: {len(versions)}, {total / 1e6:.0f} MB of .deb in {debs}")
    return versions


_DURATIONS = {}


def duration(path):
    """Seconds; raw GSM (no header) from its size: 33-byte frames of 20 ms."""
    if path not in _DURATIONS:
        if path.endswith(".gsm"):
            _DURATIONS[path] = os.path.getsize(path) // 33 * 0.02
        else:
            _DURATIONS[path] = float(run("soxi", "-D", path).stdout.strip() or 0)
    return _DURATIONS[path]


def source_rate(path):
    return int(float(run("soxi", "-r", path).stdout.strip()))


def sources(cache, role):
    """[(group key, package, relative path, absolute path, licence)] of a role, in a stable order."""
    out = []
    for package, pattern, grouping, licence in SOURCES[role]:
        root = os.path.join(cache, "pkgs", package)
        if pattern.startswith(UFO):
            paths = sorted(glob.glob(os.path.join(root, "pk3", pattern[len(UFO):])))
        else:
            paths = sorted(glob.glob(os.path.join(root, pattern)))
        if not paths:
            sys.exit(f"{package}: nothing matches {pattern}")
        for path in paths:
            relative = os.path.relpath(path, root)
            group = os.path.dirname(relative) if grouping == "folder" else relative
            out.append((f"{package}:{group}", package, relative, path,
                        licence or PACKAGES[package][1]))
    return out


def split(cache):
    """{half: {role: [source dicts]}}: per package, groups shuffled with the seed and dealt alternately."""
    halves = {"tune": {}, "test": {}}
    for role in SOURCES:
        entries = sources(cache, role)
        if role == "music":
            entries = [e for e in entries if duration(e[3]) >= MIN_MUSIC_SECONDS]
        for half in halves:
            halves[half][role] = []
        packages = sorted({e[1] for e in entries})
        start = 0
        for package in packages:
            groups = sorted({e[0] for e in entries if e[1] == package})
            random.Random(f"{SEED}:{role}:{package}").shuffle(groups)
            assigned = {g: ("tune", "test")[(i + start) % 2] for i, g in enumerate(groups)}
            start += len(groups)  # a package of one group does not always go to tune
            for key, pkg, relative, path, licence in entries:
                if pkg == package:
                    halves[assigned[key]][role].append(
                        {"group": key, "package": pkg, "path": relative, "abs": path, "licence": licence})
    return halves


class Cutter:
    def __init__(self, work):
        self.work = work
        os.makedirs(work, exist_ok=True)

    def normalised(self, path, rate):
        """The file as mono 16-bit WAV at `rate`, cached."""
        key = hashlib.sha1(f"{path}:{rate}".encode()).hexdigest()[:16]
        out = os.path.join(self.work, f"n-{key}.wav")
        if not os.path.exists(out):
            tmp = out + f".{os.getpid()}.{random.random()}.tmp.wav"
            run("sox", path, "-b", "16", "-c", "1", tmp, "rate", "-v", rate)
            os.replace(tmp, out)
        return out

    def stretch(self, source, rate, rng, tmp):
        """ITEM_SECONDS of a long recording (looped whole if shorter), straight from the source file."""
        path = source["abs"]
        length = duration(path)
        convert = ["-b", "16", "-c", "1", tmp]
        if length >= ITEM_SECONDS + 2:
            start = rng.uniform(min(2, length - ITEM_SECONDS), length - ITEM_SECONDS)
            run("sox", path, *convert, "trim", f"{start:.3f}", ITEM_SECONDS, "rate", "-v", rate)
            return [source], {"offset": round(start, 2)}
        repeats = math.ceil(ITEM_SECONDS / max(length, 0.5))
        run("sox", path, *convert, "repeat", repeats, "trim", 0, ITEM_SECONDS, "rate", "-v", rate)
        return [source], {"looped": repeats + 1}

    def speech(self, pool, rate, rng, tmp):
        """A speech stream: utterances of one package (and, for fillets-ng, one level) with pauses."""
        parts, used, total = [], [], 0.0
        while total < ITEM_SECONDS + 1:
            source = rng.choice(pool)
            path = self.normalised(source["abs"], rate)
            length = duration(path)
            if length < 0.3:
                continue
            gap = rng.uniform(0.15, 0.6)
            parts.append(path)
            parts.append(self.silence(rate, gap))
            used.append(source)
            total += length + gap
        run("sox", *parts, tmp, "trim", 0, ITEM_SECONDS)
        return used

    def silence(self, rate, seconds):
        seconds = round(seconds, 2)
        out = os.path.join(self.work, f"s-{rate}-{seconds:.2f}.wav")
        if not os.path.exists(out):
            tmp = out + f".{os.getpid()}.{random.random()}.tmp.wav"
            run("sox", "-n", "-r", rate, "-b", "16", "-c", "1", tmp, "trim", 0, seconds)
            os.replace(tmp, out)
        return out


def rms_db(path):
    stats = run("sox", path, "-n", "stat").stderr
    for line in stats.splitlines():
        if line.startswith("RMS     amplitude"):
            value = float(line.split(":")[1])
            return 20 * math.log10(max(value, 1e-9))
    raise RuntimeError(f"no RMS for {path}")


def peak_db(path):
    stats = run("sox", path, "-n", "stat").stderr
    for line in stats.splitlines():
        if line.startswith("Maximum amplitude"):
            return 20 * math.log10(max(float(line.split(":")[1]), 1e-9))
    raise RuntimeError(f"no peak for {path}")


def plan(half):
    """The deterministic list of (index, kind) of a half."""
    out, index = [], 0
    for kind, count in ITEMS:
        for _ in range(count):
            index += 1
            out.append((index, kind))
    return out


def speech_pools(pool):
    """Speech sources by speaker group: an asterisk package, or a fillets-ng level folder."""
    groups = {}
    for source in pool:
        key = source["package"] if source["package"].startswith("asterisk") else source["group"]
        groups.setdefault(key, []).append(source)
    return groups


def make_item(cutter, half, pools, out_dir, index, kind, seed):
    rng = random.Random(f"{seed}:{half}:{index}:{kind}")
    name = f"{index:04d}.wav"
    tmpdir = tempfile.mkdtemp(dir=cutter.work)
    try:
        return _make_item(cutter, pools, out_dir, name, kind, rng, tmpdir)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def _component(cutter, pools, component, rng, tmpdir, tag, rate=None, exclude=()):
    """Renders `component` (speech-1, babble-N, music, noise) to a file; returns (path, sources, rate, extra)."""
    out = os.path.join(tmpdir, f"{tag}.wav")
    if component == "music" or component == "noise":
        source = rng.choice(pools[component])
        rate = rate or item_rate(source_rate(source["abs"]))
        used, extra = cutter.stretch(source, rate, rng, out)
        return out, used, rate, extra
    voices = 1 if component == "speech-1" else int(component.split("-")[1])
    groups = pools["speech"]
    # one speaker group from each of `voices` different packages (chosen with equal weight), so
    # the Dutch dialogue's many level folders do not crowd out the phone prompts
    by_package = {}
    for key in sorted(groups):
        by_package.setdefault(groups[key][0]["package"], []).append(key)
    packages = sorted(by_package)
    rng.shuffle(packages)
    chosen = [rng.choice(by_package[packages[i % len(packages)]]) for i in range(voices)]
    if rate is None:
        rates = [item_rate(source_rate(groups[k][0]["abs"])) for k in chosen]
        rate = max(rates)
    streams, used = [], []
    for i, key in enumerate(chosen):
        stream = os.path.join(tmpdir, f"{tag}-v{i}.wav")
        used += cutter.speech(groups[key], rate, rng, stream)
        streams.append(stream)
    if len(streams) == 1:
        os.replace(streams[0], out)
        return out, used, rate, {"voices": chosen}
    scaled = []
    for i, stream in enumerate(streams):
        gain = rng.uniform(-3, 3) - rms_db(stream) - 20
        s = os.path.join(tmpdir, f"{tag}-g{i}.wav")
        run("sox", stream, s, "vol", f"{gain:.2f}dB")
        scaled.append(s)
    run("sox", "-m", *scaled, out)
    return out, used, rate, {"voices": chosen}


def _make_item(cutter, pools, out_dir, name, kind, rng, tmpdir):
    recipe = {"file": name, "kind": kind}
    final = os.path.join(out_dir, name)
    if kind == "quiet":
        inner = rng.choice(["speech-1", "babble-3", "music", "noise"])
        path, used, rate, extra = _component(cutter, pools, inner, rng, tmpdir, "q")
        level = rng.uniform(-80, -70)
        run("sox", path, "-b", "16", final, "vol", f"{level - rms_db(path):.2f}dB")
        recipe.update({"label": "quiet", "of": inner, "rmsDbfs": round(level, 1)})
    elif "/" in kind:
        fg_kind, bg_kind = kind.split("/")
        fg_component = {"babble": rng.choice(["speech-1", "babble-2", "babble-3"])}.get(fg_kind, fg_kind)
        bg_component = {"babble": rng.choice(["babble-3", "babble-4"])}.get(bg_kind, bg_kind)
        fg, fg_used, rate, extra = _component(cutter, pools, fg_component, rng, tmpdir, "fg")
        bg, bg_used, _, _ = _component(cutter, pools, bg_component, rng, tmpdir, "bg", rate=rate)
        snr = rng.choice(SNRS.get(kind, DEFAULT_SNRS))
        bg_scaled = os.path.join(tmpdir, "bgs.wav")
        run("sox", bg, bg_scaled, "vol", f"{rms_db(fg) - snr - rms_db(bg):.2f}dB")
        mixed = os.path.join(tmpdir, "mix.wav")
        run("sox", "-m", "-v", "1", fg, "-v", "1", bg_scaled, mixed)
        used = fg_used + bg_used
        path = mixed
        recipe.update({"label": LABELS[fg_kind], "foreground": fg_component, "background": bg_kind,
                       "snrDb": snr})
    else:
        path, used, rate, extra = _component(cutter, pools, kind, rng, tmpdir, "c")
        recipe.update({"label": LABELS[kind.split("-")[0]], **extra})
    if kind != "quiet":
        peak = -rng.uniform(1, 12)
        run("sox", path, "-b", "16", final, "vol", f"{peak - peak_db(path):.2f}dB")
        recipe["peakDbfs"] = round(peak, 1)
    recipe["sampleRate"] = rate
    seen, sources, licences = set(), [], []
    for s in used:
        if (s["package"], s["path"]) not in seen:
            seen.add((s["package"], s["path"]))
            sources.append(f"{s['package']}:{s['path']}")
        if s["licence"] not in licences:
            licences.append(s["licence"])
    recipe["source"] = sources
    recipe["licence"] = " + ".join(licences)
    return recipe


def fingerprint(versions):
    with open(__file__, "rb") as f:
        script = f.read()
    return hashlib.sha256(script + json.dumps(versions, sort_keys=True).encode()).hexdigest()


def complete(out_dir, stamp):
    try:
        with open(os.path.join(out_dir, "manifest.json")) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return False
    return manifest.get("generator") == stamp and all(
        os.path.exists(os.path.join(out_dir, item["file"])) for item in manifest["items"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "hearclear-sound-real"),
                        help="cache and output folder, outside the repository (default: %(default)s); "
                             "packages in <out>/debs and <out>/pkgs, items in <out>/real/{tune,test}")
    parser.add_argument("--half", choices=["tune", "test", "both"], default="both")
    parser.add_argument("--force", action="store_true", help="cut the halves again even if already there")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    out = os.path.realpath(args.out)
    repository = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    if out == repository or out.startswith(repository + os.sep):
        sys.exit(f"--out {out} is inside the repository; give a folder outside it")
    started = time.monotonic()
    versions = fetch(out)
    stamp = fingerprint(versions)
    halves = ["tune", "test"] if args.half == "both" else [args.half]
    split_sources = None
    for half in halves:
        out_dir = os.path.join(out, "real", half)
        if not args.force and complete(out_dir, stamp):
            with open(os.path.join(out_dir, "manifest.json")) as f:
                items = json.load(f)["items"]
            print(f"{half}: kept ({len(items)} items already cut by this script in {out_dir})")
        else:
            split_sources = split_sources or split(out)
            shutil.rmtree(out_dir, ignore_errors=True)
            os.makedirs(out_dir)
            pools = dict(split_sources[half])
            pools["speech"] = speech_pools(pools["speech"])
            cutter = Cutter(os.path.join(out, "work"))
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                futures = [pool.submit(make_item, cutter, half, pools, out_dir, index, kind, SEED)
                           for index, kind in plan(half)]
                items = [f.result() for f in futures]
            shutil.rmtree(cutter.work, ignore_errors=True)  # converted utterances: no longer needed
            groups = {role: sorted({s["group"] for s in split_sources[half][role]}) for role in SOURCES}
            manifest = {"half": half, "generator": stamp, "itemSeconds": ITEM_SECONDS, "seed": SEED,
                        "packages": versions, "sourceGroups": groups, "items": items,
                        "labelRule": "mixtures are labelled by the foreground, always >= 5 dB RMS above "
                                     "the background; quiet is -70 to -80 dBFS RMS"}
            with open(os.path.join(out_dir, "manifest.json"), "w") as f:
                json.dump(manifest, f, indent=1, sort_keys=True)
            print(f"{half}: cut {len(items)} items into {out_dir} "
                  f"(sources: {', '.join(f'{len(v)} {k}' for k, v in groups.items())})")
        counts = {}
        for item in items:
            counts[item["label"]] = counts.get(item["label"], 0) + 1
        print(f"  {half} items per class: " + ", ".join(f"{k} {counts[k]}" for k in sorted(counts))
              + f" (each {ITEM_SECONDS} s, two ~10 s windows)")
    print(f"done in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
