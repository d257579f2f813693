//! [`Window`]: a feed's first statement, the plain `IN (..)` filter held to the next rows of the
//! order's own index, so that where the set's rows are dense among the recent ones (the feed of
//! the authors who posted last) a page costs what the plain filter costs, a short walk of the
//! order's index, and never more than that walk where they are not.
//!
//! `created_at >= (SELECT created_at FROM posts WHERE <seek> ORDER BY created_at DESC, id DESC
//! LIMIT 1 OFFSET k)`, beside the seek: the rows past the cursor up to the one `k` rows on in the
//! table (and the rest of its tie group on the leading key), whatever the query's filters. The
//! subquery walks `k + 1` entries of the order's index; the engine then finds the set's rows among
//! at most as many. Where that window holds fewer rows of the set than the page, the page goes on
//! past the last one found with one seek per value (`members/`). Where fewer than `k + 1` rows
//! are left, the subquery is empty, the comparison NULL, and the window holds no row: the seeks
//! per value take the whole page. Not used with a nullable leading key.
//!
//! Where the engine does not bound its index range by the subquery (MariaDB:
//! [`Windowing::ReadFirst`](super::Windowing)), the row `k` rows on is read first, by a
//! statement of its own (the table's keys walked, as the subquery does, and the query's row
//! fetched by them), and the window ends at its leading value, bound: `created_at >= ?`
//! ([`WindowEnd::At`]). Where that statement finds no row (fewer rows left, or the query's
//! filters leave that row out), the seeks per value take the page.

use diesel::backend::Backend;
use diesel::expression::{is_aggregate, AppearsOnTable, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Bool, HasSqlType};
use diesel::{Expression, QueryResult};

use super::dialect::{push_value, SeekDialect};
use super::keys::{KeyShape, SeekKeys, SortColumns};
use super::members::walk_top_bound;
use super::order_by::OrderBy;
use super::seek::Seek;
use super::walk::Walk;
use crate::orders::SortOrder;

/// The rows past the cursor (`seek`, none on the first page) up to the window's `end` in the
/// order (see the module docs). (Named in hidden bounds only.)
#[doc(hidden)]
pub struct Window<M: SortOrder, W, T> {
    seek: Option<Seek<M, W>>,
    order: OrderBy<M, W>,
    end: WindowEnd<M, W>,
    table: T,
}

