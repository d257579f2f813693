# Shared by the scripts that start servers of their own (replica.sh, replica-mariadb.sh,
# postgres-fdw.sh): sourced, not run.

# A port nothing listens on, from $1 up. Below Linux's ephemeral range (32768-60999): a client
# socket of the run (a test's connection) can hold a port in that range without listening on
# it, and the server's bind then fails ("could not create listen socket", seen in CI).
free_port() {
    local port=$1
    while (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; do port=$((port + 1)); done
    echo "$port"
}

# The newest PostgreSQL's programs, unless PG_BIN says where they are.
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -n 1)}

# initdb refuses root: PostgreSQL clusters belong to the postgres OS user when a script runs as
# root.
as_pg() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Fails the script: the message, then the end of every log in its directory $work (the servers').
fail() {
    echo "$(basename "$0"): $1" >&2
    for log in "$work"/*.log; do
        [ -f "$log" ] && { echo "--- $log" >&2; tail -n 30 "$log" >&2; }
    done
    exit 1
}

# Stops the PostgreSQL clusters named in the arguments, each in $work/<name>: fast, else at once.
pg_stop() {
    for cluster in "$@"; do
        if [ -f "$work/$cluster/postmaster.pid" ]; then
            as_pg "$PG_BIN/pg_ctl" -D "$work/$cluster" -m fast -w -t 30 stop > /dev/null ||
                as_pg "$PG_BIN/pg_ctl" -D "$work/$cluster" -m immediate -w stop > /dev/null || true
        fi
    done
}

# MariaDB servers of a script's own, each by name: its port in the script's associative array
# `port`, its process in `pid`, its data directory, socket, pid file and error log in $work.
# Every client and server call starts with --no-defaults: the machine's my.cnf (the service's
# socket, datadir and port) is never read. The clients connect over TCP to the script's ports.
MARIADB_BIN=${MARIADB_BIN:-/usr/sbin}

mariadb_client() { # server, options..
    local server=$1
    shift
    mariadb --no-defaults --protocol=tcp -h 127.0.0.1 -P "${port[$server]}" -u root "$@"
}
mariadb_sql() { # server, SQL: the result's values, tab-separated
    mariadb_client "$1" -N -B -e "$2"
}
mariadb_admin() { # server, command
    mariadb-admin --no-defaults --protocol=tcp -h 127.0.0.1 -P "${port[$1]}" -u root "$2"
}

# Run as root, a script runs its servers as root (`--user=root`, without which mariadbd refuses
# to), rather than chowning their directories to `mysql`: the data directories stay the script's
# own files inside its temporary directory (mode 700, which a `mysql` server could not enter
# unless the script opened it up), and the servers get no access the script lacks.
mariadb_user=()
if [ "$(id -u)" = 0 ]; then mariadb_user=(--user=root); fi

# Throwaway servers: small InnoDB files and no syncing (nothing here needs to survive a crash).
mariadb_innodb=(--innodb-buffer-pool-size=32M --innodb-log-file-size=8M --innodb-flush-method=nosync
    --innodb-doublewrite=0 --innodb-flush-log-at-trx-commit=0)

# A fresh data directory in $work/$1, which other servers' may be copied from before any starts.
mariadb_install() {
    mariadb-install-db --no-defaults "${mariadb_user[@]}" --datadir="$work/$1" --skip-test-db \
        --auth-root-authentication-method=normal "${mariadb_innodb[@]}" > "$work/install-db.log" 2>&1 ||
        fail "mariadb-install-db failed"
    rm "$work/install-db.log"
}

mariadb_start() { # server, server_id, options..
    local server=$1 server_id=$2
    shift 2
    # `--skip-grant-tables`: every connection is root with no password, and a replica's
    # replication connection needs no account; the servers listen on 127.0.0.1 only.
    "$MARIADB_BIN/mariadbd" --no-defaults "${mariadb_user[@]}" --datadir="$work/$server" \
        --port="${port[$server]}" --bind-address=127.0.0.1 --skip-name-resolve \
        --socket="$work/$server.sock" --pid-file="$work/$server.pid" \
        --log-error="$work/$server.log" --skip-grant-tables --server-id="$server_id" \
        --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
        "${mariadb_innodb[@]}" "$@" > /dev/null 2>&1 &
    pid[$server]=$!
    for _ in $(seq 60); do
        mariadb_admin "$server" ping > /dev/null 2>&1 && return 0
        kill -0 "${pid[$server]}" 2> /dev/null || fail "the $server exited on start"
        sleep 0.5
    done
    fail "the $server does not answer on port ${port[$server]} after 30 s"
}

mariadb_stop() { # servers..
    local server
    for server in "$@"; do
        [ -n "${pid[$server]:-}" ] || continue
        if kill -0 "${pid[$server]}" 2> /dev/null; then
            mariadb_admin "$server" shutdown > /dev/null 2>&1 || true
            for _ in $(seq 30); do kill -0 "${pid[$server]}" 2> /dev/null || break; sleep 1; done
            if kill -0 "${pid[$server]}" 2> /dev/null; then
                kill "${pid[$server]}" 2> /dev/null || true
                sleep 2
                kill -9 "${pid[$server]}" 2> /dev/null || true
            fi
        fi
        wait "${pid[$server]}" 2> /dev/null || true
        unset "pid[$server]"
    done
}
