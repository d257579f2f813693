//! The database of the web and GraphQL examples: one table of posts, listed newest first, on
//! SQLite or PostgreSQL.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, NaiveDateTime};
use diesel::prelude::*;
use keyset_runtime::{Keyset, Page, PageRequest, Paginate};
use serde::Serialize;

diesel::table! {
    posts (id) {
        id -> BigInt,
        created_at -> Timestamp,
        title -> Text,
    }
}

/// A post. Listed newest first; the primary key breaks ties between posts created in the same
/// microsecond, so every post has one place in the list.
#[derive(Queryable, Selectable, Keyset, Serialize, Debug, Clone, PartialEq)]
#[diesel(table_name = posts)]
pub struct Post {
    #[sort(desc)]
    pub created_at: NaiveDateTime,
    #[sort(desc)]
    #[tiebreaker]
    pub id: i64,
    pub title: String,
}

/// The table, and the index that matches the ORDER BY (`created_at DESC, id DESC`), so that every
/// page is one index seek.
const SQLITE_DDL: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS posts (
        id INTEGER PRIMARY KEY NOT NULL,
        created_at TIMESTAMP NOT NULL,
        title TEXT NOT NULL
    )",
    "CREATE INDEX IF NOT EXISTS posts_created_at_desc_id_desc ON posts (created_at DESC, id DESC)",
];

#[cfg(feature = "postgres")]
const POSTGRES_DDL: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS posts (
        id BIGSERIAL PRIMARY KEY,
        created_at TIMESTAMP NOT NULL,
        title TEXT NOT NULL
    )",
    "CREATE INDEX IF NOT EXISTS posts_created_at_desc_id_desc ON posts (created_at DESC, id DESC)",
];

/// A connection to the posts database, whichever backend it is.
///
/// Keyset renders the SQL each backend seeks best with, so the same query is written once per
/// backend arm below; a server that knows its backend has a single arm.
pub enum Conn {
    /// SQLite (diesel's bundled copy): a file, or `:memory:`.
    Sqlite(SqliteConnection),
    /// PostgreSQL (feature `postgres`).
    #[cfg(feature = "postgres")]
    Postgres(PgConnection),
}

