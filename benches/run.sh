#!/usr/bin/env bash
# The benchmarks in one command: the depth sweep (keyset against OFFSET, and against hand-written
# Diesel pages), the orders (uniform, mixed and nullable-leading, first and deepest pages, sync and
# async, against the expert's), the token codec, the joins (an order led by a joined column against
# the posts' own order), the shards (a page merged over 1 to 8 SQLite files) and the feeds (pages
# among a set of authors against the naive `eq_any` page and the expert's hand-written forms),
# then the plot. The feeds alone: cargo bench -p keyset-benches --features postgres,mysql --bench feeds
#
#   bash benches/run.sh                  # SQLite, PostgreSQL and MariaDB: their servers must answer
#   FEATURES= bash benches/run.sh        # SQLite only
#
# PostgreSQL and MariaDB are reached at PG_DATABASE_URL / MYSQL_DATABASE_URL (default: the services
# on this machine, postgres://postgres@127.0.0.1:5432/test and mysql://root@127.0.0.1:3306/test),
# where a table `bench_posts` of 1,000,000 rows (and the orders bench's `bench_orders` of 1,000,000,
# the joins bench's `bench_join_posts` of 100,000 and `bench_authors`, the feeds bench's
# `bench_feed` of 1,000,000) is built on the first run
# and kept; SQLite's live in target/keyset-bench/.
# Takes about 18 minutes on 2 cores (the first run a few minutes more).
#
# Writes into docs/: depth.csv, pages.csv, depth-ratios.csv, orders.csv, orders-ratios.csv,
# token.csv, token-ratios.csv,
# joins.csv, joins-ratios.csv, feeds.csv, feeds-ratios.csv, depth.png (the plot) and benchmarks.md
# (every table, with the date and the machine). The plot needs matplotlib, installed into a venv under target/ on first use.
# The compile-time cost of the derive is a separate command: bash benches/derive-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
features=${FEATURES-postgres,mysql}
export KEYSET_BENCH_OUT=$root/docs
work=$root/target/keyset-bench
mkdir -p "$work" docs
rm -f "$work"/depth.md "$work"/depth-ratios.md "$work"/orders.md "$work"/token.md "$work"/joins.md \
    "$work"/shards.md "$work"/feeds.md

cargo bench -p keyset-benches ${features:+--features "$features"} --bench depth --bench orders \
    --bench token --bench joins --bench shards --bench feeds

when=$(date -u '+%Y-%m-%d %H:%M UTC')
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
machine="$(nproc) cores ($cpu), $(free -g | awk '/^Mem:/ {print $2}') GiB, $(uname -sr)"

venv=$work/venv
if ! "$venv/bin/python" -c "import matplotlib" 2> /dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet matplotlib
fi
"$venv/bin/python" benches/plot.py docs/depth.csv docs/depth.png "Measured $when on $machine"

{
    echo "# Benchmark results"
    echo
    echo "Measured $when on $machine, with \`bash benches/run.sh\`."
    echo
    echo "## Page latency against depth (criterion medians)"
    echo
    cat "$work/depth.md"
    echo
    echo "## Ratios (medians of one interleaved run per backend)"
    echo
    cat "$work/depth-ratios.md"
    echo
    echo "## Orders: uniform, mixed and nullable-leading (\`--bench orders\`)"
    echo
    cat "$work/orders.md"
    echo
    echo "## Token codec against base64 of serde_json"
    echo
    cat "$work/token.md"
    echo
    echo "## Joins"
    echo
    cat "$work/joins.md"
    echo
    echo "## Shards"
    echo
    cat "$work/shards.md"
    echo
    echo "## Feeds: pages among a set of authors (\`--bench feeds\`)"
    echo
    cat "$work/feeds.md"
    if [ -f docs/derive-cost.md ]; then
        echo
        echo "## Compile-time cost of the derive (\`bash benches/derive-cost.sh\`, run separately)"
        echo
        cat docs/derive-cost.md
    fi
} > docs/benchmarks.md
echo "wrote docs/benchmarks.md and docs/depth.png"
