#!/usr/bin/env bash
# Pages across a read replica (README, Reliability): starts a PostgreSQL primary and a hot standby
# of this script's own (two clusters in a fresh temporary directory, on 127.0.0.1 only, never the
# machine's service), streams the primary's WAL to the standby, waits until the standby is
# streaming, then runs the `postgres::` tests of `cargo test --test replicas` with the two URLs in
# KEYSET_PRIMARY_URL and KEYSET_REPLICA_URL. Both clusters are stopped and their directories
# removed on exit, whatever happened. The walks run twice: with the standby replaying as fast as it
# can, then applying every commit 50 ms late. A cluster that cannot start, or a standby that does
# not stream, fails the script. Then, the PostgreSQL pair stopped, tests/replica-mariadb.sh does
# the same on a MariaDB primary and binlog replica of its own.
#
#   bash tests/replica.sh            # PG_BIN overrides the newest /usr/lib/postgresql/*/bin
set -euo pipefail
cd "$(dirname "$0")/.."

source tests/cluster-lib.sh
[ -x "$PG_BIN/initdb" ] || { echo "replica.sh: no initdb in $PG_BIN (set PG_BIN)" >&2; exit 1; }

# Built before the clusters start, so that they do not wait on the compiler: one binary, both
# backends' tests.
cargo test --locked -q -p keyset-tests --features postgres,mysql --test replicas --no-run

work=$(mktemp -d -t keyset-replica.XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres: "$work"
chmod 700 "$work"

stop_clusters() {
    pg_stop standby primary
    rm -rf "$work"
}

cleanup() {
    local status=$?
    stop_clusters
    exit "$status"
}
trap cleanup EXIT

primary_port=$(free_port 25432)
standby_port=$(free_port $((primary_port + 1)))

psql_at() { # port, SQL
    as_pg "$PG_BIN/psql" -X -q -At -h 127.0.0.1 -p "$1" -U postgres -d postgres -c "$2"
}

echo "== primary: initdb, port $primary_port"
as_pg "$PG_BIN/initdb" -D "$work/primary" -U postgres --auth=trust -E UTF8 --no-sync \
    > "$work/initdb.log" 2>&1 || fail "initdb of the primary failed"
cat >> "$work/primary/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $primary_port
unix_socket_directories = '$work'
wal_level = replica
max_wal_senders = 4
hot_standby = on
# Queries on the standby hold back the primary's cleanup, so that replaying it never cancels a
# page (a setting replicas that serve reads commonly have).
hot_standby_feedback = on
# A throwaway cluster: nothing here needs to survive a crash.
fsync = off
EOF
# The standby's replication connection (initdb's default has one too; the script does not rely
# on it).
echo "host replication postgres 127.0.0.1/32 trust" >> "$work/primary/pg_hba.conf"
as_pg "$PG_BIN/pg_ctl" -D "$work/primary" -l "$work/primary.log" -w -t 60 start > /dev/null ||
    fail "the primary did not start"

echo "== standby: pg_basebackup -R, port $standby_port"
as_pg "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$work/standby" \
    -R -X stream --checkpoint=fast > "$work/basebackup.log" 2>&1 || fail "pg_basebackup failed"
cat >> "$work/standby/postgresql.conf" <<EOF
port = $standby_port
EOF
as_pg "$PG_BIN/pg_ctl" -D "$work/standby" -l "$work/standby.log" -w -t 60 start > /dev/null ||
    fail "the standby did not start"

streaming=
for _ in $(seq 60); do
    if [ "$(psql_at "$primary_port" "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'" 2> /dev/null)" = 1 ] &&
        [ "$(psql_at "$standby_port" "SELECT pg_is_in_recovery()" 2> /dev/null)" = t ]; then
        streaming=1
        break
    fi
    sleep 1
done
[ -n "$streaming" ] || fail "the standby is not streaming from the primary after 60 s"
echo "standby streaming: $(psql_at "$primary_port" "SELECT application_name || ' ' || state || ' ' || sync_state FROM pg_stat_replication")"

export KEYSET_PRIMARY_URL="postgres://postgres@127.0.0.1:$primary_port/postgres"
export KEYSET_REPLICA_URL="postgres://postgres@127.0.0.1:$standby_port/postgres"

echo "== the walks across primary and replica (tests/replicas postgres::), the standby replaying at once"
cargo test --locked -q -p keyset-tests --features postgres,mysql --test replicas -- postgres:: --nocapture

# Replay on loopback is a fraction of a millisecond behind, so few replica pages miss anything;
# a standby that applies each commit 50 ms late lags by several pages' writes.
echo "== the same walks, the standby applying every commit 50 ms late (recovery_min_apply_delay)"
psql_at "$standby_port" "ALTER SYSTEM SET recovery_min_apply_delay = '50ms'"
psql_at "$standby_port" "SELECT pg_reload_conf()" > /dev/null
cargo test --locked -q -p keyset-tests --features postgres,mysql --test replicas -- postgres:: --nocapture

# The same walks on MariaDB, on a pair of its own; the PostgreSQL clusters are done.
stop_clusters
bash tests/replica-mariadb.sh
