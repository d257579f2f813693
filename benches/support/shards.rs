//! The shards bench's databases: the benchmark table's rows spread over `n` SQLite files by a
//! hash of the id, as a sharded service places them, each file built once and reused while valid
//! (see [`crate::seed`]). One shard holds them all: the one database a merged page is weighed
//! against.

use diesel::prelude::*;

use crate::seed::{self, SCHEMA_VERSION};

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
    (0..n)
        .map(|shard| {
            let count = (1..=rows).filter(|&id| place(id, n) == shard).count() as i64;
            let only = format!("WHERE (i * 2654435761) % {n} = {shard}");
            let statements = seed::sqlite_statements(rows, &only, count);
            let stem = format!("shard-v{SCHEMA_VERSION}-{rows}-{shard}-of-{n}");
            seed::sqlite_database(&stem, count, seed::valid, &statements)
        })
        .collect()
}
