//! One statement of a page, built on the query and loaded: the match on [`Statement`], written
//! once for both drivers, and the bounds every statement shape puts on a query, named once.

use diesel::dsl::{Filter, Order};
use diesel::query_dsl::methods::{FilterDsl, OrderDsl};
use diesel::{Expression, QueryResult};

use super::count::Counts;
use super::exec::{Connects, Exec, Limit, Load};
use crate::error::Error;
use crate::machine::Statement;
use crate::orders::SortOrder;
use crate::paginate::Paginate;
use crate::repeat::{branches, Repeat};
use crate::sql::{
    Backward, Forward, GroupOrder, Limited, Offset, OrderBy, Seek, SeekLevel, Union, Walk,
};

/// `query.filter(predicate).order(order)` with the page's `LIMIT`.
pub(super) type Past<Q, P, M, W, X, Conn> = Limit<Order<Filter<Q, P>, OrderBy<M, W>>, X, Conn>;

/// A statement built and its rows loading on driver `X`, or why it could not be built.
pub(super) type Loading<'a, X, Item> = Result<<X as Exec>::Page<'a, QueryResult<Vec<Item>>>, Error>;

/// `query.filter(level).order(group_order)` with `LIMIT 1`: the key of the next group.
type GroupKeyPast<Q, M, W, X, Conn> =
    Limit<Order<Filter<Q, SeekLevel<M, W>>, GroupOrder<M, W>>, X, Conn>;

/// A query on which every statement of a page in order `M`, walking `W`, can be built and its
/// rows loaded on `Conn` by `X`, and its rows counted there. Implemented for every such query.
#[doc(hidden)]
pub trait Statements<'q, M: SortOrder, W: Walk, Conn, X: Connects<Conn>>:
    Paginate + Repeat + Counts<'q, Conn, X>
{
    /// Builds `statement` on the query and starts loading its rows. Fails only when the query
    /// gives no copy for a union's branch where [`Repeat`] promised one.
    fn load<'a>(self, statement: Statement<M, W>, conn: &'a mut Conn) -> Loading<'a, X, Self::Item>
    where
        'q: 'a;
}

impl<'q, Q, M, W, Conn, X> Statements<'q, M, W, Conn, X> for Q
where
    X: Connects<Conn>,
    M: SortOrder,
    W: Walk,
    Q: Paginate + Repeat + OrderDsl<OrderBy<M, W>> + OrderDsl<GroupOrder<M, W>>,
    Q: Counts<'q, Conn, X> + FilterDsl<Seek<M, W>> + FilterDsl<SeekLevel<M, W>>,
    Filter<Q, Seek<M, W>>: OrderDsl<OrderBy<M, W>>,
    Filter<Q, SeekLevel<M, W>>: OrderDsl<OrderBy<M, W>> + OrderDsl<GroupOrder<M, W>>,
    Limit<Order<Q, OrderBy<M, W>>, X, Conn>: Load<'q, Conn, Q::Item, X>,
    Limit<Order<Q, GroupOrder<M, W>>, X, Conn>: Load<'q, Conn, Q::Item, X>,
    GroupKeyPast<Q, M, W, X, Conn>: Load<'q, Conn, Q::Item, X>,
    Limit<Order<Q, OrderBy<M, W>>, X, Conn, Offset>: Load<'q, Conn, Q::Item, X>,
    Past<Q, Seek<M, W>, M, W, X, Conn>: Load<'q, Conn, Q::Item, X>,
    Past<Q, SeekLevel<M, W>, M, W, X, Conn>: Load<'q, Conn, Q::Item, X>,
    Union<Past<Q, SeekLevel<M, W>, M, W, X, Conn>, M, W>: Load<'q, Conn, Q::Item, X>,
{
    fn load<'a>(self, statement: Statement<M, W>, conn: &'a mut Conn) -> Loading<'a, X, Q::Item>
    where
        'q: 'a,
    {
        let query = self;
        Ok(match statement {
            Statement::Edge { order, limit } => {
                Limit::<_, X, Conn>::new(OrderDsl::order(query, order), limit).load_rows(conn)
            }
            Statement::Number { order, limit, offset } => {
                let order = OrderDsl::order(query, order);
                Limit::<_, X, Conn, Offset>::with_offset(order, limit, offset).load_rows(conn)
            }
            Statement::Seek { seek, order, limit } => {
                past::<_, _, _, X, Conn>(query, seek, order, limit).load_rows(conn)
            }
            Statement::Level { level, order, limit } => {
                past::<_, _, _, X, Conn>(query, level, order, limit).load_rows(conn)
            }
            Statement::GroupKey { level: None, order } => {
                Limit::<_, X, Conn>::new(OrderDsl::order(query, order), 1).load_rows(conn)
            }
            Statement::GroupKey { level: Some(level), order } => {
                past::<_, _, _, X, Conn>(query, level, order, 1).load_rows(conn)
            }
            Statement::Levels { levels, order, names, limit } => {
                let branches = branches(query, levels)?.into_iter();
                let branches = branches.map(|(query, (level, order))| {
                    past::<_, _, _, X, Conn>(query, level, order, limit)
                });
                Union::new(branches.collect(), order, names, limit).load_rows(conn)
            }
            // Planned only for a page among a set of values (`among.rs`).
            Statement::Probe { .. } | Statement::Boundary { .. } => {
                return Err(unplanned("a window of the order's index"))
            }
        })
    }
}

/// A statement the page machine plans only for other queries: a bug, never the client's.
pub(super) fn unplanned(what: &str) -> Error {
    let message = format!("the page machine planned {what} for a query that cannot run it");
    Error::Database(diesel::result::Error::QueryBuilderError(message.into()))
}

/// `query.filter(predicate).order(order)` with the page's `LIMIT`: under the page's ORDER BY
/// ([`Past`]), or a group's key's ([`GroupKeyPast`]).
pub(super) fn past<Q, P, O: Expression, X: Connects<Conn>, Conn>(
    query: Q,
    predicate: P,
    order: O,
    limit: i64,
) -> Limit<Order<Filter<Q, P>, O>, X, Conn>
where
    Q: FilterDsl<P>,
    Filter<Q, P>: OrderDsl<O>,
{
    Limited::new(OrderDsl::order(FilterDsl::filter(query, predicate), order), limit)
}

/// A query whose pages in order `M` can be loaded on `Conn` by `X`, both ways: [`Statements`]
/// for either walk.
#[doc(hidden)]
pub trait Walks<'q, M: SortOrder, Conn, X: Connects<Conn>>:
    Statements<'q, M, Forward, Conn, X> + Statements<'q, M, Backward, Conn, X>
{
}

impl<'q, Q, M, Conn, X> Walks<'q, M, Conn, X> for Q
where
    M: SortOrder,
    X: Connects<Conn>,
    Q: Statements<'q, M, Forward, Conn, X> + Statements<'q, M, Backward, Conn, X>,
{
}
