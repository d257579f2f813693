//! The blocking driver: pages on a Diesel [`Connection`](diesel::Connection). Each statement is
//! loaded when the page asks for it, so every future of a page is ready when made, and the page
//! runs to its end in one poll ([`complete`]).

use std::future::{ready, Future, Ready};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use diesel::connection::{CacheSize, LoadConnection};
use diesel::query_builder::Query;
use diesel::query_dsl::LoadQuery;
use diesel::{QueryResult, RunQueryDsl};

use super::count::Counts;
use super::exec::{Connects, Exec, Load};
use super::statement::Walks;
use super::{count, fetch, Ask, Drive, Pages};
use crate::count::Counted;
use crate::error::Error;
use crate::fetched::Fetched;
use crate::orders::list::OrderSet;
use crate::orders::SortOrder;
use crate::page::Page;
use crate::paginate::{Paginate, Paginated};
use crate::position::Position;
use crate::repeat::CheckSet;
use crate::selection::SelectsModel;
use crate::sql::SeekDialect;
use crate::token::Engine;

/// Statements run on a blocking Diesel connection. (Named in hidden bounds only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub enum Blocking {}

impl Exec for Blocking {
    type Page<'a, T>
        = Ready<T>
    where
        T: 'a;

    fn ready<'a, T: Send + 'a>(value: T) -> Ready<T> {
        ready(value)
    }

    fn map<'a, T: 'a, U: 'a>(page: Ready<T>, f: impl FnOnce(T) -> U + Send + 'a) -> Ready<U> {
        ready(f(page.into_inner()))
    }

    fn join<'a, T: Send + 'a>(pages: Vec<Ready<T>>) -> Ready<Vec<T>> {
        ready(pages.into_iter().map(Ready::into_inner).collect())
    }
}

impl<Conn: BlockingConnection> Connects<Conn> for Blocking {
    type Backend = <Conn as BlockingConnection>::Backend;
    fn forget_statements(conn: &mut Conn) {
        conn.forget_statements();
    }
}

#[diagnostic::do_not_recommend]
impl<'q, S, Conn, Item> Load<'q, Conn, Item, Blocking> for S
where
    Conn: BlockingConnection + diesel::Connection,
    S: LoadQuery<'q, Conn, Item> + RunQueryDsl<Conn>,
{
    fn load_rows<'a>(self, conn: &'a mut Conn) -> Ready<QueryResult<Vec<Item>>>
    where
        'q: 'a,
    {
        ready(RunQueryDsl::load(self, conn))
    }
}

/// A blocking Diesel connection, what `load_page` runs on: the first thing a page asks of its
/// connection, so that paging on an async one is told the call to make instead.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is no blocking Diesel connection, which `load_page` (and `total_count`, `load_page_sharded`) runs on",
    label = "not a blocking Diesel connection",
    note = "on a diesel-async connection (`AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<..>`, or a pooled one as `&mut *pooled`), call the async twin: `.load_page_async(conn).await` (`total_count_async`, `load_page_sharded_async`; feature `diesel-async`)"
)]
pub trait BlockingConnection {
    /// The backend it talks to.
    type Backend: SeekDialect;
    /// Forgets the connection's cached prepared statements (`stale.rs`).
    fn forget_statements(&mut self);
}

#[diagnostic::do_not_recommend]
impl<Conn: LoadConnection<Backend: SeekDialect>> BlockingConnection for Conn {
    type Backend = Conn::Backend;
    fn forget_statements(&mut self) {
        // Replacing the cache drops its statements (a statement was cached, so caching was on).
        self.set_prepared_statement_cache_size(CacheSize::Disabled);
        self.set_prepared_statement_cache_size(CacheSize::Unbounded);
        // Diesel's `PgConnection` leaves a dropped statement prepared on the server (its name is
        // never reused), where it would hold the backend's memory until the connection closes.
        // Every named statement of the connection was in the cache just emptied.
        if <Conn::Backend as SeekDialect>::ENGINE == Engine::Postgres {
            let _ = self.batch_execute("DEALLOCATE ALL");
        }
    }
}

