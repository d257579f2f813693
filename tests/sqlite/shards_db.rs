//! Shards for `suite/shards.rs` on SQLite: database files of their own in a fresh temporary
//! directory, removed when the test ends.

use diesel::prelude::*;

use crate::{AsyncConn, Conn};

/// Shard counts the suite walks: 2, 3 and 4 files.
pub const SHARD_COUNTS: &[usize] = &[2, 3, 4];

/// `count` databases with the suite's schema (`tag` sorts in byte order: SQLite's `BINARY`).
pub struct Databases {
    dir: std::path::PathBuf,
    paths: Vec<String>,
}

impl Drop for Databases {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub fn fresh(tag: &str, count: usize) -> Databases {
    let dir = std::env::temp_dir().join(format!("keyset-shards-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let paths: Vec<String> =
        (0..count).map(|i| dir.join(format!("shard-{i}.db")).display().to_string()).collect();
    for path in &paths {
        let mut conn = SqliteConnection::establish(path).expect("a database file");
        for statement in keyset_tests::schema::SQLITE_DDL {
            diesel::sql_query(*statement).execute(&mut conn).expect("create schema");
        }
    }
    Databases { dir, paths }
}

impl Databases {
    pub fn connect(&self) -> Vec<Conn> {
        let connect = |path: &String| {
            let mut conn = SqliteConnection::establish(path).unwrap();
            // Throwaway files: no fsync per write.
            diesel::sql_query("PRAGMA synchronous = OFF").execute(&mut conn).unwrap();
            conn
        };
        self.paths.iter().map(connect).collect()
    }

    pub async fn connect_async(&self) -> Vec<AsyncConn> {
        use diesel_async::AsyncConnection;
        let mut conns = Vec::new();
        for path in &self.paths {
            conns.push(AsyncConn::establish(path).await.expect("a database file"));
        }
        conns
    }
}

/// Makes the shard's next statement fail. SQLite has no server to stop: its posts table goes,
/// so the page's statement fails at the database as a lost shard's would.
pub fn take_down(conn: &mut Conn) {
    diesel::sql_query("DROP TABLE posts").execute(conn).expect("drop the shard's table");
}
