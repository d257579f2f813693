//! Tables that several connections share, for the concurrent-writer test (temporary tables are
//! private to their connection): a schema of its own per test run, first on every connection's
//! `search_path`, dropped at the end.

use std::sync::atomic::{AtomicUsize, Ordering};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use crate::Conn;

/// A fresh schema `keyset_shared_<pid>_<n>` holding the tables; dropped with its tables on drop.
pub struct SharedDb {
    schema: String,
}

impl SharedDb {
    pub fn create() -> SharedDb {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let schema = format!(
            "keyset_shared_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut conn = establish();
        conn.batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .expect("create schema");
        let db = SharedDb { schema };
        let mut conn = db.connect();
        for statement in keyset_tests::schema::POSTGRES_DDL {
            conn.batch_execute(&statement.replacen("CREATE TEMPORARY TABLE", "CREATE TABLE", 1))
                .expect("create tables");
        }
        db
    }

    /// A new connection whose unqualified table names are this schema's.
    pub fn connect(&self) -> Conn {
        let mut conn = establish();
        conn.batch_execute(&format!("SET search_path TO {}", self.schema)).expect("search_path");
        conn
    }

    /// [`connect`](Self::connect) on the async path.
    pub async fn connect_async(&self) -> crate::AsyncConn {
        use diesel_async::{AsyncConnection, SimpleAsyncConnection};
        let url = keyset_tests::database_url("PG_DATABASE_URL", keyset_tests::POSTGRES_URL);
        let mut conn = crate::AsyncConn::establish(&url)
            .await
            .unwrap_or_else(|err| panic!("PostgreSQL at {url} cannot be reached: {err}"));
        conn.batch_execute(&format!("SET search_path TO {}", self.schema))
            .await
            .expect("search_path");
        conn
    }
}

impl Drop for SharedDb {
    fn drop(&mut self) {
        let _ =
            establish().batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.schema));
    }
}

fn establish() -> Conn {
    let url = keyset_tests::database_url("PG_DATABASE_URL", keyset_tests::POSTGRES_URL);
    PgConnection::establish(&url)
        .unwrap_or_else(|err| panic!("PostgreSQL at {url} cannot be reached: {err}"))
}
