//! A page's tie levels as one statement: `(<level 2>) UNION ALL (<level 1>) ORDER BY .. LIMIT n`,
//! each branch ordered and limited itself, the union ordered by the keys' output columns.
//!
//! PostgreSQL has no row value for mixed directions (`created_at DESC, id ASC`), and the OR
//! expansion seeks only its leading bound there: the rest of the cursor's tie group is read and
//! filtered (`Rows Removed by Filter` up to the group). One statement per tie level seeks exactly
//! but costs a round trip each. Their `UNION ALL`, each branch `created_at = $1 AND id > $2` or
//! `created_at < $1` under its own ORDER BY and LIMIT, is planned as a Merge Append of two exact
//! `Index Cond`s that stops when the page is full. Measured by hand (1,000,000 rows, 100 per
//! `created_at`, generic plans, median server execution of 300): the OR expansion 0.066 ms inside
//! the tie group and 0.092 ms at its end, the union 0.037 and 0.035, the first page 0.026.
//!
//! SQL orders a union only by its output columns, by name or position, never by the tables'
//! columns: the outer ORDER BY names each key as the selection outputs it
//! ([`SortOrder::SELECTED_NAMES`], given when the model selects only its own table's columns,
//! whose names are distinct). So a union is planned only for a query that selects the model
//! alone (a join's tuple may repeat a name, `id` beside `id`) and that may be a union's branch
//! ([`Repeat::unites`](crate::Repeat::unites): no locking clause). Without the outer ORDER BY
//! the rows would come in the order the executor happened to append them, which SQL does not
//! promise.

use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType};
use diesel::{QueryResult, RunQueryDsl};

use super::limit::number;
use super::{OrderBy, SeekDialect, SortColumns, Walk};
use crate::order::SortOrder;

/// `(branch) UNION ALL (branch) .. ORDER BY <keys by output name> LIMIT limit`: the statements
/// `S` of one page, each already ordered and limited, as one.
pub struct Union<S, M: SortOrder, W> {
    branches: Vec<S>,
    order: OrderBy<M, W>,
    names: &'static [&'static str],
    limit: i64,
}

impl<S, M: SortOrder, W> Union<S, M, W> {
    /// The union of `branches`, ordered by `order` with each key written as the output column
    /// `names` gives it, limited to `limit` rows.
    pub(crate) fn new(
        branches: Vec<S>,
        order: OrderBy<M, W>,
        names: &'static [&'static str],
        limit: i64,
    ) -> Self {
        Union { branches, order, names, limit }
    }
}

impl<S: Query, M: SortOrder, W> Query for Union<S, M, W> {
    type SqlType = S::SqlType;
}

// The branches' SQL varies with the tie levels and the limit: cached by its text.
impl<S, M: SortOrder, W: 'static> QueryId for Union<S, M, W> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<S, M, W, DB> QueryFragment<DB> for Union<S, M, W>
where
    S: QueryFragment<DB>,
    M: SortOrder,
    M::Columns: SortColumns<DB>,
    W: Walk,
    DB: SeekDialect + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        for (index, branch) in self.branches.iter().enumerate() {
            if index > 0 {
                out.push_sql(" UNION ALL ");
            }
            out.push_sql("(");
            branch.walk_ast(out.reborrow())?;
            out.push_sql(")");
        }
        out.push_sql(" ORDER BY ");
        self.order.walk_by_names(out.reborrow(), self.names)?;
        out.push_sql(" LIMIT ");
        number::<DB::LimitStyle, DB>(out, &self.limit)
    }
}

impl<S, M: SortOrder, W, Conn> RunQueryDsl<Conn> for Union<S, M, W> {}
