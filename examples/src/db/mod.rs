//! The database of the web and GraphQL examples: posts, listed newest first, by score or by
//! title (the client chooses), alone or as a feed among some authors' posts ([`feed`]: who follows
//! whom is the `follows` table), served from a pool of diesel-async connections: SQLite by
//! default, PostgreSQL (feature `postgres`) or MariaDB/MySQL (feature `mysql`) by URL.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, NaiveDateTime};
// diesel-async's `RunQueryDsl`, not diesel's prelude: both at once are ambiguous (E0034).
use diesel::{ExpressionMethods, QueryDsl, Queryable, Selectable, SelectableHelper};
use diesel_async::{AsyncConnectionCore, RunQueryDsl};
use keyset_runtime::{AsyncPageQuery, Keyset, Page, PageRequest, Paginate, SortDirection};
use serde::Serialize;

use crate::pool::{sqlite_setup, Pool, PoolOptions, SqliteConn, TempFile};

mod error;
pub mod feed;
mod setup;
pub use error::{Error, Fault};

diesel::table! {
    posts (id) {
        id -> BigInt,
        author_id -> BigInt,
        created_at -> Timestamp,
        score -> Integer,
        title -> Text,
    }
}

diesel::table! {
    /// Who follows whom: the authors a user's feed pages among.
    follows (follower_id, author_id) {
        follower_id -> BigInt,
        author_id -> BigInt,
    }
}

diesel::allow_tables_to_appear_in_same_query!(posts, follows);

/// A post, listed in the sort order a client names (`?sort=new|top|title`, [`PostOrder`]), in
/// either direction (`?dir=asc|desc`, that of the order's first key). The primary key ends
/// every order, so that posts with the same time, score or title each have one place in it.
///
/// `paginate` (the GraphQL example) pages in the first order, `new`. A token holds the title
/// in the `title` order: up to [`Post::MAX_TITLE_LEN`] characters of up to 4 bytes each, more
/// than the default 1024-character token takes.
///
/// `prefix(author_id)`: a feed pages among some authors' posts in each of these orders, and
/// seeks, once per author, the index led by the author, `(author_id, created_at DESC, id DESC)`
/// and so on, one per order, beside the order's own ([`Post::INDEXES`] has both).
#[derive(Queryable, Selectable, Keyset, Serialize, Debug, Clone, PartialEq)]
#[cfg_attr(feature = "web", derive(utoipa::ToSchema))]
#[diesel(table_name = posts)]
#[keyset(
    max_token_len = 2048,
    prefix(author_id),
    order(new: created_at desc, id desc),
    order(top: score desc, created_at desc, id desc),
    order(title: title asc, id asc)
)]
pub struct Post {
    #[tiebreaker]
    pub id: i64,
    pub author_id: i64,
    /// UTC, to the microsecond, written without an offset (`2026-12-04T17:54:47.519654`):
    /// not an RFC 3339 `date-time`, which requires one.
    #[cfg_attr(feature = "web", schema(value_type = String))]
    pub created_at: NaiveDateTime,
    pub score: i32,
    pub title: String,
}

impl Post {
    /// The longest title, in characters: what MySQL's `VARCHAR(255)` holds (an index cannot
    /// hold a whole `TEXT` there). Checked on every backend, so that they accept the same posts.
    pub const MAX_TITLE_LEN: usize = 255;

    /// The author of a post whose writer names none (the example has no accounts).
    pub const DEFAULT_AUTHOR: i64 = 1;

    /// How many authors the seeded posts have, `1` to `AUTHORS`, each as many posts.
    pub const AUTHORS: i64 = 10;
}

/// A pool of connections to the posts database, one arm per backend.
///
/// Keyset renders the SQL each backend seeks best with, so a query runs on a concrete
/// connection type: each method below has one arm per backend, a server knows its backend.
pub enum Backend {
    /// SQLite through diesel-async's `SyncConnectionWrapper`: a file in WAL mode (see
    /// [`sqlite_setup`]).
    Sqlite(Pool<SqliteConn>),
    /// PostgreSQL (feature `postgres`), on tokio-postgres.
    #[cfg(feature = "postgres")]
    Postgres(Pool<diesel_async::AsyncPgConnection>),
    /// MariaDB or MySQL (feature `mysql`), on mysql_async.
    #[cfg(feature = "mysql")]
    Mysql(Pool<diesel_async::AsyncMysqlConnection>),
}

/// The shared database handle of a server: cheap to clone, every clone the same pool.
#[derive(Clone)]
pub struct Db(Arc<Shared>);

struct Shared {
    backend: Backend,
    description: String,
    // Declared after the pool, so dropped after its connections: the file outlives them.
    _file: Option<TempFile>,
}

