#!/usr/bin/env bash
# diesel-cli on what the migration writer wrote: `diesel migration run`, `redo` and
# `revert --all` on the blog example's migrations (its tables, then its index migrations), each on a
# fresh database of SQLite, PostgreSQL and MariaDB, and PostgreSQL's CONCURRENTLY migrations
# (run outside a transaction). Every step must succeed, and nothing may be pending after a run.
#
#   bash tests/diesel-cli.sh      # installs diesel_cli (PostgreSQL, bundled SQLite, MySQL) if missing
#
# PG_DATABASE_URL / MYSQL_DATABASE_URL name the servers (defaults: the services on this machine);
# the script creates a database of its own on each, and drops it afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v diesel > /dev/null; then
    # A debug build: it runs a handful of migrations, and compiles in about half the time.
    cargo install diesel_cli --locked --debug --no-default-features --features "postgres sqlite-bundled mysql"
fi
pg=${PG_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
my=${MYSQL_DATABASE_URL:-mysql://root@127.0.0.1:3306/test}
name=keyset_cli_$$
sqlite_file=$(mktemp -d)/blog.db
cleanup() {
    psql "$pg" -q -c "DROP DATABASE IF EXISTS ${name}" > /dev/null 2>&1 || true
    psql "$pg" -q -c "DROP DATABASE IF EXISTS ${name}_c" > /dev/null 2>&1 || true
    mariadb -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS ${name}" > /dev/null 2>&1 || true
    rm -rf "$(dirname "$sqlite_file")"
}
trap cleanup EXIT

# run, redo (the last migration: an index one), revert everything, run again.
cycle() { # label, database URL, migrations folder
    local label=$1 url=$2 dir=$3
    diesel migration run --database-url "$url" --migration-dir "$dir" > /dev/null
    [ "$(diesel migration pending --database-url "$url" --migration-dir "$dir")" = false ] ||
        { echo "$label: migrations still pending after run"; exit 1; }
    diesel migration redo --database-url "$url" --migration-dir "$dir" > /dev/null
    diesel migration revert --all --database-url "$url" --migration-dir "$dir" > /dev/null
    [ "$(diesel migration pending --database-url "$url" --migration-dir "$dir")" = true ] ||
        { echo "$label: nothing pending after revert --all"; exit 1; }
    diesel migration run --database-url "$url" --migration-dir "$dir" > /dev/null
    echo "$label: run, redo, revert --all and run again: ok ($(ls "$dir" | wc -l) migrations)"
}

cycle SQLite "$sqlite_file" examples/blog/migrations/sqlite

psql "$pg" -q -c "CREATE DATABASE ${name}" > /dev/null
psql "$pg" -q -c "CREATE DATABASE ${name}_c" > /dev/null
cycle PostgreSQL "${pg%/*}/${name}" examples/blog/migrations/postgres
cycle "PostgreSQL (CONCURRENTLY)" "${pg%/*}/${name}_c" examples/blog/migrations/postgres_concurrently
psql "${pg%/*}/${name}" -Atc "SELECT indexname FROM pg_indexes WHERE indexname LIKE '%_keyset_%' ORDER BY 1" |
    grep -q . || { echo "PostgreSQL: no keyset index after run"; exit 1; }

mariadb -h 127.0.0.1 -u root -e "CREATE DATABASE ${name}"
cycle MariaDB "${my%/*}/${name}" examples/blog/migrations/mysql
