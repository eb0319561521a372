-- Trust in a changing world (docs/ARCHITECTURE.md, "Venues that change", "Phones that drift",
-- "Devices that earn trust", "Campaigns"). Every statement here is metadata only or a new table:
-- no existing row is rewritten, and a server of before 0026 still running keeps working (it
-- ignores the new tables and columns; its calibration fit leaves the new offset columns as they
-- are, so run the new fit once all instances are upgraded).

-- The operating system of the phone that made a check-in (v2 `device.os`: "iOS 18.1"), so the
-- crowd calibration can fit an offset per model and OS version: an update may change how a
-- model's microphone reads. No CHECK: on the partitioned table it would read every month to
-- validate; the API checks the form (`device.os`, a 422 naming the field).
ALTER TABLE checkins ADD COLUMN device_os text;

-- A model's offset in force for one OS version, where the crowd had the data (else the model's
-- own, `device_model_offsets`, applies).
CREATE TABLE device_model_os_offsets (
    model     text NOT NULL,
    os        text NOT NULL,
    offset_db real NOT NULL CHECK (offset_db BETWEEN -60 AND 60),
    checkins  integer NOT NULL,
    fit_id    bigint REFERENCES calibration_fits (id) ON DELETE SET NULL,
    PRIMARY KEY (model, os)
);
ALTER TABLE calibration_fit_models ADD COLUMN os_offsets jsonb;

-- A step in a model's or a device's readings (an update the phone did not report; a case over
-- the microphone): `offset_db` applies to check-ins from `since`, `earlier_offset_db` to those
-- before. Without a step, `since` is -infinity.
ALTER TABLE device_model_offsets
    ADD COLUMN since timestamptz NOT NULL DEFAULT '-infinity',
    ADD COLUMN earlier_offset_db real NOT NULL DEFAULT 0 CHECK (earlier_offset_db BETWEEN -60 AND 60);
ALTER TABLE device_offsets
    ADD COLUMN since timestamptz NOT NULL DEFAULT '-infinity',
    ADD COLUMN earlier_offset_db real NOT NULL DEFAULT 0 CHECK (earlier_offset_db BETWEEN -20 AND 20),
    ADD COLUMN step_db real,
    ADD COLUMN step_detected_at timestamptz;

-- How far the crowd trusts a device: earned by agreeing with trusted devices where they met
-- (`DeviceTrust`). No row: never seen agreeing with anyone, the floor.
CREATE TABLE device_trust (
    device_id            bigint PRIMARY KEY REFERENCES devices (id) ON DELETE CASCADE,
    trust                real NOT NULL CHECK (trust > 0 AND trust <= 1),
    agreements           real NOT NULL CHECK (agreements >= 0),
    recent_disagreements integer NOT NULL CHECK (recent_disagreements >= 0),
    checkins             integer NOT NULL CHECK (checkins >= 0),
    -- Venues it checked in at (usable check-ins), at least 1.
    venues               integer NOT NULL CHECK (venues >= 1),
    fit_id               bigint REFERENCES calibration_fits (id) ON DELETE SET NULL,
    updated_at           timestamptz NOT NULL DEFAULT now()
);

-- A venue's lasting changes of level, as its judgement found them (`VenueChangeDetector`). An
-- admin may dismiss one; a change whose check-ins since show no shift is withdrawn. Rows only for
-- venues with a change: the per-venue state of the detector.
CREATE TABLE venue_changes (
    venue_id       bigint NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
    changed_at     timestamptz NOT NULL,
    detected_at    timestamptz NOT NULL,
    status         text NOT NULL CHECK (status IN ('in_force', 'dismissed', 'withdrawn')),
    shift_db       real NOT NULL,
    shifts_db      real[] NOT NULL CHECK (cardinality(shifts_db) = 24),
    checkins_since integer NOT NULL CHECK (checkins_since >= 0),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    dismissed_at   timestamptz,
    dismissed_by   text,
    PRIMARY KEY (venue_id, changed_at),
    CHECK ((status = 'dismissed') = (dismissed_at IS NOT NULL))
);
CREATE INDEX venue_changes_detected_idx ON venue_changes (detected_at DESC, venue_id);

-- Coordinated campaigns: new devices that only check in at one venue, far from its level
-- (`CampaignDetector`). One open campaign a venue, updated by each judgement; an admin excludes
-- its devices or dismisses it.
CREATE TABLE venue_campaigns (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    venue_id      bigint NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
    detected_at   timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    direction     text NOT NULL CHECK (direction IN ('quieter', 'louder')),
    devices       bigint[] NOT NULL,
    checkins      integer NOT NULL CHECK (checkins >= 0),
    deviation_db  real NOT NULL,
    moves_db      real NOT NULL,
    would_move_db real NOT NULL,
    status        text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'excluded', 'dismissed')),
    decided_at    timestamptz,
    decided_by    text
);
CREATE UNIQUE INDEX venue_campaigns_open_idx ON venue_campaigns (venue_id) WHERE status = 'open';
CREATE INDEX venue_campaigns_recent_idx ON venue_campaigns (updated_at DESC, id DESC);

-- Cells of a changed hour with no check-in since the change are estimates: `after_change`.
ALTER TABLE loudness_cells
    DROP CONSTRAINT loudness_cells_basis_check,
    ADD CONSTRAINT loudness_cells_basis_check CHECK (basis IN ('venue_pattern', 'category_nearby', 'after_change'));
