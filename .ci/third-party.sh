#!/usr/bin/env bash
# The web example checked by third-party clients against the live service, on SQLite and on
# PostgreSQL:
# - `openapi-spec-validator` validates its OpenAPI document, and Schemathesis sends requests
#   generated from it (a bounded number, a fixed seed) and fails on any 5xx and on any response
#   the document does not describe (status, media type, headers, body). Not checked:
#   Schemathesis' `positive_data_acceptance`, which expects every request the schema allows to
#   succeed; no OpenAPI schema can say that `after`, `before` and `last` exclude each other, or
#   that a token must be one the service issued: such requests are 400 problems, as documented;
# - Python `requests` walks a feed by its `Link` headers alone (`.ci/links.py`);
# - Apollo Client (npm, `relayStylePagination`) pages the GraphQL example with `fetchMore`,
#   forward to the end and back from the last page, under a writer (`.ci/apollo/walk.mjs`, on
#   PostgreSQL, whose rows the writer changes through psql).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/ci-venv
[ -x "$venv/bin/schemathesis" ] || {
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q openapi-spec-validator==0.9.0 schemathesis==4.32.5 requests==2.32.3
}

# The examples' one build (.ci/examples.sh), which `.ci/run` has made already: `--no-run` puts
# its example binaries at target/debug/examples/ (and builds them when run alone).
source .ci/examples.sh
cargo test --locked -q --no-run "${examples[@]}"
(cd .ci/apollo && npm ci --no-audit --no-fund --silent)
pg_db=keyset_openapi_$$
gql_db=keyset_apollo_$$
psql -q -h 127.0.0.1 -U postgres -d test -c "CREATE DATABASE $pg_db" -c "CREATE DATABASE $gql_db"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql -q -h 127.0.0.1 -U postgres -d test -c "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" \
        -c "DROP DATABASE IF EXISTS $gql_db WITH (FORCE)" || true
}
trap cleanup EXIT

check() { # name, port, DATABASE_URL (empty: SQLite)
    local name=$1 port=$2 url=$3 base="http://127.0.0.1:$2"
    DATABASE_URL="$url" ADDR="127.0.0.1:$port" ./target/debug/examples/web > "target/openapi-$name.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 60); do curl -fsS "$base/openapi.json" > "target/openapi-$name.json" 2>/dev/null && break; sleep 1; done
    "$venv/bin/openapi-spec-validator" "target/openapi-$name.json"
    "$venv/bin/schemathesis" run "$base/openapi.json" --checks all \
        --exclude-checks positive_data_acceptance --max-examples 50 --seed 1 --no-color
    echo "OpenAPI on $name: valid, and Schemathesis found nothing (50 examples per operation, seed 1)"
    "$venv/bin/python" .ci/links.py "$base"
}
check sqlite 28091 ""
check postgres 28092 "postgres://postgres@127.0.0.1:5432/$pg_db"

gql_url="postgres://postgres@127.0.0.1:5432/$gql_db"
DATABASE_URL="$gql_url" ADDR=127.0.0.1:28093 ./target/debug/examples/graphql > target/apollo-graphql.log 2>&1 &
pids+=($!)
for _ in $(seq 60); do
    curl -fsS -H 'content-type: application/json' -d '{"query": "{ posts(first: 1) { edges { cursor } } }"}' \
        http://127.0.0.1:28093/graphql > /dev/null 2>&1 && break
    sleep 1
done
(cd .ci/apollo && node walk.mjs http://127.0.0.1:28093/graphql "$gql_url")
