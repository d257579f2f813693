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
//! past the last one found with one seek per value (`members.rs`). Where fewer than `k + 1` rows
//! are left, the subquery is empty, the comparison NULL, and the window holds no row: the seeks
//! per value take the whole page. Not used with a nullable leading key.

use diesel::backend::Backend;
use diesel::expression::{is_aggregate, AppearsOnTable, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Bool, HasSqlType};
use diesel::{Expression, QueryResult};

use super::dialect::{push_value, SeekDialect};
use super::keys::{KeyShape, SeekKeys, SortColumns};
use super::order_by::OrderBy;
use super::seek::Seek;
use super::walk::Walk;
use crate::orders::SortOrder;

/// The rows past the cursor (`seek`, none on the first page) within the next `offset + 1` rows
/// of table `T` in the order (see the module docs). (Named in hidden bounds only.)
#[doc(hidden)]
pub struct Window<M: SortOrder, W, T> {
    seek: Option<Seek<M, W>>,
    order: OrderBy<M, W>,
    offset: i64,
    table: T,
}

impl<M: SortOrder, W, T> Window<M, W, T> {
    /// The rows past `seek` (from the start without one) among the next `rows` of `table`.
    pub(crate) fn new(seek: Option<Seek<M, W>>, rows: i64, table: T) -> Self {
        Window { seek, order: OrderBy::new(), offset: rows.max(1) - 1, table }
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
            out.push_sql(" AND ");
        }
        // The rows before the window's last, or at it: on its side of the order.
        let toward = <M::Columns as KeyShape>::LEADING_DESC != W::BACKWARD;
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
        push_value::<DB, BigInt, i64>(out.reborrow(), &self.offset)?;
        out.push_sql("))");
        Ok(())
    }
}
