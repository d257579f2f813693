#!/usr/bin/env bash
# The compile-time cost of #[derive(Keyset)]: generates a crate of 50 models (a `table!` and a
# `#[derive(Queryable, Selectable, Debug, Clone)]` struct each, half with two sort keys, half with
# three, and every 25th also with three named orders, `new`, `top` and `title`) in two variants, with and without `#[derive(Keyset)]` and its attributes, and times a
# clean build of each variant's own crate (dependencies are built once beforehand and shared), a
# few times in turn. Prints and writes the ratio of the median build times, and the size of each
# variant's macro-expanded code.
#
#   bash benches/derive-cost.sh            # MODELS=50 RUNS=5 by default
#
# Works in target/derive-cost/ (its own target dir, so the workspace's builds are not disturbed);
# writes docs/derive-cost.md and docs/derive-cost.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
models=${MODELS:-50}
runs=${RUNS:-5}
work=$root/target/derive-cost
export CARGO_TARGET_DIR=$work/target
export CARGO_INCREMENTAL=0
mkdir -p "$work"

# One crate per variant, in one workspace of their own (the lock file is the project's, so the
# same dependency versions are built).
cat > "$work/Cargo.toml" <<TOML
[workspace]
resolver = "2"
members = ["with", "without"]

[workspace.dependencies]
keyset-runtime = { path = "$root/keyset-runtime", default-features = false, features = ["derive", "chrono"] }
diesel = { version = "2.3", default-features = false, features = ["chrono"] }
chrono = { version = "0.4", default-features = false, features = ["serde"] }
TOML
cp "$root/Cargo.lock" "$work/Cargo.lock"

generate() { # variant, derive list, key attributes (1 or 0)
    local dir=$work/$1
    mkdir -p "$dir/src"
    cat > "$dir/Cargo.toml" <<TOML
[package]
name = "derive-cost-$1"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
keyset-runtime.workspace = true
diesel.workspace = true
chrono.workspace = true
TOML
    {
        echo "#![allow(dead_code)]"
        echo "use chrono::NaiveDateTime;"
        echo "use diesel::prelude::*;"
        [ "$3" = 1 ] && echo "use keyset_runtime::Keyset;"
        for i in $(seq "$models"); do
            local sort_score="" sort_at="" sort_id="" orders=""
            if [ "$3" = 1 ]; then
                sort_at="#[sort(desc)] "
                sort_id="#[sort(desc)] #[tiebreaker] "
                if [ $((i % 2)) = 0 ]; then sort_score="#[sort(desc)] "; fi
                if [ $((i % 25)) = 0 ]; then
                    orders="#[keyset(order(new: created_at desc, id desc), order(top: score desc, created_at desc, id desc), order(title: title asc, id asc))]"
                fi
            fi
            cat <<RUST

diesel::table! {
    posts_$i (id) {
        id -> BigInt,
        score -> Integer,
        created_at -> Timestamp,
        title -> Text,
    }
}

#[derive($2)]
#[diesel(table_name = posts_$i)]
$orders
pub struct Post$i {
    ${sort_score}pub score: i32,
    ${sort_at}pub created_at: NaiveDateTime,
    ${sort_id}pub id: i64,
    pub title: String,
}
RUST
        done
    } > "$dir/src/lib.rs"
}
generate without "Queryable, Selectable, Debug, Clone" 0
generate with "Queryable, Selectable, Keyset, Debug, Clone" 1

echo "== building the dependencies once (keyset-derive, diesel, chrono)"
(cd "$work" && cargo build -q -p derive-cost-without -p derive-cost-with)

declare -A times
for run in $(seq "$runs"); do
    for variant in without with; do
        (cd "$work" && cargo clean -q -p "derive-cost-$variant")
        start=$(date +%s.%N)
        (cd "$work" && cargo build -q -p "derive-cost-$variant")
        end=$(date +%s.%N)
        t=$(awk "BEGIN { print $end - $start }")
        times[$variant]="${times[$variant]:-} $t"
        printf 'run %d, %-7s: %.2f s\n' "$run" "$variant" "$t"
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
without=$(echo "${times[without]}" | median)
with=$(echo "${times[with]}" | median)
ratio=$(awk "BEGIN { print $with / $without }")

# The macro-expanded code of each variant (rustc's -Zunpretty, allowed on stable by
# RUSTC_BOOTSTRAP, as cargo-expand does).
expanded() {
    (cd "$work" && RUSTC_BOOTSTRAP=1 cargo rustc -q -p "derive-cost-$1" --profile check -- -Zunpretty=expanded 2>/dev/null) | wc -c
}
size_without=$(expanded without)
size_with=$(expanded with)

verdict=$(awk "BEGIN { print ($ratio <= 1.25) ? \"meets\" : \"MISSES\" }")
size_ratio=$(awk "BEGIN { print $size_with / $size_without }")
printf '\n%d models, median of %d clean builds of the crate (dependencies prebuilt):\n' "$models" "$runs"
printf 'without the derive %.2f s, with it %.2f s: ratio %.3f (target <= 1.25: %s)\n' "$without" "$with" "$ratio" "$verdict"
printf 'expanded code: %d bytes without, %d bytes with (%.2fx)\n' "$size_without" "$size_with" "$size_ratio"

mkdir -p docs
{
    echo "variant,median_build_s,builds,expanded_bytes"
    printf 'without,%.3f,%s,%d\n' "$without" "${times[without]# }" "$size_without"
    printf 'with,%.3f,%s,%d\n' "$with" "${times[with]# }" "$size_with"
} > docs/derive-cost.csv
{
    echo "| crate of $models models | median clean build ($runs runs) | expanded code |"
    echo "|---|---:|---:|"
    printf '| without `#[derive(Keyset)]` | %.2f s | %d KB |\n' "$without" "$((size_without / 1024))"
    printf '| with `#[derive(Keyset)]` | %.2f s | %d KB |\n' "$with" "$((size_with / 1024))"
    printf '| ratio | **%.2f** (target ≤ 1.25: %s) | %.2f |\n' "$ratio" "$verdict" "$size_ratio"
} > docs/derive-cost.md
echo "wrote docs/derive-cost.csv and docs/derive-cost.md"
