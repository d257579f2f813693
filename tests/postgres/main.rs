//! The behaviour suite on a real PostgreSQL server, plus what is PostgreSQL's own: row values in
//! the SQL, index-seek plans (also across hash partitions), and diesel-async.
//!
//! Every test works on temporary tables, private to its connection, so tests run in parallel.

use diesel::prelude::*;

/// The connection type of this suite; `suite/*.rs` is written against it.
pub type Conn = PgConnection;

/// A connection to the server (`PG_DATABASE_URL`, default [`keyset_tests::POSTGRES_URL`]) with
/// the schema created as temporary tables. Panics, failing the test, when the server is down.
pub fn connect() -> Conn {
    let url = keyset_tests::database_url("PG_DATABASE_URL", keyset_tests::POSTGRES_URL);
    let mut conn = PgConnection::establish(&url)
        .unwrap_or_else(|err| panic!("PostgreSQL at {url} cannot be reached: {err}"));
    for statement in keyset_tests::schema::POSTGRES_DDL {
        diesel::sql_query(*statement).execute(&mut conn).expect("create schema");
    }
    conn
}

/// The async connection of this suite: diesel-async's own, over tokio-postgres.
pub type AsyncConn = diesel_async::AsyncPgConnection;

/// [`connect`] on the async path: its own temporary tables.
pub async fn connect_async() -> AsyncConn {
    use diesel_async::AsyncConnection;
    let url = keyset_tests::database_url("PG_DATABASE_URL", keyset_tests::POSTGRES_URL);
    let mut conn = AsyncConn::establish(&url)
        .await
        .unwrap_or_else(|err| panic!("PostgreSQL at {url} cannot be reached: {err}"));
    for statement in keyset_tests::schema::POSTGRES_DDL {
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

/// The timestamps the schema's `Timestamp` columns hold here, in microseconds since the epoch:
/// years 1000 to 9999.
pub const TIMESTAMP_MICROS: (i64, i64) = (-30_610_224_000_000_000 + 1, 253_402_300_799_999_999);

#[path = "../suite/mod.rs"]
mod suite;

mod shards_db;

mod feed_plan;

mod concurrently;
mod generic_plans;
mod plan;
mod range_partitions;
mod reads;
mod shared;
mod sql;
mod statement_count;
mod union;
mod zoned_and_wide_keys;

/// A fresh database for the migrations test, and how to read its plans.
mod migrations_db {
    use diesel::prelude::*;

    pub use keyset_example_blog::POSTGRES_MIGRATIONS as MIGRATIONS;
    pub use keyset_runtime::explain::postgres_index_seek as index_seek;

    /// Drops the test's schema when the test ends.
    pub struct Schema(String);

    impl Drop for Schema {
        fn drop(&mut self) {
            let mut conn = super::connect();
            let _ = diesel::sql_query(format!("DROP SCHEMA IF EXISTS {} CASCADE", self.0))
                .execute(&mut conn);
        }
    }

    /// A schema of its own on the server (migrations create real tables, which other tests must
    /// not see), first on the connection's search path. The connection has no temporary tables:
    /// those would come first and hide the schema's.
    pub fn fresh_database() -> (super::Conn, Schema) {
        let url = keyset_tests::database_url("PG_DATABASE_URL", keyset_tests::POSTGRES_URL);
        let mut conn = PgConnection::establish(&url).expect("PostgreSQL is reachable");
        let name = format!("keyset_migrations_{}", std::process::id());
        diesel::sql_query(format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
            .execute(&mut conn)
            .unwrap();
        diesel::sql_query(format!("CREATE SCHEMA {name}")).execute(&mut conn).unwrap();
        diesel::sql_query(format!("SET search_path TO {name}")).execute(&mut conn).unwrap();
        (conn, Schema(name))
    }

    /// Drops the test's database when the test ends, even with its connection still open.
    pub struct Database(String);

    impl Drop for Database {
        fn drop(&mut self) {
            let mut conn = super::connect();
            let _ = diesel::sql_query(format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.0))
                .execute(&mut conn);
        }
    }

    /// A database of its own on the server for one of the migration writer's tests.
    pub fn fresh_named(tag: &str) -> (super::Conn, Database) {
        let url = keyset_tests::database_url("PG_DATABASE_URL", keyset_tests::POSTGRES_URL);
        let mut admin = PgConnection::establish(&url).expect("PostgreSQL is reachable");
        let name = format!("keyset_writer_{tag}_{}", std::process::id());
        diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&mut admin)
            .unwrap();
        diesel::sql_query(format!("CREATE DATABASE {name}")).execute(&mut admin).unwrap();
        let (server, _) = url.rsplit_once('/').expect("a database URL ends in /<database>");
        let conn = PgConnection::establish(&format!("{server}/{name}")).unwrap();
        (conn, Database(name))
    }

    pub const BACKEND: keyset_codegen::Backend = keyset_codegen::Backend::Postgres;

    /// A `CREATE TABLE` as PostgreSQL users write it: schema-qualified, quoted, `IF NOT EXISTS`.
    pub const CREATE_COMMENTS: &str = r#"CREATE TABLE IF NOT EXISTS "public"."comments" (id BIGINT PRIMARY KEY, posted_at BIGINT NOT NULL);"#;

    /// The indexes on a table (bound as the parameter), by name.
    pub const INDEXES_SQL: &str = "SELECT indexname::text AS name FROM pg_indexes \
         WHERE schemaname = current_schema() AND tablename = $1";

    pub fn analyze(conn: &mut super::Conn) {
        diesel::sql_query("ANALYZE posts").execute(conn).unwrap();
        diesel::sql_query("ANALYZE memberships").execute(conn).unwrap();
    }

    /// Fresh statistics of the stories table, for the named orders' plans.
    pub fn analyze_stories(conn: &mut super::Conn) {
        diesel::sql_query("ANALYZE stories").execute(conn).unwrap();
    }

    /// Fresh statistics of the posts and their authors, for the joins' plans.
    pub fn analyze_joins(conn: &mut super::Conn) {
        diesel::sql_query("ANALYZE posts").execute(conn).unwrap();
        diesel::sql_query("ANALYZE authors").execute(conn).unwrap();
    }
}
