//! The databases a test runs on: SQLite (a temporary file) always, PostgreSQL with the
//! `postgres` feature, MariaDB/MySQL with the `mysql` feature. On a server each test gets a
//! schema (PostgreSQL) or database (MariaDB) of its own, so tests running at once never share a
//! `posts` table, and it is dropped when the test ends, pass or fail. A server that cannot be
//! reached fails the test: with the feature on, it is expected to run.

use keyset_examples::db::Db;
use keyset_examples::pool::PoolOptions;

/// An open database, what it is for messages, and what removes it afterwards.
pub struct Database {
    pub name: String,
    pub db: Db,
    /// The server's URL it was opened with (its schema or database the test's own); `None` for
    /// SQLite's temporary file.
    pub url: Option<String>,
    _scratch: Option<Scratch>,
}

/// Every database of this build, each seeded with `rows` posts, for the test `test`.
pub async fn all(test: &str, rows: i64, options: PoolOptions) -> Vec<Database> {
    let db = Db::open(None, rows, options).await.expect("open a temporary SQLite file");
    #[allow(unused_mut)]
    let mut all = vec![Database { name: db.describe().to_owned(), db, url: None, _scratch: None }];
    #[cfg(feature = "postgres")]
    all.push(postgres(test, rows, options).await);
    #[cfg(feature = "mysql")]
    all.push(mysql(test, rows, options).await);
    let _ = test;
    all
}

/// The server's URL: `$var`, or the default the README names.
fn server_url(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_owned())
}

/// A test's own schema or database name: the test and this process.
fn scratch_name(test: &str) -> String {
    format!("keyset_examples_{test}_{}", std::process::id())
}

#[cfg(feature = "postgres")]
async fn postgres(test: &str, rows: i64, options: PoolOptions) -> Database {
    use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
    let base = server_url("PG_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test");
    let schema = scratch_name(test);
    let mut conn = AsyncPgConnection::establish(&base).await.unwrap_or_else(|err| {
        panic!("PostgreSQL at {base} (PG_DATABASE_URL) cannot be reached: {err}")
    });
    let create = format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}");
    conn.batch_execute(&create).await.expect("create the test's schema");
    // Every pooled connection finds `posts` in the test's schema first.
    let separator = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{separator}options=-csearch_path%3D{schema}");
    let db = Db::open(Some(&url), rows, options).await.expect("open PostgreSQL");
    let name = format!("{} (schema {schema})", db.describe());
    let drop = format!("DROP SCHEMA IF EXISTS {schema} CASCADE");
    Database { name, db, url: Some(url), _scratch: Some(Scratch::Postgres { url: base, drop }) }
}

#[cfg(feature = "mysql")]
async fn mysql(test: &str, rows: i64, options: PoolOptions) -> Database {
    use diesel_async::{AsyncConnection, AsyncMysqlConnection, SimpleAsyncConnection};
    let base = server_url("MYSQL_DATABASE_URL", "mysql://root@127.0.0.1:3306/test");
    let database = scratch_name(test);
    let mut conn = AsyncMysqlConnection::establish(&base).await.unwrap_or_else(|err| {
        panic!("MariaDB at {base} (MYSQL_DATABASE_URL) cannot be reached: {err}")
    });
    let create = format!("DROP DATABASE IF EXISTS {database}; CREATE DATABASE {database}");
    conn.batch_execute(&create).await.expect("create the test's database");
    // The same server and login, the test's database: the URL's path is replaced.
    let (server, query) = base.split_once('?').map_or((&base[..], ""), |(s, q)| (s, q));
    let root =
        server.rfind('/').filter(|&at| at > "mysql://".len()).map_or(server, |at| &server[..at]);
    let url = if query.is_empty() {
        format!("{root}/{database}")
    } else {
        format!("{root}/{database}?{query}")
    };
    let db = Db::open(Some(&url), rows, options).await.expect("open MariaDB");
    let name = format!("{} (database {database})", db.describe());
    let drop = format!("DROP DATABASE IF EXISTS {database}");
    Database { name, db, url: Some(url), _scratch: Some(Scratch::Mysql { url: base, drop }) }
}

/// Nothing to remove: this build has no server backend.
#[cfg(not(any(feature = "postgres", feature = "mysql")))]
enum Scratch {}

/// What a server test leaves behind, dropped with it.
#[cfg(any(feature = "postgres", feature = "mysql"))]
enum Scratch {
    #[cfg(feature = "postgres")]
    Postgres { url: String, drop: String },
    #[cfg(feature = "mysql")]
    Mysql { url: String, drop: String },
}

#[cfg(any(feature = "postgres", feature = "mysql"))]
impl Drop for Scratch {
    /// Runs the `DROP` on a thread of its own, with a runtime of its own: `Drop` cannot await,
    /// and the test's runtime may be shutting down.
    fn drop(&mut self) {
        let (url, sql, postgres) = match *self {
            #[cfg(feature = "postgres")]
            Scratch::Postgres { ref url, ref drop } => (url.clone(), drop.clone(), true),
            #[cfg(feature = "mysql")]
            Scratch::Mysql { ref url, ref drop } => (url.clone(), drop.clone(), false),
        };
        let statement = sql.clone();
        let cleanup = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
            runtime.map_err(|err| err.to_string())?.block_on(execute(postgres, &url, &sql))
        });
        match cleanup.join() {
            Ok(Ok(())) => {}
            Ok(Err(err)) => eprintln!("cleanup failed ({statement}): {err}"),
            Err(_) => eprintln!("cleanup panicked ({statement})"),
        }
    }
}

/// Runs `sql` on the server at `url`.
#[cfg(any(feature = "postgres", feature = "mysql"))]
#[allow(unused_variables)]
async fn execute(postgres: bool, url: &str, sql: &str) -> Result<(), String> {
    #[allow(unused_imports)]
    use diesel_async::{AsyncConnection, SimpleAsyncConnection};
    #[cfg(feature = "postgres")]
    if postgres {
        let conn = diesel_async::AsyncPgConnection::establish(url).await;
        return conn
            .map_err(|err| err.to_string())?
            .batch_execute(sql)
            .await
            .map_err(|err| err.to_string());
    }
    #[cfg(feature = "mysql")]
    if !postgres {
        let conn = diesel_async::AsyncMysqlConnection::establish(url).await;
        return conn
            .map_err(|err| err.to_string())?
            .batch_execute(sql)
            .await
            .map_err(|err| err.to_string());
    }
    Err(format!("no server backend in this build for `{sql}`"))
}
