//! The async driver (feature `diesel-async`): pages on a diesel-async connection
//! (`AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<..>`, or a pooled one).
//! Each statement's rows are diesel-async's future, boxed so that a page's futures have one
//! type whatever the statement, and `Send`, so that a handler awaiting a page can run on any
//! executor thread (axum, `tokio::spawn`).

use std::future::Future;
use std::pin::Pin;

use diesel::connection::CacheSize;
use diesel::query_builder::Query;
use diesel::QueryResult;
use diesel_async::methods::LoadQuery;
use diesel_async::AsyncConnectionCore;

use super::count::Counts;
use super::exec::{Connects, Exec, Load};
use super::statement::Walks;
use super::{count, fetch, Ask, Drive, Pages};
use crate::count::Counted;
use crate::error::Error;
use crate::fetched::{Fetched, Loaded};
use crate::orders::list::OrderSet;
use crate::orders::SortOrder;
use crate::page::Page;
use crate::paginate::{Paginate, Paginated};
use crate::position::Position;
use crate::repeat::CheckSet;
use crate::selection::SelectsModel;
use crate::sql::SeekDialect;

/// Statements awaited on a diesel-async connection. (Named in hidden bounds only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum Awaited {}

/// Work on a diesel-async connection that yields a `T`.
type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl Exec for Awaited {
    type Page<'a, T>
        = Boxed<'a, T>
    where
        T: 'a;

    fn ready<'a, T: Send + 'a>(value: T) -> Boxed<'a, T> {
        Box::pin(std::future::ready(value))
    }

    fn map<'a, T: 'a, U: 'a>(
        page: Boxed<'a, T>,
        f: impl FnOnce(T) -> U + Send + 'a,
    ) -> Boxed<'a, U> {
        Box::pin(async move { f(page.await) })
    }

    fn join<'a, T: Send + 'a>(pages: Vec<Boxed<'a, T>>) -> Boxed<'a, Vec<T>> {
        Box::pin(futures_util::future::join_all(pages))
    }
}

impl<Conn: AsyncConnection> Connects<Conn> for Awaited {
    type Backend = <Conn as AsyncConnection>::Backend;
    fn forget_statements(conn: &mut Conn) {
        conn.forget_statements();
    }
}

impl<'q, S, Conn, Item> Load<'q, Conn, Item, Awaited> for S
where
    Conn: AsyncConnection + AsyncConnectionCore,
    Item: Send + 'static,
    S: LoadQuery<'q, Conn, Item> + 'q,
{
    fn load_rows<'a>(self, conn: &'a mut Conn) -> Boxed<'a, QueryResult<Vec<Item>>>
    where
        'q: 'a,
    {
        Box::pin(diesel_async::RunQueryDsl::load(self, conn))
    }
}

/// A diesel-async connection, what `load_page_async` runs on (see `BlockingConnection`).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is no diesel-async connection, which `load_page_async` (and `total_count_async`, `load_page_sharded_async`) runs on",
    label = "not a diesel-async connection",
    note = "on a blocking Diesel connection (`SqliteConnection`, `PgConnection`, `MysqlConnection`, or an r2d2 pooled one), call the blocking twin: `.load_page(conn)` (`total_count`, `load_page_sharded`); for async, open a diesel-async one (`AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<SqliteConnection>`) or take it from its pool as `&mut *pooled`"
)]
pub trait AsyncConnection: Send {
    /// The backend it talks to.
    type Backend: SeekDialect;
    /// Forgets the connection's cached prepared statements (`stale.rs`).
    fn forget_statements(&mut self);
}

#[diagnostic::do_not_recommend]
impl<Conn: diesel_async::AsyncConnection<Backend: SeekDialect>> AsyncConnection for Conn {
    type Backend = <Conn as AsyncConnectionCore>::Backend;
    fn forget_statements(&mut self) {
        // Dropping diesel-async's statements closes them on the server (tokio-postgres sends a
        // Close, MySQL's client closes its own).
        self.set_prepared_statement_cache_size(CacheSize::Disabled);
        self.set_prepared_statement_cache_size(CacheSize::Unbounded);
    }
}

impl<'q, O, Q, Conn> Drive<'q, O, Q, Conn> for Awaited
where
    Conn: AsyncConnection,
    O: SortOrder<Row = Q::Model>,
    Q: Walks<'q, O, Conn, Awaited> + Send,
    Q::Item: Send,
{
    fn page<'c>(
        query: Q,
        position: Position<O::Cursor>,
        ask: Ask,
        conn: &'c mut Conn,
    ) -> Boxed<'c, Result<Fetched<O, Q::Item>, Error>>
    where
        'q: 'c,
        Q: 'c,
    {
        Box::pin(fetch::<O, Q, Conn, Awaited>(query, position, ask, conn))
    }
}