impl<'q, O, Q, Conn> Drive<'q, O, Q, Conn> for Blocking
where
    Conn: BlockingConnection,
    O: SortOrder<Row = Q::Model>,
    Q: Walks<'q, O, Conn, Blocking>,
{
    fn page<'c>(
        query: Q,
        position: Position<O::Cursor>,
        ask: Ask,
        conn: &'c mut Conn,
    ) -> Ready<Result<Fetched<O, Q::Item>, Error>>
    where
        'q: 'c,
        Q: 'c,
    {
        ready(complete(fetch::<O, Q, Conn, Blocking>(query, position, ask, conn)))
    }
}

/// The output of a page's future on a blocking connection, which awaits only ready futures and
/// so completes in its first poll: there is nothing to wait for, and nothing to wake.
pub(super) fn complete<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => unreachable!("a blocking page awaits only futures that are ready"),
    }
}

/// A query whose pages can be loaded on the Diesel connection `Conn`, in the model's order or,
/// with `O`, in every named order of the model's enum (declared and reversed): every statement a
/// page of it may run (first, last, by page number, after and before a cursor, one tie level or
/// all of them) is one Diesel accepts. Implemented for every such query; you meet it in bounds,
/// e.g. of a helper generic over the query, as `Q: PageQuery<'static, Conn>` (its pages are
/// `Page<Q::Item>`), `Q: PageQuery<'static, Conn, Model = Post, Item = Post>` for a helper that
/// returns `Page<Post>`, or `Q: PageQuery<'static, Conn, PostOrder>` for pages in a named order.
///
/// ```
/// # use diesel::prelude::*;
/// use keyset_runtime::{Keyset, Page, PageQuery, PageRequest, Paginate, SortDirection};
/// # diesel::table! { posts (id) { id -> BigInt, score -> Integer } }
/// #[derive(Queryable, Selectable, Keyset)]
/// #[keyset(order(new: id desc), order(top: score desc, id desc))]
/// struct Post {
///     #[tiebreaker]
///     id: i64,
///     score: i32,
/// }
///
/// /// One page of any query of posts, in the order the client chose, on any connection.
/// fn page<Q, Conn>(query: Q, sort: PostOrder, dir: Option<SortDirection>, conn: &mut Conn) -> Result<Page<Post>, keyset_runtime::Error>
/// where
///     Q: PageQuery<'static, Conn, PostOrder, Model = Post, Item = Post>,
/// {
///     query.paginate_by(sort, dir, &PageRequest::first(2))?.load_page(conn)
/// }
///
/// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
/// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, score INTEGER NOT NULL)").execute(&mut conn).unwrap();
/// # diesel::sql_query("INSERT INTO posts VALUES (1, 5), (2, 9), (3, 7)").execute(&mut conn).unwrap();
/// let top = page(posts::table.select(Post::as_select()), PostOrder::Top, None, &mut conn)?;
/// assert_eq!(top.items.iter().map(|post| post.id).collect::<Vec<_>>(), [2, 3]);
/// # Ok::<(), keyset_runtime::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "the query `{Self}` cannot be paged on `{Conn}`",
    note = "`paginate` takes a query that selects `Model::as_select()`, or a tuple led by it (plain, filtered, joined or boxed), and that Diesel can load on `{Conn}` with a filter, an ORDER BY and a LIMIT added",
    note = "a query type of your own must also implement `keyset_runtime::Repeat`, as Diesel's select statements and boxed queries do",
    note = "a query with a `.limit(..)` or `.offset(..)` of its own cannot be paged: remove them, the page sets its own (`PageRequest`'s limit)"
)]
pub trait PageQuery<'q, Conn, O: OrderSet = <Self as Paginate>::Model>:
    Pages<'q, O::List, Conn, Blocking>
{
}

impl<'q, Q, Conn, O> PageQuery<'q, Conn, O> for Q
where
    O: OrderSet,
    Q: Pages<'q, O::List, Conn, Blocking>,
{
}

