#!/usr/bin/env python3
"""/measure in a real browser (part of `make test`, from scripts/pages-browser.sh): Debian's
chromium through Playwright, its microphone a WAV file (`--use-fake-device-for-media-stream
--use-file-for-fake-audio-capture=FILE`), against a served city. Generates its audio at test time
with sox and espeak-ng into a temporary folder (never into the repository), and:

1. **The meter agrees with the server's.** For pink noise, tones at 63 Hz, 1 kHz and 8 kHz, speech
   over babble and a step from quiet to loud, each at 44.1 and 48 kHz (the AudioContext at that
   rate): measures 10 s in /measure, takes the check-in the page sent, and compares every second
   with `hearclear meter` on the same samples. Chromium's fake microphone starts wherever the file
   is when the meter connects, after a few zeros, and its device runs at 44.1 kHz (a 48 kHz file is
   resampled to it, and back to 48 kHz for a 48 kHz context): the start is found from the page's
   A-weighted levels (numpy, on the file looped), and `hearclear meter` meters exactly that stream
   (the zeros, then the file from there). Every second's LAeq and LCeq must agree within 0.3 dB
   (the first second, which holds the capture's start, but for the steady tones: see `compare`),
   every third-octave band within 1 dB where it is within 40 dB of the second's strongest band
   and not 20 dB or more below the same band in a second beside it, from the second second on
   (the first holds the capture's start, see `compare`); a measurement whose disagreements all lie
   in one second, a splice of Chromium's capture (see `main`), is measured again. A band outside that holds the window's
   sidelobes, the file's dither or the splatter of a louder second beside it, which the 48 kHz
   chain's two resamplings (file → Chromium's 44.1 kHz fake device → a 48 kHz context) reshape:
   at 44.1 kHz, where the worklet gets the file's samples exactly, every band agrees within
   0.02 dB. The stored check-in must hold what was sent. Peaks are reported, not compared (a
   resampler moves them).
   With the real set of scripts/sound-character/real.py at hand (--real), one real recording
   too (the first music item, 16 kHz, resampled).
2. **The flow by keyboard**: /measure → a venue by name → measure → sent → its week counts it;
   the microphone denied → a clear message and no check-in; a check-in made while the API answers
   503 is kept, shown as waiting, and stored exactly once when the page is open again; the
   browser's data shown and erased; axe-core on /measure in every state; no sideways scroll at
   320 px; screenshots at 390 and 1280 px into --screenshots.

    scripts/measure-browser.py --url http://127.0.0.1:18090 --venue-name "Simulated p"
"""

import argparse
import functools
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
import wave
from pathlib import Path

import numpy as np
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

import page_checks
from page_checks import WIDTHS, shoot

# The measure page has more stops before its controls than the other pages.
tab_to = functools.partial(page_checks.tab_to, limit=80)

NOMINAL = [50, 63, 80, 100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600, 2000, 2500, 3150,
           4000, 5000, 6300, 8000, 10000]
SECONDS = 10
LEVEL_TOLERANCE = 0.3
BAND_TOLERANCE = 1.0
BAND_RANGE = 40.0
NEIGHBOUR_RANGE = 20.0
# A signal whose disagreements lie in one second is measured again, up to this many times in all (see main).
ATTEMPTS = 5


# MARK: Audio, generated at test time

def sox(*args):
    subprocess.run(["sox", *map(str, args)], check=True, capture_output=True)