/// Where a feed's window ends. (Named in hidden bounds only.)
#[doc(hidden)]
pub enum WindowEnd<M: SortOrder, W> {
    /// At the row `offset` rows on from the first past the cursor in table `T`, which a
    /// subquery finds.
    Subquery { offset: i64 },
    /// At the leading value of the row whose cursor this seek is built on (its tie group
    /// included), which a statement before found.
    At(Seek<M, W>),
    /// Nowhere: every row past the cursor (what the walk to a window's end filters by).
    Rest,
    /// At the last of the values' first rows that can enter the page, in a feed's statement
    /// that reads those first (`sql/members/lateral.rs`): `created_at >= (SELECT
    /// min("created_at") FROM "__keyset_top")`, `leading` the leading key's output column.
    Top { leading: &'static str },
}

impl<M: SortOrder, W> WindowEnd<M, W> {
    /// The end of a window of `rows` rows, found by a subquery.
    pub(crate) fn rows(rows: i64) -> Self {
        WindowEnd::Subquery { offset: rows.max(1) - 1 }
    }
}

impl<M: SortOrder, W, T> Window<M, W, T> {
    /// The rows past `seek` (from the start without one) up to `end`; `table` is what a
    /// [`WindowEnd::Rows`] subquery reads.
    pub(crate) fn new(seek: Option<Seek<M, W>>, end: WindowEnd<M, W>, table: T) -> Self {
        Window { seek, order: OrderBy::new(), end, table }
    }
}

impl<M: SortOrder, W, T> Expression for Window<M, W, T> {
    type SqlType = Bool;
}

impl<QS, M: SortOrder, W, T> AppearsOnTable<QS> for Window<M, W, T> where
    Seek<M, W>: AppearsOnTable<QS>
{
}

impl<M: SortOrder, W, T> ValidGrouping<()> for Window<M, W, T> {
    type IsAggregate = is_aggregate::No;
}

// Written with the cursor's seek, whose shape may depend on its values: cached by its text.
impl<M: SortOrder, W, T> QueryId for Window<M, W, T> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB, M, W, T> QueryFragment<DB> for Window<M, W, T>
where
    DB: Backend + SeekDialect + HasSqlType<BigInt>,
    M: SortOrder,
    M::Keys: SeekKeys<DB>,
    M::Columns: SortColumns<DB>,
    W: Walk,
    T: QueryFragment<DB>,
    i64: ToSql<BigInt, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql("(");
        if let Some(seek) = &self.seek {
            seek.walk_ast(out.reborrow())?;
        }
        let and = if self.seek.is_some() { " AND " } else { "" };
        // The rows before the window's last, or at it: on its side of the order.
        let toward = <M::Columns as KeyShape>::LEADING_DESC != W::BACKWARD;
        let offset = match &self.end {
            // Every row past the cursor.
            WindowEnd::Rest => {
                out.push_sql(if self.seek.is_some() { ")" } else { "1 = 1)" });
                return Ok(());
            }
            WindowEnd::At(end) => {
                out.push_sql(and);
                end.walk_leading_end(out.reborrow())?;
                out.push_sql(")");
                return Ok(());
            }
            WindowEnd::Top { leading } => {
                out.push_sql(and);
                self.order.walk_leading(out.reborrow())?;
                walk_top_bound(out.reborrow(), toward, leading)?;
                out.push_sql(")");
                return Ok(());
            }
            WindowEnd::Subquery { offset } => offset,
        };
        out.push_sql(and);
        self.order.walk_leading(out.reborrow())?;
        out.push_sql(if toward { " >= (SELECT " } else { " <= (SELECT " });
        self.order.walk_leading(out.reborrow())?;
        out.push_sql(" FROM ");
        self.table.walk_ast(out.reborrow())?;
        if let Some(seek) = &self.seek {
            out.push_sql(" WHERE ");
            seek.walk_ast(out.reborrow())?;
        }
        out.push_sql(" ORDER BY ");
        self.order.walk_ast(out.reborrow())?;
        out.push_sql(" LIMIT 1 OFFSET ");
        push_value::<DB, BigInt, i64>(out.reborrow(), offset)?;
        out.push_sql("))");
        Ok(())
    }
}

/// `<walk> LIMIT 1 OFFSET k`, both numbers written into the SQL: the statement that reads where
/// a window ends on MariaDB ([`Windowing::ReadFirst`](super::Windowing)), whose walk is a
/// derived table, planned with the numbers in view (it weighs walking `k + 1` entries of the
/// order's index against sorting what another index yields). Measured once with the offset
/// bound: a first page among 1,000 authors after one among 100 took 114 ms, its walk a scan
/// and sort of the table, and 0.8 ms with it written. The machine rounds `k + 1` up to a power
/// of two, so that a listing has a few such texts.
///
/// Prepared anew for every page, never taken from the connection's statement cache: MariaDB
/// 10.11 plans that walk well on a prepared statement's first execution, but as a scan and sort
/// of the table (125 ms against 0.6, 1M posts) on an execution after the connection ran other
/// statements on the table (a page of seeks per value, a row read by its key; not on a session's
/// temporary table); a range past a cursor did not prevent it on tables up to about ten
/// windows' size. A statement prepared fresh is planned well every
/// time; the prepare costs a round trip. Measured by hand over the binary protocol, the bench
/// and `tests/mysql/feed_plan.rs`. (Named in hidden bounds only.)
#[doc(hidden)]
pub struct WindowRow<Q> {
    walk: Q,
    offset: i64,
}

impl<Q> WindowRow<Q> {
    /// The row `offset` rows on in `walk`.
    pub(crate) fn new(walk: Q, offset: i64) -> Self {
        WindowRow { walk, offset }
    }
}

impl<Q: diesel::query_builder::Query> diesel::query_builder::Query for WindowRow<Q> {
    type SqlType = Q::SqlType;
}

// The offset is in the text, and the statement is never cached (see above).
impl<Q> QueryId for WindowRow<Q> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: QueryFragment<DB>, DB: Backend> QueryFragment<DB> for WindowRow<Q> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        // Not cached: see above.
        out.unsafe_to_cache_prepared();
        self.walk.walk_ast(out.reborrow())?;
        out.push_sql(&format!(" LIMIT 1 OFFSET {}", self.offset));
        Ok(())
    }
}
