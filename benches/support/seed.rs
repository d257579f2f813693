//! The benchmark table, built once per backend with plain SQL and reused while it is valid.
//!
//! 1,000,000 posts (`KEYSET_BENCH_ROWS` overrides it, for a quick try); `created_at` takes one of
//! `rows / 100` values, one second apart, so every timestamp ties with 99 other rows and every page
//! boundary falls inside a tie group. Ids are shuffled against time (`id * 7919 mod slots`), so
//! the order `created_at DESC, id DESC` visits the primary key out of order, as real data does.
//! The only secondary index is the one the model's ORDER BY needs, `(created_at DESC, id DESC)`,
//! created with the DDL `#[derive(Keyset)]` generates (`Post::INDEXES`).
//!
//! A table is valid when its `bench_meta` row, written last, holds this [`SCHEMA_VERSION`] and the
//! row count, and `COUNT(*)` agrees: an interrupted or outdated build is dropped and rebuilt.

use std::time::Instant;

use diesel::dsl;
use diesel::prelude::*;
use diesel::query_dsl::LoadQuery;

use keyset_runtime::migration::Backend;
use keyset_runtime::Keyset;

use crate::schema::{bench_meta, bench_posts, Post};

/// Bump when the table's definition or contents change: stored tables are then rebuilt.
pub const SCHEMA_VERSION: i32 = 2;

/// How many rows share each `created_at`.
pub const TIE_GROUP: i64 = 100;

/// The table's size: 1,000,000, or `KEYSET_BENCH_ROWS`.
pub fn rows() -> i64 {
    match std::env::var("KEYSET_BENCH_ROWS") {
        Ok(rows) => rows.parse().expect("KEYSET_BENCH_ROWS is a number of rows"),
        Err(_) => 1_000_000,
    }
}

/// The index the model needs, as `#[derive(Keyset)]` writes it for `backend`.
fn index(backend: Backend) -> String {
    let [index] = Post::INDEXES else { panic!("Post needs one index: {:?}", Post::INDEXES) };
    index.create(backend).to_owned()
}

const META: &str = "CREATE TABLE bench_meta (schema_version INTEGER PRIMARY KEY NOT NULL, row_count BIGINT NOT NULL)";

/// Whether `conn` holds a complete table of `rows` rows of this schema version.
pub fn valid<C: Connection>(conn: &mut C, rows: i64) -> bool
where
    dsl::Select<bench_meta::table, (bench_meta::schema_version, bench_meta::row_count)>:
        LoadQuery<'static, C, (i32, i64)>,
    dsl::Select<bench_posts::table, dsl::CountStar>: LoadQuery<'static, C, i64>,
{
    let meta = bench_meta::table
        .select((bench_meta::schema_version, bench_meta::row_count))
        .load::<(i32, i64)>(conn);
    matches!(meta.as_deref(), Ok([(SCHEMA_VERSION, n)]) if *n == rows)
        && bench_posts::table.count().get_result::<i64>(conn).ok() == Some(rows)
}

/// Runs the statements one by one (PostgreSQL refuses `VACUUM` in a multi-statement string).
fn run<C: Connection>(conn: &mut C, backend: &str, rows: i64, statements: &[String]) {
    eprintln!("building the {backend} benchmark table: {rows} rows (once; reused while valid)");
    let started = Instant::now();
    for statement in statements {
        conn.batch_execute(statement)
            .unwrap_or_else(|err| panic!("{backend}: {err}\nwhile running: {statement}"));
    }
    eprintln!("built in {:.1?}", started.elapsed());
}

