-- Device ids are kept keyed: `devices.client_id` holds HMAC-SHA-256(device key, the id the phone
-- sent) in hex, never the id itself (docs/PRIVACY.md). The key is the server's, not the
-- database's, so the rows already here are converted by the server right after the migrations
-- (`DeviceKeying`), `keyed` telling which are done; a row written from now on is keyed when
-- written. A report's `device_sha256` is then the SHA-256 of the keyed id (converted with its
-- device; a report whose phone never checked in keeps the old hash, which no keyed id matches).
ALTER TABLE devices ADD COLUMN keyed boolean NOT NULL DEFAULT false;
ALTER TABLE devices ALTER COLUMN keyed SET DEFAULT true;
-- Every start looks for rows left to convert: through this, not a scan of every device.
CREATE INDEX devices_unkeyed_idx ON devices (id) WHERE NOT keyed;
