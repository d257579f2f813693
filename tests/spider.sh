#!/usr/bin/env bash
# Pages through MariaDB's Spider (the shards guide, "Through Spider"): starts three `mariadbd` of
# this script's own, a Spider head node and two data nodes (fresh data directories in a temporary
# directory, on 127.0.0.1 only; the machine's service and its configuration are never read or
# touched), then runs the `spider::` tests of `cargo test --test clusters` with the head's URL in
# KEYSET_SPIDER_HEAD_URL and the data nodes' ports in KEYSET_SPIDER_NODE_PORTS. The tests build
# the tables themselves: on the head, Spider tables partitioned by hash and by range over the data
# nodes' tables, and read what each data node was sent from its general log (kept in a table).
# The servers are stopped and the directory removed on exit, whatever happened; a server that
# cannot start fails the script.
#
#   bash tests/spider.sh             # MARIADB_BIN overrides /usr/sbin (mariadbd), clients on PATH
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/cluster-lib.sh
[ -x "$MARIADB_BIN/mariadbd" ] || { echo "spider.sh: no mariadbd in $MARIADB_BIN (set MARIADB_BIN)" >&2; exit 1; }

# Spider is a plugin of its own package, Debian's mariadb-plugin-spider, of the server's version.
plugin_dir=$("$MARIADB_BIN/mariadbd" --no-defaults --verbose --help 2> /dev/null | sed -n 's/^plugin-dir  *//p')
if [ ! -f "$plugin_dir/ha_spider.so" ]; then
    echo "== installing mariadb-plugin-spider"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q > /dev/null
    apt-get install -y -q mariadb-plugin-spider > /dev/null
fi

# Built before the servers start, so that they do not wait on the compiler.
cargo test --locked -q -p keyset-tests --features postgres,mysql --test clusters --no-run

work=$(mktemp -d -t keyset-spider.XXXXXX)
declare -A pid=() port=()
servers=(head node1 node2)

cleanup() {
    local status=$?
    mariadb_stop "${servers[@]}"
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

echo "== MariaDB: mariadb-install-db, copied for each server"
mariadb_install head
cp -a "$work/head" "$work/node1"
cp -a "$work/head" "$work/node2"

next=24306
for server in "${servers[@]}"; do
    port[$server]=$(free_port "$next")
    next=$((port[$server] + 1))
done
echo "== head: mariadbd with Spider, port ${port[head]}"
mariadb_start head 1 --plugin-load-add=ha_spider
server_id=1
for node in node1 node2; do
    server_id=$((server_id + 1))
    echo "== $node: mariadbd, port ${port[$node]}, its general log in the table mysql.general_log"
    mariadb_start "$node" "$server_id" --general-log --log-output=TABLE
done
mariadb_sql head "SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'SPIDER'" |
    grep -qx ACTIVE || fail "Spider is not active on the head node"

export KEYSET_SPIDER_HEAD_URL="mysql://root@127.0.0.1:${port[head]}/mysql"
export KEYSET_SPIDER_NODE_PORTS="${port[node1]},${port[node2]}"

echo "== pages through Spider tables partitioned over two data nodes (tests/clusters spider::)"
cargo test --locked -q -p keyset-tests --features postgres,mysql --test clusters -- spider:: \
    --test-threads 1 --nocapture
