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

#[path = "../suite/compose.rs"]
mod compose;
#[path = "../suite/db.rs"]
mod db;
#[path = "../suite/nulls.rs"]
mod nulls;
#[path = "../suite/walk.rs"]
mod walk;

mod plan;
mod sql;
