//! A database file that several connections share, for the concurrent-writer test (an in-memory
//! database is private to its connection). WAL lets the walker read while the writer commits.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use crate::Conn;

/// A fresh database file in the temporary directory with the schema created; removed on drop.
pub struct SharedDb {
    path: PathBuf,
}

impl SharedDb {
    pub fn create() -> SharedDb {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "keyset-shared-{}-{}.db",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let db = SharedDb { path: std::env::temp_dir().join(name) };
        db.remove_files();
        let mut conn = db.connect();
        conn.batch_execute("PRAGMA journal_mode = WAL").expect("WAL");
        for statement in keyset_tests::schema::SQLITE_DDL {
            diesel::sql_query(*statement).execute(&mut conn).expect("create schema");
        }
        db
    }

    /// A new connection to the database; it waits up to 5 s for a lock rather than failing.
    pub fn connect(&self) -> Conn {
        let url = self.path.to_str().expect("a UTF-8 temporary path");
        let mut conn = SqliteConnection::establish(url).expect("open the database file");
        conn.batch_execute("PRAGMA busy_timeout = 5000").expect("busy timeout");
        conn
    }

    /// [`connect`](Self::connect) on the async path: diesel-async's wrapper around a connection
    /// to the same file.
    pub async fn connect_async(&self) -> crate::AsyncConn {
        use diesel_async::{AsyncConnection, SimpleAsyncConnection};
        let url = self.path.to_str().expect("a UTF-8 temporary path");
        let mut conn = crate::AsyncConn::establish(url).await.expect("open the database file");
        conn.batch_execute("PRAGMA busy_timeout = 5000").await.expect("busy timeout");
        conn
    }

    fn remove_files(&self) {
        for suffix in ["", "-wal", "-shm"] {
            let mut path = self.path.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Drop for SharedDb {
    fn drop(&mut self) {
        self.remove_files();
    }
}
