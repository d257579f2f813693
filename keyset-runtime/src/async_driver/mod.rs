//! The async driver (feature `diesel-async`): runs a page's statements on a diesel-async
//! connection (`AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<..>`, or a
//! pooled one). The page machine (`machine.rs`) decides what a page runs, exactly as for the sync
//! driver; this only builds each [`Statement`] on the query and awaits its rows, so both paths
//! run the same statements with the same binds, and their tokens are interchangeable. Pages in
//! an order chosen at run time are in `by_order.rs`.

use std::future::Future;
use std::pin::Pin;

use diesel::dsl::{CountStar, Filter, Order, Select};
use diesel::query_builder::Query;
use diesel::query_dsl::methods::{FilterDsl, OrderDsl, SelectDsl};
use diesel_async::methods::LoadQuery;
use diesel_async::{AsyncConnectionCore, RunQueryDsl};

use crate::driver::past;
use crate::fetched::{Fetched, Loaded};
use crate::machine::{Copies, PageMachine, Statement};
use crate::order::SortOrder;
use crate::page::{Paginate, Paginated};
use crate::position::Position;
use crate::selection::SelectsModel;
use crate::sql::{
    Backward, Forward, Limited, NoOffset, Offset, OrderBy, Seek, SeekDialect, SeekKeys, Union,
};
use crate::strategy::{branches, next_copy, LevelOf, Repeat};
use crate::{Error, Keyset, Page};

mod by_order;

pub use by_order::AsyncPageQueryBy;

/// The future of one page: boxed once per page, `Send`, so that a handler awaiting it can run on
/// any executor thread (axum, `tokio::spawn`).
pub(crate) type PageFuture<'conn, T> =
    Pin<Box<dyn Future<Output = Result<T, Error>> + Send + 'conn>>;

impl<Q: Paginate> Paginated<Q> {
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
    pub fn load_page_async<'query: 'conn, 'conn, Conn>(
        self,
        conn: &'conn mut Conn,
    ) -> impl std::future::Future<Output = Result<Page<Q::Item>, Error>> + Send + 'conn
    where
        Q: AsyncPageQuery<'query, Conn> + 'conn,
        Q::Item: Send,
    {
        let limit = match crate::request::served_limit(self.limit, self.max_limit) {
            Ok(limit) => limit,
            Err(error) => {
                let refused: PageFuture<'conn, Page<Q::Item>> =
                    Box::pin(std::future::ready(Err(error.into())));
                return refused;
            }
        };
        let (fetched, codec) =
            (self.query.fetch_page_at_async(self.position, limit, conn), self.codec);
        let page: PageFuture<'conn, Page<Q::Item>> =
            Box::pin(async move { Ok(fetched.await?.finish(&codec, false)?.page) });
        page
    }

    /// The page, and each row's own token: what a Relay connection's edges carry.
    #[cfg_attr(not(feature = "async-graphql"), allow(dead_code))]
    pub(crate) fn load_edges_async<'query: 'conn, 'conn, Conn>(
        self,
        conn: &'conn mut Conn,
    ) -> PageFuture<'conn, Loaded<Q::Item>>
    where
        Q: AsyncPageQuery<'query, Conn> + 'conn,
        Q::Item: Send,
    {
        match crate::request::served_limit(self.limit, self.max_limit) {
            Ok(limit) => {
                let fetched = self.query.fetch_page_at_async(self.position, limit, conn);
                let codec = self.codec;
                Box::pin(async move { fetched.await?.finish(&codec, true) })
            }
            Err(error) => Box::pin(std::future::ready(Err(error.into()))),
        }
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
    pub async fn total_count_async<'query, Conn>(&self, conn: &mut Conn) -> Result<i64, Error>
    where
        Q: Query + SelectDsl<CountStar> + Clone,
        Q::SqlType: SelectsModel,
        Conn: AsyncConnectionCore<Backend = <Q::SqlType as SelectsModel>::Backend>,
        Select<Q, CountStar>: LoadQuery<'query, Conn, i64> + 'query,
    {
        let count = SelectDsl::select(self.query.clone(), diesel::dsl::count_star());
        Ok(count.get_result(conn).await?)
    }
}

