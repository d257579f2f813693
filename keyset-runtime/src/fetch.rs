//! How the rows past a cursor are fetched: one seek, one seek per tie level on SQLite (see
//! [`SeekDialect::SEEK_PER_TIE_LEVEL`]), or one seek per NULL region of a nullable leading key
//! (see [`crate::sql::Region`]). The keys' types decide, at compile time:
//! [`KeyShape::Fetch`](crate::sql::KeyShape::Fetch). [`PageQuery`] runs the query of each page
//! position, seeks through these strategies.

use diesel::dsl::{Filter, Limit, Offset, Order};
use diesel::internal::table_macro::{BoxedSelectStatement, SelectStatement};
use diesel::query_dsl::methods::{FilterDsl, LimitDsl, OffsetDsl, OrderDsl};
use diesel::query_dsl::LoadQuery;
use diesel::{Connection, QueryResult, RunQueryDsl};

use crate::page::{Paginate, Position};
use crate::sql::{
    Backward, Forward, KeyShape, LevelKeys, OrderBy, Region, Seek, SeekDialect, SeekKeys,
    SeekLevel, Walk,
};
use crate::Keyset;

/// The whole page is one query: the leading key is not nullable, so its predicate seeks. (The
/// strategy of a model with a nullable key after a non-nullable leading one.)
#[derive(Debug, Clone, Copy)]
pub struct OneSeek;

/// No key is nullable: where the backend prefers it ([`SeekDialect::SEEK_PER_TIE_LEVEL`],
/// SQLite), a page is fetched as one index seek per tie level ([`Seek::level`]), innermost
/// first, each limited to the rows still missing: at most one statement per sort key, usually
/// one. The levels need copies of the query ([`Repeat`]); a query that has none (a boxed query)
/// is fetched with the single predicate, as on the other backends.
///
/// The levels are disjoint, so rows inserted or deleted meanwhile never repeat a row within a
/// page. The statements are not one snapshot, though: a row whose *sort key* another connection
/// updates between two of them, from one level into a later one, can be read by both. Where sort
/// keys are updated concurrently and a page must be exact, load it inside a transaction
/// (`conn.transaction(|conn| ..load_page(conn))`), which makes SQLite read one snapshot. (The
/// same holds for the two seeks of [`SeekPerNullRegion`].)
#[derive(Debug, Clone, Copy)]
pub struct SeekPerTieLevel;

/// The leading key is nullable: where the backend prefers it
/// ([`SeekDialect::SPLIT_NULL_REGIONS`]), a page that reaches the NULL boundary is fetched as
/// two queries, each an index seek. The second runs only when the first leaves the page short,
/// and needs a second copy of the query, so the query must be `Clone` (boxed queries are not).
#[derive(Debug, Clone, Copy)]
pub struct SeekPerNullRegion;

/// Fetches up to `limit` rows of `query` past `seek`, in `order`.
#[diagnostic::on_unimplemented(
    message = "this query cannot be paged by `{Self}`",
    note = "with a nullable leading key (`SeekPerNullRegion`) a page may need two seeks, one per NULL region, so the query must be `Clone`: page an unboxed query, or lead the sort with a non-nullable key",
    note = "with only non-nullable keys (`SeekPerTieLevel`) the query must implement `keyset_runtime::Repeat`, as Diesel's select statements (when `Clone`) and boxed queries do"
)]
pub trait SeekFetch<'query, Q, M: Keyset, W, Conn> {
    /// Loads the rows.
    fn fetch(
        query: Q,
        seek: Seek<M, W>,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<M>>;
}

/// A query that can be filtered by a seek predicate `P` (the whole [`Seek`], or one
/// [`SeekLevel`]), ordered and limited, and loaded: the bounds every strategy shares, named once.
pub trait SeekLoad<'query, M: Keyset, W, Conn, P = Seek<M, W>>: Sized {
    /// `query.filter(seek).order(order).limit(limit).load(conn)`.
    fn run(self, seek: P, order: OrderBy<M, W>, limit: i64, conn: &mut Conn)
        -> QueryResult<Vec<M>>;
}

