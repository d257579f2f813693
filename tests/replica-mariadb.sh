#!/usr/bin/env bash
# Pages across a read replica on MariaDB (README, Reliability), called by tests/replica.sh after
# its PostgreSQL pair: starts a MariaDB primary and a replica of this script's own (two `mariadbd`
# with fresh data directories in a temporary directory, on 127.0.0.1 only; the machine's service
# and its configuration are never read or touched), replicates the primary's binlog to the
# replica by GTID, waits until both replication threads run, then runs the `mariadb::` tests of
# `cargo test --test replicas` with the two URLs in KEYSET_MARIADB_PRIMARY_URL and
# KEYSET_MARIADB_REPLICA_URL. Both servers are stopped and the directory removed on exit, whatever
# happened. The walks run twice: with the replica applying as fast as it can, then with its SQL
# thread stopped for 5 pages in every 10 (KEYSET_REPLICA_STALLS), catching up in between. A server
# that cannot start, or a replica that does not replicate, fails the script.
#
#   bash tests/replica-mariadb.sh    # MARIADB_BIN overrides /usr/sbin (mariadbd), clients on PATH
set -euo pipefail
cd "$(dirname "$0")/.."

source tests/cluster-lib.sh
[ -x "$MARIADB_BIN/mariadbd" ] || { echo "replica-mariadb.sh: no mariadbd in $MARIADB_BIN (set MARIADB_BIN)" >&2; exit 1; }
for tool in mariadb-install-db mariadb mariadb-admin; do
    command -v "$tool" > /dev/null || { echo "replica-mariadb.sh: no $tool on PATH" >&2; exit 1; }
done

# Built before the servers start (a no-op after tests/replica.sh built it).
cargo test --locked -q -p keyset-tests --features postgres,mysql --test replicas --no-run

work=$(mktemp -d -t keyset-replica-mariadb.XXXXXX)
declare -A pid=()

cleanup() {
    local status=$?
    mariadb_stop replica primary
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

declare -A port=()
port[primary]=$(free_port 23306)
port[replica]=$(free_port $((port[primary] + 1)))

echo "== MariaDB: mariadb-install-db, copied for the replica"
# One fresh data directory, copied before either server first starts: the two start identical,
# as two runs of mariadb-install-db would make them, in half the time. mariadb-install-db writes
# no binlog, so the replica (its GTID position empty) starts at the primary's first transaction.
mariadb_install primary
cp -a "$work/primary" "$work/replica"

echo "== primary: mariadbd, port ${port[primary]}, binlog on"
mariadb_start primary 1 --log-bin=binlog --sync-binlog=0
echo "== replica: mariadbd, port ${port[replica]}"
mariadb_start replica 2 --relay-log=relay

mariadb_sql replica "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${port[primary]},
    MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1;
    START SLAVE" || fail "CHANGE MASTER TO on the replica failed"

slave_status() { # the replica's SHOW SLAVE STATUS field $1
    mariadb_client replica -e "SHOW SLAVE STATUS\G" 2> /dev/null | sed -n "s/^ *$1: //p"
}
replicating=
for _ in $(seq 60); do
    if [ "$(slave_status Slave_IO_Running)" = Yes ] && [ "$(slave_status Slave_SQL_Running)" = Yes ]; then
        replicating=1
        break
    fi
    sleep 0.5
done
[ -n "$replicating" ] || fail "the replica's threads are not running after 30 s: IO $(slave_status Slave_IO_Running) ($(slave_status Last_IO_Error)), SQL $(slave_status Slave_SQL_Running) ($(slave_status Last_SQL_Error))"

# The tests' database, created on the primary: the replica has it once it applies the binlog.
mariadb_sql primary "CREATE DATABASE keyset DEFAULT CHARSET utf8mb4"
gtid=$(mariadb_sql primary "SELECT @@gtid_binlog_pos")
[ "$(mariadb_sql replica "SELECT MASTER_GTID_WAIT('$gtid', 30)")" = 0 ] ||
    fail "the replica has not applied the primary's binlog up to $gtid after 30 s"
[ "$(mariadb_sql replica "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'keyset'")" = 1 ] ||
    fail "the replica lacks the database created on the primary"
echo "replica replicating: IO $(slave_status Slave_IO_Running), SQL $(slave_status Slave_SQL_Running), GTID $(slave_status Using_Gtid) at $(slave_status Gtid_IO_Pos)"

export KEYSET_MARIADB_PRIMARY_URL="mysql://root@127.0.0.1:${port[primary]}/keyset"
export KEYSET_MARIADB_REPLICA_URL="mysql://root@127.0.0.1:${port[replica]}/keyset"

echo "== the walks across primary and replica (tests/replicas mariadb::), the replica applying at once"
cargo test --locked -q -p keyset-tests --features postgres,mysql --test replicas -- mariadb:: --nocapture

# On loopback the replica applies each commit a fraction of a millisecond after the primary;
# with its SQL thread stopped for stretches of pages it falls up to four pages' writes behind,
# then catches up (MASTER_DELAY, the setting that delays a replica, takes whole seconds only).
echo "== the same walks, the replica's SQL thread stopped for 5 pages in every 10"
KEYSET_REPLICA_STALLS=1 cargo test --locked -q -p keyset-tests --features postgres,mysql --test replicas -- mariadb:: --nocapture
[ "$(slave_status Slave_SQL_Running)" = Yes ] || fail "the walks left the replica's SQL thread stopped"