impl<Q: Paginate, O: OrderSet> Paginated<Q, O> {
    /// Runs the query and returns the page, fetching one row more than the limit to learn whether
    /// a next page exists: one query; on SQLite, for a page after (or before) a cursor, up to one
    /// per sort key, each an index seek (one per tie level, e.g. `created_at = ? AND id < ?`
    /// then `created_at < ?`: the next runs only while the page is short, and a boxed query runs
    /// one); on PostgreSQL, in mixed directions, those tie levels in one statement, their
    /// `UNION ALL`; two when a page crosses the NULL boundary of a nullable leading key. See the
    /// [crate docs](crate) for a walk forward.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1), (2), (3)").execute(&mut conn).unwrap();
    /// // The last two rows, still in the model's order.
    /// let page = posts::table.select(Post::as_select()).paginate(&PageRequest::last(2))?.load_page(&mut conn)?;
    /// assert_eq!(page.items.iter().map(|post| post.id).collect::<Vec<_>>(), [2, 3]);
    /// assert_eq!((page.has_prev(), page.has_next()), (true, false));
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn load_page<'q, 'c, Conn>(self, conn: &'c mut Conn) -> Result<Page<Q::Item>, Error>
    where
        Q: PageQuery<'q, Conn, O> + 'c,
        'q: 'c,
    {
        Ok(self.load::<Conn, Blocking>(conn, false).into_inner()?.page)
    }

    /// The page, and each row's own token: what a Relay connection's edges carry.
    #[cfg_attr(not(feature = "async-graphql"), allow(dead_code))]
    pub(crate) fn load_edges<'q, 'c, Conn>(
        self,
        conn: &'c mut Conn,
    ) -> Result<crate::fetched::Loaded<Q::Item>, Error>
    where
        Q: PageQuery<'q, Conn, O> + 'c,
        'q: 'c,
    {
        self.load::<Conn, Blocking>(conn, true).into_inner()
    }

    /// The number of rows the whole query matches, whatever the page and the order:
    /// `SELECT COUNT(*)` with the query's own filters, and no cursor or limit.
    ///
    /// **The expensive path.** A count reads every matching row (or index entry) on every call,
    /// O(rows) where a keyset page is O(page): at a million rows it costs what OFFSET to the last
    /// page costs. Keyset needs no total to page (`next_cursor` says whether more follows); ask
    /// for one only where a grid must show "page 3 of 120", and consider caching it.
    ///
    /// ```
    /// # use diesel::prelude::*;
    /// # use keyset_runtime::{Keyset, PageRequest, Paginate};
    /// # diesel::table! { posts (id) { id -> BigInt, author_id -> BigInt } }
    /// # #[derive(Queryable, Selectable, Keyset)]
    /// # struct Post { #[sort(asc)] #[tiebreaker] id: i64, author_id: i64 }
    /// # let mut conn = SqliteConnection::establish(":memory:").unwrap();
    /// # diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY, author_id BIGINT NOT NULL)").execute(&mut conn).unwrap();
    /// # diesel::sql_query("INSERT INTO posts VALUES (1, 7), (2, 7), (3, 8), (4, 7)").execute(&mut conn).unwrap();
    /// let paginated = posts::table
    ///     .filter(posts::author_id.eq(7))
    ///     .select(Post::as_select())
    ///     .paginate(&PageRequest::first(2))?;
    /// assert_eq!(paginated.total_count(&mut conn)?, 3); // of author 7, not of the page
    /// assert_eq!(paginated.load_page(&mut conn)?.items.len(), 2);
    ///
    /// // A count alone: the connection says which backend `as_select()` is for.
    /// let all = posts::table.select(Post::as_select()).paginate(&PageRequest::first(2))?.total_count(&mut conn)?;
    /// assert_eq!(all, 4);
    /// # Ok::<(), keyset_runtime::Error>(())
    /// ```
    pub fn total_count<'q, Conn>(&self, conn: &mut Conn) -> Result<i64, Error>
    where
        Q: Query + Counts<'q, Conn, Blocking> + CheckSet + Clone,
        Q::SqlType: SelectsModel,
        Conn: BlockingConnection
            + diesel::Connection<Backend = <Q::SqlType as SelectsModel>::Backend>,
    {
        // A count among a set is refused where its page would be, before any statement.
        self.query.check_set(<Conn as BlockingConnection>::Backend::ENGINE)?;
        let copy = |query: &Q| Some(query.clone());
        let count = count::<Q, Conn, Blocking>(self.query.clone(), Counted::All, copy, conn);
        Ok(i64::try_from(complete(count)?.count).unwrap_or(i64::MAX))
    }
}
