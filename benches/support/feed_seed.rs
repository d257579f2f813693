//! The feeds bench's table (`bench_feed`), its model and the followed sets it pages among.
//!
//! 1,000,000 posts (`KEYSET_BENCH_ROWS` overrides it) by 10,000 authors, over
//! [`SLOTS`] seconds of time (about ten posts a second, so timestamps tie across authors):
//!
//! - **inactive** authors 1..=1000 posted only in the oldest 10% of time, older than every other
//!   author's post: the newest-first walk of `(created_at, id)` passes 90% of the table before
//!   it meets one of them (the 1,365 ms first page on PostgreSQL);
//! - **uniform** authors 1011..=10000 posted about 98 times each, spread uniformly over the
//!   newest 90% of time;
//! - **active** authors 1001..=1010 posted as the others do and 2,000 times more each (20x),
//!   all in the newest 10% of time.
//!
//! Built once per backend with plain SQL inside the engine (a recursive CTE on SQLite,
//! `generate_series` on PostgreSQL, `seq_1_to_N` on MariaDB), both indexes the feed needs,
//! fresh statistics, and a meta row written last (an interrupted build is rebuilt).

use chrono::NaiveDateTime;
use diesel::dsl;
use diesel::prelude::*;
use diesel::query_dsl::LoadQuery;
use keyset_runtime::migration::Backend;
use keyset_runtime::Keyset;

use crate::seed::{rows, sqlite_database};

diesel::table! {
    /// The feeds bench's 1,000,000 posts (see the module docs).
    bench_feed (id) {
        id -> BigInt,
        created_at -> Timestamp,
        author_id -> BigInt,
        title -> Text,
    }
}

diesel::table! {
    /// One row, written last when `bench_feed` is complete.
    bench_feed_meta (schema_version) {
        schema_version -> Integer,
        row_count -> BigInt,
    }
}

/// A post of the feed, newest first, the newest id first among ties.
#[derive(Queryable, Selectable, QueryableByName, Keyset, Debug, Clone, PartialEq)]
#[diesel(table_name = bench_feed)]
#[keyset(prefix(author_id))]
pub struct FeedPost {
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
    pub author_id: i64,
    pub title: String,
}

/// Bump when the table changes: stored tables are then rebuilt.
pub const SCHEMA_VERSION: i32 = 2;

/// Distinct seconds of time; the oldest tenth is the inactive authors', the newest tenth the
/// active authors' extra posts.
pub const SLOTS: i64 = 100_000;

/// The posts `1..=ACTIVE_POSTS` are the active authors' extra ones.
pub const ACTIVE_POSTS: i64 = 20_000;

/// The three kinds of followed set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    /// Authors drawn from the uniform ones.
    Uniform,
    /// Authors drawn from the inactive ones, whose posts are all older than anyone else's.
    Inactive,
    /// Five of the very active authors, the rest uniform ones.
    Active,
}

impl Distribution {
    pub const ALL: [Distribution; 3] =
        [Distribution::Uniform, Distribution::Inactive, Distribution::Active];

    pub fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Inactive => "inactive",
            Distribution::Active => "active",
        }
    }

    /// `n` distinct authors of this kind, a deterministic spread over the kind's authors.
    pub fn set(self, n: usize) -> Vec<i64> {
        let n = n as i64;
        let uniform = |n: i64| (0..n).map(|j| 1011 + (j * 7877) % 8990);
        match self {
            Distribution::Uniform => uniform(n).collect(),
            Distribution::Inactive => {
                assert!(n <= 1000, "1,000 inactive authors");
                (0..n).map(|j| 1 + (j * 7877) % 1000).collect()
            }
            Distribution::Active => (1001..=1005).chain(uniform(n - 5)).collect(),
        }
    }
}

/// The followed sets' sizes.
pub const SIZES: [usize; 3] = [10, 100, 1_000];

/// The feed's two indexes, as `#[derive(Keyset)]` writes them: the order's, and the prefix's,
/// `(author_id, created_at DESC, id DESC)`, which the feed seeks once per author.
pub fn indexes(backend: Backend) -> Vec<String> {
    FeedPost::INDEXES.iter().map(|index| index.create(backend).to_owned()).collect()
}

const META: &str = "CREATE TABLE bench_feed_meta (schema_version INTEGER PRIMARY KEY NOT NULL, row_count BIGINT NOT NULL)";

/// Whether `conn` holds a complete feeds-bench table of `rows` rows of this schema version.
pub fn valid<C: Connection>(conn: &mut C, rows: i64) -> bool
where
    dsl::Select<
        bench_feed_meta::table,
        (bench_feed_meta::schema_version, bench_feed_meta::row_count),
    >: LoadQuery<'static, C, (i32, i64)>,
    dsl::Select<bench_feed::table, dsl::CountStar>: LoadQuery<'static, C, i64>,
{
    let meta = bench_feed_meta::table
        .select((bench_feed_meta::schema_version, bench_feed_meta::row_count))
        .load::<(i32, i64)>(conn);
    matches!(meta.as_deref(), Ok([(SCHEMA_VERSION, n)]) if *n == rows)
        && bench_feed::table.count().get_result::<i64>(conn).ok() == Some(rows)
}

