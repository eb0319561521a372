-- Calibrated phones (docs/ARCHITECTURE.md, "Crowd calibration" and "Reference calibration"):
-- model offsets learned from co-located check-ins, anchored by reference calibrations (a
-- calibrator tone, a sound level meter), overridden by admins; the offsets in force are applied
-- at judgement (`device_model_offsets` per model, `device_offsets` per device on top).

-- One crowd fit: when, over how much, how well.
CREATE TABLE calibration_fits (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    fitted_at    timestamptz NOT NULL DEFAULT now(),
    cells        integer NOT NULL CHECK (cells >= 0),
    observations integer NOT NULL CHECK (observations >= 0),
    iterations   integer NOT NULL CHECK (iterations >= 0),
    scale_db     real,
    -- Models and devices whose offset in force changed with this fit, and the venues queued.
    changed_models  integer NOT NULL DEFAULT 0,
    changed_devices integer NOT NULL DEFAULT 0,
    queued_venues   integer NOT NULL DEFAULT 0
);

-- Each fit's estimate per model, kept for the admin and for history.
CREATE TABLE calibration_fit_models (
    fit_id            bigint NOT NULL REFERENCES calibration_fits (id) ON DELETE CASCADE,
    model             text NOT NULL,
    offset_db         real NOT NULL,
    standard_error_db real,
    checkins          integer NOT NULL,
    devices           integer NOT NULL,
    component         text NOT NULL,
    anchored          boolean NOT NULL,
    status            text NOT NULL CHECK (status IN ('fitted', 'insufficient_evidence')),
    PRIMARY KEY (fit_id, model)
);

-- A reference calibration of a model: `absolute_offset_db` turns its dBFS into dB SPL
-- (`reference level − measured dBFS`). The model offset it implies is that less the server's
-- reference offset. Withdrawn ones are kept for the record.
CREATE TABLE reference_calibrations (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    model              text NOT NULL CHECK (length(model) BETWEEN 1 AND 64),
    method             text NOT NULL CHECK (method IN ('tone', 'meter')),
    absolute_offset_db real NOT NULL CHECK (absolute_offset_db BETWEEN 0 AND 250),
    detail             jsonb NOT NULL DEFAULT '{}',
    created_at         timestamptz NOT NULL DEFAULT now(),
    created_by         text NOT NULL,
    withdrawn_at       timestamptz
);
CREATE INDEX reference_calibrations_model_idx ON reference_calibrations (model) WHERE withdrawn_at IS NULL;

-- An admin's offset for a model, in force over anything else until undone.
CREATE TABLE model_offset_overrides (
    model     text PRIMARY KEY CHECK (length(model) BETWEEN 1 AND 64),
    offset_db real NOT NULL CHECK (offset_db BETWEEN -60 AND 60),
    note      text,
    set_by    text NOT NULL,
    set_at    timestamptz NOT NULL DEFAULT now()
);

-- Offsets edited by hand in SQL before this migration become overrides: what was in force stays.
INSERT INTO model_offset_overrides (model, offset_db, note, set_by, set_at)
SELECT model, offset_db, coalesce(note, 'set in SQL before crowd calibration'), 'migration', updated_at
FROM device_model_offsets WHERE offset_db <> 0;

-- `device_model_offsets` is now the offset in force per model, written by the calibration and
-- nothing else: where it came from, and the fit it was decided with.
ALTER TABLE device_model_offsets
    ADD COLUMN source text NOT NULL DEFAULT 'override'
        CHECK (source IN ('crowd', 'reference', 'override')),
    ADD COLUMN fit_id bigint REFERENCES calibration_fits (id) ON DELETE SET NULL;

-- A device's own deviation from its model (shrunk toward it), from the fit in force.
CREATE TABLE device_offsets (
    device_id         bigint PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
    offset_db         real NOT NULL CHECK (offset_db BETWEEN -20 AND 20),
    standard_error_db real,
    checkins          integer NOT NULL,
    fit_id            bigint NOT NULL REFERENCES calibration_fits (id) ON DELETE CASCADE
);

-- The fit whose offsets are in force (NULL: none yet); each cell records the fit in force when
-- its level was computed.
CREATE TABLE calibration_state (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    fit_id    bigint REFERENCES calibration_fits (id) ON DELETE SET NULL
);
INSERT INTO calibration_state DEFAULT VALUES;
CREATE FUNCTION calibration_fit_in_force() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT fit_id FROM calibration_state
$$;
ALTER TABLE loudness_cells ADD COLUMN calibration_fit_id bigint;