def generate(folder, rate):
    """The test signals at `rate`, 16 s each (16-bit mono WAV), by name."""
    f = lambda name: folder / f"{name}-{rate}.wav"
    out = {}
    common = ["-r", rate, "-b", 16, "-c", 1]
    sox("-n", *common, f("pink"), "synth", 16, "pinknoise", "vol", 0.2)
    out["pink noise"] = f("pink")
    for hz in (63, 1000, 8000):
        sox("-n", *common, f(f"tone{hz}"), "synth", 16, "sine", hz, "vol", 0.3)
        out[f"tone {hz} Hz"] = f(f"tone{hz}")
    # Quiet, then 32 dB louder after 6 s: the step falls inside the ten seconds measured.
    sox("-n", *common, folder / "quiet.wav", "synth", 6, "pinknoise", "vol", 0.01)
    sox("-n", *common, folder / "loud.wav", "synth", 10, "pinknoise", "vol", 0.4)
    sox(folder / "quiet.wav", folder / "loud.wav", f("step"))
    out["quiet to loud"] = f("step")
    # Speech over babble: one voice in front of four others, quieter, all espeak-ng.
    texts = [
        "Could we find a table somewhere quieter? I can hardly hear you over the music tonight.",
        "The trains were late again this morning, so I walked along the river instead.",
        "She said the new place round the corner does a very good breakfast on Sundays.",
        "Have you seen the match last night? It went on to extra time and then penalties.",
        "We should book early for the holidays, everything fills up by the end of October.",
    ]
    voices = []
    for i, text in enumerate(texts):
        raw = folder / f"voice{i}-raw.wav"
        subprocess.run(["espeak-ng", "-v", ["en", "en-us", "en+f3", "en+m3", "en+f2"][i], "-s", str(150 + 10 * i),
                        "-w", str(raw), text], check=True, capture_output=True)
        voice = folder / f"voice{i}-{rate}.wav"
        sox(raw, *common, voice, "repeat", 6, "trim", 0.3 * i, 16, "pad", 0, 16)
        sox(voice, *common, folder / f"voice{i}-{rate}-16.wav", "trim", 0, 16)
        voices.append(folder / f"voice{i}-{rate}-16.wav")
    sox("-m", "-v", 0.5, voices[0], "-v", 0.15, voices[1], "-v", 0.15, voices[2], "-v", 0.15, voices[3],
        "-v", 0.15, voices[4], *common, f("speech"))
    out["speech over babble"] = f("speech")
    # One real recording, when scripts/sound-character/real.py has cut its set: the first music item
    # of the held-out half (16 kHz; resampled, so nothing above 8 kHz).
    manifest = REAL / "real" / "test" / "manifest.json"
    if manifest.exists():
        item = next((i for i in json.loads(manifest.read_text())["items"] if i["label"] == "music"), None)
        if item:
            sox(manifest.parent / item["file"], *common, f("real"), "trim", 0, 16)
            out[f"real: music {item['file']}"] = f("real")
    return out


def read_wav(path):
    with wave.open(str(path)) as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1, path
        return w.getframerate(), np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")


def write_wav(path, rate, samples):
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())


# MARK: Where the browser's ten seconds lie in the file

