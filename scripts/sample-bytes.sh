#!/usr/bin/env bash
# Bytes a stored sample (docs/ARCHITECTURE.md, "Sample storage"; `make sample-bytes`): a release
# build served on a scratch data directory with its embedded PostgreSQL is given either the
# simulated city (`hearclear-bench simulate`, seeds 1…ROUNDS into one database) or 300-sample
# check-ins (`loadtest ingest`, 4 clients, 10 s a round). After each round, once the worker has
# judged everything, `VACUUM`, then "as served": heap (`pg_table_size`) and with indexes
# (`pg_total_relation_size`) summed over the month partitions of `checkins`, and with
# `checkin_ids` besides, over `sum(sample_count)`. Then the share of HOT updates, each relation's
# part, and the same after `VACUUM FULL` ("compacted": live rows and fresh indexes).
#
#   scripts/sample-bytes.sh city|flat [ROUNDS]     (defaults city and 4)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-city}
rounds=${2:-4}
port=${SAMPLE_BYTES_PORT:-18096}
case "$mode" in city | flat) ;; *) echo "usage: scripts/sample-bytes.sh city|flat [ROUNDS]" >&2; exit 2 ;; esac
. scripts/scratch-server.sh
serve_release_scratch "sample bytes" "$port" --log-level warning

sizes() {
    q -c "
    WITH p AS (SELECT relid FROM pg_partition_tree('checkins') WHERE isleaf),
         s AS (SELECT sum(pg_table_size(relid)) AS heap, sum(pg_total_relation_size(relid)) AS total FROM p),
         n AS (SELECT count(*) AS checkins, sum(sample_count) AS samples FROM checkins)
    SELECT n.checkins || ' check-ins, ' || n.samples || ' samples: heap ' || round(s.heap / n.samples, 2)
           || ' B, with indexes ' || round(s.total / n.samples, 2) || ' B, with checkin_ids '
           || round((s.total + pg_total_relation_size('checkin_ids')) / n.samples, 2) || ' B a sample'
    FROM s, n"
}

# Each relation's bytes a sample, a month's partitions and their indexes summed under one name.
parts() {
    q -c "
    WITH n AS (SELECT sum(sample_count) AS samples FROM checkins),
         r AS (SELECT regexp_replace(c.relname, '_[0-9]{4}_[0-9]{2}', '') AS name, pg_relation_size(c.oid) AS bytes
               FROM pg_class c
               WHERE c.relkind IN ('r', 'i') AND (c.relname ~ '^checkins_[0-9]{4}_[0-9]{2}' OR c.relname ~ '^checkin_ids'))
    SELECT '  ' || name || ' ' || round(sum(bytes) / n.samples, 3) FROM r, n GROUP BY name, n.samples ORDER BY name"
}

for round in $(seq 1 "$rounds"); do
    if [ "$mode" = city ]; then
        run=(simulate --url "$base" --seed "$round" --truth "$data/truth-$round.json")
    else
        run=(loadtest ingest --url "$base" --clients 4 --duration 10 --probe-interval 0)
    fi
    (cd "$data" && "$bench" "${run[@]}" >"$data/round.txt" 2>&1) || {
        echo "sample-bytes: hearclear-bench ${run[*]} failed:" >&2
        cat "$data/round.txt" >&2
        exit 1
    }
    for _ in $(seq 1 300); do
        left=$(q -c "SELECT (SELECT count(*) FROM aggregation_queue) + (SELECT count(*) FROM checkins WHERE cleaned_at IS NULL)")
        [ "$left" = 0 ] && break
        sleep 1
    done
    [ "$left" = 0 ] || { echo "sample-bytes: the worker did not catch up in 5 minutes" >&2; exit 1; }
    q -c "VACUUM checkins" -c "VACUUM checkin_ids" >/dev/null
    echo "$mode, round $round, as served: $(sizes)"
done
q -c "
SELECT 'HOT updates: ' || round(100.0 * sum(n_tup_hot_upd) / nullif(sum(n_tup_upd), 0)) || ' % of ' || sum(n_tup_upd)
FROM pg_stat_user_tables WHERE relname ~ '^checkins_[0-9]{4}_[0-9]{2}$'"
parts
q -c "VACUUM FULL checkins" -c "VACUUM FULL checkin_ids" >/dev/null
echo "$mode, compacted: $(sizes)"
parts