impl Conn {
    /// Opens `url`: `postgres://..` or `postgresql://..` for PostgreSQL, anything else is a SQLite
    /// path (`sqlite://` prefix optional, `:memory:` for a private in-memory database). Creates
    /// the table and its index when missing.
    pub fn open(url: &str) -> Result<Conn, Box<dyn std::error::Error + Send + Sync>> {
        let mut conn = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Conn::postgres(url)?
        } else {
            Conn::Sqlite(SqliteConnection::establish(url.strip_prefix("sqlite://").unwrap_or(url))?)
        };
        conn.create_schema()?;
        Ok(conn)
    }

    #[cfg(feature = "postgres")]
    fn postgres(url: &str) -> Result<Conn, Box<dyn std::error::Error + Send + Sync>> {
        Ok(Conn::Postgres(PgConnection::establish(url)?))
    }

    #[cfg(not(feature = "postgres"))]
    fn postgres(_url: &str) -> Result<Conn, Box<dyn std::error::Error + Send + Sync>> {
        Err("this build has no PostgreSQL support: add the `postgres` feature, e.g. \
             `cargo run -p keyset-examples --features web,postgres --example web`"
            .into())
    }

    fn create_schema(&mut self) -> QueryResult<()> {
        match self {
            Conn::Sqlite(conn) => SQLITE_DDL
                .iter()
                .try_for_each(|sql| diesel::sql_query(*sql).execute(conn).map(drop)),
            #[cfg(feature = "postgres")]
            Conn::Postgres(conn) => POSTGRES_DDL
                .iter()
                .try_for_each(|sql| diesel::sql_query(*sql).execute(conn).map(drop)),
        }
    }

    /// The page `request` asks for. A malformed or foreign token, or a zero limit, is an error
    /// before any query runs; [`keyset_runtime::Error::is_client_error`] says to answer 400.
    pub fn page(&mut self, request: &PageRequest) -> Result<Page<Post>, keyset_runtime::Error> {
        match self {
            Conn::Sqlite(conn) => {
                posts::table.select(Post::as_select()).paginate(request)?.load_page(conn)
            }
            #[cfg(feature = "postgres")]
            Conn::Postgres(conn) => {
                posts::table.select(Post::as_select()).paginate(request)?.load_page(conn)
            }
        }
    }

    /// Adds a post and returns it as stored.
    pub fn insert(&mut self, created_at: NaiveDateTime, title: &str) -> QueryResult<Post> {
        let row = (posts::created_at.eq(created_at), posts::title.eq(title));
        match self {
            Conn::Sqlite(conn) => conn.transaction(|conn| {
                diesel::insert_into(posts::table).values(row).execute(conn)?;
                let id = diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
                    "last_insert_rowid()",
                ))
                .get_result::<i64>(conn)?;
                posts::table.find(id).select(Post::as_select()).get_result(conn)
            }),
            #[cfg(feature = "postgres")]
            Conn::Postgres(conn) => diesel::insert_into(posts::table)
                .values(row)
                .returning(Post::as_returning())
                .get_result(conn),
        }
    }

    /// Deletes a post; returns whether it existed.
    pub fn delete(&mut self, id: i64) -> QueryResult<bool> {
        let delete = diesel::delete(posts::table.find(id));
        match self {
            Conn::Sqlite(conn) => delete.execute(conn).map(|n| n > 0),
            #[cfg(feature = "postgres")]
            Conn::Postgres(conn) => delete.execute(conn).map(|n| n > 0),
        }
    }

    /// Every post, in the list's order (a plain ORDER BY, for checks).
    pub fn all(&mut self) -> QueryResult<Vec<Post>> {
        match self {
            Conn::Sqlite(conn) => {
                posts::table.select(Post::as_select()).order(Post::order_by()).load(conn)
            }
            #[cfg(feature = "postgres")]
            Conn::Postgres(conn) => {
                posts::table.select(Post::as_select()).order(Post::order_by()).load(conn)
            }
        }
    }

    /// Fills an empty table with `rows` posts whose timestamps tie in groups of ten, ids shuffled
    /// against time. Leaves a table that has posts alone.
    pub fn seed(&mut self, rows: i64) -> QueryResult<()> {
        let count = posts::table.count();
        let existing: i64 = match self {
            Conn::Sqlite(conn) => count.get_result(conn)?,
            #[cfg(feature = "postgres")]
            Conn::Postgres(conn) => count.get_result(conn)?,
        };
        if existing > 0 {
            return Ok(());
        }
        let groups = (rows / 10).max(1);
        let values: Vec<_> = (0..rows)
            .map(|i| {
                // 7919 is prime, so consecutive ids land in scattered time slots.
                let slot = (i * 7919) % groups;
                let created_at =
                    DateTime::from_timestamp(1_700_000_000 + slot * 3_600, 123_456_000)
                        .expect("in range")
                        .naive_utc();
                (posts::created_at.eq(created_at), posts::title.eq(format!("post {i}")))
            })
            .collect();
        for chunk in values.chunks(1_000) {
            let insert = diesel::insert_into(posts::table).values(chunk);
            match self {
                Conn::Sqlite(conn) => insert.execute(conn)?,
                #[cfg(feature = "postgres")]
                Conn::Postgres(conn) => insert.execute(conn)?,
            };
        }
        Ok(())
    }
}

/// The shared database handle of a server: one connection behind a lock (a pool, such as
/// diesel's `r2d2`, serves the same purpose in production).
#[derive(Clone)]
pub struct Db(Arc<Mutex<Conn>>);

impl Db {
    /// Opens the database at `url` (see [`Conn::open`]) and seeds it with `rows` posts when
    /// its table is empty.
    pub fn open(url: &str, rows: i64) -> Result<Db, Box<dyn std::error::Error + Send + Sync>> {
        let mut conn = Conn::open(url)?;
        conn.seed(rows)?;
        Ok(Db(Arc::new(Mutex::new(conn))))
    }

    /// Runs `f` with the connection. Blocking: call it from a blocking thread in async code.
    pub fn with<T>(&self, f: impl FnOnce(&mut Conn) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The current time, to the microsecond (what both backends store).
pub fn now() -> NaiveDateTime {
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970");
    DateTime::from_timestamp_micros(since_epoch.as_micros() as i64).expect("in range").naive_utc()
}
