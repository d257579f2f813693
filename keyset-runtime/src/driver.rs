//! The sync driver: runs a page's statements on a Diesel [`Connection`](diesel::Connection).
//! What a page runs is the page machine's decision (`machine.rs`); this only builds each
//! [`Statement`] on the query and loads its rows.

use diesel::dsl::{Filter, Order};
use diesel::query_dsl::methods::{FilterDsl, OrderDsl};
use diesel::query_dsl::LoadQuery;
use diesel::{Connection, QueryResult, RunQueryDsl};

use crate::fetched::{Fetched, Loaded};
use crate::machine::{Copies, PageMachine, Statement};
use crate::order::{no_order, Nil, OrderList, Orders, SortOrder};
use crate::ordered::{Load, PaginatedBy};
use crate::page::{Paginate, Paginated};
use crate::position::{decode, Position};
use crate::sql::{
    Backward, Forward, Limited, NoOffset, Offset, OrderBy, Seek, SeekDialect, SeekKeys, Union,
};
use crate::strategy::{branches, next_copy, LevelOf, Repeat};
use crate::{Error, Keyset, Page};

impl<Q: Paginate> Paginated<Q> {
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
    pub fn load_page<'query, Conn>(self, conn: &mut Conn) -> Result<Page<Q::Item>, Error>
    where
        Q: PageQuery<'query, Conn>,
    {
        let limit = crate::request::served_limit(self.limit, self.max_limit)?;
        Ok(self.query.fetch_page_at(self.position, limit, conn)?.finish(&self.codec, false)?.page)
    }

    /// The page, and each row's own token: what a Relay connection's edges carry.
    #[cfg_attr(not(feature = "async-graphql"), allow(dead_code))]
    pub(crate) fn load_edges<'query, Conn>(self, conn: &mut Conn) -> Result<Loaded<Q::Item>, Error>
    where
        Q: PageQuery<'query, Conn>,
    {
        let limit = crate::request::served_limit(self.limit, self.max_limit)?;
        self.query.fetch_page_at(self.position, limit, conn)?.finish(&self.codec, true)
    }
}

/// A query whose pages can be loaded on connection `Conn`: every statement a page of it may run
/// (first, last, by page number, after and before a cursor, one tie level of either) is one
/// Diesel accepts. Implemented for every such query; you meet it in bounds, e.g. of a helper
/// generic over the query, as `Q: PageQuery<'static, Conn>` (its pages are `Page<Q::Item>`), or
/// `Q: PageQuery<'static, Conn, Model = Post, Item = Post>` for a helper that returns
/// `Page<Post>`.
#[diagnostic::on_unimplemented(
    message = "the query `{Self}` cannot be paged on `{Conn}`",
    note = "`paginate` takes a query that selects `Model::as_select()`, or a tuple led by it (plain, filtered, joined or boxed), and that Diesel can load on `{Conn}` with a filter, an ORDER BY and a LIMIT added",
    note = "a query type of your own must also implement `keyset_runtime::Repeat`, as Diesel's select statements and boxed queries do",
    note = "a query with a `.limit(..)` or `.offset(..)` of its own cannot be paged: remove them, the page sets its own (`PageRequest`'s limit)"
)]
pub trait PageQuery<'query, Conn>: Paginate {
    /// Fetches the rows of the page of `limit` rows at `position`: runs each statement the page
    /// machine plans and hands it the rows.
    #[doc(hidden)]
    fn fetch_page_at(
        self,
        position: Position<<Self::Model as Keyset>::Cursor>,
        limit: u32,
        conn: &mut Conn,
    ) -> Result<Fetched<Self::Model, Self::Item>, Error>;
}

/// `query.filter(predicate).order(order).limit(limit)`, loadable on `Conn`, alone or as the
/// branches of a [`Union`]: the bounds of a statement past a cursor, named once for the whole
/// seek and for one tie level, both ways.
pub trait SeekLoad<'query, M: SortOrder, W, Conn, P>: Paginate {
    /// Loads the rows.
    fn load_past(
        self,
        predicate: P,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<Self::Item>>;

    /// Loads the rows of the union of one such statement per branch, each on its own copy of
    /// the query, ordered by `order` over the output columns `names`.
    fn load_union(
        branches: Vec<(Self, (P, OrderBy<M, W>))>,
        order: OrderBy<M, W>,
        names: &'static [&'static str],
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<Self::Item>>;
}

