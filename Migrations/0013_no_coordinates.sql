-- A check-in keeps what its judgement uses, not what the phone sent (docs/PRIVACY.md): its
-- distance from the venue (`distance_m`, computed at intake) and the accuracy the phone gave
-- (`location_accuracy_m`), never the phone's coordinates, which with a device and a time make a
-- location trace. The values are cleared before the columns go, so that no live row version
-- holds them (PostgreSQL's DROP COLUMN alone leaves them in the rows until they are rewritten);
-- the old row versions go with the next VACUUM.
UPDATE checkins SET location_latitude = NULL, location_longitude = NULL
WHERE location_latitude IS NOT NULL OR location_longitude IS NOT NULL;
ALTER TABLE checkins DROP COLUMN location_latitude, DROP COLUMN location_longitude;
