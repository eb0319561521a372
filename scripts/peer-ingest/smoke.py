#!/usr/bin/env python3
"""Checks that a server answers check-ins as HearClear does, before scripts/bench-peer.sh loads it:
a new gzip'd check-in is 201 with `Location` and its receipt, the same again 200 with the same
receipt, the same id with other levels 409, 9 samples 422 at `/samples`, a body that is not gzip
400, a check-in of an unknown device at a known venue 201. Run against HearClear and the peer alike.

    smoke.py BASE_URL
"""

import datetime as dt
import gzip
import json
import sys
import time
import urllib.error
import urllib.request
import uuid


def checkin(samples=60, level=-38.4, id=None, device="smoke-device-1"):
    start = int(time.time()) - samples - 120
    zone = dt.timezone(dt.timedelta(hours=11))
    return {
        "id": id or str(uuid.uuid4()),
        "venue": {"id": "smoke-venue", "name": "Smoke venue", "latitude": -33.87, "longitude": 151.21,
                  "timezone": "Australia/Sydney"},
        "device": {"id": device, "model": "iPhone15,2"},
        "unit": "dbfs",
        "samples": [{"t": dt.datetime.fromtimestamp(start + i, zone).isoformat(), "average": level,
                     "peak": level + 9} for i in range(samples)],
    }


def post(base, body, raw=None):
    data = raw if raw is not None else gzip.compress(json.dumps(body).encode())
    request = urllib.request.Request(base + "/api/v2/checkins", data=data, method="POST", headers={
        "Content-Type": "application/json", "Content-Encoding": "gzip"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read() or b"{}")


def main():
    base = sys.argv[1].rstrip("/")
    failures = []

    def expect(what, status, wanted):
        if status != wanted:
            failures.append(f"{what}: {status}, not {wanted}")

    first = checkin()
    status, headers, receipt = post(base, first)
    expect("a new check-in", status, 201)
    if headers.get("Location") != f"/api/v2/checkins/{first['id']}":
        failures.append(f"a new check-in: Location {headers.get('Location')}")
    if receipt.get("id") != first["id"] or receipt.get("sampleCount") != 60 or receipt.get("status") != "pending":
        failures.append(f"a new check-in: receipt {receipt}")
    status, _, again = post(base, first)
    expect("the same check-in again", status, 200)
    if again != receipt:
        failures.append(f"the same check-in again: {again}, not {receipt}")
    other = checkin(id=first["id"], level=-20.0)
    other["samples"] = [dict(s, t=t["t"]) for s, t in zip(other["samples"], first["samples"])]
    status, _, _ = post(base, other)
    expect("the same id with other levels", status, 409)
    status, _, problem = post(base, checkin(samples=9))
    expect("9 samples", status, 422)
    if [e.get("pointer") for e in problem.get("errors", [])] != ["/samples"]:
        failures.append(f"9 samples: {problem}")
    status, _, _ = post(base, None, raw=b"not gzip at all")
    expect("a body that is not gzip", status, 400)
    status, _, _ = post(base, checkin(device="smoke-device-2"))
    expect("another device at the same venue", status, 201)

    for failure in failures:
        print("smoke:", failure, file=sys.stderr)
    if not failures:
        print(f"smoke {base}: 201, 200, 409, 422, 400 and 201 as expected")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