impl Db {
    /// Opens a pool on `url` and seeds the table with `rows` posts when it is empty, and the
    /// follows when there are none (the tables and their indexes are created when missing).
    ///
    /// `url` is `postgres://..` (feature `postgres`), `mysql://..` (feature `mysql`), or a SQLite
    /// file path (`sqlite://` prefix optional); `None` is a new SQLite file in the temporary
    /// directory, removed when the last clone of the `Db` is dropped.
    pub async fn open(url: Option<&str>, rows: i64, options: PoolOptions) -> Result<Db, Error> {
        let (backend, description, file) = match url {
            None => {
                let file = TempFile::new();
                let path = file.path().to_string_lossy().into_owned();
                let pool = Pool::new(&path, sqlite_setup(), options).await?;
                (Backend::Sqlite(pool), format!("SQLite, temporary file {path}"), Some(file))
            }
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                (postgres(url, options).await?, hide_password(url), None)
            }
            Some(url) if url.starts_with("mysql://") => {
                (mysql(url, options).await?, hide_password(url), None)
            }
            Some(url) if url.contains(":memory:") || url.contains("mode=memory") => {
                return Err(Error::Url(format!(
                    "`{url}`: an in-memory SQLite database does not suit a pool: `:memory:` is \
                     one per connection, and a shared-cache one fails concurrent requests with \
                     \"table is locked\"; give a file path, or no DATABASE_URL for a temporary file"
                )));
            }
            Some(url) => {
                let path = url.strip_prefix("sqlite://").unwrap_or(url);
                let pool = Pool::new(path, sqlite_setup(), options).await?;
                (Backend::Sqlite(pool), format!("SQLite, {path}"), None)
            }
        };
        setup::prepare(&backend, rows).await?;
        Ok(Db(Arc::new(Shared { backend, description, _file: file })))
    }

    /// The pool, to run queries of one's own (the GraphQL example's connections).
    pub fn backend(&self) -> &Backend {
        &self.0.backend
    }

    /// Which database this is, for a server's log: the backend and the URL without its
    /// password, or the SQLite file.
    pub fn describe(&self) -> &str {
        &self.0.description
    }

    /// The page `request` asks for, in sort order `order`, its first key in direction `dir`
    /// (`None`: as declared); with `around`, where the request asks for the first page, the page
    /// that starts with the post of that id (a deep link, in one statement as any page).
    /// A malformed token, one of another order or direction, or a zero limit, is an error
    /// before any query runs; a post that does not exist, one after; [`Error::fault`] says how
    /// to answer.
    pub async fn page(
        &self,
        order: PostOrder,
        dir: Option<SortDirection>,
        request: &PageRequest,
        around: Option<i64>,
    ) -> Result<Page<Post>, Error> {
        let at = (order, dir, request, around);
        match self.backend() {
            Backend::Sqlite(pool) => page(&mut *pool.get().await?, at).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => page(&mut *pool.get().await?, at).await,
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => page(&mut *pool.get().await?, at).await,
        }
    }

    /// Adds a post with score 0 and returns it as stored: see [`insert_by`](Self::insert_by).
    pub async fn insert(&self, created_at: NaiveDateTime, title: &str) -> Result<Post, Error> {
        self.insert_scored(created_at, 0, title).await
    }

    /// Adds a post of [`Post::DEFAULT_AUTHOR`]'s: see [`insert_by`](Self::insert_by).
    pub async fn insert_scored(
        &self,
        created_at: NaiveDateTime,
        score: i32,
        title: &str,
    ) -> Result<Post, Error> {
        self.insert_by(Post::DEFAULT_AUTHOR, created_at, score, title).await
    }

    /// Adds a post by `author_id` and returns it as stored. The title is at most
    /// [`Post::MAX_TITLE_LEN`] characters (the caller checks: a longer one fails on MySQL only).
    pub async fn insert_by(
        &self,
        author_id: i64,
        created_at: NaiveDateTime,
        score: i32,
        title: &str,
    ) -> Result<Post, Error> {
        let row = (
            posts::author_id.eq(author_id),
            posts::created_at.eq(created_at),
            posts::score.eq(score),
            posts::title.eq(title),
        );
        let insert = diesel::insert_into(posts::table).values(row);
        // The new id: SQLite and MySQL report it on the connection that inserted, which this
        // one keeps until both statements ran; PostgreSQL returns it.
        let id = match self.backend() {
            Backend::Sqlite(pool) => {
                let conn = &mut *pool.get().await?;
                insert.execute(conn).await?;
                diesel::select(last_id("last_insert_rowid()")).get_result(conn).await?
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => {
                insert.returning(posts::id).get_result(&mut *pool.get().await?).await?
            }
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => {
                let conn = &mut *pool.get().await?;
                insert.execute(conn).await?;
                let id = last_id("CAST(LAST_INSERT_ID() AS SIGNED)");
                diesel::select(id).get_result(conn).await?
            }
        };
        Ok(Post { id, author_id, created_at, score, title: title.to_owned() })
    }

    /// Deletes a post; returns whether it existed.
    pub async fn delete(&self, id: i64) -> Result<bool, Error> {
        let delete = diesel::delete(posts::table.find(id));
        let deleted = match self.backend() {
            Backend::Sqlite(pool) => delete.execute(&mut *pool.get().await?).await?,
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => delete.execute(&mut *pool.get().await?).await?,
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => delete.execute(&mut *pool.get().await?).await?,
        };
        Ok(deleted > 0)
    }

    /// Every post, newest first (the `new` order; a plain ORDER BY, for checks).
    pub async fn all(&self) -> Result<Vec<Post>, Error> {
        // Selected by column, not `Post::as_select()` (whose type names the backend), so the
        // query is built once; the tuple is in `Post`'s field order.
        let all = posts::table.order(Post::order_by()).select((
            posts::id,
            posts::author_id,
            posts::created_at,
            posts::score,
            posts::title,
        ));
        Ok(match self.backend() {
            Backend::Sqlite(pool) => all.load(&mut *pool.get().await?).await?,
            #[cfg(feature = "postgres")]
            Backend::Postgres(pool) => all.load(&mut *pool.get().await?).await?,
            #[cfg(feature = "mysql")]
            Backend::Mysql(pool) => all.load(&mut *pool.get().await?).await?,
        })
    }
}

