//! The benchmark table, built once per backend with plain SQL and reused while it is valid.
//!
//! 1,000,000 posts (`KEYSET_BENCH_ROWS` overrides it, for a quick try); `created_at` takes one of
//! `rows / 100` values, one second apart, so every timestamp ties with 99 other rows and every page
//! boundary falls inside a tie group. Ids are shuffled against time (`id * 7919 mod slots`), so
//! the order `created_at DESC, id DESC` visits the primary key out of order, as real data does.
//! The only secondary index is the one the model's ORDER BY needs, `(created_at DESC, id DESC)`,
//! created with the DDL `#[derive(Keyset)]` generates (`Post::INDEXES`).
//!
//! The joins bench's tables ([`joins_sqlite`] and the like) are smaller and separate: 100,000
//! posts (`KEYSET_BENCH_JOIN_ROWS`) tying as above, by 1,000 authors, with their own meta table.
//! So is the orders bench's ([`crate::order_seed`]).
//!
//! A table is valid when its `bench_meta` row, written last, holds this [`SCHEMA_VERSION`] and the
//! row count, and `COUNT(*)` agrees: an interrupted or outdated build is dropped and rebuilt.

use std::time::Instant;

use diesel::dsl;
use diesel::prelude::*;
use diesel::query_dsl::LoadQuery;

use keyset_runtime::migration::Backend;
use keyset_runtime::Keyset;

use crate::schema::{
    bench_join_meta, bench_join_posts, bench_meta, bench_posts, JoinPost, Post, PostByAuthor,
    PostByAuthorGroup,
};

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
pub(crate) fn run<C: Connection>(conn: &mut C, backend: &str, rows: i64, statements: &[String]) {
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
    let statements = sqlite_statements(rows, "", rows);
    sqlite_database(&format!("bench-v{SCHEMA_VERSION}-{rows}"), rows, valid, &statements)
}

/// The statements that build SQLite's table of posts 1..=`rows`, those of them `only` keeps (a
/// `WHERE` on `i`, the id, or nothing), `count` rows in all.
pub(crate) fn sqlite_statements(rows: i64, only: &str, count: i64) -> [String; 6] {
    let slots = rows / TIE_GROUP;
    [
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
             FROM n {only}"
        ),
        index(Backend::Sqlite),
        "ANALYZE".into(),
        META.into(),
        format!("INSERT INTO bench_meta VALUES ({SCHEMA_VERSION}, {count})"),
    ]
}

