-- Aggregation (DESIGN §4, §5): what the aggregation worker derives from check-ins, rewritten per
-- venue in one transaction. Levels are stored as "model-corrected dBFS" (dBFS + the device
-- model's offset); readers add the configured reference offset to get calibrated dB and apply
-- the current bands, so a band or reference change needs no recomputation.

-- Per device model calibration, dB added to its dBFS. A model without a row has offset 0.
CREATE TABLE device_model_offsets (
    model       text PRIMARY KEY CHECK (length(model) BETWEEN 1 AND 64),
    offset_db   real NOT NULL DEFAULT 0 CHECK (offset_db BETWEEN -60 AND 60),
    note        text,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Statistics of one check-in within one venue-local hour (weekday 1 = Monday … 7 = Sunday).
-- A check-in across an hour boundary has one row per hour. `counted` is true when the piece
-- entered its cell's estimate (not excluded, ≥ 10 valid seconds, not an outlier).
-- `residual_db` is the piece's level minus the cell estimated without its device, over
-- `other_devices` other devices: the raw material of device bias.
CREATE TABLE checkin_hours (
    checkin_id     uuid NOT NULL REFERENCES checkins (id) ON DELETE CASCADE,
    venue_id       bigint NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
    device_id      bigint NOT NULL REFERENCES devices (id),
    weekday        smallint NOT NULL CHECK (weekday BETWEEN 1 AND 7),
    hour           smallint NOT NULL CHECK (hour BETWEEN 0 AND 23),
    leq_dbfs       real NOT NULL,
    l10_dbfs       real NOT NULL,
    l50_dbfs       real NOT NULL,
    l90_dbfs       real NOT NULL,
    max_peak_dbfs  real NOT NULL,
    valid_seconds  integer NOT NULL CHECK (valid_seconds >= 0),
    model_offset_db real NOT NULL DEFAULT 0,
    counted        boolean NOT NULL,
    outlier        boolean NOT NULL DEFAULT false,
    modified_z     real,
    residual_db    real,
    other_devices  integer NOT NULL DEFAULT 0,
    PRIMARY KEY (checkin_id, weekday, hour)
);
CREATE INDEX checkin_hours_venue_cell_idx ON checkin_hours (venue_id, weekday, hour);
CREATE INDEX checkin_hours_device_idx ON checkin_hours (device_id);

-- The estimate of one cell: venue × venue-local weekday × hour (only cells with data).
CREATE TABLE loudness_cells (
    venue_id         bigint NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
    weekday          smallint NOT NULL CHECK (weekday BETWEEN 1 AND 7),
    hour             smallint NOT NULL CHECK (hour BETWEEN 0 AND 23),
    level_dbfs       real NOT NULL,
    range_low_dbfs   real NOT NULL,
    range_high_dbfs  real NOT NULL,
    scale_db         real NOT NULL,
    checkins         integer NOT NULL CHECK (checkins >= 1),
    devices          integer NOT NULL CHECK (devices >= 1),
    confidence       text NOT NULL CHECK (confidence IN ('low', 'medium', 'high')),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (venue_id, weekday, hour)
);

-- `hearclear devices list --excluded` and the admin's excluded devices.
CREATE INDEX devices_excluded_idx ON devices (excluded_at DESC) WHERE excluded;
