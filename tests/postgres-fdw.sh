#!/usr/bin/env bash
# Pages through postgres_fdw (the shards guide, "Through postgres_fdw"): starts three PostgreSQL
# clusters of this script's own, a coordinator and two shards (in a fresh temporary directory,
# on 127.0.0.1 only, never the machine's service), then runs the `postgres_fdw::` tests of
# `cargo test --test clusters` with the coordinator's URL in KEYSET_FDW_COORDINATOR_URL and the
# shards' ports in KEYSET_FDW_SHARD_PORTS (and the coordinator's log in KEYSET_FDW_COORDINATOR_LOG). The tests build the tables themselves: on the
# coordinator, tables partitioned by hash and by range over postgres_fdw foreign tables, one
# partition on each shard. The clusters are stopped and their directory removed on exit, whatever
# happened; a cluster that cannot start fails the script.
#
#   bash tests/postgres-fdw.sh       # PG_BIN overrides the newest /usr/lib/postgresql/*/bin
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/cluster-lib.sh
[ -x "$PG_BIN/initdb" ] || { echo "postgres-fdw.sh: no initdb in $PG_BIN (set PG_BIN)" >&2; exit 1; }
clusters=(coordinator shard1 shard2)

# Built before the clusters start, so that they do not wait on the compiler.
cargo test --locked -q -p keyset-tests --features postgres,mysql --test clusters --no-run

work=$(mktemp -d -t keyset-fdw.XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres: "$work"
chmod 700 "$work"

cleanup() {
    local status=$?
    pg_stop "${clusters[@]}"
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

declare -A port=()
next=26432
for cluster in "${clusters[@]}"; do
    port[$cluster]=$(free_port "$next")
    next=$((port[$cluster] + 1))
    echo "== $cluster: initdb, port ${port[$cluster]}"
    as_pg "$PG_BIN/initdb" -D "$work/$cluster" -U postgres --auth=trust -E UTF8 --no-sync \
        > "$work/initdb-$cluster.log" 2>&1 || fail "initdb of the $cluster failed"
    cat >> "$work/$cluster/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = ${port[$cluster]}
unix_socket_directories = '$work'
# A throwaway cluster: nothing here needs to survive a crash.
fsync = off
CONF
    as_pg "$PG_BIN/pg_ctl" -D "$work/$cluster" -l "$work/$cluster.log" -w -t 60 start > /dev/null ||
        fail "the $cluster did not start"
done

export KEYSET_FDW_COORDINATOR_URL="postgres://postgres@127.0.0.1:${port[coordinator]}/postgres"
export KEYSET_FDW_SHARD_PORTS="${port[shard1]},${port[shard2]}"
# The plan tests log the plans of a page's statements there (auto_explain) and read them back.
export KEYSET_FDW_COORDINATOR_LOG="$work/coordinator.log"

echo "== pages through partitions on postgres_fdw shards (tests/clusters postgres_fdw::)"
cargo test --locked -q -p keyset-tests --features postgres,mysql --test clusters -- postgres_fdw:: \
    --test-threads 1 --nocapture
