#!/usr/bin/env python3
"""What scripts/container-check.sh asks of a served HearClear, through its published port only.

Standard library only. Each subcommand prints what it saw and exits non-zero on the first thing
that does not hold:

  seed     venues and check-ins from a few phones; waits until their cells are judged; writes what
           it made (ids, phones, grids, the phones' pseudonymous short ids) to --state
  verify   every check-in of --state still there, the same grids, each phone the same device; then
           a new check-in from a known phone joins its device
  snapshot the state now (--from's check-ins and phones, --burst's acknowledged ones), judged
  pages    / (a search), /farmer (the sign-in form), /metrics (the check-ins counted)
  admin    signs in at /farmer with --password and opens the dashboard (--expect-refused: must fail)
  burst    posts check-ins one after another until the server stops answering (for SIGTERM);
           writes each one's outcome to --state
  acked    every check-in the burst saw acknowledged (201/200) is stored
"""

import argparse
import datetime
import http.cookiejar
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

VENUES = [
    # id, name, latitude, longitude, timezone
    ("container-check-arms", "The Container Arms", -33.8688, 151.2093, "Australia/Sydney"),
    ("container-check-cafe", "Quiet Harbour Cafe", -33.8700, 151.2100, "Australia/Sydney"),
]
PHONES = [f"c0ffee00-0000-4000-8000-00000000000{n}" for n in range(1, 5)]


def request(url, method="GET", body=None, headers=None, opener=None, timeout=30):
    """(status, headers, body bytes); HTTP errors are answers, not exceptions."""
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if isinstance(body, (dict, list)):
        req.add_header("Content-Type", "application/json")
    try:
        with (opener or urllib.request.build_opener()).open(req, timeout=timeout) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def need(condition, message):
    if not condition:
        sys.exit(f"FAIL: {message}")


def checkin(venue, phone, level_dbfs, minutes_ago=3, seconds=90):
    """A v2 check-in as a phone sends it: per-second samples ending `minutes_ago` minutes ago."""
    end = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(
        minutes=minutes_ago
    )
    samples = []
    for i in range(seconds):
        t = end - datetime.timedelta(seconds=seconds - i)
        samples.append(
            {
                "t": t.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "average": round(level_dbfs + 0.3 * ((i * 7) % 5 - 2), 1),
                "peak": round(level_dbfs + 12 + (i % 3), 1),
            }
        )
    _, name, lat, lon, zone = venue
    return {
        "id": str(uuid.uuid4()),
        "venue": {"id": venue[0]},
        "device": {"id": phone, "model": "iPhone15,2"},
        "location": {"latitude": lat + 0.0001, "longitude": lon + 0.0001, "accuracy": 15},
        "unit": "dbfs",
        "samples": samples,
    }


def grid(url, venue_id):
    status, _, body = request(f"{url}/api/v2/venues/{venue_id}/loudness")
    return json.loads(body) if status == 200 else None


def cells(g):
    """The measured cells of a grid, as (day, hour, level, checkins, devices)."""
    return sorted(
        (d["day"], h["hour"], h.get("level"), h.get("checkins"), h.get("devices"))
        for d in g["days"]
        for h in d["hours"]
        if not h.get("estimated")
    )


def seed(args):
    url = args.url
    for venue_id, name, lat, lon, zone in VENUES:
        status, _, body = request(
            f"{url}/api/v2/venues/{venue_id}",
            "PUT",
            {"name": name, "latitude": lat, "longitude": lon, "timezone": zone},
        )
        need(status in (200, 201), f"PUT venue {venue_id}: {status} {body[:200]!r}")
    ids = []
    started = time.monotonic()
    for v, venue in enumerate(VENUES):
        for p, phone in enumerate(PHONES):
            # Each venue at its own time: a phone at two venues at once is excluded.
            body = checkin(venue, phone, -40.0 + 6 * v + p, minutes_ago=3 + 4 * v)
            status, headers, answer = request(f"{url}/api/v2/checkins", "POST", body)
            need(status == 201, f"POST check-in: {status} {answer[:300]!r}")
            need(headers.get("Location") == f"/api/v2/checkins/{body['id']}", "Location of the check-in")
            ids.append(body["id"])
    print(f"seed: {len(VENUES)} venues, {len(ids)} check-ins from {len(PHONES)} phones: 201 each")
    grids = {}
    deadline = time.monotonic() + 120
    for venue_id, *_ in VENUES:
        while (g := grid(url, venue_id)) is None or sum(c[3] or 0 for c in cells(g)) < len(PHONES):
            need(time.monotonic() < deadline, f"the grid of {venue_id} was not judged within 120 s")
            time.sleep(0.5)
        grids[venue_id] = cells(g)
    print(f"seed: both grids judged {time.monotonic() - started:.1f} s after the first check-in: {grids}")
    statuses = {}
    for checkin_id in ids:
        status, _, body = request(f"{url}/api/v2/checkins/{checkin_id}")
        need(status == 200, f"GET check-in {checkin_id}: {status}")
        statuses[checkin_id] = json.loads(body)["status"]
    print(f"seed: check-in statuses {sorted(set(statuses.values()))}")
    devices = {}
    for phone in PHONES:
        status, _, body = request(f"{url}/api/v2/devices/{phone}/data")
        need(status == 200, f"GET device data: {status}")
        data = json.loads(body)
        devices[phone] = {"short": data["device"]["id"], "checkins": sorted(c["id"] for c in data["checkins"])}
    print(f"seed: the phones' pseudonymous ids {[d['short'] for d in devices.values()]}")
    with open(args.state, "w") as out:
        json.dump({"checkins": ids, "statuses": statuses, "grids": grids, "devices": devices}, out)


