//! The SQL a keyset page runs: the ORDER BY ([`OrderBy`]) and the "strictly past this cursor"
//! predicate ([`Seek`]), both Diesel expressions with named concrete types, so they work in
//! `.filter()`/`.order()`, in joins and in `.into_boxed()` queries, without trait objects.
//!
//! # Which SQL, and why
//!
//! The predicate must be answered by one index seek, whatever the page's depth. Measured on 1M rows
//! (see the project's design notes), the shape that seeks on every engine, for uniform and mixed
//! directions alike, is the OR expansion with a redundant bound on the leading key:
//!
//! ```sql
//! (created_at <= ? AND (created_at < ? OR (created_at = ? AND id < ?)))
//! ```
//!
//! Without the leading bound, PostgreSQL and SQLite evaluate the bare OR as a filter over every
//! row before the cursor, which is slower than OFFSET. A backend may prefer another shape (a row
//! value `(created_at, id) < (?, ?)` is an exact seek on PostgreSQL for uniform directions and a
//! full scan on MySQL); [`SeekDialect`] lets each backend choose, from the same user code.

mod dialect;
mod keys;

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::{is_aggregate, AppearsOnTable, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::expression::expression_types::NotSelectable;
use diesel::sql_types::Bool;
use diesel::{Expression, QueryResult};

pub use dialect::SeekDialect;
pub use keys::{Asc, Desc, End, Key, KeyShape, KeysAppearOn, SeekKeys, SortColumns, SortDirection};

use crate::Keyset;

/// Pages in the model's order: rows after the cursor, ORDER BY as declared.
#[derive(Debug, Clone, Copy, Default)]
pub struct Forward;

/// Pages against the model's order: rows before the cursor, every ORDER BY direction flipped.
#[derive(Debug, Clone, Copy, Default)]
pub struct Backward;

/// Which way a query walks the model's order (marker types [`Forward`] and [`Backward`]).
pub trait Walk: 'static {
    /// Whether every comparison and ORDER BY direction is flipped.
    const BACKWARD: bool;
}

impl Walk for Forward {
    const BACKWARD: bool = false;
}

impl Walk for Backward {
    const BACKWARD: bool = true;
}

/// The ORDER BY of model `M`: `Forward` as declared, `Backward` its exact reverse.
///
/// Built by [`Keyset::order_by`] and [`Keyset::reverse_order_by`].
pub struct OrderBy<M: Keyset, W> {
    columns: M::Columns,
    walk: PhantomData<W>,
}

impl<M: Keyset, W> OrderBy<M, W> {
    pub(crate) fn new() -> Self {
        OrderBy { columns: M::columns(), walk: PhantomData }
    }
}

/// "Rows strictly after the cursor" (`Forward`) or "strictly before" (`Backward`) for model `M`,
/// in the model's order, as one SQL predicate.
///
/// Built by [`Keyset::after`] and [`Keyset::before`].
pub struct Seek<M: Keyset, W> {
    keys: M::Keys,
    walk: PhantomData<W>,
}

impl<M: Keyset, W> Seek<M, W> {
    pub(crate) fn new(cursor: M::Cursor) -> Self {
        Seek { keys: M::keys(cursor), walk: PhantomData }
    }
}

impl<DB, M, W> QueryFragment<DB> for OrderBy<M, W>
where
    DB: Backend,
    M: Keyset,
    M::Columns: SortColumns<DB>,
    W: Walk,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.columns.walk_order(out, W::BACKWARD)
    }
}

impl<DB, M, W> QueryFragment<DB> for Seek<M, W>
where
    DB: Backend + SeekDialect,
    M: Keyset,
    M::Keys: SeekKeys<DB>,
    W: Walk,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        // Parenthesised as a whole, so it composes with any user filter (`.or_filter()` too).
        out.push_sql("(");
        let keys = <M::Keys as KeyShape>::LEN;
        let uniform = <M::Keys as KeyShape>::ALL_ASC || <M::Keys as KeyShape>::ALL_DESC;
        if keys > 1 && uniform && DB::ROW_VALUES {
            out.push_sql("(");
            self.keys.walk_columns(out.reborrow())?;
            let desc = <M::Keys as KeyShape>::ALL_DESC && !<M::Keys as KeyShape>::ALL_ASC;
            out.push_sql(if desc != W::BACKWARD { ") < (" } else { ") > (" });
            self.keys.walk_values(out.reborrow())?;
            out.push_sql(")");
        } else if keys > 1 {
            self.keys.walk_leading_bound(out.reborrow(), W::BACKWARD)?;
            out.push_sql(" AND ");
            self.keys.walk_chain(out.reborrow(), W::BACKWARD)?;
        } else {
            self.keys.walk_chain(out.reborrow(), W::BACKWARD)?;
        }
        out.push_sql(")");
        Ok(())
    }
}

// The SQL of both nodes is a function of their types and the backend alone (values are bound
// parameters), so Diesel may cache the prepared statement by type.
impl<M: Keyset + 'static, W: Walk> QueryId for OrderBy<M, W> {
    type QueryId = OrderBy<M, W>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<M: Keyset + 'static, W: Walk> QueryId for Seek<M, W> {
    type QueryId = PhantomData<(M, W)>;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<M: Keyset, W> Expression for OrderBy<M, W> {
    type SqlType = NotSelectable;
}

impl<M: Keyset, W> Expression for Seek<M, W> {
    type SqlType = Bool;
}

impl<QS, M: Keyset, W> AppearsOnTable<QS> for OrderBy<M, W> where M::Columns: KeysAppearOn<QS> {}

impl<QS, M: Keyset, W> AppearsOnTable<QS> for Seek<M, W> where M::Keys: KeysAppearOn<QS> {}

// Plain column comparisons: valid in any query that is not grouped.
impl<M: Keyset, W> ValidGrouping<()> for OrderBy<M, W> {
    type IsAggregate = is_aggregate::No;
}

impl<M: Keyset, W> ValidGrouping<()> for Seek<M, W> {
    type IsAggregate = is_aggregate::No;
}

impl<M: Keyset, W> Clone for OrderBy<M, W>
where
    M::Columns: Clone,
{
    fn clone(&self) -> Self {
        OrderBy { columns: self.columns.clone(), walk: PhantomData }
    }
}

impl<M: Keyset, W> Clone for Seek<M, W>
where
    M::Keys: Clone,
{
    fn clone(&self) -> Self {
        Seek { keys: self.keys.clone(), walk: PhantomData }
    }
}

impl<M: Keyset, W> std::fmt::Debug for OrderBy<M, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderBy").field("sort_order", &M::SORT_ORDER).finish()
    }
}

impl<M: Keyset, W> std::fmt::Debug for Seek<M, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seek").field("sort_order", &M::SORT_ORDER).finish_non_exhaustive()
    }
}
