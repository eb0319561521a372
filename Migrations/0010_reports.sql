-- Reports of wrong data (issue 15, part 3; docs/ARCHITECTURE.md, "Reports"): a person at a venue
-- says it felt quieter or louder than the server showed, or about right. Each report keeps the
-- cell it is about (the venue-local weekday and hour of `at`, by the clock search uses) and what
-- the server showed for that cell when the report arrived, so an admin can compare it with the
-- level now. A report with nothing to compare (no cell there yet) is kept all the same.
CREATE TABLE venue_reports (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    venue_id         bigint NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
    -- SHA-256 of the device's id (as check-ins name it): enough to tell devices apart and to
    -- recognise a resend; the id itself is never stored here.
    device_sha256    bytea NOT NULL CHECK (length(device_sha256) = 32),
    -- The device's row when it has checked in before (for the admin's shortened id), else NULL.
    device_id        bigint REFERENCES devices (id) ON DELETE SET NULL,
    at               timestamptz NOT NULL,
    -- The venue-local cell `at` falls in: ISO weekday 1 = Monday … 7, hour 0…23.
    weekday          smallint NOT NULL CHECK (weekday BETWEEN 1 AND 7),
    hour             smallint NOT NULL CHECK (hour BETWEEN 0 AND 23),
    felt             text NOT NULL CHECK (felt IN ('quieter', 'louder', 'about right')),
    -- Characters as length() counts them (code points); shown only escaped.
    comment          text CHECK (length(comment) BETWEEN 1 AND 500),
    -- What the server showed for the cell when the report arrived: calibrated dB rounded to
    -- 0.1, its label and whether it was an estimate; all NULL when it showed nothing.
    shown_level_db   real,
    shown_label      text,
    shown_estimated  boolean,
    status           text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'dismissed')),
    created_at       timestamptz NOT NULL DEFAULT now(),
    -- When and by whom an admin resolved or dismissed it, with an optional note.
    resolved_at      timestamptz,
    resolved_by      text,
    resolution_note  text CHECK (length(resolution_note) <= 500),
    CHECK ((shown_level_db IS NULL) = (shown_label IS NULL) AND (shown_label IS NULL) = (shown_estimated IS NULL)),
    CHECK ((status = 'open') = (resolved_at IS NULL) AND (resolved_at IS NULL) = (resolved_by IS NULL)),
    -- One report per device, venue and instant: the same one sent again is a resend.
    UNIQUE (venue_id, device_sha256, at)
);

-- The admin's list, newest first, all of them or of one status.
CREATE INDEX venue_reports_created_idx ON venue_reports (created_at DESC, id DESC);
CREATE INDEX venue_reports_status_created_idx ON venue_reports (status, created_at DESC, id DESC);
-- A venue's open reports (its admin page).
CREATE INDEX venue_reports_open_venue_idx ON venue_reports (venue_id, created_at DESC, id DESC)
    WHERE status = 'open';
-- Cells with open disagreements (the dashboard's "for review").
CREATE INDEX venue_reports_open_cell_idx ON venue_reports (venue_id, weekday, hour)
    WHERE status = 'open' AND felt <> 'about right';