/// The SQLite database: `<target>/keyset-bench/bench-v<version>-<rows>.sqlite`, built into a
/// temporary file and renamed when complete.
pub fn sqlite() -> SqliteConnection {
    let rows = rows();
    let dir = crate::work_dir();
    let path = dir.join(format!("bench-v{SCHEMA_VERSION}-{rows}.sqlite"));
    let open = |path: &std::path::Path| {
        SqliteConnection::establish(path.to_str().expect("a UTF-8 path"))
            .unwrap_or_else(|err| panic!("open {}: {err}", path.display()))
    };
    if path.exists() {
        let mut conn = open(&path);
        if valid(&mut conn, rows) {
            return conn;
        }
        drop(conn);
        std::fs::remove_file(&path).expect("remove the outdated database");
    }
    let building = dir.join(format!("bench-v{SCHEMA_VERSION}-{rows}.sqlite.building"));
    let _ = std::fs::remove_file(&building);
    let mut conn = open(&building);
    let slots = rows / TIE_GROUP;
    run(
        &mut conn,
        "SQLite",
        rows,
        &[
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144".into(),
            "CREATE TABLE bench_posts (
                id INTEGER PRIMARY KEY NOT NULL,
                created_at TIMESTAMP NOT NULL,
                author_id BIGINT NOT NULL,
                title TEXT NOT NULL
            )"
            .into(),
            // `datetime()` writes `YYYY-MM-DD HH:MM:SS`, the text Diesel binds for a timestamp
            // without fractional seconds, so the seek's comparisons match the stored values.
            format!(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows})
                 INSERT INTO bench_posts
                 SELECT i, datetime(1700000000 + (i * 7919) % {slots}, 'unixepoch'), 1 + i % 100, 'post ' || i
                 FROM n"
            ),
            index(Backend::Sqlite),
            "ANALYZE".into(),
            META.into(),
            format!("INSERT INTO bench_meta VALUES ({SCHEMA_VERSION}, {rows})"),
        ],
    );
    drop(conn);
    std::fs::rename(&building, &path).expect("move the finished database into place");
    open(&path)
}

/// The PostgreSQL table `bench_posts` (persistent, so it is built once), at `url`.
#[cfg(feature = "postgres")]
pub fn postgres(url: &str) -> PgConnection {
    let rows = rows();
    let mut conn = PgConnection::establish(url)
        .unwrap_or_else(|err| panic!("PostgreSQL at {url} cannot be reached: {err}"));
    if !valid(&mut conn, rows) {
        let slots = rows / TIE_GROUP;
        run(
            &mut conn,
            "PostgreSQL",
            rows,
            &[
                "DROP TABLE IF EXISTS bench_meta, bench_posts".into(),
                "CREATE TABLE bench_posts (
                    id BIGINT PRIMARY KEY,
                    created_at TIMESTAMP NOT NULL,
                    author_id BIGINT NOT NULL,
                    title TEXT NOT NULL
                )"
                .into(),
                format!(
                    "INSERT INTO bench_posts
                     SELECT i, TIMESTAMP '2023-11-14 22:13:20' + ((i * 7919) % {slots}) * INTERVAL '1 second',
                            1 + i % 100, 'post ' || i
                     FROM generate_series(1::bigint, {rows}) AS i"
                ),
                index(Backend::Postgres),
                "VACUUM ANALYZE bench_posts".into(),
                META.into(),
                format!("INSERT INTO bench_meta VALUES ({SCHEMA_VERSION}, {rows})"),
            ],
        );
    }
    conn
}

/// The MariaDB table `bench_posts` (InnoDB, persistent), at `url`. Rows come from MariaDB's
/// `seq_1_to_N` sequence tables.
#[cfg(feature = "mysql")]
pub fn mysql(url: &str) -> MysqlConnection {
    let rows = rows();
    let mut conn = MysqlConnection::establish(url)
        .unwrap_or_else(|err| panic!("MariaDB at {url} cannot be reached: {err}"));
    if !valid(&mut conn, rows) {
        let slots = rows / TIE_GROUP;
        run(
            &mut conn,
            "MariaDB",
            rows,
            &[
                "DROP TABLE IF EXISTS bench_meta, bench_posts".into(),
                "CREATE TABLE bench_posts (
                    id BIGINT PRIMARY KEY,
                    created_at DATETIME(6) NOT NULL,
                    author_id BIGINT NOT NULL,
                    title VARCHAR(64) NOT NULL
                ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4"
                    .into(),
                format!(
                    "INSERT INTO bench_posts
                     SELECT seq, TIMESTAMP '2023-11-14 22:13:20' + INTERVAL ((seq * 7919) % {slots}) SECOND,
                            1 + seq % 100, CONCAT('post ', seq)
                     FROM seq_1_to_{rows}"
                ),
                index(Backend::Mysql),
                "ANALYZE TABLE bench_posts".into(),
                META.into(),
                format!("INSERT INTO bench_meta VALUES ({SCHEMA_VERSION}, {rows})"),
            ],
        );
    }
    conn
}
