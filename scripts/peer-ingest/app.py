"""A FastAPI + asyncpg peer of HearClear's ingest, for scripts/bench-peer.sh (docs/ARCHITECTURE.md,
"Ingest and its ceiling": "Beside a FastAPI + asyncpg peer").

It takes the v2 check-ins that `hearclear-bench loadtest ingest` posts (`POST /api/v2/checkins`,
gzip'd JSON of 10-3600 samples, docs/API.md) and stores them as HearClear would on receipt, into
tables of HearClear's shape in a schema of its own (`peer`, made at start-up from the server's
tables with `LIKE … INCLUDING ALL`, plus the foreign keys `LIKE` leaves out and a unique id):

* the body: at most 1 MiB on the wire, gunzip/inflate to at most 8 MiB, `application/json`;
* parsed and checked by Pydantic (Rust) and then in Python: `id` a UUID, venue id and name,
  coordinates and IANA time zone, device id and model, `unit`, 10-3600 samples, each `t` RFC 3339
  with an offset, at most 15 minutes ahead and 14 days old, strictly later than the previous one in
  another whole second, at most 24 h after the first; `average` and `peak` finite and in range;
  LCeq, bands and the phone's classes are refused (422), not stored;
* the device id keyed with HMAC-SHA-256 (never stored as sent), the levels rounded to 0.1 dB and
  packed into `samples` (bytea: version 1, flags, int32 offsets only when the seconds are not
  consecutive, int16 averages and peaks in tenths: 1,202 bytes for 300 samples; HearClear packs
  second-to-second differences, about 540), the phone's distance from the venue;
* the venue and device found or created, cached in the process (venues 30 s, devices 60 s, as
  HearClear's `IngestCache`); with both cached, one statement is the whole transaction: the row
  (`ON CONFLICT (id) DO NOTHING`), unless the device was at another venue meanwhile (then
  `excluded`, `elsewhere_meanwhile`), and the venue's count raised; otherwise the venue and the
  device are found or made first in the same transaction;
* 201 with the receipt and `Location`; the same id again is 200 with the first receipt when the
  content is the same, else 409.

What it does not do that HearClear does: queue the venue and notify a worker, and then judge the
check-in (clean, calibrate, aggregate); rate limits; gzip answers; v1. Nor does it group
concurrent check-ins into one statement.

Settings (environment): PEER_PGHOST (a socket directory or host), PEER_PGPORT, PEER_PGUSER,
PEER_PGDATABASE, PEER_POOL (connections a worker, default 20, HearClear's default pool),
PEER_DEVICE_KEY (at least 32 characters; default a fixed bench key).

    uvicorn --app-dir scripts/peer-ingest app:app --port 18096 --workers 1 --loop uvloop --http httptools
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
import hmac
import json
import math
import os
import time
import uuid
import zlib
from array import array
from typing import Annotated, Literal, Optional

import asyncpg
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from typing_extensions import Required, TypedDict
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

WIRE_LIMIT = 1 << 20
DECODED_LIMIT = 8 << 20
MAX_DISTANCE_METRES = 250.0
VENUE_TTL = 30.0
DEVICE_TTL = 60.0
CACHE_SIZE = 50_000
ELSEWHERE = "elsewhere_meanwhile"
TOO_FAR = "too_far_from_venue"

DEVICE_KEY = os.environ.get("PEER_DEVICE_KEY", "peer-bench-device-key-0123456789abcdef").encode()
if len(DEVICE_KEY) < 32:
    raise SystemExit("PEER_DEVICE_KEY must be at least 32 characters")

# --- The schema: HearClear's tables, copied in shape into `peer` ---------------------------------

SCHEMA = """
CREATE SCHEMA IF NOT EXISTS peer;
CREATE TABLE IF NOT EXISTS peer.venues (LIKE public.venues INCLUDING ALL);
CREATE TABLE IF NOT EXISTS peer.devices (LIKE public.devices INCLUDING ALL);
CREATE TABLE IF NOT EXISTS peer.venue_counts (LIKE public.venue_counts INCLUDING ALL);
CREATE TABLE IF NOT EXISTS peer.checkins (LIKE public.checkins INCLUDING ALL);
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'peer_checkins_id_key') THEN
        -- HearClear registers ids in checkin_ids (one index); the peer's table has no months.
        ALTER TABLE peer.checkins ADD CONSTRAINT peer_checkins_id_key UNIQUE (id);
        ALTER TABLE peer.checkins ADD CONSTRAINT peer_checkins_venue_fkey
            FOREIGN KEY (venue_id) REFERENCES peer.venues (id);
        ALTER TABLE peer.checkins ADD CONSTRAINT peer_checkins_device_fkey
            FOREIGN KEY (device_id) REFERENCES peer.devices (id);
        ALTER TABLE peer.venue_counts ADD CONSTRAINT peer_venue_counts_venue_fkey
            FOREIGN KEY (venue_id) REFERENCES peer.venues (id);
    END IF;
