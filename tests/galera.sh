#!/usr/bin/env bash
# Pages through a MariaDB Galera cluster (the shards guide, "Across a Galera cluster"): starts
# three `mariadbd` of this script's own as one Galera cluster (fresh data directories in a
# temporary directory, on 127.0.0.1 only; the machine's service and its configuration are never
# read or touched), then runs the `galera::` tests of `cargo test --test clusters` with the
# nodes' URLs in KEYSET_GALERA_NODE_URLS. The nodes are stopped and the directory removed on
# exit, whatever happened; a node that cannot start or join fails the script.
#
#   bash tests/galera.sh             # MARIADB_BIN overrides /usr/sbin (mariadbd), clients on PATH
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/cluster-lib.sh
[ -x "$MARIADB_BIN/mariadbd" ] || { echo "galera.sh: no mariadbd in $MARIADB_BIN (set MARIADB_BIN)" >&2; exit 1; }

# Debian's galera-4 (the provider) and rsync (the joiners' state transfer), when missing.
provider=/usr/lib/galera/libgalera_smm.so
if [ ! -f "$provider" ] || ! command -v rsync > /dev/null; then
    echo "== installing galera-4 and rsync"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q > /dev/null
    apt-get install -y -q galera-4 rsync > /dev/null
fi

# Built before the nodes start, so that they do not wait on the compiler.
cargo test --locked -q -p keyset-tests --features postgres,mysql --test clusters --no-run

work=$(mktemp -d -t keyset-galera.XXXXXX)
declare -A pid=() port=() gcomm=()
nodes=(node1 node2 node3)

# A joiner's state transfer runs an rsync daemon as the server's user, which as root drops to
# `nobody` and could not write the data directory: run as root, the nodes run as `mysql`, and
# the script's directory is theirs.
if [ "$(id -u)" = 0 ]; then
    mariadb_user=(--user=mysql)
    chown mysql: "$work"
fi

cleanup() {
    local status=$?
    mariadb_stop node3 node2 node1
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

echo "== MariaDB: mariadb-install-db, copied for each node"
mariadb_install node1
cp -a "$work/node1" "$work/node2"
cp -a "$work/node1" "$work/node3"

# Each node: a client port, and from 25567 up three of Galera's own (group communication,
# incremental state transfer, snapshot state transfer).
next=25306
for node in "${nodes[@]}"; do
    port[$node]=$(free_port "$next")
    next=$((port[$node] + 1))
done
next=25567
address=
for node in "${nodes[@]}"; do
    gcomm[$node]=$(free_port "$next")
    next=$((gcomm[$node] + 10))
    address+="${address:+,}127.0.0.1:${gcomm[$node]}"
done

server_id=0
for node in "${nodes[@]}"; do
    server_id=$((server_id + 1))
    first=()
    [ "$node" = node1 ] && first=(--wsrep-new-cluster)
    echo "== $node: mariadbd, port ${port[$node]}, Galera on ${gcomm[$node]}"
    mariadb_start "$node" "$server_id" --binlog-format=ROW --innodb-autoinc-lock-mode=2 \
        --wsrep-on=ON --wsrep-provider="$provider" --wsrep-cluster-name=keyset \
        --wsrep-cluster-address="gcomm://$address" --wsrep-node-address="127.0.0.1:${gcomm[$node]}" \
        --wsrep-provider-options="gmcast.listen_addr=tcp://127.0.0.1:${gcomm[$node]};ist.recv_addr=127.0.0.1:$((gcomm[$node] + 1))" \
        --wsrep-sst-receive-address="127.0.0.1:$((gcomm[$node] + 2))" --wsrep-sst-method=rsync \
        "${first[@]}"
    synced=
    for _ in $(seq 120); do
        if [ "$(mariadb_sql "$node" "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2> /dev/null | cut -f2)" = Synced ]; then
            synced=1
            break
        fi
        sleep 0.5
    done
    [ -n "$synced" ] || fail "$node is not Synced with the cluster after 60 s"
done
size=$(mariadb_sql node1 "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2)
[ "$size" = 3 ] || fail "the cluster has $size nodes, not 3"
echo "cluster of $size nodes, each Synced"

urls=
for node in "${nodes[@]}"; do urls+="${urls:+,}mysql://root@127.0.0.1:${port[$node]}/mysql"; done
export KEYSET_GALERA_NODE_URLS="$urls"

echo "== pages read from any node of the cluster, writes on every node (tests/clusters galera::)"
cargo test --locked -q -p keyset-tests --features postgres,mysql --test clusters -- galera:: \
    --test-threads 1 --nocapture