def verify(args):
    url = args.url
    with open(args.state) as f:
        state = json.load(f)
    for checkin_id in state["checkins"]:
        status, _, body = request(f"{url}/api/v2/checkins/{checkin_id}")
        need(status == 200, f"check-in {checkin_id} lost: {status}")
    for venue_id, expected in state["grids"].items():
        g = grid(url, venue_id)
        need(g is not None, f"no grid for {venue_id}")
        got = [list(c) for c in cells(g)]
        need(got == [list(c) for c in expected], f"grid of {venue_id} changed: {got} != {expected}")
    for phone, expected in state["devices"].items():
        status, _, body = request(f"{url}/api/v2/devices/{phone}/data")
        need(status == 200, f"phone {phone} is no longer a known device ({status}): the device key changed?")
        data = json.loads(body)
        need(data["device"]["id"] == expected["short"], f"phone {phone} became another device")
        need(sorted(c["id"] for c in data["checkins"]) == expected["checkins"], f"phone {phone}'s check-ins")
    # A new check-in from a known phone joins its old device.
    phone = PHONES[0]
    fresh = checkin(VENUES[0], phone, -38.0, minutes_ago=0, seconds=20)
    status, _, answer = request(f"{url}/api/v2/checkins", "POST", fresh)
    need(status == 201, f"a new check-in from a known phone: {status} {answer[:200]!r}")
    _, _, body = request(f"{url}/api/v2/devices/{phone}/data")
    data = json.loads(body)
    need(data["device"]["id"] == state["devices"][phone]["short"], "the new check-in made a new device")
    need(len(data["checkins"]) == len(state["devices"][phone]["checkins"]) + 1, "the new check-in joined it")
    print(
        f"verify: {len(state['checkins'])} check-ins there, {len(state['grids'])} grids the same, "
        f"{len(state['devices'])} phones the same devices; a new check-in from {state['devices'][phone]['short']} joined it"
    )


def snapshot(args):
    """The state as it is now (after later check-ins), for a later verify: --from's check-ins and
    phones, and --burst's acknowledged check-ins, once none of them is pending."""
    url = args.url
    with open(args.source) as f:
        state = json.load(f)
    ids = list(state["checkins"])
    if args.burst:
        with open(args.burst) as f:
            ids += [o["id"] for o in json.load(f) if o["outcome"] in (200, 201)]
    for phone in state["devices"]:
        _, _, body = request(f"{url}/api/v2/devices/{phone}/data")
        ids += [c["id"] for c in json.loads(body)["checkins"]]
    ids = sorted(set(ids))
    deadline = time.monotonic() + 120
    for checkin_id in ids:
        while True:
            status, _, body = request(f"{url}/api/v2/checkins/{checkin_id}")
            need(status == 200, f"check-in {checkin_id}: {status}")
            if json.loads(body)["status"] != "pending":
                break
            need(time.monotonic() < deadline, f"check-in {checkin_id} still pending after 120 s")
            time.sleep(0.5)
    time.sleep(2)  # the last venues' grids written after their check-ins' judgements
    grids = {venue_id: cells(grid(url, venue_id)) for venue_id in state["grids"]}
    devices = {}
    for phone in state["devices"]:
        _, _, body = request(f"{url}/api/v2/devices/{phone}/data")
        data = json.loads(body)
        devices[phone] = {"short": data["device"]["id"], "checkins": sorted(c["id"] for c in data["checkins"])}
    with open(args.state, "w") as out:
        json.dump({"checkins": ids, "grids": grids, "devices": devices}, out)
    print(f"snapshot: {len(ids)} check-ins judged, grids {grids}")


