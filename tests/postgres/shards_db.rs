//! Shards for `suite/shards.rs` on PostgreSQL: databases of their own on the server, dropped when
//! the test ends.

use diesel::prelude::*;

use crate::{AsyncConn, Conn};

/// Shard counts the suite walks: 3 databases.
pub const SHARD_COUNTS: &[usize] = &[3];

/// `count` databases with the suite's schema as real tables, `tag` in the byte-order collation
/// `"C"`.
pub struct Databases {
    names: Vec<String>,
    server: String,
}

impl Drop for Databases {
    fn drop(&mut self) {
        let mut admin = crate::connect();
        for name in &self.names {
            let _ = diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .execute(&mut admin);
        }
    }
}

pub fn fresh(tag: &str, count: usize) -> Databases {
    let url = keyset_tests::database_url("PG_DATABASE_URL", keyset_tests::POSTGRES_URL);
    let (server, _) = url.rsplit_once('/').expect("a database URL ends in /<database>");
    let mut admin = crate::connect();
    let names: Vec<String> =
        (0..count).map(|i| format!("keyset_shard_{tag}_{}_{i}", std::process::id())).collect();
    for name in &names {
        diesel::sql_query(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&mut admin)
            .unwrap();
        diesel::sql_query(format!("CREATE DATABASE {name}")).execute(&mut admin).unwrap();
        let mut conn = PgConnection::establish(&format!("{server}/{name}")).unwrap();
        for statement in keyset_tests::schema::POSTGRES_DDL {
            let statement = statement
                .replace("TEMPORARY ", "")
                .replace("tag TEXT NOT NULL", "tag TEXT COLLATE \"C\" NOT NULL");
            diesel::sql_query(statement).execute(&mut conn).expect("create schema");
        }
    }
    Databases { names, server: server.to_owned() }
}

impl Databases {
    fn urls(&self) -> impl Iterator<Item = String> + '_ {
        self.names.iter().map(|name| format!("{}/{name}", self.server))
    }

    pub fn connect(&self) -> Vec<Conn> {
        self.urls().map(|url| PgConnection::establish(&url).unwrap()).collect()
    }

    pub async fn connect_async(&self) -> Vec<AsyncConn> {
        use diesel_async::AsyncConnection;
        let mut conns = Vec::new();
        for url in self.urls() {
            conns.push(AsyncConn::establish(&url).await.expect("a shard database"));
        }
        conns
    }
}

/// Takes the shard's server session down, as a crashed or restarted shard would: another session
/// terminates its backend, so the connection's next statement fails.
pub fn take_down(conn: &mut Conn) {
    #[derive(QueryableByName)]
    struct Pid {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        pid: i32,
    }
    let Pid { pid } = diesel::sql_query("SELECT pg_backend_pid() AS pid").get_result(conn).unwrap();
    diesel::sql_query(format!("SELECT pg_terminate_backend({pid})"))
        .execute(&mut crate::connect())
        .unwrap();
}