/// A query whose pages can be loaded on the diesel-async connection `Conn`: the async
/// counterpart of [`PageQuery`](crate::PageQuery), for the same queries. Implemented for every
/// such query; you meet it in bounds, e.g. of a helper generic over the query, as
/// `Q: AsyncPageQuery<'static, Conn>`.
#[diagnostic::on_unimplemented(
    message = "the query `{Self}` cannot be paged on `{Conn}`",
    note = "`load_page_async` takes a query that selects `Model::as_select()` (plain, filtered, joined or boxed), is `Send`, and that diesel-async can load on `{Conn}` with a filter, an ORDER BY and a LIMIT added",
    note = "`{Conn}` must be a diesel-async connection: `AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<SqliteConnection>`, or a pooled one as `&mut *pooled`",
    note = "a query with a `.limit(..)` or `.offset(..)` of its own cannot be paged: remove them, the page sets its own (`PageRequest`'s limit)"
)]
pub trait AsyncPageQuery<'query, Conn>: Paginate {
    /// Fetches the rows of the page of `limit` rows at `position`: runs each statement the page
    /// machine plans and hands it the rows.
    #[doc(hidden)]
    fn fetch_page_at_async<'conn>(
        self,
        position: Position<<Self::Model as Keyset>::Cursor>,
        limit: u32,
        conn: &'conn mut Conn,
    ) -> PageFuture<'conn, Fetched<Self::Model, Self::Item>>
    where
        Self: 'conn,
        'query: 'conn;
}

impl<'query, Conn, Q, M> AsyncPageQuery<'query, Conn> for Q
where
    M: Keyset,
    Q: Paginate<Model = M> + RunStatementAsync<'query, M, Conn>,
{
    fn fetch_page_at_async<'conn>(
        self,
        position: Position<M::Cursor>,
        limit: u32,
        conn: &'conn mut Conn,
    ) -> PageFuture<'conn, Fetched<M, Q::Item>>
    where
        Self: 'conn,
        'query: 'conn,
    {
        self.load_at_async(position, limit, conn)
    }
}

/// A query on which every statement of a page in order `M` can be built and awaited on the
/// async `Conn`: the bounds of the seven statements, named once for a model's own order and
/// each named one.
#[doc(hidden)]
pub trait RunStatementAsync<'query, M: SortOrder, Conn>: Paginate {
    /// The rows of the page of `limit` rows at `position` in order `M`: runs each statement the
    /// page machine plans, on a copy of the query while another may follow, and hands it the
    /// rows.
    fn load_at_async<'conn>(
        self,
        position: Position<M::Cursor>,
        limit: u32,
        conn: &'conn mut Conn,
    ) -> PageFuture<'conn, Fetched<M, Self::Item>>
    where
        Self: 'conn,
        'query: 'conn;
}

impl<'query, Conn, Q, M> RunStatementAsync<'query, M, Conn> for Q
where
    Conn: AsyncConnectionCore,
    Conn::Backend: SeekDialect,
    M: SortOrder<Row = Q::Model>,
    Q::Item: Send,
    M::Cursor: Send,
    M::Keys: SeekKeys<Conn::Backend> + Send,
    M::Columns: Send,
    LevelOf<M, Forward>: Send,
    LevelOf<M, Backward>: Send,
    Q: Paginate + Repeat + Send,
    Q: OrderDsl<OrderBy<M, Forward>> + OrderDsl<OrderBy<M, Backward>>,
    LimitedOn<Order<Q, OrderBy<M, Forward>>, Conn>: LoadQuery<'query, Conn, Q::Item> + 'query,
    LimitedOn<Order<Q, OrderBy<M, Forward>>, Conn, Offset>:
        LoadQuery<'query, Conn, Q::Item> + 'query,
    LimitedOn<Order<Q, OrderBy<M, Backward>>, Conn>: LoadQuery<'query, Conn, Q::Item> + 'query,
    Q: SeekLoadAsync<'query, M, Forward, Conn, Seek<M, Forward>>,
    Q: SeekLoadAsync<'query, M, Backward, Conn, Seek<M, Backward>>,
    Q: SeekLoadAsync<'query, M, Forward, Conn, LevelOf<M, Forward>>,
    Q: SeekLoadAsync<'query, M, Backward, Conn, LevelOf<M, Backward>>,
{
    fn load_at_async<'conn>(
        self,
        position: Position<M::Cursor>,
        limit: u32,
        conn: &'conn mut Conn,
    ) -> PageFuture<'conn, Fetched<M, Q::Item>>
    where
        Self: 'conn,
        'query: 'conn,
    {
        Box::pin(async move {
            let mut machine = PageMachine::<M, Q::Item>::new::<Conn::Backend>(
                position,
                (limit, Copies::of::<Q>()),
                Q::model,
            )?;
            let mut query = Some(self);
            while let Some(statement) = machine.next() {
                let query = next_copy(&mut query, machine.may_continue())?;
                let rows = match statement {
                    Statement::First { order, limit } => {
                        LimitedOn::<_, Conn>::new(OrderDsl::order(query, order), limit)
                            .load(conn)
                            .await
                    }
                    Statement::Number { order, limit, offset } => {
                        let order = OrderDsl::order(query, order);
                        LimitedOn::<_, Conn, Offset>::with_offset(order, limit, offset)
                            .load(conn)
                            .await
                    }
                    Statement::Last { order, limit } => {
                        LimitedOn::<_, Conn>::new(OrderDsl::order(query, order), limit)
                            .load(conn)
                            .await
                    }
                    Statement::After { seek, order, limit } => {
                        query.load_past(seek, order, limit, conn).await
                    }
                    Statement::Before { seek, order, limit } => {
                        query.load_past(seek, order, limit, conn).await
                    }
                    Statement::AfterLevel { level, order, limit } => {
                        query.load_past(level, order, limit, conn).await
                    }
                    Statement::BeforeLevel { level, order, limit } => {
                        query.load_past(level, order, limit, conn).await
                    }
                    Statement::AfterLevels { levels, order, names, limit } => {
                        Q::load_union(branches(query, levels)?, order, names, limit, conn).await
                    }
                    Statement::BeforeLevels { levels, order, names, limit } => {
                        Q::load_union(branches(query, levels)?, order, names, limit, conn).await
                    }
                };
                machine.fetched(rows?);
            }
            Ok(machine.into_fetched())
        })
    }
}

