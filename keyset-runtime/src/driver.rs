//! The sync driver: runs a page's statements on a Diesel [`Connection`](diesel::Connection).
//! What a page runs is the page machine's decision (`machine.rs`); this only builds each
//! [`Statement`] on the query and loads its rows.

use diesel::dsl::{Filter, Limit, Offset, Order};
use diesel::query_dsl::methods::{FilterDsl, LimitDsl, OffsetDsl, OrderDsl};
use diesel::query_dsl::LoadQuery;
use diesel::{Connection, QueryResult, RunQueryDsl};

use crate::machine::{PageMachine, Statement};
use crate::page::{Paginate, Paginated};
use crate::position::Position;
use crate::sql::{Backward, Forward, OrderBy, Seek, SeekDialect, SeekKeys};
use crate::strategy::{next_copy, LevelOf, Repeat};
use crate::token::Codec;
use crate::{Error, Keyset, Page};

impl<Q: Paginate> Paginated<Q> {
    /// Runs the query and returns the page, fetching one row more than the limit to learn whether
    /// a next page exists: one query; on SQLite, for a page after (or before) a cursor, up to one
    /// per sort key, each an index seek ([`Seek::level`](crate::sql::Seek::level): the next
    /// runs only while the page is short, and a boxed query runs one); two when a page crosses
    /// the NULL boundary of a nullable leading key. See the [crate docs](crate) for a walk
    /// forward.
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
    pub fn load_page<'query, Conn>(self, conn: &mut Conn) -> Result<Page<Q::Model>, Error>
    where
        Q: PageQuery<'query, Conn>,
    {
        let limit = crate::request::served_limit(self.limit, self.max_limit)?;
        self.query.load_page_at(self.position, limit, &self.codec, conn)
    }
}

/// A query whose pages can be loaded on connection `Conn`: every statement a page of it may run
/// (first, last, by page number, after and before a cursor, one tie level of either) is one
/// Diesel accepts. Implemented for every such query; you meet it in bounds, e.g. of a helper
/// generic over the query, as `Q: PageQuery<'static, Conn>`.
#[diagnostic::on_unimplemented(
    message = "the query `{Self}` cannot be paged on `{Conn}`",
    note = "`paginate` takes a query that selects `Model::as_select()` (plain, filtered, joined or boxed) and that Diesel can load on `{Conn}` with a filter, an ORDER BY and a LIMIT added",
    note = "a query type of your own must also implement `keyset_runtime::Repeat`, as Diesel's select statements and boxed queries do"
)]
pub trait PageQuery<'query, Conn>: Paginate {
    /// Loads the page of `limit` rows at `position`: runs each statement the page machine plans
    /// and hands it the rows.
    #[doc(hidden)]
    fn load_page_at(
        self,
        position: Position<<Self::Model as Keyset>::Cursor>,
        limit: u32,
        codec: &Codec,
        conn: &mut Conn,
    ) -> Result<Page<Self::Model>, Error>;
}

/// `query.filter(predicate).order(order).limit(limit)`, loadable on `Conn`: the bounds of a
/// statement past a cursor, named once for the whole seek and for one tie level, both ways.
pub trait SeekLoad<'query, M: Keyset, W, Conn, P>: Sized {
    /// Loads the rows.
    fn load_past(
        self,
        predicate: P,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<M>>;
}

impl<'query, Q, M, W, Conn, P> SeekLoad<'query, M, W, Conn, P> for Q
where
    M: Keyset,
    Q: FilterDsl<P>,
    Filter<Q, P>: OrderDsl<OrderBy<M, W>>,
    Order<Filter<Q, P>, OrderBy<M, W>>: LimitDsl,
    Limit<Order<Filter<Q, P>, OrderBy<M, W>>>: LoadQuery<'query, Conn, M>,
{
    fn load_past(
        self,
        predicate: P,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<M>> {
        LimitDsl::limit(OrderDsl::order(FilterDsl::filter(self, predicate), order), limit)
            .load(conn)
    }
}

impl<'query, Conn, Q, M> PageQuery<'query, Conn> for Q
where
    Conn: Connection,
    Conn::Backend: SeekDialect,
    M: Keyset,
    M::Keys: SeekKeys<Conn::Backend>,
    Q: Paginate<Model = M> + Repeat + RunStatement<'query, M, Conn>,
{
    fn load_page_at(
        self,
        position: Position<M::Cursor>,
        limit: u32,
        codec: &Codec,
        conn: &mut Conn,
    ) -> Result<Page<M>, Error> {
        let mut machine = PageMachine::new::<Conn::Backend>(position, limit, Q::REPEATS)?;
        let mut query = Some(self);
        while let Some(statement) = machine.next() {
            let query = next_copy(&mut query, machine.may_continue())?;
            machine.fetched(query.run(statement, conn)?);
        }
        machine.finish(codec)
    }
}

/// A query on which every statement of a page can be built and loaded on `Conn`: the bounds
/// of the seven statements, named once.
pub trait RunStatement<'query, M: Keyset, Conn>: Sized {
    /// Builds `statement` on the query and loads its rows.
    fn run(self, statement: Statement<M>, conn: &mut Conn) -> QueryResult<Vec<M>>;
}

impl<'query, Q, M, Conn> RunStatement<'query, M, Conn> for Q
where
    M: Keyset,
    Q: OrderDsl<OrderBy<M, Forward>> + OrderDsl<OrderBy<M, Backward>>,
    Order<Q, OrderBy<M, Forward>>: LimitDsl,
    Order<Q, OrderBy<M, Backward>>: LimitDsl,
    Limit<Order<Q, OrderBy<M, Forward>>>: LoadQuery<'query, Conn, M> + OffsetDsl,
    Limit<Order<Q, OrderBy<M, Backward>>>: LoadQuery<'query, Conn, M>,
    Offset<Limit<Order<Q, OrderBy<M, Forward>>>>: LoadQuery<'query, Conn, M>,
    Q: SeekLoad<'query, M, Forward, Conn, Seek<M, Forward>>,
    Q: SeekLoad<'query, M, Backward, Conn, Seek<M, Backward>>,
    Q: SeekLoad<'query, M, Forward, Conn, LevelOf<M, Forward>>,
    Q: SeekLoad<'query, M, Backward, Conn, LevelOf<M, Backward>>,
{
    fn run(self, statement: Statement<M>, conn: &mut Conn) -> QueryResult<Vec<M>> {
        let query = self;
        match statement {
            Statement::First { order, limit } => {
                LimitDsl::limit(OrderDsl::order(query, order), limit).load(conn)
            }
            Statement::Number { order, limit, offset } => {
                let page = LimitDsl::limit(OrderDsl::order(query, order), limit);
                OffsetDsl::offset(page, offset).load(conn)
            }
            Statement::Last { order, limit } => {
                LimitDsl::limit(OrderDsl::order(query, order), limit).load(conn)
            }
            Statement::After { seek, order, limit } => query.load_past(seek, order, limit, conn),
            Statement::Before { seek, order, limit } => query.load_past(seek, order, limit, conn),
            Statement::AfterLevel { level, order, limit } => {
                query.load_past(level, order, limit, conn)
            }
            Statement::BeforeLevel { level, order, limit } => {
                query.load_past(level, order, limit, conn)
            }
        }
    }
}
