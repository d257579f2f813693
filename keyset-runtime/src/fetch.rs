//! How the rows past a cursor are fetched: one seek, or one seek per NULL region of a nullable
//! leading key (see [`crate::sql::Region`]). The leading key's type decides, at compile time:
//! [`KeyShape::Fetch`](crate::sql::KeyShape::Fetch).

use diesel::dsl::{Filter, Limit, Order};
use diesel::query_dsl::methods::{FilterDsl, LimitDsl, OrderDsl};
use diesel::query_dsl::LoadQuery;
use diesel::{Connection, QueryResult, RunQueryDsl};

use crate::sql::{OrderBy, Region, Seek, SeekDialect, SeekKeys, Walk};
use crate::Keyset;

/// The whole page is one query: the leading key is not nullable, so its predicate seeks.
#[derive(Debug, Clone, Copy)]
pub struct OneSeek;

/// The leading key is nullable: where the backend prefers it
/// ([`SeekDialect::SPLIT_NULL_REGIONS`]), a page that reaches the NULL boundary is fetched as
/// two queries, each an index seek. The second runs only when the first leaves the page short,
/// and needs a second copy of the query, so the query must be `Clone` (boxed queries are not).
#[derive(Debug, Clone, Copy)]
pub struct SeekPerNullRegion;

/// Fetches up to `limit` rows of `query` past `seek`, in `order`.
#[diagnostic::on_unimplemented(
    message = "this query cannot be paged by a model whose leading sort key is nullable",
    note = "with a nullable leading key a page may need two seeks, one per NULL region, so the query must be `Clone`: page an unboxed query, or lead the sort with a non-nullable key"
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

/// The query `fetch` runs: filtered by the seek, ordered, limited.
pub type SeekQuery<Q, M, W> = Limit<Order<Filter<Q, Seek<M, W>>, OrderBy<M, W>>>;

/// A query that can be filtered by a seek, ordered and limited, and loaded: the bounds both
/// strategies share, named once.
pub trait SeekLoad<'query, M: Keyset, W, Conn>: Sized {
    /// `query.filter(seek).order(order).limit(limit).load(conn)`.
    fn run(
        self,
        seek: Seek<M, W>,
        order: OrderBy<M, W>,
        limit: i64,
        conn: &mut Conn,
    ) -> QueryResult<Vec<M>>;
}

impl<'query, Q, M, W, Conn> SeekLoad<'query, M, W, Conn> for Q
where
    M: Keyset,
    Q: FilterDsl<Seek<M, W>>,
    Filter<Q, Seek<M, W>>: OrderDsl<OrderBy<M, W>>,
    Order<Filter<Q, Seek<M, W>>, OrderBy<M, W>>: LimitDsl,
    SeekQuery<Q, M, W>: LoadQuery<'query, Conn, M>,
{
    fn run(
        self,
        seek: Seek<M, W>,
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
