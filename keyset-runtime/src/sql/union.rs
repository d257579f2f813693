//! A page's tie levels as one statement: `(<level 2>) UNION ALL (<level 1>) ORDER BY .. LIMIT n`,
//! each branch ordered and limited itself, the union ordered by the keys' output columns; or at a
//! row's id, the first statements of a nullable leading key's two regions.
//!
//! PostgreSQL has no row value for mixed directions (`created_at DESC, id ASC`), and the OR
//! expansion seeks only its leading bound there: the rest of the cursor's tie group is read and
//! filtered (`Rows Removed by Filter` up to the group). One statement per tie level seeks exactly
//! but costs a round trip each. Their `UNION ALL`, each branch `created_at = $1 AND id > $2` or
//! `created_at < $1` under its own ORDER BY and LIMIT, is planned as a Merge Append of two exact
//! `Index Cond`s that stops when the page is full. Measured by hand (1,000,000 rows, generic
//! plans, median server execution of 300 to 400 runs):
//!
//! | order, ties | first page | OR expansion | union |
//! |---|---:|---:|---:|
//! | `created_at DESC, id ASC`, 100 per timestamp: inside a tie group, at its end | 0.026 ms | 0.066, 0.092 | 0.037, 0.035 |
//! | `author_id ASC, id DESC`, 100 authors: at the end of an author's rows | | 31.5 (10,000 rows filtered) | 0.074 |
//! | a timestamp with 10 rows per value | 0.015 | 0.018 | 0.027 |
//!
//! The OR expansion costs up to a tie group, the union a second index descent: where ties are
//! rare it is a little dearer, where they are many (a low-cardinality leading key) it is what
//! keeps a page one seek.
//!
//! The innermost level, `k1 = $1 AND id > $2`, has an ORDER BY that the equality reduces to the
//! last key, which the primary key's index serves too. Where the tie groups looked large (52
//! groups in 1,000,000 rows, ids ascending with the rows), PostgreSQL's generic plan walked that
//! index past the cursor and filtered for the group, which reads every row past the cursor when
//! the group ended there. A redundant leading bound (`k1 <= $1 AND k1 = $2`) turned it to the
//! order's index, but made the planner multiply two estimates, and the bench's statement never
//! got a generic plan (0 of 12 executions: every page planned anew). The level's last equality
//! is written as a range instead, `k1 >= $1 AND k1 <= $2 AND id > $3` (`level.rs`): the same
//! rows, no constant for the planner to reduce the ORDER BY with, so only the order's index
//! serves it, sought exactly (3 buffers for an empty level there), and generic plans after five
//! executions (7 of 12). (The table above was measured with `k1 = $1`; as shipped, the bench's
//! page inside a tie group took 0.041 ms of server execution under its generic plan.)
//!
//! The two regions of a nullable leading key are not united past a cursor: their union made
//! every page among the values pay the second descent (0.025 → 0.038 ms) to save the one page
//! that crosses into the NULLs its second statement. At a row given by its id they are
//! ([`SeekDialect::UNITE_ROW_REGIONS`]): which region holds the row is not known before a
//! statement reads it, and each region's branch is guarded by the row's value, so that one of
//! them reads nothing (see `machine/regions.rs`).
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

use super::dialect::SeekDialect;
use super::keys::SortColumns;
use super::limit::limit;
use super::order_by::OrderBy;
use super::walk::Walk;
use crate::orders::SortOrder;

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
        limit::<DB::LimitStyle, DB>(out, &self.limit)
    }
}

impl<S, M: SortOrder, W, Conn> RunQueryDsl<Conn> for Union<S, M, W> {}