END $$;
"""

# One statement: the check-in (with the overlap rule HearClear's statement applies) and its venue's
# count, in its own transaction or the caller's.
INSERT = f"""
WITH given AS (
    SELECT $1::uuid AS id, $2::bigint AS venue_id, $3::bigint AS device_id,
           $4::timestamptz AS started_at, $5::timestamptz AS ended_at, $6::integer AS sample_count,
           $7::bytea AS samples, $8::smallint AS utc_offset_min, $9::smallint[] AS utc_offsets_min,
           $10::double precision AS accuracy, $11::double precision AS distance, $12::text AS status,
           $13::text[] AS reasons),
judged AS (
    SELECT r.*, EXISTS (
        SELECT 1 FROM peer.checkins o
        WHERE o.device_id = r.device_id AND o.venue_id <> r.venue_id
          AND o.started_at < r.ended_at AND o.started_at > r.started_at - interval '1 day'
          AND o.ended_at > r.started_at
          AND NOT COALESCE('{ELSEWHERE}' = ANY(o.receipt_reasons), false)) AS elsewhere
    FROM given r),
inserted AS (
    INSERT INTO peer.checkins (
        id, venue_id, device_id, source, started_at, ended_at, sample_count, samples, utc_offset_min,
        utc_offsets_min, zone_guessed, location_accuracy_m, distance_m, receipt_status, receipt_reasons,
        status, reasons)
    SELECT id, venue_id, device_id, 'v2', started_at, ended_at, sample_count, samples, utc_offset_min,
           utc_offsets_min, false, accuracy, distance,
           CASE WHEN elsewhere THEN 'excluded' ELSE status END,
           CASE WHEN elsewhere THEN COALESCE(reasons, '{{}}') || '{ELSEWHERE}'::text ELSE reasons END,
           CASE WHEN elsewhere THEN 'excluded' ELSE status END,
           CASE WHEN elsewhere THEN COALESCE(reasons, '{{}}') || '{ELSEWHERE}'::text ELSE reasons END
    FROM judged
    ON CONFLICT (id) DO NOTHING
    RETURNING venue_id, received_at, receipt_status, COALESCE(receipt_reasons, '{{}}') AS receipt_reasons),
counted AS (
    INSERT INTO peer.venue_counts (venue_id, checkins) SELECT venue_id, 1 FROM inserted
    ON CONFLICT (venue_id) DO UPDATE SET checkins = peer.venue_counts.checkins + 1)
SELECT received_at, receipt_status, receipt_reasons FROM inserted
"""

STORED = """
SELECT c.venue_id, c.device_id, c.samples, c.utc_offset_min, c.utc_offsets_min, c.distance_m,
       c.location_accuracy_m, c.received_at, c.receipt_status, COALESCE(c.receipt_reasons, '{}'),
       c.sample_count, v.external_id
