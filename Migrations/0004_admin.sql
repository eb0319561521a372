-- The admin at /farmer (issue 4): sessions, login throttling, an audit log, venue activity for
-- "newest first" lists, and search indexes.

-- Server-side sessions: the cookie carries a random token, the table only its SHA-256, so a
-- leaked table or backup opens no session. Logout deletes the row; expired rows are purged at login.
CREATE TABLE admin_sessions (
    token_sha256  bytea PRIMARY KEY CHECK (length(token_sha256) = 32),
    username      text NOT NULL,
    csrf_token    text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL,
    remote_address text
);
CREATE INDEX admin_sessions_expires_idx ON admin_sessions (expires_at);

-- Failed-login backoff per key ('ip:<address>' and 'user:<name>'). Every attempt counts as a
-- failure up front (so parallel guesses cannot slip past the check) and a success deletes the row.
CREATE TABLE admin_login_throttle (
    key            text PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 200),
    failures       integer NOT NULL CHECK (failures >= 0),
    blocked_until  timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX admin_login_throttle_updated_idx ON admin_login_throttle (updated_at);

-- What admins did: logins, device and check-in decisions, band changes.
CREATE TABLE admin_audit_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    username    text NOT NULL,
    action      text NOT NULL,
    subject     text,
    detail      text
);
CREATE INDEX admin_audit_log_at_idx ON admin_audit_log (at DESC, id DESC);

-- An admin's decision about one check-in, applied by the aggregation worker at every re-judgement
-- until it is withdrawn (the row deleted). History stays in admin_audit_log.
CREATE TABLE checkin_overrides (
    checkin_id  uuid PRIMARY KEY REFERENCES checkins (id) ON DELETE CASCADE,
    venue_id    bigint NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
    decision    text NOT NULL CHECK (decision IN ('include', 'exclude')),
    username    text NOT NULL,
    note        text CHECK (length(note) <= 500),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checkin_overrides_venue_idx ON checkin_overrides (venue_id);

-- When each venue last saw activity (creation, then its newest check-in), kept by triggers so the
-- venue list is an index scan: "newest activity first" over 10,000 venues without touching the
-- million check-ins. A separate table, so the hot venues rows and their indexes do not churn.
CREATE TABLE venue_activity (
    venue_id         bigint PRIMARY KEY REFERENCES venues (id) ON DELETE CASCADE,
    activity_at      timestamptz NOT NULL,
    last_checkin_at  timestamptz
);
CREATE INDEX venue_activity_at_idx ON venue_activity (activity_at DESC, venue_id DESC);

INSERT INTO venue_activity (venue_id, activity_at, last_checkin_at)
SELECT v.id, greatest(v.created_at, c.last), c.last
FROM venues v LEFT JOIN (SELECT venue_id, max(received_at) AS last FROM checkins GROUP BY venue_id) c
    ON c.venue_id = v.id;

CREATE FUNCTION venue_activity_on_venue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO venue_activity (venue_id, activity_at) VALUES (NEW.id, NEW.created_at)
    ON CONFLICT (venue_id) DO NOTHING;
    RETURN NULL;
END
$$;
CREATE TRIGGER venue_activity_on_venue AFTER INSERT ON venues
    FOR EACH ROW EXECUTE FUNCTION venue_activity_on_venue();

-- Check-ins move a venue's activity through the aggregation worker (AggregationRepository), not a
-- trigger on checkins: ingest then never waits on a venue's one activity row, which would queue
-- concurrent check-ins of a busy venue behind each other's commits. The list is as fresh as the
-- grid, within about a second.

-- The devices list: most recently seen first with a stable order, and the excluded ones alone.
CREATE INDEX admin_devices_seen_idx ON devices (last_seen_at DESC, id DESC);
CREATE INDEX admin_devices_excluded_seen_idx ON devices (last_seen_at DESC, id DESC) WHERE excluded;

-- Venue search: a part of the name (trigram index) or the start of the external id.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX venues_name_trgm_idx ON venues USING gin (lower(name) gin_trgm_ops);
CREATE INDEX venues_external_id_pattern_idx ON venues (external_id text_pattern_ops);
