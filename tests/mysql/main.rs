//! The behaviour suite on a real MariaDB (or MySQL) server, plus what is MySQL's own: no row
//! values in the SQL, and range plans without filesort.
//!
//! Every test works on temporary tables, private to its connection, so tests run in parallel.

use diesel::prelude::*;

/// The connection type of this suite; `suite/*.rs` is written against it.
pub type Conn = MysqlConnection;

/// A connection to the server (`MYSQL_DATABASE_URL`, default [`keyset_tests::MYSQL_URL`]) with
/// the schema created as temporary tables. Panics, failing the test, when the server is down.
pub fn connect() -> Conn {
    let url = keyset_tests::database_url("MYSQL_DATABASE_URL", keyset_tests::MYSQL_URL);
    let mut conn = MysqlConnection::establish(&url)
        .unwrap_or_else(|err| panic!("MariaDB/MySQL at {url} cannot be reached: {err}"));
    for statement in keyset_tests::schema::MYSQL_DDL {
        diesel::sql_query(*statement).execute(&mut conn).expect("create schema");
    }
    conn
}

/// The async connection of this suite: diesel-async's own, over mysql_async.
pub type AsyncConn = diesel_async::AsyncMysqlConnection;

/// [`connect`] on the async path: its own temporary tables.
pub async fn connect_async() -> AsyncConn {
    use diesel_async::AsyncConnection;
    let url = keyset_tests::database_url("MYSQL_DATABASE_URL", keyset_tests::MYSQL_URL);
    let mut conn = AsyncConn::establish(&url)
        .await
        .unwrap_or_else(|err| panic!("MariaDB/MySQL at {url} cannot be reached: {err}"));
    for statement in keyset_tests::schema::MYSQL_DDL {
        diesel_async::RunQueryDsl::execute(diesel::sql_query(*statement), &mut conn)
            .await
            .expect("create schema");
    }
    conn
}

/// A statement as Diesel's instrumentation shows it: the SQL and its binds, alike on both paths.
pub fn same_statement(shown: &str) -> String {
    shown.to_owned()
}

/// Cases per property test unless `PROPTEST_CASES` says otherwise (`.ci/run` sets it for its
/// configured run): each query is a round trip to the server.
pub const PROPERTY_CASES: u32 = 64;

/// The timestamps the schema's `Timestamp` columns hold here, in microseconds since the epoch.
/// Diesel binds `Timestamp` as MySQL's TIMESTAMP type, whose range is 1970 to 2038 (a value
/// outside it arrives as NULL, even in a `DATETIME(6)` column); `Datetime` has no such limit.
pub const TIMESTAMP_MICROS: (i64, i64) = (86_400_000_000 + 1, 2_147_385_600_000_000 - 1);

#[path = "../suite/mod.rs"]
mod suite;

mod shards_db;

mod feed_plan;

mod plan;
mod reads;
mod shared;
mod sql;

/// A fresh database for the migrations test, and how to read its plans.
mod migrations_db {
    use diesel::prelude::*;

    pub use keyset_example_blog::MYSQL_MIGRATIONS as MIGRATIONS;
    pub use keyset_runtime::explain::mysql_index_seek as index_seek;

    /// Drops the test's database when the test ends.
    pub struct Database(String);

    impl Drop for Database {
        fn drop(&mut self) {
            let mut conn = super::connect();
            let _ =
                diesel::sql_query(format!("DROP DATABASE IF EXISTS {}", self.0)).execute(&mut conn);
        }
    }

    /// A database of its own on the server (migrations create real tables, which other tests
    /// must not see).
    pub fn fresh_database() -> (super::Conn, Database) {
        fresh_named("migrations")
    }

    /// A database of its own for one test: `tag` keeps parallel tests apart.
    pub fn fresh_named(tag: &str) -> (super::Conn, Database) {
        let url = keyset_tests::database_url("MYSQL_DATABASE_URL", keyset_tests::MYSQL_URL);
        let mut conn = MysqlConnection::establish(&url).expect("MariaDB/MySQL is reachable");
        let name = format!("keyset_{tag}_{}", std::process::id());
        diesel::sql_query(format!("DROP DATABASE IF EXISTS {name}")).execute(&mut conn).unwrap();
        diesel::sql_query(format!("CREATE DATABASE {name} DEFAULT CHARSET utf8mb4"))
            .execute(&mut conn)
            .unwrap();
        diesel::sql_query(format!("USE {name}")).execute(&mut conn).unwrap();
        (conn, Database(name))
    }

    pub const BACKEND: keyset_codegen::Backend = keyset_codegen::Backend::Mysql;

    /// A `CREATE TABLE` as MySQL and MariaDB users write it: quoted, `IF NOT EXISTS`.
    pub const CREATE_COMMENTS: &str = "CREATE TABLE IF NOT EXISTS `comments` \
         (`id` BIGINT PRIMARY KEY, `posted_at` BIGINT NOT NULL) ENGINE = InnoDB;";

    /// The indexes on a table (bound as the parameter), by name.
    pub const INDEXES_SQL: &str = "SELECT DISTINCT index_name AS name \
         FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ?";

    pub fn analyze(conn: &mut super::Conn) {
        diesel::sql_query("ANALYZE TABLE posts, memberships").execute(conn).unwrap();
    }

    /// Fresh statistics of the stories table, for the named orders' plans.
    pub fn analyze_stories(conn: &mut super::Conn) {
        diesel::sql_query("ANALYZE TABLE stories").execute(conn).unwrap();
    }

    /// Fresh statistics of the posts and their authors, for the joins' plans.
    pub fn analyze_joins(conn: &mut super::Conn) {
        diesel::sql_query("ANALYZE TABLE posts, authors").execute(conn).unwrap();
    }
}
