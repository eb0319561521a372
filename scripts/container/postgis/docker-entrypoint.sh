#!/usr/bin/env bash
# The upstream postgres image's first-start contract, shortened: as root, hand the data
# directory to postgres and run as postgres; on an empty data directory, initdb with
# POSTGRES_USER as superuser and POSTGRES_PASSWORD (scram-sha-256 over TCP), create POSTGRES_DB
# and PostGIS in it (as postgis/postgis's 10_postgis.sh), listening only on the socket
# meanwhile, so that pg_isready over TCP stays false until the real server is up.
set -euo pipefail
if [ "${1:-}" != postgres ]; then exec "$@"; fi
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chown postgres:postgres "$PGDATA" /var/run/postgresql
    chmod 0700 "$PGDATA"
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "Error: the database is uninitialized and POSTGRES_PASSWORD is not set" >&2
        exit 1
    fi
    initdb --username="$user" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
        --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA"
    printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
    printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
    if [ "$database" != postgres ]; then
        psql -v ON_ERROR_STOP=1 --username "$user" --dbname postgres \
            -c "CREATE DATABASE \"$database\""
    fi
    for db in "$database"; do
        psql -v ON_ERROR_STOP=1 --username "$user" --dbname "$db" -c 'CREATE EXTENSION IF NOT EXISTS postgis' \
            -c 'CREATE EXTENSION IF NOT EXISTS postgis_topology' -c 'CREATE EXTENSION IF NOT EXISTS fuzzystrmatch'
    done
    pg_ctl -D "$PGDATA" -m fast -w stop
    echo "PostgreSQL init process complete; ready for start up."
fi
exec "$@"