impl<'query, Q, M, W, Conn, P> SeekLoad<'query, M, W, Conn, P> for Q
where
    M: SortOrder,
    Conn: Connection,
    Conn::Backend: SeekDialect,
    Q: Paginate + FilterDsl<P>,
    Filter<Q, P>: OrderDsl<OrderBy<M, W>>,
    LimitedOn<Order<Filter<Q, P>, OrderBy<M, W>>, Conn>: LoadQuery<'query, Conn, Q::Item>,
    Union<LimitedOn<Order<Filter<Q, P>, OrderBy<M, W>>, Conn>, M, W>:
        LoadQuery<'query, Conn, Q::Item>,
{
    fn load_past(
        self,
        predicate: P,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<Q::Item>> {
        past(self, (predicate, order), limit).load(conn)
    }

    fn load_union(
        branches: Vec<(Self, (P, OrderBy<M, W>))>,
        order: OrderBy<M, W>,
        names: &'static [&'static str],
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<Q::Item>> {
        let branches = branches.into_iter().map(|(query, branch)| past(query, branch, limit));
        Union::new(branches.collect(), order, names, limit).load(conn)
    }
}

/// `query.filter(predicate).order(order)` with the page's `LIMIT`.
pub(crate) fn past<Q, P, M: SortOrder, W, L>(
    query: Q,
    (predicate, order): (P, OrderBy<M, W>),
    limit: i64,
) -> Limited<Order<Filter<Q, P>, OrderBy<M, W>>, L>
where
    Q: FilterDsl<P>,
    Filter<Q, P>: OrderDsl<OrderBy<M, W>>,
{
    Limited::new(OrderDsl::order(FilterDsl::filter(query, predicate), order), limit)
}

/// A statement with the page's `LIMIT`, as `Conn`'s backend writes it.
pub(crate) type LimitedOn<Q, Conn, O = NoOffset> =
    Limited<Q, <<Conn as Connection>::Backend as SeekDialect>::LimitStyle, O>;

impl<'query, Conn, Q, M> PageQuery<'query, Conn> for Q
where
    Conn: Connection,
    Conn::Backend: SeekDialect,
    M: Keyset,
    M::Keys: SeekKeys<Conn::Backend>,
    Q: Paginate<Model = M> + Repeat + RunStatement<'query, M, Conn>,
{
    fn fetch_page_at(
        self,
        position: Position<M::Cursor>,
        limit: u32,
        conn: &mut Conn,
    ) -> Result<Fetched<M, Q::Item>, Error> {
        fetch_at::<M, _, _>(self, position, limit, conn)
    }
}

/// The rows of the page of `limit` rows at `position` in order `O`: runs each statement the page
/// machine plans, on a copy of the query while another may follow, and hands it the rows.
fn fetch_at<'query, O, Q, Conn>(
    query: Q,
    position: Position<O::Cursor>,
    limit: u32,
    conn: &mut Conn,
) -> Result<Fetched<O, Q::Item>, Error>
where
    Conn: Connection,
    Conn::Backend: SeekDialect,
    O: SortOrder<Row = Q::Model>,
    O::Keys: SeekKeys<Conn::Backend>,
    Q: Repeat + RunStatement<'query, O, Conn>,
{
    let mut machine = PageMachine::<O, Q::Item>::new::<Conn::Backend>(
        position,
        (limit, Copies::of::<Q>()),
        Q::model,
    )?;
    let mut query = Some(query);
    while let Some(statement) = machine.next() {
        let query = next_copy(&mut query, machine.may_continue())?;
        machine.fetched(query.run(statement, conn)?);
    }
    Ok(machine.into_fetched())
}

impl<Q: Paginate, O: Orders<Row = Q::Model>> PaginatedBy<Q, O> {
    /// Runs the query in the chosen order and returns the page, as
    /// [`Paginated::load_page`] does (see [`Paginate::paginate_by`] for a walk).
    pub fn load_page<'query, Conn>(self, conn: &mut Conn) -> Result<Page<Q::Item>, Error>
    where
        Q: PageQueryBy<'query, Conn, O>,
    {
        Ok(self.load_edges(conn, false)?.page)
    }

    /// The page, and with `edges` each row's own token (Relay's edges).
    pub(crate) fn load_edges<'query, Conn>(
        self,
        conn: &mut Conn,
        edges: bool,
    ) -> Result<Loaded<Q::Item>, Error>
    where
        Q: PageQueryBy<'query, Conn, O>,
    {
        let (query, index, load) = self.load(edges)?;
        query.load_page_in(index, &load, conn)
    }
}

/// A query whose pages can be loaded on connection `Conn` in every order of `O`, declared and
/// reversed: [`PageQuery`] for each. Implemented for every such query; you meet it in bounds,
/// e.g. of a helper generic over the query, as `Q: PageQueryBy<'static, Conn, PostOrder>`.
///
/// ```
/// # use diesel::prelude::*;
/// use keyset_runtime::{Keyset, Page, PageQueryBy, PageRequest, Paginate, SortDirection};
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
///     Q: PageQueryBy<'static, Conn, PostOrder, Model = Post, Item = Post>,
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
    message = "the query `{Self}` cannot be paged on `{Conn}` in the orders of `{O}`",
    note = "`load_page` takes a query that selects `Model::as_select()` (plain, filtered, joined or boxed) and that Diesel can load on `{Conn}` with a filter, an ORDER BY and a LIMIT added"
)]
pub trait PageQueryBy<'query, Conn, O: Orders>: Paginate {
    /// Loads the page `load` asks for in the order at `index` of `O::List`.
    #[doc(hidden)]
    fn load_page_in(
        self,
        index: usize,
        load: &Load,
        conn: &mut Conn,
    ) -> Result<Loaded<Self::Item>, Error>;
}