/// `query.filter(predicate).order(order).limit(limit)`, loadable on the async `Conn`: the bounds
/// of a statement past a cursor, named once for the whole seek and for one tie level, both ways.
pub trait SeekLoadAsync<'query, M: SortOrder, W, Conn, P>: Paginate {
    /// Loads the rows.
    fn load_past<'conn>(
        self,
        predicate: P,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &'conn mut Conn,
    ) -> impl Future<Output = diesel::QueryResult<Vec<Self::Item>>> + Send + 'conn
    where
        Self: 'conn,
        'query: 'conn;

    /// Loads the rows of the union of one such statement per branch, each on its own copy of
    /// the query, ordered by `order` over the output columns `names`.
    fn load_union<'conn>(
        branches: Vec<(Self, (P, OrderBy<M, W>))>,
        order: OrderBy<M, W>,
        names: &'static [&'static str],
        limit: i64,
        conn: &'conn mut Conn,
    ) -> impl Future<Output = diesel::QueryResult<Vec<Self::Item>>> + Send + 'conn
    where
        Self: 'conn,
        'query: 'conn;
}

impl<'query, Q, M, W, Conn, P> SeekLoadAsync<'query, M, W, Conn, P> for Q
where
    Conn: AsyncConnectionCore,
    Conn::Backend: SeekDialect,
    M: SortOrder,
    Q: Paginate + FilterDsl<P>,
    Q::Item: Send,
    Filter<Q, P>: OrderDsl<OrderBy<M, W>>,
    LimitedOn<Order<Filter<Q, P>, OrderBy<M, W>>, Conn>: LoadQuery<'query, Conn, Q::Item> + 'query,
    Union<LimitedOn<Order<Filter<Q, P>, OrderBy<M, W>>, Conn>, M, W>:
        LoadQuery<'query, Conn, Q::Item> + 'query,
{
    fn load_past<'conn>(
        self,
        predicate: P,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &'conn mut Conn,
    ) -> impl Future<Output = diesel::QueryResult<Vec<Q::Item>>> + Send + 'conn
    where
        Self: 'conn,
        'query: 'conn,
    {
        past::<_, _, _, _, LimitStyleOf<Conn>>(self, (predicate, order), limit).load(conn)
    }

    fn load_union<'conn>(
        branches: Vec<(Self, (P, OrderBy<M, W>))>,
        order: OrderBy<M, W>,
        names: &'static [&'static str],
        limit: i64,
        conn: &'conn mut Conn,
    ) -> impl Future<Output = diesel::QueryResult<Vec<Q::Item>>> + Send + 'conn
    where
        Self: 'conn,
        'query: 'conn,
    {
        let branches = branches.into_iter().map(|(query, branch)| past(query, branch, limit));
        Union::new(branches.collect(), order, names, limit).load(conn)
    }
}

/// The way `Conn`'s backend writes a page's `LIMIT`.
type LimitStyleOf<Conn> = <<Conn as AsyncConnectionCore>::Backend as SeekDialect>::LimitStyle;

/// A statement with the page's `LIMIT`, as `Conn`'s backend writes it.
type LimitedOn<Q, Conn, O = NoOffset> =
    Limited<Q, <<Conn as AsyncConnectionCore>::Backend as SeekDialect>::LimitStyle, O>;