/// The SQLite database `<target>/keyset-bench/<stem>.sqlite` when `valid` says it is complete,
/// else built with `statements` into a temporary file and renamed when complete.
pub(crate) fn sqlite_database(
    stem: &str,
    rows: i64,
    valid: fn(&mut SqliteConnection, i64) -> bool,
    statements: &[String],
) -> SqliteConnection {
    let dir = crate::work_dir();
    let path = dir.join(format!("{stem}.sqlite"));
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
    let building = dir.join(format!("{stem}.sqlite.building"));
    let _ = std::fs::remove_file(&building);
    let mut conn = open(&building);
    let pragmas =
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144";
    let statements: Vec<String> =
        std::iter::once(pragmas.to_owned()).chain(statements.iter().cloned()).collect();
    run(&mut conn, "SQLite", rows, &statements);
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

/// The joins bench's posts: 100,000, or `KEYSET_BENCH_JOIN_ROWS`.
pub fn join_rows() -> i64 {
    match std::env::var("KEYSET_BENCH_JOIN_ROWS") {
        Ok(rows) => rows.parse().expect("KEYSET_BENCH_JOIN_ROWS is a number of rows"),
        Err(_) => 100_000,
    }
}

/// The joins bench's authors: 100 posts each at 100,000 posts.
pub const AUTHORS: i64 = 1_000;

/// Bump when the joins bench's tables change: stored tables are then rebuilt.
pub const JOIN_SCHEMA_VERSION: i32 = 2;

const JOIN_META: &str = "CREATE TABLE bench_join_meta (schema_version INTEGER PRIMARY KEY NOT NULL, row_count BIGINT NOT NULL)";

/// Whether `conn` holds complete joins-bench tables of `rows` posts of this schema version.
pub fn join_valid<C: Connection>(conn: &mut C, rows: i64) -> bool
where
    dsl::Select<
        bench_join_meta::table,
        (bench_join_meta::schema_version, bench_join_meta::row_count),
    >: LoadQuery<'static, C, (i32, i64)>,
    dsl::Select<bench_join_posts::table, dsl::CountStar>: LoadQuery<'static, C, i64>,
{
    let meta = bench_join_meta::table
        .select((bench_join_meta::schema_version, bench_join_meta::row_count))
        .load::<(i32, i64)>(conn);
    matches!(meta.as_deref(), Ok([(JOIN_SCHEMA_VERSION, n)]) if *n == rows)
        && bench_join_posts::table.count().get_result::<i64>(conn).ok() == Some(rows)
}

/// The indexes the posts' own order and the grouped author's order need, as `#[derive(Keyset)]`
/// writes them for `backend` (the grouped order's on both tables); the author's-name order kept
/// with `reads_and_sorts` gets none.
fn join_indexes(backend: Backend) -> Vec<String> {
    assert!(PostByAuthor::INDEXES.is_empty(), "{:?}", PostByAuthor::INDEXES);
    let [index] = JoinPost::INDEXES else { panic!("JoinPost needs one index") };
    let grouped = PostByAuthorGroup::INDEXES.iter().map(|index| index.create(backend).to_owned());
    std::iter::once(index.create(backend).to_owned()).chain(grouped).collect()
}

/// The joins bench's tables in `backend`'s SQL, after dropping any old ones on a server:
/// `bench_authors` (names `author 0000`.. in an order unrelated to the ids), `bench_join_posts`
/// (ids shuffled against time as in `bench_posts`; no foreign key, which MariaDB would index),
/// the posts' index, fresh statistics and the meta row, written last.
fn join_statements(backend: Backend) -> Vec<String> {
    let rows = join_rows();
    let slots = rows / TIE_GROUP;
    let shuffled = format!("i * 379 % {AUTHORS}");
    let (series, name, at, title, text, timestamp): (fn(i64) -> String, _, _, _, _, _) =
        match backend {
            Backend::Sqlite => (
                |n| format!("(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) SELECT i FROM n)"),
                format!("printf('author %04d', {shuffled})"),
                format!("datetime(1700000000 + (i * 7919) % {slots}, 'unixepoch')"),
                "'post ' || i",
                "TEXT",
                "TIMESTAMP",
            ),
            Backend::Postgres => (
                |n| format!("generate_series(1::bigint, {n}) AS i"),
                format!("'author ' || lpad(({shuffled})::text, 4, '0')"),
                format!("TIMESTAMP '2023-11-14 22:13:20' + ((i * 7919) % {slots}) * INTERVAL '1 second'"),
                "'post ' || i",
                "TEXT",
                "TIMESTAMP",
            ),
            _ => (
                |n| format!("(SELECT seq AS i FROM seq_1_to_{n}) AS n"),
                format!("CONCAT('author ', LPAD({shuffled}, 4, '0'))"),
                format!("TIMESTAMP '2023-11-14 22:13:20' + INTERVAL ((i * 7919) % {slots}) SECOND"),
                "CONCAT('post ', i)",
                "VARCHAR(64)",
                "DATETIME(6)",
            ),
        };
    let mut statements: Vec<String> = match backend {
        // A fresh file: nothing to drop (and SQLite drops one table per statement).
        Backend::Sqlite => Vec::new(),
        _ => vec!["DROP TABLE IF EXISTS bench_join_meta, bench_join_posts, bench_authors".into()],
    };
    statements.extend([
        format!(
            "CREATE TABLE bench_authors (id BIGINT PRIMARY KEY NOT NULL, name {text} NOT NULL)"
        ),
        format!("INSERT INTO bench_authors SELECT i, {name} FROM {}", series(AUTHORS)),
        format!(
            "CREATE TABLE bench_join_posts (
                id BIGINT PRIMARY KEY NOT NULL,
                created_at {timestamp} NOT NULL,
                author_id BIGINT NOT NULL,
                title {text} NOT NULL
            )"
        ),
        format!(
            "INSERT INTO bench_join_posts SELECT i, {at}, 1 + i % {AUTHORS}, {title} FROM {}",
            series(rows)
        ),
    ]);
    statements.extend(join_indexes(backend));
    statements.extend(match backend {
        Backend::Sqlite => vec!["ANALYZE".to_owned()],
        Backend::Postgres => {
            vec!["VACUUM ANALYZE bench_authors".into(), "VACUUM ANALYZE bench_join_posts".into()]
        }
        _ => vec!["ANALYZE TABLE bench_authors, bench_join_posts".into()],
    });
    statements.push(JOIN_META.into());
    statements.push(format!("INSERT INTO bench_join_meta VALUES ({JOIN_SCHEMA_VERSION}, {rows})"));
    statements
}

/// The joins bench's SQLite database, `<target>/keyset-bench/bench-joins-v<version>-<rows>.sqlite`.
pub fn joins_sqlite() -> SqliteConnection {
    let rows = join_rows();
    let stem = format!("bench-joins-v{JOIN_SCHEMA_VERSION}-{rows}");
    sqlite_database(&stem, rows, join_valid, &join_statements(Backend::Sqlite))
}

/// The joins bench's PostgreSQL tables (persistent, built once), at `url`.
#[cfg(feature = "postgres")]
pub fn joins_postgres(url: &str) -> PgConnection {
    let rows = join_rows();
    let mut conn = PgConnection::establish(url)
        .unwrap_or_else(|err| panic!("PostgreSQL at {url} cannot be reached: {err}"));
    if !join_valid(&mut conn, rows) {
        run(&mut conn, "PostgreSQL", rows, &join_statements(Backend::Postgres));
    }
    conn
}

/// The joins bench's MariaDB tables (InnoDB, persistent), at `url`.
#[cfg(feature = "mysql")]
pub fn joins_mysql(url: &str) -> MysqlConnection {
    let rows = join_rows();
    let mut conn = MysqlConnection::establish(url)
        .unwrap_or_else(|err| panic!("MariaDB at {url} cannot be reached: {err}"));
    if !join_valid(&mut conn, rows) {
        run(&mut conn, "MariaDB", rows, &join_statements(Backend::Mysql));
    }
    conn
}
