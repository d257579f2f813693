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
