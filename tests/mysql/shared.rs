//! Tables that several connections share, for the concurrent-writer test (temporary tables are
//! private to their connection): a database of its own per test run, selected with `USE` on
//! every connection, dropped at the end.

use std::sync::atomic::{AtomicUsize, Ordering};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use crate::Conn;

/// A fresh database `keyset_shared_<pid>_<n>` holding the tables; dropped on drop.
pub struct SharedDb {
    database: String,
}

impl SharedDb {
    pub fn create() -> SharedDb {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let database = format!(
            "keyset_shared_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut conn = establish();
        conn.batch_execute(&format!(
            "DROP DATABASE IF EXISTS {database}; CREATE DATABASE {database} DEFAULT CHARSET = utf8mb4"
        ))
        .expect("create database");
        let db = SharedDb { database };
        let mut conn = db.connect();
        for statement in keyset_tests::schema::MYSQL_DDL {
            conn.batch_execute(&statement.replacen("CREATE TEMPORARY TABLE", "CREATE TABLE", 1))
                .expect("create tables");
        }
        db
    }

    /// A new connection whose unqualified table names are this database's.
    pub fn connect(&self) -> Conn {
        let mut conn = establish();
        conn.batch_execute(&format!("USE {}", self.database)).expect("USE");
        conn
    }

    /// [`connect`](Self::connect) on the async path.
    pub async fn connect_async(&self) -> crate::AsyncConn {
        use diesel_async::{AsyncConnection, SimpleAsyncConnection};
        let url = keyset_tests::database_url("MYSQL_DATABASE_URL", keyset_tests::MYSQL_URL);
        let mut conn = crate::AsyncConn::establish(&url)
            .await
            .unwrap_or_else(|err| panic!("MariaDB/MySQL at {url} cannot be reached: {err}"));
        conn.batch_execute(&format!("USE {}", self.database)).await.expect("USE");
        conn
    }
}

impl Drop for SharedDb {
    fn drop(&mut self) {
        let _ = establish().batch_execute(&format!("DROP DATABASE IF EXISTS {}", self.database));
    }
}

fn establish() -> Conn {
    let url = keyset_tests::database_url("MYSQL_DATABASE_URL", keyset_tests::MYSQL_URL);
    MysqlConnection::establish(&url)
        .unwrap_or_else(|err| panic!("MariaDB/MySQL at {url} cannot be reached: {err}"))
}