/// The table in `backend`'s SQL: rows, both indexes, statistics, the meta row last.
fn statements(backend: Backend) -> Vec<String> {
    let rows = rows();
    // Post `i`'s author and its second (see the module docs); `div` is integer division.
    let author = format!("CASE WHEN i <= {ACTIVE_POSTS} THEN 1001 + i % 10 ELSE 1 + i % 10000 END");
    let slot = |div: &str| {
        format!(
            "CASE WHEN i <= {ACTIVE_POSTS} THEN 90000 + (i * 7919) % 10000 \
                  WHEN i % 10000 < 1000 THEN (i {div} 10000) * 100 + i % 100 \
                  ELSE 10000 + (i {div} 10000) * 900 + (i * 7) % 900 END"
        )
    };
    let (drop, create, fill, analyze) = match backend {
        Backend::Sqlite => (
            None,
            ("INTEGER", "TIMESTAMP", "TEXT", ""),
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows})
                 INSERT INTO bench_feed
                 SELECT i, datetime(1700000000 + {}, 'unixepoch'), {}, 'post ' || i FROM n",
                slot("/"),
                author
            ),
            "ANALYZE".to_owned(),
        ),
        Backend::Postgres => (
            Some("DROP TABLE IF EXISTS bench_feed_meta, bench_feed"),
            ("BIGINT", "TIMESTAMP", "TEXT", ""),
            format!(
                "INSERT INTO bench_feed
                 SELECT i, TIMESTAMP '2023-11-14 22:13:20' + ({}) * INTERVAL '1 second', {},
                        'post ' || i
                 FROM generate_series(1::bigint, {rows}) AS i",
                slot("/"),
                author
            ),
            "VACUUM ANALYZE bench_feed".to_owned(),
        ),
        _ => (
            Some("DROP TABLE IF EXISTS bench_feed_meta, bench_feed"),
            ("BIGINT", "DATETIME(6)", "VARCHAR(64)", " ENGINE = InnoDB DEFAULT CHARSET = utf8mb4"),
            format!(
                "INSERT INTO bench_feed
                 SELECT i, TIMESTAMP '2023-11-14 22:13:20' + INTERVAL ({}) SECOND, {},
                        CONCAT('post ', i)
                 FROM (SELECT seq AS i FROM seq_1_to_{rows}) AS n",
                slot("DIV"),
                author
            ),
            "ANALYZE TABLE bench_feed".to_owned(),
        ),
    };
    let (id, timestamp, text, engine) = create;
    let mut statements: Vec<String> = drop.into_iter().map(str::to_owned).collect();
    statements.push(format!(
        "CREATE TABLE bench_feed (
            id {id} PRIMARY KEY NOT NULL,
            created_at {timestamp} NOT NULL,
            author_id BIGINT NOT NULL,
            title {text} NOT NULL
        ){engine}"
    ));
    statements.push(fill);
    statements.extend(indexes(backend));
    statements.push(analyze);
    statements.push(META.into());
    statements.push(format!("INSERT INTO bench_feed_meta VALUES ({SCHEMA_VERSION}, {rows})"));
    statements
}

/// The feeds bench's SQLite database, `<target>/keyset-bench/bench-feed-v<version>-<rows>.sqlite`.
pub fn sqlite() -> SqliteConnection {
    let rows = rows();
    let stem = format!("bench-feed-v{SCHEMA_VERSION}-{rows}");
    sqlite_database(&stem, rows, valid, &statements(Backend::Sqlite))
}

/// The feeds bench's PostgreSQL table (persistent, built once), at `url`.
#[cfg(feature = "postgres")]
pub fn postgres(url: &str) -> PgConnection {
    let rows = rows();
    let mut conn = PgConnection::establish(url)
        .unwrap_or_else(|err| panic!("PostgreSQL at {url} cannot be reached: {err}"));
    if !valid(&mut conn, rows) {
        crate::seed::run(&mut conn, "PostgreSQL", rows, &statements(Backend::Postgres));
    }
    conn
}

/// The feeds bench's MariaDB table (InnoDB, persistent), at `url`.
#[cfg(feature = "mysql")]
pub fn mysql(url: &str) -> MysqlConnection {
    let rows = rows();
    let mut conn = MysqlConnection::establish(url)
        .unwrap_or_else(|err| panic!("MariaDB at {url} cannot be reached: {err}"));
    if !valid(&mut conn, rows) {
        crate::seed::run(&mut conn, "MariaDB", rows, &statements(Backend::Mysql));
    }
    conn
}
