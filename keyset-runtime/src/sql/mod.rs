//! The SQL a keyset page runs: the ORDER BY ([`OrderBy`]) and the "strictly past this cursor"
//! predicate ([`Seek`]), both Diesel expressions with named concrete types, so they work in
//! `.filter()`/`.order()`, in joins and in `.into_boxed()` queries, without trait objects.
//!
//! # Which SQL, and why
//!
//! The predicate must be answered by one index seek, whatever the page's depth. Measured on 1M
//! rows (see the project's design notes), the shape that seeks on every engine, for uniform and
//! mixed directions alike, is the OR expansion with a redundant bound on the leading key:
//!
//! ```sql
//! (created_at <= ? AND (created_at < ? OR (created_at = ? AND id < ?)))
//! ```
//!
//! Without the leading bound, PostgreSQL and SQLite evaluate the bare OR as a filter over every
//! row before the cursor, which is slower than OFFSET; MySQL and MariaDB build the exact ranges
//! from the bare OR, so they get it without the bound. Where every key has the same direction,
//! PostgreSQL seeks a row value `(created_at, id) < (?, ?)` on every column of the index, and
//! gets it (with the leading bound beside it, `created_at <= ? AND (created_at, id) < (?, ?)`,
//! on which it prunes the partitions of a table partitioned by the leading key, as it does not on
//! the row value alone); MySQL and MariaDB cannot range-scan a row value. SQLite seeks only the leading column
//! of the OR expansion (and of a row value too, when the tiebreaker is the rowid), then steps
//! through the cursor's tie group, so a page there is fetched one tie level at a time
//! ([`Seek::level`]: `created_at = ? AND id < ?`, then `created_at < ?` if the page is not full),
//! each level an exact seek (see [`SeekDialect`]'s implementations for the plans). For mixed
//! directions PostgreSQL, which has no row value for them, seeks only the OR expansion's leading
//! bound and filters the cursor's tie group; a page there runs its tie levels as one statement,
//! their `UNION ALL` under an ORDER BY of the keys' output columns ([`Union`], where the query
//! allows it). [`SeekDialect`] lets each backend choose, from the same user code.
//!
//! A nullable leading key splits the rows into two [`Region`]s, its values and its NULLs (see
//! `nullable.rs`). Where every row past the cursor lies in the cursor's region, the page is that
//! region's seek alone, and two choices there were measured (1,000,000 rows, one in seven NULL,
//! EXPLAIN ANALYZE by hand; the orders bench has the pages):
//!
//! - after a NULL cursor, `x IS NULL AND id < ?`, the NULL test written once. With it twice (as
//!   the leading bound and in the chain) PostgreSQL multiplied the two selectivities, estimated 5
//!   rows where 30 matched, and kept the statement on custom plans (0.134 ms against 0.044 under
//!   the generic plan); and its ORDER BY without the all-NULL key on MariaDB, which otherwise
//!   filesorted every NULL past the cursor (135 ms, against 10.6 ms);
//! - among the values on PostgreSQL, the row value of uniform directions, `x <= $1 AND (x, id) <
//!   ($2, $3)`, exact on both columns (0.049 ms), where the OR expansion filtered the cursor's
//!   tie group after the leading bound (0.118 ms). No NULL can match there, and a row value
//!   holding one is never true, so it is exact only within the region;
//! - among the values on SQLite, the tie levels of non-nullable keys (`x = ? AND id < ?`, then
//!   `x < ?`, neither matching a NULL), then the NULLs' region where it follows: deep in the
//!   values a page went from 1.67× the first page (the OR expansion, stepping through the
//!   cursor's tie group) to 1.15× (orders bench, with `+?` binds, see `SeekDialect::OPAQUE_BINDS`).

