//! The orders bench's table, built once per backend with plain SQL and reused while it is valid
//! (as [`crate::seed`] builds the depth bench's): `bench_posts`' rows again (1,000,000, or
//! `KEYSET_BENCH_ROWS`; the same ids, timestamps tying in groups of 100, ids shuffled against
//! time) and a nullable `published_at`, NULL for one post in [`DRAFT_EVERY`], with the indexes of
//! the three orders the bench pages in. A table of its own, so that the depth bench's keeps its
//! one index (and a rebuild of either leaves the other alone).

use diesel::dsl;
use diesel::prelude::*;
use diesel::query_dsl::LoadQuery;

use keyset_runtime::migration::Backend;
use keyset_runtime::Keyset;

use crate::schema::{bench_orders, bench_orders_meta, Newest, NewestOldId, Published};
use crate::seed::{rows, sqlite_database, TIE_GROUP};

/// Bump when the table changes: stored tables are then rebuilt.
pub const SCHEMA_VERSION: i32 = 1;

/// One post in this many is a draft: `published_at` is NULL where `id % DRAFT_EVERY = 0`. The
/// ids of a tie group are `i, i + rows / 100, ..`, so every group holds drafts.
pub const DRAFT_EVERY: i64 = 7;

const ORDER_META: &str = "CREATE TABLE bench_orders_meta (schema_version INTEGER PRIMARY KEY NOT NULL, row_count BIGINT NOT NULL)";

/// Whether `conn` holds a complete orders-bench table of `rows` rows of this schema version.
pub fn valid<C: Connection>(conn: &mut C, rows: i64) -> bool
where
    dsl::Select<
        bench_orders_meta::table,
        (bench_orders_meta::schema_version, bench_orders_meta::row_count),
    >: LoadQuery<'static, C, (i32, i64)>,
    dsl::Select<bench_orders::table, dsl::CountStar>: LoadQuery<'static, C, i64>,
{
    let meta = bench_orders_meta::table
        .select((bench_orders_meta::schema_version, bench_orders_meta::row_count))
        .load::<(i32, i64)>(conn);
    matches!(meta.as_deref(), Ok([(SCHEMA_VERSION, n)]) if *n == rows)
        && bench_orders::table.count().get_result::<i64>(conn).ok() == Some(rows)
}

/// The indexes of the orders bench's three models, as `#[derive(Keyset)]` writes them.
pub fn indexes(backend: Backend) -> Vec<String> {
    let indexes = [Newest::INDEXES, NewestOldId::INDEXES, Published::INDEXES];
    assert!(indexes.iter().all(|i| i.len() == 1), "one index per order: {indexes:?}");
    indexes.iter().map(|i| i[0].create(backend).to_owned()).collect()
}

/// The orders bench's table in `backend`'s SQL: `bench_posts`' rows and `published_at`, the
/// three indexes, fresh statistics, and the meta row, written last.
fn order_statements(backend: Backend) -> Vec<String> {
    let rows = rows();
    let slots = rows / TIE_GROUP;
    let (drop, create, fill, analyze) = match backend {
        Backend::Sqlite => (
            None,
            ("INTEGER", "TIMESTAMP", "TEXT", ""),
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows}),
                 t(i, at) AS (SELECT i, datetime(1700000000 + (i * 7919) % {slots}, 'unixepoch') FROM n)
                 INSERT INTO bench_orders
                 SELECT i, at, CASE WHEN i % {DRAFT_EVERY} = 0 THEN NULL ELSE at END, 1 + i % 100,
                        'post ' || i
                 FROM t"
            ),
            "ANALYZE".to_owned(),
        ),
        Backend::Postgres => (
            Some("DROP TABLE IF EXISTS bench_orders_meta, bench_orders"),
            ("BIGINT", "TIMESTAMP", "TEXT", ""),
            format!(
                "INSERT INTO bench_orders
                 SELECT i, at, CASE WHEN i % {DRAFT_EVERY} = 0 THEN NULL ELSE at END, 1 + i % 100,
                        'post ' || i
                 FROM (SELECT i, TIMESTAMP '2023-11-14 22:13:20' + ((i * 7919) % {slots}) * INTERVAL '1 second' AS at
                       FROM generate_series(1::bigint, {rows}) AS i) AS t"
            ),
            "VACUUM ANALYZE bench_orders".to_owned(),
        ),
        _ => (
            Some("DROP TABLE IF EXISTS bench_orders_meta, bench_orders"),
            ("BIGINT", "DATETIME(6)", "VARCHAR(64)", " ENGINE = InnoDB DEFAULT CHARSET = utf8mb4"),
            format!(
                "INSERT INTO bench_orders
                 SELECT seq, at, CASE WHEN seq % {DRAFT_EVERY} = 0 THEN NULL ELSE at END,
                        1 + seq % 100, CONCAT('post ', seq)
                 FROM (SELECT seq, TIMESTAMP '2023-11-14 22:13:20' + INTERVAL ((seq * 7919) % {slots}) SECOND AS at
                       FROM seq_1_to_{rows}) AS t"
            ),
            "ANALYZE TABLE bench_orders".to_owned(),
        ),
    };
    let (id, timestamp, text, engine) = create;
    let mut statements: Vec<String> = drop.into_iter().map(str::to_owned).collect();
    statements.push(format!(
        "CREATE TABLE bench_orders (
            id {id} PRIMARY KEY NOT NULL,
            created_at {timestamp} NOT NULL,
            published_at {timestamp} NULL,
            author_id BIGINT NOT NULL,
            title {text} NOT NULL
        ){engine}"
    ));
    statements.push(fill);
    statements.extend(indexes(backend));
    statements.push(analyze);
    statements.push(ORDER_META.into());
    statements.push(format!("INSERT INTO bench_orders_meta VALUES ({SCHEMA_VERSION}, {rows})"));
    statements
}

/// The orders bench's SQLite database, `<target>/keyset-bench/bench-orders-v<version>-<rows>.sqlite`.
pub fn sqlite() -> SqliteConnection {
    let rows = rows();
    let stem = format!("bench-orders-v{SCHEMA_VERSION}-{rows}");
    sqlite_database(&stem, rows, valid, &order_statements(Backend::Sqlite))
}

/// The orders bench's PostgreSQL table (persistent, built once), at `url`.
#[cfg(feature = "postgres")]
pub fn postgres(url: &str) -> PgConnection {
    let rows = rows();
    let mut conn = PgConnection::establish(url)
        .unwrap_or_else(|err| panic!("PostgreSQL at {url} cannot be reached: {err}"));
    if !valid(&mut conn, rows) {
        crate::seed::run(&mut conn, "PostgreSQL", rows, &order_statements(Backend::Postgres));
    }
    conn
}

/// The orders bench's MariaDB table (InnoDB, persistent), at `url`.
#[cfg(feature = "mysql")]
pub fn mysql(url: &str) -> MysqlConnection {
    let rows = rows();
    let mut conn = MysqlConnection::establish(url)
        .unwrap_or_else(|err| panic!("MariaDB at {url} cannot be reached: {err}"));
    if !valid(&mut conn, rows) {
        crate::seed::run(&mut conn, "MariaDB", rows, &order_statements(Backend::Mysql));
    }
    conn
}