FROM peer.checkins c JOIN peer.venues v ON v.id = c.venue_id WHERE c.id = $1
"""

FIND_VENUE = "SELECT id, latitude, longitude FROM peer.venues WHERE external_id = $1"
CREATE_VENUE = """
INSERT INTO peer.venues (external_id, name, latitude, longitude, timezone, address, category)
VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (external_id) DO NOTHING
RETURNING id, latitude, longitude
"""
UPSERT_DEVICE = """
INSERT INTO peer.devices (client_id, model) VALUES ($1, $2)
ON CONFLICT (client_id) DO UPDATE SET last_seen_at = now(), model = COALESCE(EXCLUDED.model, peer.devices.model)
RETURNING id
"""


# --- The body --------------------------------------------------------------------------------


class Strict(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False, extra="ignore", strict=True)


class VenueIn(Strict):
    id: Annotated[str, Field(pattern=r"^[A-Za-z0-9._~:-]{1,128}$")]
    name: Optional[str] = None
    latitude: Optional[Annotated[float, Field(ge=-90, le=90)]] = None
    longitude: Optional[Annotated[float, Field(ge=-180, le=180)]] = None
    timezone: Optional[str] = None
    address: Optional[Annotated[str, Field(max_length=500)]] = None
    category: Optional[Annotated[str, Field(max_length=100)]] = None

    @field_validator("name")
    @classmethod
    def trimmed_name(cls, value: Optional[str]) -> Optional[str]:
        if value is None:
            return None
        value = value.strip()
        if not 1 <= len(value) <= 200:
            raise ValueError("must be 1 to 200 characters")
        return value

    @field_validator("timezone")
    @classmethod
    def known_zone(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not known_time_zone(value):
            raise ValueError("must be an IANA time zone")
        return value


class DeviceIn(Strict):
    id: Annotated[str, Field(min_length=1, max_length=128)]
    model: Optional[Annotated[str, Field(max_length=64)]] = None


class LocationIn(Strict):
    latitude: Annotated[float, Field(ge=-90, le=90)]
    longitude: Annotated[float, Field(ge=-180, le=180)]
    accuracy: Optional[Annotated[float, Field(ge=0, le=1_000_000)]] = None


class SampleIn(TypedDict, total=False):
    """A TypedDict, not a model: 300 of them a check-in, each a dict rather than an object (a
    third of the parsing time)."""

    __pydantic_config__ = ConfigDict(allow_inf_nan=False, strict=True)
    t: Required[dt.datetime]
    average: Required[float]
    peak: Required[float]
    lceq: Optional[float]
    bands: Optional[dict]


class CheckinIn(Strict):
    id: uuid.UUID
    venue: VenueIn
    device: DeviceIn
    location: Optional[LocationIn] = None
    unit: Literal["dbfs", "amplitude"] = "dbfs"
    samples: list[SampleIn]
    classes: Optional[dict] = None


@functools.lru_cache(maxsize=1024)
def known_time_zone(name: str) -> bool:
    import zoneinfo

    try:
        zoneinfo.ZoneInfo(name)
        return True
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False


def problem(status: int, kind: str, title: str, detail: str, errors: list[dict] | None = None) -> Response:
    body = {"type": f"https://hearclear.app/problems/{kind}", "title": title, "status": status, "detail": detail,
            "instance": "/api/v2/checkins"}
    if errors:
        body["errors"] = errors
    return Response(json.dumps(body), status_code=status, media_type="application/problem+json")


def invalid(errors: list[dict]) -> Response:
    n = len(errors)
    return problem(422, "validation", "The request is not valid", f"{n} field{'s are' if n != 1 else ' is'} not valid",
                   errors)


def pointer(location: tuple) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in location)


def level(value: float, amplitude: bool) -> float:
    if not amplitude:
        return value
    return 20 * math.log10(value) if value > 0 else -160.0


def haversine_metres(a_lat: float, a_lon: float, b_lat: float, b_lon: float) -> float:
    p1, p2 = math.radians(a_lat), math.radians(b_lat)
    dp, dl = p2 - p1, math.radians(b_lon - a_lon)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6_371_008.8 * math.asin(min(1.0, math.sqrt(h)))


class Submission:
    """A valid check-in, as stored: everything but its venue's and device's keys."""

    __slots__ = ("id", "venue", "device_key", "model", "location", "started_at", "ended_at", "count", "samples",
                 "utc_offset", "utc_offsets")


def validated(checkin: CheckinIn) -> Submission | list[dict]:
    errors: list[dict] = []
    samples = checkin.samples
    count = len(samples)
    if not 10 <= count <= 3600:
        return [{"pointer": "/samples", "detail": f"must hold from 10 to 3600 samples (one a second), not {count}"}]
    amplitude = checkin.unit == "amplitude"
    low, high = (0.0, 10.0) if amplitude else (-200.0, 20.0)
    now = time.time()
    earliest, latest = now - 14 * 86400, now + 15 * 60
    offsets = array("i", bytes(4 * count))
    averages = array("h", bytes(2 * count))
    peaks = array("h", bytes(2 * count))
    zone_minutes = []
    first = samples[0]["t"].timestamp()
    previous = first - 1
    previous_offset = -1
    floor = math.floor
    for index, sample in enumerate(samples):
        t = sample["t"]
        tz = t.utcoffset()
        if tz is None:
            errors.append({"pointer": f"/samples/{index}/t", "detail": "must be RFC 3339 with an offset or Z"})
            break
        seconds = t.timestamp()
        if not earliest <= seconds <= latest:
            errors.append({"pointer": f"/samples/{index}/t",
                           "detail": "must be at most 15 minutes in the future and at most 14 days old"})
            break
        offset = floor(seconds - first)
        if seconds <= previous or offset <= previous_offset:
            errors.append({"pointer": f"/samples/{index}/t",
                           "detail": "must be later than the previous sample, in another whole second"})
            break
        if offset > 86400:
            errors.append({"pointer": f"/samples/{index}/t", "detail": "must be at most 24 hours after the first"})
            break
        if "lceq" in sample or "bands" in sample:
            errors.append({"pointer": f"/samples/{index}", "detail": "LCeq and bands are not taken by the peer"})
            break
        average = sample["average"]
        peak = sample["peak"]
        if not (low <= average <= high):
            errors.append({"pointer": f"/samples/{index}/average", "detail": f"must be a number from {low} to {high}"})
        if not (low <= peak <= high):
            errors.append({"pointer": f"/samples/{index}/peak", "detail": f"must be a number from {low} to {high}"})
        if errors:
            break
        if amplitude:
            average, peak = level(average, True), level(peak, True)
        previous = seconds
        previous_offset = offsets[index] = offset
        # 0.1 dB, half away from zero (HearClear's validator)
        averages[index] = int(average * 10 - 0.5) if average < 0 else int(average * 10 + 0.5)
        peaks[index] = int(peak * 10 - 0.5) if peak < 0 else int(peak * 10 + 0.5)
        zone_minutes.append(tz.seconds // 60 + tz.days * 1440)
    if checkin.classes is not None:
        errors.append({"pointer": "/classes", "detail": "the phone's classes are not taken by the peer"})
    if errors:
        return errors
    s = Submission()
    s.id = checkin.id
    s.venue = checkin.venue
    s.device_key = hmac.new(DEVICE_KEY, checkin.device.id.encode(), hashlib.sha256).hexdigest()
    s.model = checkin.device.model
    s.location = checkin.location
    s.started_at = samples[0]["t"]
    s.ended_at = samples[0]["t"] + dt.timedelta(seconds=offsets[-1])
    s.count = count
    # Offsets only when the seconds are not one after another (flag 0x10): 1,202 bytes for 300
    # samples, under PostgreSQL's TOAST threshold (about 2 kB) as HearClear's rows are.
    if offsets[-1] == count - 1:
        s.samples = b"\x01\x00" + averages.tobytes() + peaks.tobytes()
    else:
        s.samples = b"\x01\x10" + offsets.tobytes() + averages.tobytes() + peaks.tobytes()
    if all(m == zone_minutes[0] for m in zone_minutes):
        s.utc_offset, s.utc_offsets = zone_minutes[0], None
    else:
        s.utc_offset, s.utc_offsets = None, zone_minutes
    return s


# --- The venue and device caches (HearClear's IngestCache: venues 30 s, devices 60 s) -------------


class TTLCache:
    def __init__(self, ttl: float):
        self.ttl = ttl
        self.entries: dict = {}

    def get(self, key):
        entry = self.entries.get(key)
        if entry is None:
            return None
        if entry[0] < time.monotonic():
            del self.entries[key]
            return None
        return entry[1]

    def put(self, key, value):
        if len(self.entries) >= CACHE_SIZE:
            self.entries.clear()
        self.entries[key] = (time.monotonic() + self.ttl, value)


venues = TTLCache(VENUE_TTL)
devices = TTLCache(DEVICE_TTL)


# --- The app ---------------------------------------------------------------------------------


async def connection_setup(connection: asyncpg.Connection) -> None:
    await connection.set_type_codec("uuid", encoder=str, decoder=str, schema="pg_catalog", format="text")


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI):
    pool_size = int(os.environ.get("PEER_POOL", "20"))
    pool = await asyncpg.create_pool(
        host=os.environ.get("PEER_PGHOST"), port=int(os.environ.get("PEER_PGPORT", "5432")),
        user=os.environ.get("PEER_PGUSER", "hearclear"), database=os.environ.get("PEER_PGDATABASE", "postgres"),
        min_size=pool_size, max_size=pool_size)
    async with pool.acquire() as connection:
        async with connection.transaction():
            # Workers start together: one makes the schema, the others wait for it.
            await connection.execute("SELECT pg_advisory_xact_lock(4242)")
            await connection.execute(SCHEMA)
    app.state.pool = pool
    yield
    await pool.close()


app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)


@app.get("/health")
async def health() -> dict:
    return {"status": "ok"}


@app.post("/api/v2/checkins")
async def post_checkin(request: Request) -> Response:
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if not (media == "application/json" or media.endswith("+json")):
        return problem(415, "unsupported-media-type", "Unsupported media type", "send application/json")
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > WIRE_LIMIT:
        return problem(413, "too-large", "The body is too large", "at most 1 MiB on the wire")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > WIRE_LIMIT:
            return problem(413, "too-large", "The body is too large", "at most 1 MiB on the wire")
    encoding = request.headers.get("content-encoding")
    if encoding is not None:
        encoding = encoding.strip().lower()
        if encoding in ("gzip", "x-gzip", "deflate"):
            # gzip, or zlib-wrapped or raw deflate
            wbits = 31 if encoding != "deflate" else (15 if body[:1] == b"\x78" else -15)
            inflater = zlib.decompressobj(wbits)
            try:
                body = inflater.decompress(body, DECODED_LIMIT + 1)
            except zlib.error:
                return problem(400, "bad-encoding", "The body is not valid " + encoding, "could not undo it")
            if len(body) > DECODED_LIMIT or inflater.unconsumed_tail:
                return problem(413, "too-large", "The body is too large", "at most 8 MiB decoded")
        else:
            return problem(415, "unsupported-media-type", "Unsupported content encoding", "gzip or deflate")
    try:
        checkin = CheckinIn.model_validate_json(body)
    except ValidationError as error:
        return invalid([{"pointer": pointer(e["loc"]), "detail": e["msg"]} for e in error.errors()])
    submission = validated(checkin)
    if isinstance(submission, list):
        return invalid(submission)
    return await store(request.app.state.pool, submission)


def receipt(id: str, venue: str, status: str, reasons: list, count: int, received: dt.datetime,
            code: int) -> Response:
    body = {"id": id, "venue": venue, "status": status, "reasons": list(reasons), "sampleCount": count,
            "receivedAt": received.isoformat().replace("+00:00", "Z"),
            "links": {"self": f"/api/v2/checkins/{id}", "venue": f"/api/v2/venues/{venue}"}}
    headers = {"Location": f"/api/v2/checkins/{id}"} if code == 201 else None
    return JSONResponse(body, status_code=code, headers=headers)


def first_status(s: Submission, venue_row) -> tuple[str, list | None, float | None]:
    if s.location is None:
        return "pending", None, None
    metres = haversine_metres(s.location.latitude, s.location.longitude, venue_row[1], venue_row[2])
    if metres > MAX_DISTANCE_METRES:
        return "excluded", [TOO_FAR], metres
    return "pending", None, metres


async def store(pool: asyncpg.Pool, s: Submission) -> Response:
    external = s.venue.id
    checkin_id = str(s.id)
    venue_row = venues.get(external)
    device_id = devices.get((s.device_key, s.model))
    async with pool.acquire() as connection:
        if venue_row is not None and device_id is not None:
            status, reasons, distance = first_status(s, venue_row)
            row = await connection.fetchrow(
                INSERT, checkin_id, venue_row[0], device_id, s.started_at, s.ended_at, s.count, s.samples,
                s.utc_offset, s.utc_offsets, s.location and s.location.accuracy, distance, status, reasons)
        else:
            async with connection.transaction():
                venue_row = await connection.fetchrow(FIND_VENUE, external)
                if venue_row is None:
                    v = s.venue
                    if v.name is None or v.latitude is None or v.longitude is None:
                        detail = f"is required to create venue {external}, which is not known yet"
                        return invalid([{"pointer": f"/venue/{f}", "detail": detail}
                                        for f in ("name", "latitude", "longitude")])
                    venue_row = await connection.fetchrow(
                        CREATE_VENUE, external, v.name, v.latitude, v.longitude, v.timezone, v.address, v.category)
                    if venue_row is None:  # made meanwhile by another request
                        venue_row = await connection.fetchrow(FIND_VENUE, external)
                device_id = await connection.fetchval(UPSERT_DEVICE, s.device_key, s.model)
                status, reasons, distance = first_status(s, venue_row)
                row = await connection.fetchrow(
                    INSERT, checkin_id, venue_row[0], device_id, s.started_at, s.ended_at, s.count, s.samples,
                    s.utc_offset, s.utc_offsets, s.location and s.location.accuracy, distance, status, reasons)
            # Remembered only after COMMIT, as HearClear's cache.
            venues.put(external, tuple(venue_row))
            devices.put((s.device_key, s.model), device_id)
        if row is not None:
            return receipt(checkin_id, external, row[1], row[2], s.count, row[0], 201)
        stored = await connection.fetchrow(STORED, checkin_id)
    if stored is None:
        return problem(409, "conflict", "Conflict", f"check-in {checkin_id} is taken")
    _, _, distance = first_status(s, venue_row)
    same = (stored[0] == venue_row[0] and stored[1] == device_id and bytes(stored[2]) == s.samples
            and stored[3] == s.utc_offset and (stored[4] or None) == s.utc_offsets
            and (stored[5] is None) == (distance is None)
            and (distance is None or abs(stored[5] - distance) < 0.01)
            and stored[6] == (s.location and s.location.accuracy))
    if not same:
        return problem(409, "conflict", "Conflict", f"check-in {checkin_id} was sent before with other content")
    return receipt(checkin_id, stored[11], stored[8], stored[9], stored[10], stored[7], 200)
