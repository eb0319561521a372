-- `checkins_by_month` (0020) takes the place of `checkins`.
--
-- Before this file the migration runner copied every check-in into it (`CheckinsByMonthCopy`,
-- this file's `MigrationPreparation`: one statement that reads the old table as it was, while
-- ingest and the worker go on writing). Here, with the old table locked against writes (reads go
-- on), the check-ins written, changed or deleted since 0020 (its trigger logged their ids) are
-- copied again, so the lock lasts as long as that handful takes, not the table. Then the old table
-- goes and the new one takes its name and its indexes' names. No ANALYZE: on a new database it
-- would record the new tables as empty, and the plans cached for the foreign-key checks would
-- read them whole until autovacuum's first analysis.
LOCK TABLE checkins IN SHARE ROW EXCLUSIVE MODE;

SELECT checkins_partition(min(started_at), 'checkins_by_month')
FROM checkins WHERE id IN (SELECT id FROM checkins_changed)
GROUP BY date_trunc('month', started_at AT TIME ZONE 'UTC');
DELETE FROM checkins_by_month WHERE id IN (SELECT id FROM checkins_changed);
INSERT INTO checkins_by_month SELECT * FROM checkins WHERE id IN (SELECT id FROM checkins_changed);
INSERT INTO checkin_ids (id) SELECT id FROM checkins WHERE id IN (SELECT id FROM checkins_changed)
ON CONFLICT DO NOTHING;
DELETE FROM checkin_ids i
WHERE i.id IN (SELECT id FROM checkins_changed) AND NOT EXISTS (SELECT 1 FROM checkins c WHERE c.id = i.id);

ALTER TABLE checkin_hours DROP CONSTRAINT checkin_hours_checkin_id_fkey;
ALTER TABLE checkin_overrides DROP CONSTRAINT checkin_overrides_checkin_id_fkey;
DROP TABLE checkins;
DROP TABLE checkins_changed;
DROP FUNCTION checkins_changed_log();

ALTER TABLE checkins_by_month RENAME TO checkins;
ALTER TABLE checkins RENAME CONSTRAINT checkins_by_month_pkey TO checkins_pkey;
ALTER INDEX checkins_by_month_device_started_idx RENAME TO checkins_device_started_idx;
ALTER INDEX checkins_by_month_received_idx RENAME TO checkins_received_idx;
ALTER INDEX checkins_by_month_venue_started_idx RENAME TO checkins_venue_started_idx;
ALTER INDEX checkins_by_month_venue_uncleaned_idx RENAME TO checkins_venue_uncleaned_idx;

-- Checked for the rows written from now on; 0022 validates the existing ones without blocking.
ALTER TABLE checkin_hours ADD CONSTRAINT checkin_hours_checkin_id_fkey
    FOREIGN KEY (checkin_id) REFERENCES checkin_ids (id) ON DELETE CASCADE NOT VALID;
ALTER TABLE checkin_overrides ADD CONSTRAINT checkin_overrides_checkin_id_fkey
    FOREIGN KEY (checkin_id) REFERENCES checkin_ids (id) ON DELETE CASCADE NOT VALID;
