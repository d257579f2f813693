//! What every behaviour suite shares: the schema, the models (1 to 3 sort keys, uniform and mixed
//! directions, a renamed column), seeded data with heavy ties, and the walks that page through a
//! table and compare the result with an independent, hand-written ORDER BY.

pub mod models;
pub mod schema;
pub mod seed;
pub mod walk;

use diesel::prelude::*;

/// A fresh in-memory SQLite database with the schema created.
pub fn sqlite() -> SqliteConnection {
    let mut conn = SqliteConnection::establish(":memory:").expect("open in-memory SQLite");
    for statement in schema::SQLITE_DDL {
        diesel::sql_query(*statement).execute(&mut conn).expect("create schema");
    }
    conn
}
