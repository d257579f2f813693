//! [`Seek`]: the "strictly past this cursor" predicate, as one SQL predicate in the shape each
//! backend seeks best (see the module docs of `sql`), or limited to one [`Region`] of a nullable
//! leading key, or split into its tie levels ([`SeekLevel`]).

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::{is_aggregate, AppearsOnTable, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::Bool;
use diesel::{Expression, QueryResult};

use super::dialect::SeekDialect;
use super::keys::{CursorKeys, KeyShape, KeysAppearOn, Region, SeekKeys, Stop};
use super::level::SeekLevel;
use super::predicate::walk_seek;
use super::walk::Walk;
use crate::orders::SortOrder;

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

    /// The same seek, where `row`, with every key's value but the last read from the row whose
    /// primary key the last key holds (see `RowKeys`): rendered only through [`SeekLevel`],
    /// whose statements are not cached by type, as their SQL is not a bound cursor's.
    pub(crate) fn reading_row(mut self, row: bool) -> Self {
        if row {
            self.keys.read_from_row();
        }
        self
    }

    /// The same seek, its nullable leading key, where assumed NULL, not testing the row's
    /// value, when `skip` (see `CursorKeys::skip_null_guard`).
    pub(crate) fn skipping_null_guard(mut self, skip: bool) -> Self {
        if skip {
            self.keys.skip_null_guard();
        }
        self
    }

    /// The same seek limited to one [`Region`] of a nullable leading key (what a page fetched as
    /// two seeks runs at a nullable leading key's NULL boundary).
    pub(crate) fn within(self, region: Region) -> Self {
        Seek { region, ..self }
    }

    /// One tie level of this seek (see [`SeekLevel`]): level `k` is the rows equal to the cursor
    /// on the first `k - 1` keys and strictly past it on key `k` (at or past it when
    /// `inclusive`: a start's innermost level), e.g. `created_at = ? AND id < ?` for level 2 of
    /// `created_at DESC, id DESC`. Levels `n` (the number of keys) down to 1, fetched in that
    /// order, are exactly the rows of the whole seek, in order: what a page runs on SQLite
    /// ([`SeekDialect::SEEK_PER_TIE_LEVEL`], one statement per level, the next only while the
    /// page is short); a start at the first `d` keys is its levels `d` down to 1. With a
    /// nullable leading key the levels lie within the cursor's region (see `level.rs`); a
    /// nullable key behind another has none planned.
    ///
    /// # Panics
    ///
    /// When `level` is 0 or greater than the number of sort keys: the page machine plans levels
    /// 1 to the number of keys only.
    pub(crate) fn start_level(self, level: usize, inclusive: bool) -> SeekLevel<M, W> {
        SeekLevel::new(self.keys, level, inclusive)
    }

    /// The rows at or past (or strictly past) this cursor's values on its first keys, as `stop`
    /// says, within `region`: a page that starts at values, not past a row (see
    /// [`SeekLevel::start`]).
    pub(crate) fn start(self, stop: Stop, region: Region) -> SeekLevel<M, W> {
        SeekLevel::start(self.keys, stop, region)
    }

    /// The rows of this cursor's group, equal to it on its first `depth` keys (a joined row's,
    /// see `SortOrder::GROUP_KEYS`), and with `rest` only those past it on the rest as that
    /// stop says (seen from the first key after the group's): `authors.name = ? AND authors.id
    /// = ? AND (posts.created_at, posts.id) < (?, ?)`.
    ///
    /// # Panics
    ///
    /// When no key follows the first `depth`, or `depth` is 0: the page machine plans groups
    /// of an order's joined keys only, which the model's own keys follow.
    pub(crate) fn group(self, depth: usize, rest: Option<Stop>) -> SeekLevel<M, W> {
        SeekLevel::group(self.keys, depth, rest)
    }

    /// The rows at or past (or strictly past) this cursor's values or `other`'s, as `stop` says,
    /// in one predicate: a page at a row's id with a nullable leading key on a query that runs
    /// one statement (see [`SeekLevel::either`]).
    pub(crate) fn start_either(self, other: Self, stop: Stop) -> SeekLevel<M, W> {
        SeekLevel::either(self.keys, other.keys, stop)
    }

    /// Whether the cursor's value for a nullable leading key is NULL (false without one).
    pub(crate) fn leading_is_null(&self) -> bool {
        self.keys.leading_is_null()
    }

    /// Whether every row past the cursor lies in the cursor's own region of a nullable leading
    /// key (after a NULL cursor when the NULLs come last, or among the values when they come
    /// first): then the cursor's region is the whole page, one seek without the `OR x IS [NOT]
    /// NULL` disjunct, whose ORDER BY need not pin the placement (`OrderBy::on_one_side`).
    pub(crate) fn one_region(&self) -> bool {
        <M::Keys as KeyShape>::LEADING_NULLABLE && !self.next_region()
    }

    /// Whether rows past the cursor lie beyond the cursor's region too (see [`Region`]): a
    /// nullable leading key's other region follows the cursor's.
    pub(crate) fn next_region(&self) -> bool {
        self.keys.has_next_region(W::BACKWARD)
    }

    /// Whether rows past the cursor lie in two regions (see [`Region`]), so that `DB` fetches
    /// them as two seeks.
    pub(crate) fn splits<DB: SeekDialect>(&self) -> bool {
        DB::SPLIT_NULL_REGIONS && self.next_region()
    }
}