def a_weighting_response(rate, n):
    """A's complex response at the n // 2 + 1 bins of an n-point FFT (the meter's three biquads)."""
    def biquad(num, den, k):
        k2 = k * k
        a0 = den[0] * k2 + den[1] * k + den[2]
        b = [(num[0] * k2 + num[1] * k + num[2]) / a0, 2 * (num[2] - num[0] * k2) / a0,
             (num[0] * k2 - num[1] * k + num[2]) / a0]
        a = [1, 2 * (den[2] - den[0] * k2) / a0, (den[0] * k2 - den[1] * k + den[2]) / a0]
        return b, a

    rad = lambda hz: 2 * math.pi * hz
    w1, w2, w3, w4 = rad(20.598997), rad(107.65265), rad(737.86223), rad(12194.217)
    match = min(rate / 6, 16000)
    sections = [biquad((1, 0, 0), (1, 2 * w1, w1 * w1), 2 * rate),
                biquad((0, 0, 1), (1, 2 * w4, w4 * w4), rad(match) / math.tan(math.pi * match / rate)),
                biquad((1, 0, 0), (1, w2 + w3, w2 * w3), 2 * rate)]

    def response(w):
        z1, z2 = np.exp(-1j * w), np.exp(-2j * w)
        h = 1
        for b, a in sections:
            h = h * (b[0] + b[1] * z1 + b[2] * z2) / (a[0] + a[1] * z1 + a[2] * z2)
        return h

    h = response(2 * np.pi * np.arange(n // 2 + 1) / n)
    return h / abs(response(np.array([2 * np.pi * 1000 / rate]))[0])


def locate(samples, rate, browser):
    """The file position d at the browser's time 0 and the zeros z it began with (file samples):
    second s ≥ 1 of the browser is file[d + s·rate, d + (s + 1)·rate) (looped), second 0 is z
    zeros then file[d + z, d + rate). Found from the browser's per-second LAeq."""
    x = samples.astype(np.float64) / 32768
    n = len(x)
    y = np.fft.irfft(np.fft.rfft(x) * a_weighting_response(rate, n), n)
    c = np.concatenate([[0.0], np.cumsum(np.tile(y * y, 4))])
    d = np.arange(n)
    error = np.zeros(n)
    for s in range(1, SECONDS):
        energy = (c[d + (s + 1) * rate] - c[d + s * rate]) / rate
        error += (10 * np.log10(np.maximum(energy, 1e-20)) - browser[s]) ** 2
    best = int(np.argmin(error))
    z = np.arange(rate // 2)
    first = (c[best + rate] - c[best + z]) / rate
    zeros = int(np.argmin(np.abs(10 * np.log10(np.maximum(first, 1e-20)) - browser[0])))
    return best, zeros, float(error[best] / (SECONDS - 1))


def reference(samples, rate, start, zeros, folder, name):
    """`hearclear meter` on the stream the browser metered: `zeros` zeros, then the file looped from
    `start + zeros`, two seconds more than measured (so that every frame of the last second is in)."""
    looped = np.tile(samples, 4)
    stream = np.concatenate([np.zeros(zeros, dtype=samples.dtype),
                             looped[start + zeros: start + (SECONDS + 2) * rate]])
    path = folder / f"{name}-reference.wav"
    write_wav(path, rate, stream)
    out = subprocess.run([HEARCLEAR, "meter", "--json", "--sound-model", "off", str(path)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["samples"]


# MARK: The browser

def launch(playwright, wav=None, fake_ui=True):
    args = ["--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required"]
    if fake_ui:
        args.append("--use-fake-ui-for-media-stream")
    if wav:
        args.append(f"--use-file-for-fake-audio-capture={wav}")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=args)


def sent_checkins(page):
    """Records the check-ins the page POSTs (their bodies)."""
    bodies = []
    page.on("request", lambda r: bodies.append(json.loads(r.post_data))
            if r.method == "POST" and r.url.endswith("/api/v2/checkins") else None)
    return bodies


def measure_file(wav, rate, venue):
    """Measures `wav` for ten seconds at an AudioContext of `rate`; the check-in as sent."""
    with sync_playwright() as p:
        browser = launch(p, wav)
        page = browser.new_page()
        bodies = sent_checkins(page)
        page.goto(f"{URL}/measure?venue={venue}&seconds={SECONDS}&rate={rate}")
        tab_to(page, "#measure-start")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.getElementById('result-sent').textContent.startsWith('Sent')",
                               timeout=60_000)
        browser.close()
    assert len(bodies) == 1, f"{wav}: {len(bodies)} check-ins sent"
    return bodies[0]


def api(path, method="GET"):
    request = urllib.request.Request(URL + path, method=method, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def stored_checkin(device, checkin_id):
    status, data = api(f"/api/v2/devices/{device}/data")
    assert status == 200, f"device data: {status}"
    found = [c for c in data["checkins"] if c["id"] == checkin_id]
    assert len(found) == 1, f"check-in {checkin_id} stored {len(found)} times"
    return data, found[0]


def compare(name, rate, wav, body, folder, failures, seconds):
    """Every second of the check-in against `hearclear meter` on the same stream; the worst
    differences, and the stored check-in against what was sent. Adds to `seconds` each second whose
    levels or bands disagree, and None for a disagreement no one second explains."""
    periodic = name.startswith("tone")
    file_rate, samples = read_wav(wav)
    browser = [s["average"] for s in body["samples"]]
    start, zeros, fit = locate(samples, file_rate, browser)
    cli = reference(samples, file_rate, start, zeros, folder, f"{Path(wav).stem}-{rate}")
    worst = {"LAeq": 0.0, "LCeq": 0.0, "band": 0.0, "peak": 0.0}
    first = {"LAeq": 0.0, "LCeq": 0.0}
    worst_band = None
    compared = 0
    for s, (b, c) in enumerate(zip(body["samples"], cli)):
        for key, ours, theirs in (("LAeq", b["average"], c["aWeighted"]), ("LCeq", b["lceq"], c["lceq"]),
                                  ("peak", b["peak"], c["peak"])):
            if s == 0 and key in first:
                first[key] = abs(ours - theirs)
            else:
                worst[key] = max(worst[key], abs(ours - theirs))
            if key != "peak" and abs(ours - theirs) > LEVEL_TOLERANCE and not (s == 0 and periodic):
                failures.append(f"{name} @ {rate}: second {s} {key} {ours:.2f} ≠ meter {theirs:.2f}")
                seconds.add(s)
        if s == 0:
            # Second 0 holds the capture's start: ~30 ms of zeros, then the file where it stood,
            # a click whose splatter (in the bands, ±250 ms for the long frames) and whose
            # transient through the 20 Hz high-pass depend on the waveform there. For a steady
            # tone (`periodic`) the levels cannot tell where in its period the capture began, so
            # its second 0 is reported, not compared (its A-weighted 63 Hz click moves LAeq by up
            # to ~2 dB); every other signal's second 0 LAeq and LCeq are compared. No second 0's
            # bands are.
            continue
        if set(b["bands"]) != set(c["bands"]):
            failures.append(f"{name} @ {rate}: second {s} bands {sorted(b['bands'])} ≠ {sorted(c['bands'])}")
            seconds.add(None)
        strongest = max(c["bands"].values())
        neighbours = [cli[t]["bands"] for t in (s - 1, s + 1) if 0 <= t < len(cli)]
        for key, theirs in c["bands"].items():
            if theirs < strongest - BAND_RANGE or key not in b["bands"]:
                continue
            if any(n.get(key, -160) - theirs > NEIGHBOUR_RANGE for n in neighbours):
                continue
            compared += 1
            difference = abs(b["bands"][key] - theirs)
            if difference > worst["band"]:
                worst["band"], worst_band = difference, f"{key} Hz, second {s}"
            if difference > BAND_TOLERANCE:
                failures.append(f"{name} @ {rate}: second {s} band {key} {b['bands'][key]:.2f} ≠ {theirs:.2f}")
                seconds.add(s)
    # The stored check-in holds what was sent (LCeq and bands to 0.1 dB).
    before = len(failures)
    _, stored = stored_checkin(body["device"]["id"], body["id"])
    samples = stored["samples"]
    if samples["lceqDdB"] is None or samples["bandsDdB"] is None:
        failures.append(f"{name} @ {rate}: the stored check-in has no LCeq or bands")
    else:
        for s, sent in enumerate(body["samples"]):
            if abs(samples["averageDBFS"][s] - sent["average"]) > 0.01 or abs(samples["lceqDdB"][s] / 10 - sent["lceq"]) > 0.051:
                failures.append(f"{name} @ {rate}: stored second {s} differs from the one sent")
        indexes = samples["bandIndexes"]
        stored_bands = samples["bandsDdB"][: len(indexes)]
        sent_bands = body["samples"][0]["bands"]
        for index, value in zip(indexes, stored_bands):
            if abs(value / 10 - sent_bands[str(NOMINAL[index])]) > 0.051:
                failures.append(f"{name} @ {rate}: stored band {NOMINAL[index]} of second 0 differs from the one sent")
    if len(failures) > before:
        seconds.add(None)
    print(f"  {name:20} {rate} Hz: start {start / file_rate:6.3f} s, {zeros / file_rate * 1000:5.1f} ms of zeros "
          f"(fit {fit:.4f}); |browser − meter| in second 0: LAeq {first['LAeq']:.2f}, LCeq {first['LCeq']:.2f}; "
          f"worst after: LAeq {worst['LAeq']:.3f}, LCeq {worst['LCeq']:.3f}, "
          f"band {worst['band']:.3f} ({worst_band}; {compared} compared), peak {worst['peak']:.3f} dB")
    return worst, first


# MARK: The flow by keyboard

def check_axe(page, failures, state):
    violations = AXE.run(page).response.get("violations", [])
    for v in violations:
        print(f"  axe {v.get('impact')}: {v['id']} ({len(v['nodes'])} nodes) — {v['help']}")
        failures.append(f"/measure {state}: axe {v['id']}")
    print(f"  /measure {state}: {len(violations)} axe violations")


def venue_checkins(venue):
    status, data = api(f"/api/v2/venues/{venue}")
    assert status == 200, status
    return data["checkins"]


def flow(wav, venue_name, shots, failures):
    with sync_playwright() as p:
        # 1. Venue → measure → sent → the week counts it, by keyboard alone.
        browser = launch(p, wav)
        page = browser.new_page(viewport=WIDTHS["1280"])
        bodies = sent_checkins(page)
        page.goto(f"{URL}/measure?seconds={SECONDS}")
        check_axe(page, failures, "choosing the place")
        shoot(page, shots, "measure-choose", failures)
        tab_to(page, "#place-q")
        page.keyboard.type(venue_name)
        page.keyboard.press("Enter")
        page.wait_for_selector("#place-results a")
        check_axe(page, failures, "places found")
        tab_to(page, "#place-results a")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        venue = page.evaluate("document.getElementById('measure').dataset.venueId")
        before = venue_checkins(venue)
        check_axe(page, failures, "ready")
        shoot(page, shots, "measure-ready", failures)
        tab_to(page, "#measure-start")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.getElementById('measure-progress').value >= 3", timeout=30_000)
        check_axe(page, failures, "measuring")
        shoot(page, shots, "measure-measuring", failures)
        page.wait_for_function("() => document.getElementById('result-sent').textContent.startsWith('Sent')",
                               timeout=60_000)
        page.wait_for_function("() => !document.getElementById('result-week').hidden", timeout=30_000)
        counted = page.evaluate("document.getElementById('result-count').textContent")
        if "yours among them" not in counted:
            failures.append(f"the result does not count the check-in: {counted!r}")
        focused = page.evaluate("document.activeElement.id")
        if focused != "measure-result":
            failures.append(f"the result did not take the focus ({focused})")
        check_axe(page, failures, "sent")
        shoot(page, shots, "measure-sent", failures)
        announced = page.evaluate("document.getElementById('measure-announce').textContent")
        print(f"  announced: {announced!r}")
        assert len(bodies) == 1, bodies
        body = bodies[0]
        if not body["device"]["model"].startswith("browser/"):
            failures.append(f"model {body['device']['model']!r}")
        if body["capture"] != {"echoCancellation": False, "noiseSuppression": False, "autoGainControl": False}:
            failures.append(f"capture {body['capture']}")
        device = body["device"]["id"]
        if page.evaluate("localStorage.getItem('hearclear.device')") != device:
            failures.append("the device id is not kept in localStorage hearclear.device")
        shown = page.evaluate("document.getElementById('device-short').textContent")
        if device in page.content() or shown != device[:4] + "…" + device[-2:]:
            failures.append(f"the device id shown whole or not at all ({shown})")
        after = venue_checkins(venue)
        if after != before + 1:
            failures.append(f"the venue counts {after} check-ins, {before} before")
        # Its page (its week) counts it, once the cached page is renewed.
        deadline = time.time() + 60
        while True:
            page.goto(f"{URL}/venues/{venue}")
            if f"From {before + 1} check-ins" in page.content():
                break
            if time.time() > deadline:
                failures.append(f"the venue's page never said “From {before + 1} check-ins”")
                break
            time.sleep(2)
        print(f"  flow: {venue} counted {before} → {after} check-ins; its page says so")

        # 2. The API down (503): kept, shown as waiting, stored once when the page is open again.
        page.route("**/api/v2/checkins", lambda route: route.fulfill(
            status=503, content_type="application/problem+json",
            body='{"type":"/service-unavailable","title":"Service unavailable","status":503}'))
        page.goto(f"{URL}/measure?venue={venue}&seconds={SECONDS}")
        tab_to(page, "#measure-start")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.getElementById('result-sent').textContent.startsWith('Not sent')",
                               timeout=60_000)
        waiting = page.evaluate("JSON.parse(localStorage.getItem('hearclear.pending'))")
        if len(waiting) != 1 or page.is_hidden("#pending"):
            failures.append(f"the check-in refused with 503 is not shown as waiting ({len(waiting)})")
        check_axe(page, failures, "waiting to be sent")
        shoot(page, shots, "measure-waiting", failures)
        kept = waiting[0]["body"]["id"]
        page.unroute("**/api/v2/checkins")
        page.goto(f"{URL}/measure")
        page.wait_for_function("() => localStorage.getItem('hearclear.pending') === null", timeout=30_000)
        page.reload()
        page.wait_for_timeout(1000)
        data, _ = stored_checkin(device, kept)
        sent_ids = [b["id"] for b in bodies]
        print(f"  offline: {kept} sent {sent_ids.count(kept)} times (once refused with 503), stored once; "
              f"the device holds {len(data['checkins'])} check-ins")
        if len(data["checkins"]) != 2:
            failures.append(f"the device holds {len(data['checkins'])} check-ins, not 2")
        if not page.is_hidden("#pending"):
            failures.append("still shown as waiting after it was sent")
        # A resend of the same check-in is the first answer again (200), not a second one.
        resent = urllib.request.Request(URL + "/api/v2/checkins", method="POST",
                                        data=json.dumps([b for b in bodies if b["id"] == kept][0]).encode(),
                                        headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(resent, timeout=30) as response:
            if response.status != 200:
                failures.append(f"a resend answered {response.status}, not 200")

        # 3. The browser's data: shown, then erased, by keyboard.
        page.goto(f"{URL}/measure")
        tab_to(page, "#device-show")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.getElementById('device-status').textContent.startsWith('HearClear holds 2')",
                               timeout=30_000)
        check_axe(page, failures, "this browser's data")
        page.once("dialog", lambda dialog: dialog.accept())
        tab_to(page, "#device-erase")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.getElementById('device-none').textContent.startsWith('Erased')",
                               timeout=30_000)
        if api(f"/api/v2/devices/{device}/data")[0] != 404 or page.evaluate("localStorage.length") != 0:
            failures.append("erasing left data behind")
        check_axe(page, failures, "erased")
        browser.close()

        # 4. The microphone denied: a clear message, no check-in.
        browser = launch(p, wav, fake_ui=False)
        context = browser.new_context()
        page = context.new_page()
        bodies = sent_checkins(page)
        page.goto(f"{URL}/measure?venue={venue}&seconds={SECONDS}")
        tab_to(page, "#measure-start")
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.getElementById('measure-message').textContent.length > 0", timeout=30_000)
        text = page.evaluate("document.getElementById('measure-message').textContent")
        print(f"  denied: {text!r}")
        if "not allowed" not in text:
            failures.append(f"denied: {text!r}")
        check_axe(page, failures, "microphone denied")
        shoot(page, shots, "measure-denied", failures)
        page.wait_for_timeout(1000)
        if bodies or page.evaluate("localStorage.getItem('hearclear.pending')"):
            failures.append("a check-in was made with the microphone denied")
        browser.close()


def main():
    global URL, HEARCLEAR, CHROMIUM, AXE, REAL
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--venue-name", required=True, help="the start of a venue's name, to choose it by")
    parser.add_argument("--hearclear", default=".build/debug/hearclear")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--screenshots", default="screenshots/pages")
    parser.add_argument("--rates", default="44100,48000")
    parser.add_argument("--skip-flow", action="store_true")
    parser.add_argument("--skip-meter", action="store_true")
    parser.add_argument("--real", default=os.environ.get("SOUND_CHARACTER_REAL_DIR")
                        or os.path.join(os.environ.get("TMPDIR", "/tmp"), "hearclear-sound-real"),
                        help="where scripts/sound-character/real.py keeps its set (optional; default %(default)s)")
    args = parser.parse_args()
    URL, HEARCLEAR, CHROMIUM, AXE = args.url.rstrip("/"), args.hearclear, args.chromium, Axe()
    REAL = Path(args.real)
    if not (REAL / "real" / "test" / "manifest.json").exists():
        print(f"measure: no real recording ({REAL} has no set: make sound-character-real cuts it)")
    shots = Path(args.screenshots)
    shots.mkdir(parents=True, exist_ok=True)
    failures = []
    started = time.time()
    status, page = api("/api/v2/venues?q=" + urllib.request.quote(args.venue_name) + "&limit=1")
    venue = page["results"][0]["venue"]["id"]
    with tempfile.TemporaryDirectory(prefix="hearclear-measure-") as tmp:
        folder = Path(tmp)
        jobs = []
        for rate in [] if args.skip_meter else map(int, args.rates.split(",")):
            for name, wav in generate(folder, rate).items():
                jobs.append((name, rate, wav))
        print(f"measure: {len(jobs)} signals generated in {time.time() - started:.0f} s; the browser against "
              f"`hearclear meter`, per second:")
        # One browser at a time (each meters in real time). Chromium's capture now and then splices
        # its stream, which no meter of the file could agree with. At 48 kHz it happens even on an
        # idle machine, in one measurement of four to six, in second 1 or 4 of the capture. The
        # fake device delivers every frame it captures (its track's `stats` say so), so the splice
        # lies after it, most likely where the 44.1 kHz device's stream is resampled for the 48 kHz
        # context. On the steady tones it shows as splatter beside the tone. In one case, a 1 kHz
        # tone whose start was known from a slow swell of its level, the browser read the 800,
        # 1000 and 1250 Hz bands within 0.15 dB of `hearclear meter` on the same stream with 256
        # zero samples (5 ms) put into that second: the 1250 Hz band read −47.4 dB, −51.8 without.
        # The 63 Hz tone's LAeq rises by 0.7–0.8 dB in the one second, because A-weighting passes
        # the splatter and not the tone (its bands say that splice is not 5 ms of zeros: a jump,
        # perhaps). Splices came in three measurements of the 1 kHz tone in a row once. So a signal
        # whose disagreements all lie in one second, or in two side by side, is measured again, at
        # most five times in all, and said so. Anything else fails at once, and a fault of the meter
        # would disagree every time.
        summary = {}
        for name, rate, wav in jobs:
            for attempt in range(1, ATTEMPTS + 1):
                body = measure_file(wav, rate, venue)
                found, seconds = [], set()
                worst, first = compare(name, rate, wav, body, folder, found, seconds)
                splice = bool(found) and None not in seconds and max(seconds) - min(seconds) <= 1
                if not splice or attempt == ATTEMPTS:
                    failures.extend(found)
                    break
                print(f"  {name} @ {rate}: {len(found)} differences, all in second "
                      f"{'–'.join(map(str, sorted(seconds)))} ({found[0]}, …); measured again: a splice "
                      f"of the capture")
            total = summary.setdefault(rate, {"LAeq": 0.0, "LCeq": 0.0, "band": 0.0, "first": 0.0})
            for key in ("LAeq", "LCeq", "band"):
                total[key] = max(total[key], worst[key])
            if not name.startswith("tone"):
                total["first"] = max(total["first"], first["LAeq"], first["LCeq"])
        for rate, total in sorted(summary.items()):
            print(f"measure: at {rate} Hz, the worst |browser − hearclear meter| over every signal: LAeq "
                  f"{total['LAeq']:.2f} dB, LCeq {total['LCeq']:.2f} dB, a band {total['band']:.2f} dB (seconds 1–9); "
                  f"second 0 (the capture's start; tones left out) {total['first']:.2f} dB")
        if not args.skip_flow:
            print("measure: the flow by keyboard")
            tone = folder / "flow.wav"
            sox("-n", "-r", 48000, "-b", 16, "-c", 1, tone, "synth", 16, "sine", 1000, "vol", 0.1)
            flow(tone, args.venue_name, shots, failures)
    print(f"measure: {time.time() - started:.0f} s")
    if failures:
        print("measure browser test FAILED:\n  " + "\n  ".join(failures), file=sys.stderr)
        sys.exit(1)
    print("measure browser test: passed")


if __name__ == "__main__":
    main()
