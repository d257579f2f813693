//! The behaviour suite on SQLite (diesel's bundled libsqlite3, in memory), plus what only SQLite
//! shows: the SQL pinned with `debug_query`, query plans, tokens and request parsing.

use diesel::prelude::*;

/// The connection type of this suite; `suite/*.rs` is written against it.
pub type Conn = SqliteConnection;

/// A fresh in-memory database (private to this connection) with the schema created.
pub fn connect() -> Conn {
    let mut conn = SqliteConnection::establish(":memory:").expect("open in-memory SQLite");
    for statement in keyset_tests::schema::SQLITE_DDL {
        diesel::sql_query(*statement).execute(&mut conn).expect("create schema");
    }
    conn
}

/// The async connection of this suite: SQLite through diesel-async's `SyncConnectionWrapper`.
pub type AsyncConn = diesel_async::sync_connection_wrapper::SyncConnectionWrapper<SqliteConnection>;

/// A fresh in-memory database on the async path, with the schema created.
pub async fn connect_async() -> AsyncConn {
    use diesel_async::AsyncConnection;
    let mut conn = AsyncConn::establish(":memory:").await.expect("open in-memory SQLite");
    for statement in keyset_tests::schema::SQLITE_DDL {
        diesel_async::RunQueryDsl::execute(diesel::sql_query(*statement), &mut conn)
            .await
            .expect("create schema");
    }
    conn
}

/// A statement as Diesel's instrumentation shows it, in one form for both paths: the SQL, and
/// its binds. diesel-async's SQLite wrapper shows each bind as the SQLite value it became
/// (`I64(2)`, `String("2023-11-14 22:13:32.000012")`), the sync connection as the Rust value
/// (`2`, `2023-11-14T22:13:32.000012`): wrappers and quotes are dropped, and a timestamp's `T` is
/// a space.
pub fn same_statement(shown: &str) -> String {
    let Some((sql, binds)) = shown.split_once(" -- binds: ") else { return shown.to_owned() };
    let mut plain = binds.to_owned();
    for wrapper in ["I64(", "I32(", "F64(", "Double(", "Text(", "String(", "Binary(", "Some("] {
        while let Some(at) = plain.find(wrapper) {
            let inner = at + wrapper.len();
            let close = inner + plain[inner..].find(')').unwrap_or(plain.len() - inner);
            plain = format!("{}{}{}", &plain[..at], &plain[inner..close], &plain[close + 1..]);
        }
    }
    let mut out: Vec<char> = plain.chars().filter(|&c| c != '"').collect();
    for at in 1..out.len().saturating_sub(1) {
        if out[at] == 'T' && out[at - 1].is_ascii_digit() && out[at + 1].is_ascii_digit() {
            out[at] = ' ';
        }
    }
    format!("{sql} -- binds: {}", out.into_iter().collect::<String>())
}

/// Cases per property test unless `PROPTEST_CASES` says otherwise. In memory, about a millisecond
/// a case: thousands of cases in the default run.
pub const PROPERTY_CASES: u32 = 1_000;

/// The timestamps the schema's `Timestamp` columns hold here, in microseconds since the epoch:
/// years 1000 to 9999.
pub const TIMESTAMP_MICROS: (i64, i64) = (-30_610_224_000_000_000 + 1, 253_402_300_799_999_999);

#[path = "../suite/mod.rs"]
mod suite;

mod shards_db;

mod feed_plan;
mod feed_reads;

mod hygiene;
mod levels;
mod plan;
mod shared;
mod signed;
mod sql;

/// A fresh database for the migrations test, and how to read its plans.
mod migrations_db {
    use diesel::prelude::*;

    pub use keyset_example_blog::SQLITE_MIGRATIONS as MIGRATIONS;
    pub use keyset_runtime::explain::sqlite_index_seek as index_seek;

    /// An in-memory database: private to the connection, gone with it.
    pub fn fresh_database() -> (super::Conn, ()) {
        (SqliteConnection::establish(":memory:").unwrap(), ())
    }

    /// The migration writer's tests: a fresh database each.
    pub fn fresh_named(_tag: &str) -> (super::Conn, ()) {
        fresh_database()
    }

    pub const BACKEND: keyset_codegen::Backend = keyset_codegen::Backend::Sqlite;

    /// A `CREATE TABLE` as SQLite users write it: schema-qualified, quoted, `IF NOT EXISTS`.
    pub const CREATE_COMMENTS: &str = r#"CREATE TABLE IF NOT EXISTS main."comments" (id BIGINT PRIMARY KEY, posted_at BIGINT NOT NULL);"#;

    /// The indexes on a table (bound as the parameter), by name.
    pub const INDEXES_SQL: &str =
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?";

    pub fn analyze(conn: &mut super::Conn) {
        diesel::sql_query("ANALYZE").execute(conn).unwrap();
    }

    /// Fresh statistics of the stories table, for the named orders' plans.
    pub fn analyze_stories(conn: &mut super::Conn) {
        diesel::sql_query("ANALYZE").execute(conn).unwrap();
    }

    /// Fresh statistics of the posts and their authors, for the joins' plans.
    pub fn analyze_joins(conn: &mut super::Conn) {
        diesel::sql_query("ANALYZE").execute(conn).unwrap();
    }
}