impl<'query, Q, M, W, Conn, P> SeekLoad<'query, M, W, Conn, P> for Q
where
    M: Keyset,
    Q: FilterDsl<P>,
    Filter<Q, P>: OrderDsl<OrderBy<M, W>>,
    Order<Filter<Q, P>, OrderBy<M, W>>: LimitDsl,
    Limit<Order<Filter<Q, P>, OrderBy<M, W>>>: LoadQuery<'query, Conn, M>,
{
    fn run(
        self,
        seek: P,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<M>> {
        LimitDsl::limit(OrderDsl::order(FilterDsl::filter(self, seek), order), limit).load(conn)
    }
}

impl<'query, Q, M, W, Conn> SeekFetch<'query, Q, M, W, Conn> for OneSeek
where
    M: Keyset,
    Q: SeekLoad<'query, M, W, Conn>,
{
    fn fetch(
        query: Q,
        seek: Seek<M, W>,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<M>> {
        query.run(seek, order, limit, conn)
    }
}

impl<'query, Q, M, W, Conn> SeekFetch<'query, Q, M, W, Conn> for SeekPerNullRegion
where
    M: Keyset,
    M::Keys: Clone + SeekKeys<Conn::Backend>,
    M::Columns: Clone,
    W: Walk,
    Conn: Connection,
    Conn::Backend: SeekDialect,
    Q: Clone + SeekLoad<'query, M, W, Conn>,
{
    fn fetch(
        query: Q,
        seek: Seek<M, W>,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<M>> {
        if !seek.splits::<Conn::Backend>() {
            return query.run(seek, order, limit, conn);
        }
        // The cursor's region is the NULLs exactly when its value is NULL; the next one is the
        // other side.
        let null = seek.leading_is_null::<Conn::Backend>();
        let next = seek.clone().region(Region::Next);
        let mut rows = query.clone().run(
            seek.region(Region::Cursor),
            order.clone().one_side(null),
            limit,
            conn,
        )?;
        let missing = limit - rows.len() as i64;
        if missing > 0 {
            rows.extend(query.run(next, order.one_side(!null), missing, conn)?);
        }
        Ok(rows)
    }
}

impl<'query, Q, M, W, Conn> SeekFetch<'query, Q, M, W, Conn> for SeekPerTieLevel
where
    M: Keyset,
    M::Keys: Clone + LevelKeys<Conn::Backend>,
    M::Columns: Clone,
    W: Walk,
    Conn: Connection,
    Conn::Backend: SeekDialect,
    Q: Repeat + SeekLoad<'query, M, W, Conn> + SeekLoad<'query, M, W, Conn, SeekLevel<M, W>>,
{
    fn fetch(
        query: Q,
        seek: Seek<M, W>,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<M>> {
        let levels = <M::Keys as KeyShape>::LEN;
        if !<Conn::Backend as SeekDialect>::SEEK_PER_TIE_LEVEL || levels < 2 {
            return query.run(seek, order, limit, conn);
        }
        let mut rows = Vec::new();
        // Innermost first: level `n` ties with the cursor on every key but the last, and all its
        // rows come before those of level `n - 1` in the walk's order.
        for level in (2..=levels).rev() {
            let Some(copy) = query.again() else {
                if rows.is_empty() {
                    // Not repeatable (a boxed query): the whole page is the single predicate.
                    return query.run(seek, order, limit, conn);
                }
                return Err(diesel::result::Error::QueryBuilderError(
                    "`Repeat::again` gave no copy of a query it had copied before".into(),
                ));
            };
            let missing = limit - rows.len() as i64;
            rows.extend(copy.run(seek.clone().level(level), order.clone(), missing, conn)?);
            if rows.len() as i64 >= limit {
                return Ok(rows);
            }
        }
        let missing = limit - rows.len() as i64;
        rows.extend(query.run(seek.level(1), order, missing, conn)?);
        Ok(rows)
    }
}

/// A query that a page may run more than once: on SQLite a page of a model without nullable
/// keys runs one statement per tie level ([`SeekPerTieLevel`]), each on its own copy of the
/// query. Implemented for Diesel's select statements (plain, filtered, joined) when they are
/// `Clone`, as their parts usually are, and for boxed queries, which are not `Clone` and so give
/// no copy: they are paged with the single predicate, as on the other backends.
///
/// The strategy is picked by the model's type and the backend decides at run time, so paging a
/// model without nullable keys needs `Repeat` on every backend. For a query type of your own:
/// `again` must give a copy on every call, or on none.
pub trait Repeat: Sized {
    /// A copy of the query, to run once more; `None` when it has none.
    fn again(&self) -> Option<Self>;
}

// Diesel names these types only through this doc-hidden module (the one `table!` expands to),
// unless a feature that opts into breaking changes is on.
impl<F, S, D, W, O, LOf, G, H, LC> Repeat for SelectStatement<F, S, D, W, O, LOf, G, H, LC>
where
    Self: Clone,
{
    fn again(&self) -> Option<Self> {
        Some(self.clone())
    }
}

impl<'a, ST, QS, DB, GB> Repeat for BoxedSelectStatement<'a, ST, QS, DB, GB> {
    fn again(&self) -> Option<Self> {
        None
    }
}

/// The four queries a page may run (first, after, before, last) for a query `Q` on connection
/// `Conn`. Implemented for every query where Diesel accepts all four; you only meet it in bounds.
pub trait PageQuery<'query, Conn>: Paginate {
    /// Loads `limit` rows from `position`, in the walk's order; a page number's page skips
    /// `offset` rows first (checked by the caller; 0 for every other position).
    #[doc(hidden)]
    fn load_rows(
        self,
        position: &Position<<Self::Model as Keyset>::Cursor>,
        limit: i64,
        offset: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<Self::Model>>;
}

impl<'query, Conn, Q, M> PageQuery<'query, Conn> for Q
where
    Q: Paginate<Model = M>,
    M: Keyset,
    <M::Keys as KeyShape>::Fetch: SeekFetch<'query, Q, M, Forward, Conn>,
    <M::Keys as KeyShape>::Fetch: SeekFetch<'query, Q, M, Backward, Conn>,
    Q: OrderDsl<OrderBy<M, Forward>> + OrderDsl<OrderBy<M, Backward>>,
    Order<Q, OrderBy<M, Forward>>: LimitDsl,
    Order<Q, OrderBy<M, Backward>>: LimitDsl,
    Limit<Order<Q, OrderBy<M, Forward>>>: LoadQuery<'query, Conn, M> + OffsetDsl,
    Limit<Order<Q, OrderBy<M, Backward>>>: LoadQuery<'query, Conn, M>,
    Offset<Limit<Order<Q, OrderBy<M, Forward>>>>: LoadQuery<'query, Conn, M>,
{
    fn load_rows(
        self,
        position: &Position<M::Cursor>,
        limit: i64,
        offset: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<M>> {
        type Fetch<M> = <<M as Keyset>::Keys as KeyShape>::Fetch;
        match position {
            Position::First => {
                LimitDsl::limit(OrderDsl::order(self, M::order_by()), limit).load(conn)
            }
            Position::After(cursor) => {
                Fetch::<M>::fetch(self, M::after(cursor), M::order_by(), limit, conn)
            }
            Position::Before(cursor) => {
                Fetch::<M>::fetch(self, M::before(cursor), M::reverse_order_by(), limit, conn)
            }
            Position::Last => {
                LimitDsl::limit(OrderDsl::order(self, M::reverse_order_by()), limit).load(conn)
            }
            Position::Number(_) => {
                let page = LimitDsl::limit(OrderDsl::order(self, M::order_by()), limit);
                OffsetDsl::offset(page, offset).load(conn)
            }
        }
    }
}