mod compare;
mod dialect;
mod keys;
mod level;
mod limit;
mod nullable;
mod union;

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::expression_types::NotSelectable;
use diesel::expression::{is_aggregate, AppearsOnTable, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::Bool;
use diesel::{Expression, QueryResult};

pub use dialect::SeekDialect;
pub use keys::{
    Asc, Desc, End, Key, KeyDirection, KeyShape, KeysAppearOn, LeadingNulls, Region, SeekKeys,
    SortColumns,
};
pub use level::SeekLevel;
pub use limit::{Limited, NoOffset, Offset};
pub use nullable::{Nullable, NullsFirst, NullsLast, NullsPlacement};
pub use union::Union;

use crate::order::SortOrder;

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

    /// The ORDER BY of a query whose rows all lie on one side of a nullable leading key's NULL
    /// boundary (a [`Region`] other than `Whole`; `nulls` when that side is the NULLs): the
    /// placement need not be pinned, and on MySQL/MariaDB the all-NULL key is left out, so that
    /// the index serves the order. For the page machine, and for tests through `__private`.
    #[doc(hidden)]
    pub fn one_side(self, nulls: bool) -> Self {
        let leading = if nulls { LeadingNulls::AllNull } else { LeadingNulls::OneSide };
        OrderBy { leading, ..self }
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

/// "Rows strictly after the cursor" (`Forward`) or "strictly before" (`Backward`) for model `M`,
/// in the model's order, as one SQL predicate.
///
/// Built by [`Keyset::after`](crate::Keyset::after) and [`Keyset::before`](crate::Keyset::before).
pub struct Seek<M: SortOrder, W> {
    keys: M::Keys,
    region: Region,
    walk: PhantomData<W>,
}

impl<M: SortOrder, W: Walk> Seek<M, W> {
    pub(crate) fn new(cursor: M::Cursor) -> Self {
        Seek { keys: M::keys(cursor), region: Region::Whole, walk: PhantomData }
    }

    /// The same seek limited to one [`Region`] of a nullable leading key (what a page fetched as
    /// two seeks runs at a nullable leading key's NULL boundary). For the page machine, and for
    /// tests through `__private`.
    #[doc(hidden)]
    pub fn region(self, region: Region) -> Self {
        Seek { region, ..self }
    }

    /// One tie level of this seek (see [`SeekLevel`]): level `k` is the rows equal to the cursor
    /// on the first `k - 1` keys and strictly past it on key `k`, e.g. `created_at = ? AND id < ?`
    /// for level 2 of `created_at DESC, id DESC`. Levels `n` (the number of keys) down to 1,
    /// fetched in that order, are exactly the rows of the whole seek, in order: what a page runs
    /// on SQLite ([`SeekDialect::SEEK_PER_TIE_LEVEL`],
    /// one statement per level, the next only while the page is short). With a nullable leading
    /// key the levels lie within the cursor's region (see `level.rs`); a nullable key behind
    /// another has none planned. (The statements a page runs this way are pinned in the test
    /// suite's `tests/sqlite/levels.rs`.)
    ///
    /// # Panics
    ///
    /// When `level` is 0 or greater than the number of sort keys.
    #[doc(hidden)]
    pub fn level(self, level: usize) -> SeekLevel<M, W> {
        SeekLevel::new(self.keys, level)
    }

    /// Whether the cursor's value for a nullable leading key is NULL (false without one).
    pub(crate) fn leading_is_null<DB: Backend + SeekDialect>(&self) -> bool
    where
        M::Keys: SeekKeys<DB>,
    {
        self.keys.leading_is_null()
    }

    /// Whether every row past the cursor lies in the cursor's own region of a nullable leading
    /// key (after a NULL cursor when the NULLs come last, or among the values when they come
    /// first): then the cursor's region is the whole page, one seek without the `OR x IS [NOT]
    /// NULL` disjunct, whose ORDER BY need not pin the placement ([`OrderBy::one_side`]).
    pub(crate) fn one_region<DB: Backend + SeekDialect>(&self) -> bool
    where
        M::Keys: SeekKeys<DB>,
    {
        <M::Keys as KeyShape>::LEADING_NULLABLE && !self.next_region::<DB>()
    }

    /// Whether rows past the cursor lie beyond the cursor's region too (see [`Region`]): a
    /// nullable leading key's other region follows the cursor's.
    pub(crate) fn next_region<DB: Backend + SeekDialect>(&self) -> bool
    where
        M::Keys: SeekKeys<DB>,
    {
        self.keys.has_next_region(W::BACKWARD)
    }

    /// Whether rows past the cursor lie in two regions (see [`Region`]), so that `DB` fetches
    /// them as two seeks.
    pub(crate) fn splits<DB: Backend + SeekDialect>(&self) -> bool
    where
        M::Keys: SeekKeys<DB>,
    {
        DB::SPLIT_NULL_REGIONS && self.next_region::<DB>()
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

impl<DB, M, W> QueryFragment<DB> for Seek<M, W>
where
    DB: Backend + SeekDialect,
    M: SortOrder,
    M::Keys: SeekKeys<DB>,
    W: Walk,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        // Parenthesised as a whole, so it composes with any user filter (`.or_filter()` too).
        out.push_sql("(");
        let keys = <M::Keys as KeyShape>::LEN;
        let uniform = <M::Keys as KeyShape>::ALL_ASC || <M::Keys as KeyShape>::ALL_DESC;
        // Among a nullable leading key's values no NULL can match: a row value is exact there.
        let values = self.region == Region::Cursor
            && !self.keys.leading_is_null()
            && (<M::Keys as KeyShape>::VALUES_ALL_ASC || <M::Keys as KeyShape>::VALUES_ALL_DESC);
        if self.region == Region::Next {
            self.keys.walk_next_region(out.reborrow(), W::BACKWARD)?;
        } else if keys > 1 && (uniform || values) && DB::ROW_VALUES {
            // The leading bound beside the row value: PostgreSQL prunes partitions on
            // `created_at <= ?` (at plan time, or at executor start under a generic plan), not
            // on a row comparison, which visits every partition on the cursor's far side.
            if DB::LEADING_BOUND
                && self.keys.walk_leading_bound(out.reborrow(), W::BACKWARD, self.region)?
            {
                out.push_sql(" AND ");
            }
            out.push_sql("(");
            self.keys.walk_columns(out.reborrow())?;
            let desc =
                <M::Keys as KeyShape>::VALUES_ALL_DESC && !<M::Keys as KeyShape>::VALUES_ALL_ASC;
            out.push_sql(if desc != W::BACKWARD { ") < (" } else { ") > (" });
            self.keys.walk_values(out.reborrow())?;
            out.push_sql(")");
        } else if keys > 1 {
            if DB::LEADING_BOUND
                && self.keys.walk_leading_bound(out.reborrow(), W::BACKWARD, self.region)?
            {
                out.push_sql(" AND ");
            }
            self.keys.walk_chain(out.reborrow(), W::BACKWARD, self.region)?;
        } else {
            self.keys.walk_chain(out.reborrow(), W::BACKWARD, self.region)?;
        }
        out.push_sql(")");
        Ok(())
    }
}

// For a model without nullable keys the ORDER BY and the seek predicate are functions of their
// types and the backend alone (values are bound parameters): Diesel may cache their prepared
// statements by type. With a nullable key the predicate's shape depends on which cursor values
// are NULL (and the ORDER BY on the region fetched), so Diesel caches them by SQL text instead.
impl<M: SortOrder + 'static, W: Walk> QueryId for OrderBy<M, W> {
    type QueryId = OrderBy<M, W>;
    const HAS_STATIC_QUERY_ID: bool = !<M::Columns as KeyShape>::NULLABLE;
}

impl<M: SortOrder + 'static, W: Walk> QueryId for Seek<M, W> {
    type QueryId = PhantomData<(M, W)>;
    const HAS_STATIC_QUERY_ID: bool = !<M::Keys as KeyShape>::NULLABLE;
}