impl<M: SortOrder, W: Walk> Seek<M, W> {
    /// `created_at >= ?` for `created_at DESC` walked forward: the rows at or before this
    /// cursor on the leading key, its tie group included (the end of a feed's window,
    /// `window.rs`). A NULL cursor value bounds nothing (`1 = 1`): no window is walked with a
    /// nullable leading key.
    pub(super) fn walk_leading_end<'b, DB>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
    ) -> QueryResult<()>
    where
        DB: Backend + SeekDialect,
        M::Keys: SeekKeys<DB>,
    {
        // The seek's own leading bound, turned to face the other way.
        if !self.keys.walk_leading_bound(out.reborrow(), !W::BACKWARD, Region::Whole, Stop::PAST)? {
            out.push_sql("1 = 1");
        }
        Ok(())
    }
}

impl<DB, M, W> QueryFragment<DB> for Seek<M, W>
where
    DB: Backend + SeekDialect,
    M: SortOrder,
    M::Keys: SeekKeys<DB>,
    W: Walk,
{
    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        walk_seek(&self.keys, out, (W::BACKWARD, self.region, !M::POSTGRES_FDW), Stop::PAST)
    }
}

// For a model without nullable keys this is a function of its types and the backend alone
// (values are bound parameters): Diesel may cache its prepared statements by type. With a nullable
// key the predicate's shape depends on which cursor values are NULL (and the ORDER BY on the
// region fetched), so Diesel caches them by SQL text instead.
impl<M: SortOrder + 'static, W: Walk> QueryId for Seek<M, W> {
    type QueryId = PhantomData<(M, W)>;
    const HAS_STATIC_QUERY_ID: bool = !<M::Keys as KeyShape>::NULLABLE;
}

impl<M: SortOrder, W> Expression for Seek<M, W> {
    type SqlType = Bool;
}

impl<QS, M: SortOrder, W> AppearsOnTable<QS> for Seek<M, W> where M::Keys: KeysAppearOn<QS> {}

// Plain column comparisons: valid in any query that is not grouped.
impl<M: SortOrder, W> ValidGrouping<()> for Seek<M, W> {
    type IsAggregate = is_aggregate::No;
}

impl<M: SortOrder, W> Clone for Seek<M, W>
where
    M::Keys: Clone,
{
    fn clone(&self) -> Self {
        Seek { keys: self.keys.clone(), region: self.region, walk: PhantomData }
    }
}

impl<M: SortOrder, W> std::fmt::Debug for Seek<M, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seek").field("sort_order", &M::SORT_ORDER).finish_non_exhaustive()
    }
}
