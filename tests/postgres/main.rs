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

#[path = "../suite/compose.rs"]
mod compose;
#[path = "../suite/db.rs"]
mod db;
#[path = "../suite/nulls.rs"]
mod nulls;
#[path = "../suite/walk.rs"]
mod walk;

mod asynchronous;
mod plan;
mod sql;