/// A query whose pages can be loaded on the diesel-async connection `Conn`, in the model's order
/// or, with `O`, in every named order of the model's enum: what [`PageQuery`](crate::PageQuery)
/// is for a blocking connection, for the same queries when they are `Send`. Implemented for every
/// such query; you meet it in bounds, e.g. of a helper generic over the query, as
/// `Q: AsyncPageQuery<'static, Conn>`.
#[diagnostic::on_unimplemented(
    message = "the query `{Self}` cannot be paged on `{Conn}`",
    note = "`load_page_async` takes a query that selects `Model::as_select()` (plain, filtered, joined or boxed), is `Send`, and that diesel-async can load on `{Conn}` with a filter, an ORDER BY and a LIMIT added",
    note = "`{Conn}` must be a diesel-async connection: `AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<SqliteConnection>`, or a pooled one as `&mut *pooled`",
    note = "a query with a `.limit(..)` or `.offset(..)` of its own cannot be paged: remove them, the page sets its own (`PageRequest`'s limit)"
)]
pub trait AsyncPageQuery<'q, Conn, O: OrderSet = <Self as Paginate>::Model>:
    Pages<'q, O::List, Conn, Awaited>
{
}

impl<'q, Q, Conn, O> AsyncPageQuery<'q, Conn, O> for Q
where
    O: OrderSet,
    Q: Pages<'q, O::List, Conn, Awaited>,
{
}

impl<Q: Paginate, O: OrderSet> Paginated<Q, O> {
    /// [`load_page`](Self::load_page) on a diesel-async connection: the same statements, the
    /// same `Page` and the same tokens (a token from either path pages on the other). Works on
    /// `AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<SqliteConnection>` and
    /// their pooled connections (`&mut *pooled` from deadpool or bb8). The future is `Send`.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
    /// use diesel_async::{AsyncConnection, RunQueryDsl};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset, Debug)]
    /// # struct Post { #[sort(desc)] #[tiebreaker] id: i64 }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut conn = SyncConnectionWrapper::<SqliteConnection>::establish(":memory:").await?;
    /// diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).await?;
    /// diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3)").execute(&mut conn).await?;
    ///
    /// let page = posts::table
    ///     .select(Post::as_select())
    ///     .paginate(&PageRequest::first(2))?
    ///     .load_page_async(&mut conn)
    ///     .await?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [3, 2]);
    /// let next = posts::table
    ///     .select(Post::as_select())
    ///     .paginate(&PageRequest::after(page.next_cursor.unwrap(), 2))?
    ///     .load_page_async(&mut conn)
    ///     .await?;
    /// assert_eq!(next.items.iter().map(|post| post.id).collect::<Vec<_>>(), [1]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn load_page_async<'q: 'c, 'c, Conn>(
        self,
        conn: &'c mut Conn,
    ) -> impl Future<Output = Result<Page<Q::Item>, Error>> + Send + 'c
    where
        Q: AsyncPageQuery<'q, Conn, O> + 'c,
    {
        Awaited::map(self.load::<Conn, Awaited>(conn, false), |loaded| Ok(loaded?.page))
    }

    /// The page, and each row's own token: what a Relay connection's edges carry.
    #[cfg_attr(not(feature = "async-graphql"), allow(dead_code))]
    pub(crate) fn load_edges_async<'q: 'c, 'c, Conn>(
        self,
        conn: &'c mut Conn,
    ) -> Boxed<'c, Result<Loaded<Q::Item>, Error>>
    where
        Q: AsyncPageQuery<'q, Conn, O> + 'c,
    {
        self.load::<Conn, Awaited>(conn, true)
    }

    /// [`total_count`](Self::total_count) on a diesel-async connection: the same
    /// `SELECT COUNT(*)`, with the query's own filters. **The expensive path**: O(rows) per call.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
    /// # use diesel_async::{AsyncConnection, RunQueryDsl};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset, Debug)]
    /// # struct Post { #[sort(desc)] #[tiebreaker] id: i64 }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let mut conn = SyncConnectionWrapper::<SqliteConnection>::establish(":memory:").await?;
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).await?;
    /// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3)").execute(&mut conn).await?;
    /// let paginated = posts::table.select(Post::as_select()).paginate(&PageRequest::first(2))?;
    /// assert_eq!(paginated.total_count_async(&mut conn).await?, 3);
    /// # Ok(())
    /// # }
    /// ```
    pub fn total_count_async<'q: 'c, 'c, Conn>(
        &self,
        conn: &'c mut Conn,
    ) -> impl Future<Output = Result<i64, Error>> + Send + 'c
    where
        Q: Query + Counts<'q, Conn, Awaited> + CheckSet + Clone + Send + 'c,
        Q::SqlType: SelectsModel,
        Conn:
            AsyncConnection + AsyncConnectionCore<Backend = <Q::SqlType as SelectsModel>::Backend>,
    {
        let query = self.query.clone();
        // Boxed, so that the future names `'c` alone.
        let count: Boxed<'c, _> = Box::pin(async move {
            // A count among a set is refused where its page would be, before any statement.
            query.check_set(<Conn as AsyncConnection>::Backend::ENGINE)?;
            let copy = |query: &Q| Some(query.clone());
            let total = count::<Q, Conn, Awaited>(query, Counted::All, copy, conn).await?;
            Ok(i64::try_from(total.count).unwrap_or(i64::MAX))
        });
        count
    }
}
