//! The shards bench's databases: the benchmark table's rows spread over `n` SQLite files by a
//! hash of the id, as a sharded service places them, each file built once and reused while valid
//! (see [`crate::seed`]). One shard holds them all: the one database a merged page is weighed
//! against.

use diesel::prelude::*;
use keyset_runtime::migration::Backend;

use crate::seed::{self, SCHEMA_VERSION, TIE_GROUP};

/// The rows spread over the shards: 200,000, or `KEYSET_BENCH_SHARD_ROWS`.
pub fn rows() -> i64 {
    match std::env::var("KEYSET_BENCH_SHARD_ROWS") {
        Ok(rows) => rows.parse().expect("KEYSET_BENCH_SHARD_ROWS is a number of rows"),
        Err(_) => 200_000,
    }
}

/// The shard of the row with this id, of `n`: Knuth's multiplicative hash, the same in SQL.
pub fn place(id: i64, n: i64) -> i64 {
    (id * 2_654_435_761) % n
}

/// `n` SQLite databases holding posts 1..=rows between them (ties and shuffled ids as in the depth
/// bench's table), each with the model's index.
pub fn sqlite(rows: i64, n: i64) -> Vec<SqliteConnection> {
    let slots = rows / TIE_GROUP;
    (0..n)
        .map(|shard| {
            let count = (1..=rows).filter(|&id| place(id, n) == shard).count() as i64;
            let statements = [
                "CREATE TABLE bench_posts (
                    id INTEGER PRIMARY KEY NOT NULL,
                    created_at TIMESTAMP NOT NULL,
                    author_id BIGINT NOT NULL,
                    title TEXT NOT NULL
                )"
                .into(),
                format!(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows})
                     INSERT INTO bench_posts
                     SELECT i, datetime(1700000000 + (i * 7919) % {slots}, 'unixepoch'), 1 + i % 100, 'post ' || i
                     FROM n WHERE (i * 2654435761) % {n} = {shard}"
                ),
                seed::index(Backend::Sqlite),
                "ANALYZE".into(),
                seed::META.into(),
                format!("INSERT INTO bench_meta VALUES ({SCHEMA_VERSION}, {count})"),
            ];
            let stem = format!("shard-v{SCHEMA_VERSION}-{rows}-{shard}-of-{n}");
            seed::sqlite_database(&stem, count, seed::valid, &statements)
        })
        .collect()
}