impl<M: SortOrder, W> Expression for OrderBy<M, W> {
    type SqlType = NotSelectable;
}

impl<M: SortOrder, W> Expression for Seek<M, W> {
    type SqlType = Bool;
}

impl<QS, M: SortOrder, W> AppearsOnTable<QS> for OrderBy<M, W> where M::Columns: KeysAppearOn<QS> {}

impl<QS, M: SortOrder, W> AppearsOnTable<QS> for Seek<M, W> where M::Keys: KeysAppearOn<QS> {}

// Plain column comparisons: valid in any query that is not grouped.
impl<M: SortOrder, W> ValidGrouping<()> for OrderBy<M, W> {
    type IsAggregate = is_aggregate::No;
}

impl<M: SortOrder, W> ValidGrouping<()> for Seek<M, W> {
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

impl<M: SortOrder, W> Clone for Seek<M, W>
where
    M::Keys: Clone,
{
    fn clone(&self) -> Self {
        Seek { keys: self.keys.clone(), region: self.region, walk: PhantomData }
    }
}

impl<M: SortOrder, W> std::fmt::Debug for OrderBy<M, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderBy").field("sort_order", &M::SORT_ORDER).finish()
    }
}

impl<M: SortOrder, W> std::fmt::Debug for Seek<M, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seek").field("sort_order", &M::SORT_ORDER).finish_non_exhaustive()
    }
}
