//! [`KeyColumns`]: a page's sort keys alone as a select clause, for the seeks of a feed's union
//! (`members/`) on SQLite and MariaDB, whose index-only seeks then never read a row.
//!
//! PostgreSQL computes none of a subquery's unused output columns, so its seeks select the
//! query's own columns and read only the index. SQLite and MariaDB fetch every column a union's
//! branch selects, used or not: 100 branches of whole rows took 16 ms on SQLite and 20 ms on
//! MariaDB, against 1.0 and 8.6 ms with the keys alone (1M rows, one seek of 21 per author,
//! measured by hand). The branches select `c1, c2` instead, and the page's rows are then fetched
//! by their tiebreaker.

use diesel::backend::Backend;
use diesel::expression::{is_aggregate, AppearsOnTable, SelectableExpression, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::Untyped;
use diesel::{Expression, QueryResult};

use super::dialect::SeekDialect;
use super::keys::{KeysAppearOn, SortColumns};
use crate::orders::SortOrder;

/// `c1, c2`: the keys of order `M` as a select clause. Never loaded itself (its SQL type is
/// `Untyped`): the branches it selects for are a statement's subqueries. (Named in hidden
/// bounds only.)
#[doc(hidden)]
pub struct KeyColumns<M: SortOrder> {
    columns: M::Columns,
}

impl<M: SortOrder> KeyColumns<M> {
    pub(crate) fn new() -> Self {
        KeyColumns { columns: M::columns() }
    }
}

impl<M: SortOrder> Expression for KeyColumns<M> {
    type SqlType = Untyped;
}

impl<QS, M: SortOrder> AppearsOnTable<QS> for KeyColumns<M> where M::Columns: KeysAppearOn<QS> {}

impl<QS, M: SortOrder> SelectableExpression<QS> for KeyColumns<M> where M::Columns: KeysAppearOn<QS> {}

// Plain columns: valid in any query that is not grouped.
impl<M: SortOrder> ValidGrouping<()> for KeyColumns<M> {
    type IsAggregate = is_aggregate::No;
}

impl<M: SortOrder + 'static> QueryId for KeyColumns<M> {
    type QueryId = KeyColumns<M>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<DB, M> QueryFragment<DB> for KeyColumns<M>
where
    DB: Backend + SeekDialect,
    M: SortOrder,
    M::Columns: SortColumns<DB>,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.columns.walk_columns(out)
    }
}