/// The posts query a page is cut from, on backend `DB`: named so that code generic over the
/// connection (`page` below, the GraphQL resolver) can bound it,
/// `PostsQuery<C::Backend>: AsyncPageQuery<'static, C, PostOrder>` (every order) or
/// `AsyncPageQuery<'static, C>` (the first).
pub type PostsQuery<DB> = diesel::dsl::Select<posts::table, diesel::dsl::AsSelect<Post, DB>>;

/// One page in the order the client chose, on any connection keyset can page posts on: the
/// handler's code, written once for every backend and every order. The posts listing starts at
/// a value of the order's first key too (`?sort=new&from=2024-03-01`), every post being public,
/// and at a post (`?around=42`, read inside the page's statement).
async fn page<C>(
    conn: &mut C,
    (order, dir, request, around): (PostOrder, Option<SortDirection>, &PageRequest, Option<i64>),
) -> Result<Page<Post>, Error>
where
    C: AsyncConnectionCore<Backend: 'static>,
    PostsQuery<C::Backend>:
        AsyncPageQuery<'static, C, PostOrder> + Paginate<Model = Post, Item = Post>,
{
    let query = posts::table.select(Post::as_select());
    let mut paginated = query.paginate_by(order, dir, request)?.allow_starts();
    if let Some(id) = around {
        paginated = paginated.at_row_id(id)?;
    }
    Ok(paginated.load_page_async(conn).await?)
}

fn last_id(sql: &str) -> diesel::expression::SqlLiteral<diesel::sql_types::BigInt> {
    diesel::dsl::sql::<diesel::sql_types::BigInt>(sql)
}

#[cfg(feature = "postgres")]
async fn postgres(url: &str, options: PoolOptions) -> Result<Backend, Error> {
    Ok(Backend::Postgres(Pool::new(url, Default::default(), options).await?))
}

#[cfg(not(feature = "postgres"))]
async fn postgres(_url: &str, _options: PoolOptions) -> Result<Backend, Error> {
    Err(Error::Url(
        "this build has no PostgreSQL support: add the `postgres` feature, e.g. \
         `cargo run -p keyset-examples --features web,postgres --example web`"
            .into(),
    ))
}

#[cfg(feature = "mysql")]
async fn mysql(url: &str, options: PoolOptions) -> Result<Backend, Error> {
    Ok(Backend::Mysql(Pool::new(url, Default::default(), options).await?))
}

#[cfg(not(feature = "mysql"))]
async fn mysql(_url: &str, _options: PoolOptions) -> Result<Backend, Error> {
    Err(Error::Url(
        "this build has no MariaDB/MySQL support: add the `mysql` feature, e.g. \
         `cargo run -p keyset-examples --features web,mysql --example web`"
            .into(),
    ))
}

/// The database URL without its password.
fn hide_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}://…{}", &url[..scheme], &url[at..]),
        _ => url.to_owned(),
    }
}

/// The current time, to the microsecond (what every backend here stores).
pub fn now() -> NaiveDateTime {
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970");
    DateTime::from_timestamp_micros(since_epoch.as_micros() as i64).expect("in range").naive_utc()
}