def pages(args):
    url = args.url
    status, headers, body = request(f"{url}/?q=container")
    need(status == 200 and b"The Container Arms" in body, f"/?q=container: {status}, the venue not found")
    status, _, body = request(f"{url}/")
    need(status == 200 and b"<html" in body.lower(), f"/: {status}")
    status, _, body = request(f"{url}/venues/{VENUES[0][0]}")
    need(status == 200 and b"The Container Arms" in body, f"the venue's page: {status}")
    status, _, body = request(f"{url}/farmer")
    need(status == 200 and b'name="password"' in body, f"/farmer: {status}, no sign-in form")
    status, _, body = request(f"{url}/metrics")
    text = body.decode()
    stored = sum(float(v) for v in re.findall(r"^hearclear_checkins_stored_total(?:\{[^}]*\})? (\S+)$", text, re.M))
    need(status == 200 and stored >= args.min_checkins, f"/metrics: {status}, {stored} check-ins stored")
    names = sorted(set(re.findall(r"^# TYPE ([a-z_]+)", text, re.M)))
    print(f"pages: / (the search finds the venue), a venue's page, /farmer's form; /metrics: {stored:.0f} check-ins "
          f"stored, {len(names)} metrics: {' '.join(names)}")


def sign_in(url, user, password):
    """The dashboard's status after signing in through the form, as a browser does."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    status, _, body = request(f"{url}/farmer", opener=opener)
    need(status == 200, f"/farmer: {status}")
    csrf = re.search(rb'name="csrf" value="([^"]+)"', body)
    need(csrf is not None, "no csrf field in the sign-in form")
    form = urllib.parse.urlencode(
        {"csrf": csrf.group(1).decode(), "next": "", "username": user, "password": password}
    ).encode()
    status, _, body = request(
        f"{url}/farmer/login",
        "POST",
        form,
        {"Content-Type": "application/x-www-form-urlencoded"},
        opener=opener,
    )
    return status, body


def admin(args):
    status, body = sign_in(args.url, args.user, args.password)
    if args.expect_refused:
        need(status == 401, f"a wrong password was not refused: {status}")
        print("admin: the old password is refused (401)")
        return
    need(status == 200 and b"/farmer/logout" in body, f"sign-in failed: {status} {body[:200]!r}")
    print("admin: signed in at /farmer with the password, dashboard 200")


def burst(args):
    """Posts check-ins from one phone after another until the server has refused for 3 s."""
    url = args.url
    outcomes = []
    last_answer = time.monotonic()
    refused_since = None
    n = 0
    while True:
        phone = f"b0057000-0000-4000-8000-{n:012d}"
        body = checkin(VENUES[n % 2], phone, -45.0 + n % 10, minutes_ago=1, seconds=30)
        try:
            status, _, _ = request(f"{url}/api/v2/checkins", "POST", body, timeout=15)
            outcome = status
        except Exception as error:  # refused, reset, timed out: not acknowledged
            outcome = type(getattr(error, "reason", error)).__name__
        outcomes.append({"id": body["id"], "outcome": outcome, "at": time.time()})
        n += 1
        if outcome in (200, 201):
            last_answer = time.monotonic()
            refused_since = None
            time.sleep(0.02)  # under the per-address limit (600/h) for the whole stop
        else:
            refused_since = refused_since or time.monotonic()
            if time.monotonic() - refused_since > 3:
                break
            time.sleep(0.05)
        if time.monotonic() - last_answer > 60:
            break
        if args.max and n >= args.max:
            break
    with open(args.state, "w") as out:
        json.dump(outcomes, out)
    acked = sum(o["outcome"] in (200, 201) for o in outcomes)
    kinds = sorted({str(o["outcome"]) for o in outcomes})
    print(f"burst: {len(outcomes)} posted, {acked} acknowledged, outcomes {kinds}")


def acked(args):
    with open(args.state) as f:
        outcomes = json.load(f)
    ids = [o["id"] for o in outcomes if o["outcome"] in (200, 201)]
    lost = []
    for checkin_id in ids:
        status, _, _ = request(f"{args.url}/api/v2/checkins/{checkin_id}")
        if status != 200:
            lost.append((checkin_id, status))
    need(not lost, f"{len(lost)} acknowledged check-ins lost: {lost[:5]}")
    others = [o for o in outcomes if o["outcome"] not in (200, 201)]
    stored_anyway = 0
    for o in others:
        status, _, _ = request(f"{args.url}/api/v2/checkins/{o['id']}")
        stored_anyway += status == 200
    print(
        f"acked: all {len(ids)} acknowledged check-ins stored; of {len(others)} not acknowledged, "
        f"{stored_anyway} stored anyway (a phone's resend would get 200)"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["seed", "verify", "snapshot", "pages", "admin", "burst", "acked"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--state")
    parser.add_argument("--from", dest="source")
    parser.add_argument("--burst")
    parser.add_argument("--user", default="admin")
    parser.add_argument("--password")
    parser.add_argument("--expect-refused", action="store_true")
    parser.add_argument("--min-checkins", type=float, default=1)
    parser.add_argument("--max", type=int, default=0)
    args = parser.parse_args()
    globals()[args.command](args)


if __name__ == "__main__":
    main()
