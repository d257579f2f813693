//! [`OrderBy`]: a page's ORDER BY, rendered from the model's key list, as declared or exactly
//! reversed, and with each key written as its output column's name in a union's.

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::expression_types::NotSelectable;
use diesel::expression::{is_aggregate, AppearsOnTable, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::{Expression, QueryResult};

use super::dialect::SeekDialect;
use super::keys::{KeyShape, KeysAppearOn, LeadingNulls, SortColumns};
use super::walk::Walk;
use crate::orders::SortOrder;

/// The ORDER BY of model `M`: `Forward` as declared, `Backward` its exact reverse.
///
/// Built by [`Keyset::order_by`](crate::Keyset::order_by) and [`Keyset::reverse_order_by`](crate::Keyset::reverse_order_by).
pub struct OrderBy<M: SortOrder, W> {
    columns: M::Columns,
    leading: LeadingNulls,
    walk: PhantomData<W>,
}

impl<M: SortOrder, W> OrderBy<M, W> {
    pub(crate) fn new() -> Self {
        OrderBy { columns: M::columns(), leading: LeadingNulls::Pin, walk: PhantomData }
    }

    /// The leading key's column (`window.rs`).
    pub(crate) fn walk_leading<'b, DB>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>
    where
        DB: Backend + SeekDialect,
        M::Columns: SortColumns<DB>,
    {
        self.columns.walk_leading(out)
    }

    /// The same ORDER BY once more: for each branch of a union, and the union's own.
    pub(crate) fn again(&self) -> Self {
        OrderBy { columns: M::columns(), leading: self.leading, walk: PhantomData }
    }

    /// The ORDER BY of a query whose rows all lie on one side of a nullable leading key's NULL
    /// boundary (a [`Region`] other than `Whole`): the placement need not be pinned, so that
    /// an index that does not declare it serves the order.
    pub(crate) fn on_one_side(self) -> Self {
        OrderBy { leading: LeadingNulls::OneSide, ..self }
    }

    /// This ORDER BY with each key written as the output column `names` gives it (one per
    /// key): the ORDER BY of a [`Union`], which SQL lets name only output columns.
    pub(crate) fn walk_by_names<'b, DB>(
        &'b self,
        out: AstPass<'_, 'b, DB>,
        names: &[&'static str],
    ) -> QueryResult<()>
    where
        DB: Backend + SeekDialect,
        M::Columns: SortColumns<DB>,
        W: Walk,
    {
        self.columns.walk_order(out, W::BACKWARD, self.leading, names)
    }
}

impl<DB, M, W> QueryFragment<DB> for OrderBy<M, W>
where
    DB: Backend + SeekDialect,
    M: SortOrder,
    M::Columns: SortColumns<DB>,
    W: Walk,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.columns.walk_order(out, W::BACKWARD, self.leading, &[])
    }
}

// For a model without nullable keys this is a function of its types and the backend alone
// (values are bound parameters): Diesel may cache its prepared statements by type. With a nullable
// key the predicate's shape depends on which cursor values are NULL (and the ORDER BY on the
// region fetched), so Diesel caches them by SQL text instead.
impl<M: SortOrder + 'static, W: Walk> QueryId for OrderBy<M, W> {
    type QueryId = OrderBy<M, W>;
    const HAS_STATIC_QUERY_ID: bool = !<M::Columns as KeyShape>::NULLABLE;
}

impl<M: SortOrder, W> Expression for OrderBy<M, W> {
    type SqlType = NotSelectable;
}

impl<QS, M: SortOrder, W> AppearsOnTable<QS> for OrderBy<M, W> where M::Columns: KeysAppearOn<QS> {}

// Plain column comparisons: valid in any query that is not grouped.
impl<M: SortOrder, W> ValidGrouping<()> for OrderBy<M, W> {
    type IsAggregate = is_aggregate::No;
}

impl<M: SortOrder, W> Clone for OrderBy<M, W>
where
    M::Columns: Clone,
{
    fn clone(&self) -> Self {
        OrderBy { columns: self.columns.clone(), leading: self.leading, walk: PhantomData }
    }
}

impl<M: SortOrder, W> std::fmt::Debug for OrderBy<M, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderBy").field("sort_order", &M::SORT_ORDER).finish()
    }
}

/// The ORDER BY of an order's group keys alone, a joined row's (`authors.name, authors.id`, see
/// `SortOrder::GROUP_KEYS`), as declared or reversed: under it, with `LIMIT 1`, the statement
/// that finds the next group can walk the joined table's index and stop at its first row that
/// the query keeps (`machine/groups.rs`). A type of its own, so that its statements, whose SQL
/// is a function of their types as an [`OrderBy`]'s are, never share Diesel's cache entry
/// with an `OrderBy`'s. (Named in hidden bounds only.)
#[doc(hidden)]
pub struct GroupOrder<M: SortOrder, W> {
    columns: M::Columns,
    walk: PhantomData<W>,
}

impl<M: SortOrder, W> GroupOrder<M, W> {
    pub(crate) fn new() -> Self {
        GroupOrder { columns: M::columns(), walk: PhantomData }
    }
}

impl<DB, M, W> QueryFragment<DB> for GroupOrder<M, W>
where
    DB: Backend + SeekDialect,
    M: SortOrder,
    M::Columns: SortColumns<DB>,
    W: Walk,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.columns.walk_order_prefix(out, W::BACKWARD, M::GROUP_KEYS)
    }
}

// As `OrderBy`'s: the SQL is a function of the types for keys that are never NULL, the only ones
// whose pages walk groups.
impl<M: SortOrder + 'static, W: Walk> QueryId for GroupOrder<M, W> {
    type QueryId = GroupOrder<M, W>;
    const HAS_STATIC_QUERY_ID: bool = !<M::Columns as KeyShape>::NULLABLE;
}

impl<M: SortOrder, W> Expression for GroupOrder<M, W> {
    type SqlType = NotSelectable;
}

impl<QS, M: SortOrder, W> AppearsOnTable<QS> for GroupOrder<M, W> where M::Columns: KeysAppearOn<QS> {}

impl<M: SortOrder, W> ValidGrouping<()> for GroupOrder<M, W> {
    type IsAggregate = is_aggregate::No;
}

impl<M: SortOrder, W> std::fmt::Debug for GroupOrder<M, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupOrder").field("sort_order", &M::SORT_ORDER).finish()
    }
}