impl<'query, Conn, O: Orders, Q: PageQueries<'query, Conn, O::List>> PageQueryBy<'query, Conn, O>
    for Q
{
    fn load_page_in(
        self,
        index: usize,
        load: &Load,
        conn: &mut Conn,
    ) -> Result<Loaded<Q::Item>, Error> {
        PageQueries::<'query, Conn, O::List>::load_in(self, index, load, conn)
    }
}

/// [`PageQueryBy`] for one list of orders, by walking it to the chosen one.
#[doc(hidden)]
pub trait PageQueries<'query, Conn, List: OrderList>: Paginate {
    /// Loads the page in the order at `index` of `List`.
    fn load_in(
        self,
        index: usize,
        load: &Load,
        conn: &mut Conn,
    ) -> Result<Loaded<Self::Item>, Error>;
}

impl<'query, Conn, Q: Paginate, Row: 'static> PageQueries<'query, Conn, Nil<Row>> for Q {
    fn load_in(self, _: usize, _: &Load, _: &mut Conn) -> Result<Loaded<Q::Item>, Error> {
        Err(no_order())
    }
}

impl<'query, Conn, Q, O, Rest> PageQueries<'query, Conn, (O, Rest)> for Q
where
    Conn: Connection,
    Conn::Backend: SeekDialect,
    O: SortOrder<Row = Q::Model>,
    O::Keys: SeekKeys<Conn::Backend>,
    Rest: OrderList<Row = O::Row>,
    Q: Repeat + RunStatement<'query, O, Conn> + PageQueries<'query, Conn, Rest>,
{
    fn load_in(self, index: usize, load: &Load, conn: &mut Conn) -> Result<Loaded<Q::Item>, Error> {
        if index > 0 {
            return PageQueries::<'query, Conn, Rest>::load_in(self, index - 1, load, conn);
        }
        let position = decode::<O>(&load.codec, &load.start.position, load.start.reading)?;
        fetch_at::<O, _, _>(self, position, load.limit, conn)?.finish(&load.codec, load.edges)
    }
}

/// A query on which every statement of a page can be built and loaded on `Conn`: the bounds
/// of the seven statements, named once.
pub trait RunStatement<'query, M: SortOrder, Conn>: Paginate {
    /// Builds `statement` on the query and loads its rows.
    fn run(self, statement: Statement<M>, conn: &mut Conn) -> QueryResult<Vec<Self::Item>>;
}

impl<'query, Q, M, Conn> RunStatement<'query, M, Conn> for Q
where
    M: SortOrder,
    Conn: Connection,
    Conn::Backend: SeekDialect,
    Q: Paginate + OrderDsl<OrderBy<M, Forward>> + OrderDsl<OrderBy<M, Backward>>,
    LimitedOn<Order<Q, OrderBy<M, Forward>>, Conn>: LoadQuery<'query, Conn, Q::Item>,
    LimitedOn<Order<Q, OrderBy<M, Forward>>, Conn, Offset>: LoadQuery<'query, Conn, Q::Item>,
    LimitedOn<Order<Q, OrderBy<M, Backward>>, Conn>: LoadQuery<'query, Conn, Q::Item>,
    Q: SeekLoad<'query, M, Forward, Conn, Seek<M, Forward>>,
    Q: SeekLoad<'query, M, Backward, Conn, Seek<M, Backward>>,
    Q: SeekLoad<'query, M, Forward, Conn, LevelOf<M, Forward>>,
    Q: SeekLoad<'query, M, Backward, Conn, LevelOf<M, Backward>>,
    Q: Repeat,
{
    fn run(self, statement: Statement<M>, conn: &mut Conn) -> QueryResult<Vec<Q::Item>> {
        let query = self;
        match statement {
            Statement::First { order, limit } => {
                Limited::new(OrderDsl::order(query, order), limit).load(conn)
            }
            Statement::Number { order, limit, offset } => {
                Limited::with_offset(OrderDsl::order(query, order), limit, offset).load(conn)
            }
            Statement::Last { order, limit } => {
                Limited::new(OrderDsl::order(query, order), limit).load(conn)
            }
            Statement::After { seek, order, limit } => query.load_past(seek, order, limit, conn),
            Statement::Before { seek, order, limit } => query.load_past(seek, order, limit, conn),
            Statement::AfterLevel { level, order, limit } => {
                query.load_past(level, order, limit, conn)
            }
            Statement::BeforeLevel { level, order, limit } => {
                query.load_past(level, order, limit, conn)
            }
            Statement::AfterLevels { levels, order, names, limit } => {
                Q::load_union(branches(query, levels)?, order, names, limit, conn)
            }
            Statement::BeforeLevels { levels, order, names, limit } => {
                Q::load_union(branches(query, levels)?, order, names, limit, conn)
            }
        }
    }
}
