-- HearClear storage (DESIGN §5). Levels are stored in dBFS; calibration is applied on read.
-- Every table carries the venue key where it has one, so it can later be distributed by venue.

CREATE TABLE venues (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    external_id  text NOT NULL UNIQUE CHECK (external_id ~ '^[A-Za-z0-9._~:-]{1,128}$'),
    name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    latitude     double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
    longitude    double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
    timezone     text,
    address      text,
    category     text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX venues_name_idx ON venues (lower(name) text_pattern_ops);

CREATE TABLE devices (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    client_id      text NOT NULL UNIQUE CHECK (length(client_id) BETWEEN 1 AND 128),
    model          text,
    first_seen_at  timestamptz NOT NULL DEFAULT now(),
    last_seen_at   timestamptz NOT NULL DEFAULT now(),
    excluded       boolean NOT NULL DEFAULT false,
    excluded_at    timestamptz,
    excluded_note  text
);
CREATE INDEX devices_last_seen_idx ON devices (last_seen_at DESC);
CREATE INDEX devices_model_idx ON devices (model);

-- One row per check-in; its seconds live in parallel real[] arrays (about 9 bytes a sample,
-- against about 59 for a row per second). offsets_s are seconds after started_at.
-- utc_offsets_min holds each sample's own UTC offset, or a single element when all are equal.
CREATE TABLE checkins (
    id                  uuid PRIMARY KEY,
    venue_id            bigint NOT NULL REFERENCES venues (id),
    device_id           bigint NOT NULL REFERENCES devices (id),
    source              text NOT NULL CHECK (source IN ('v2', 'v1', 'meter')),
    received_at         timestamptz NOT NULL DEFAULT now(),
    started_at          timestamptz NOT NULL,
    ended_at            timestamptz NOT NULL,
    sample_count        integer NOT NULL CHECK (sample_count BETWEEN 1 AND 3600),
    offsets_s           integer[] NOT NULL,
    utc_offsets_min     smallint[] NOT NULL,
    average_dbfs        real[] NOT NULL,
    peak_dbfs           real[] NOT NULL,
    zone_guessed        boolean NOT NULL DEFAULT false,
    location_latitude   double precision,
    location_longitude  double precision,
    location_accuracy_m double precision,
    distance_m          double precision,
    -- What the server answered at receipt; kept so a resend gets the same answer.
    receipt_status      text NOT NULL CHECK (receipt_status IN ('pending', 'excluded')),
    receipt_reasons     text[] NOT NULL DEFAULT '{}',
    -- The current judgement (the aggregation worker rewrites these).
    status              text NOT NULL CHECK (status IN ('pending', 'included', 'outlier', 'excluded')),
    reasons             text[] NOT NULL DEFAULT '{}',
    level_dbfs          real,
    valid_seconds       integer,
    judged_at           timestamptz,
    CHECK (cardinality(offsets_s) = sample_count),
    CHECK (cardinality(average_dbfs) = sample_count),
    CHECK (cardinality(peak_dbfs) = sample_count)
);
CREATE INDEX checkins_venue_started_idx ON checkins (venue_id, started_at DESC);
CREATE INDEX checkins_device_started_idx ON checkins (device_id, started_at DESC);
CREATE INDEX checkins_received_idx ON checkins (received_at DESC);
CREATE INDEX checkins_status_idx ON checkins (status, received_at DESC) WHERE status <> 'included';

-- Venues whose cells need recomputing. Append-only: ingest never waits on a row a worker holds;
-- a worker deletes the entries it has seen once the venue is rewritten.
CREATE TABLE aggregation_queue (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    venue_id     bigint NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
    enqueued_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX aggregation_queue_venue_idx ON aggregation_queue (venue_id, id);
CREATE INDEX aggregation_queue_enqueued_idx ON aggregation_queue (enqueued_at);

-- Label bands in calibrated dB, ordered; the last has no upper bound. Admins may change them;
-- reads apply the current bands, so a change shows at once.
CREATE TABLE bands (
    position  smallint PRIMARY KEY CHECK (position >= 0),
    label     text NOT NULL UNIQUE CHECK (length(label) BETWEEN 1 AND 40),
    below_db  real
);
INSERT INTO bands (position, label, below_db) VALUES
    (0, 'quiet', 70), (1, 'moderate', 75), (2, 'loud', 80), (3, 'very loud', NULL);
