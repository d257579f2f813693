//! One tie level of a seek: the rows past the cursor that tie with it on the first `level - 1`
//! keys and are past it on key `level`, e.g. `created_at = ? AND id < ?`.
//!
//! "Strictly past the cursor" over keys `k1..kn` is the disjoint union, in the walk's order, of
//! level `n` (`k1 = c1 AND .. AND k(n-1) = c(n-1) AND kn ≻ cn`), then level `n - 1`, .., then
//! level 1 (`k1 ≻ c1`). Each level is an equality prefix plus one range: an exact index seek on
//! every engine, where SQLite seeks only the leading column of the single predicate (see
//! [`SeekDialect::SEEK_PER_TIE_LEVEL`]). The levels are rendered from the same type-level key
//! list as the ORDER BY and the single predicate, so they cannot disagree with them.
//!
//! `x = NULL` is never true, so a nullable key's levels lie within one region of its NULLs or its
//! values (`nullable.rs`): exact where it leads, the page then fetching its other region after the
//! levels, and never planned for a nullable key behind another (`FetchShape::Following`).

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::{is_aggregate, AppearsOnTable, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{Bool, HasSqlType};
use diesel::{Expression, QueryResult};

use super::compare::strict_op;
use super::keys::{End, Key, KeyDirection, KeyShape, KeysAppearOn, SeekKeys};
use super::{SeekDialect, Walk};
use crate::order::SortOrder;

/// Renders one tie level of a key list against the cursor's values.
pub trait LevelKeys<DB: Backend + SeekDialect>: SeekKeys<DB> {
    /// `c1 = ? AND c2 < ?` for `level` 2: equal to the cursor on the first `level - 1` keys,
    /// strictly past it on key `level` (every comparison flipped when `backward`). With `range`,
    /// the last equality is written `c1 >= ? AND c1 <= ?`, the same rows (see `SeekLevel`'s
    /// `walk_ast` for why).
    fn walk_level<'b>(
        &'b self,
        out: AstPass<'_, 'b, DB>,
        backward: bool,
        level: usize,
        range: bool,
    ) -> QueryResult<()>;
}

impl<DB: Backend + SeekDialect> LevelKeys<DB> for End {
    // Never reached: `Seek::level` checks that the level names a key.
    fn walk_level<'b>(
        &'b self,
        _: AstPass<'_, 'b, DB>,
        _: bool,
        _: usize,
        _: bool,
    ) -> QueryResult<()> {
        Ok(())
    }
}

impl<DB, C, D, V, N> LevelKeys<DB> for Key<C, D, V, N>
where
    DB: Backend + SeekDialect + HasSqlType<C::SqlType>,
    C: Expression + QueryFragment<DB> + 'static,
    D: KeyDirection,
    V: ToSql<C::SqlType, DB> + 'static,
    N: LevelKeys<DB>,
{
    fn walk_level<'b>(
        &'b self,
        mut out: AstPass<'_, 'b, DB>,
        backward: bool,
        level: usize,
        range: bool,
    ) -> QueryResult<()> {
        if level <= 1 {
            return self.compare(out, strict_op(D::DESC, backward));
        }
        self.compare_equal(out.reborrow(), range && level == 2)?;
        out.push_sql(" AND ");
        self.next.walk_level(out, backward, level - 1, range)
    }
}

/// One tie level of a [`Seek`](super::Seek), as a predicate: built by
/// [`Seek::level`](super::Seek::level).
pub struct SeekLevel<M: SortOrder, W> {
    keys: M::Keys,
    level: usize,
    walk: PhantomData<W>,
}

impl<M: SortOrder, W> SeekLevel<M, W> {
    pub(super) fn new(keys: M::Keys, level: usize) -> Self {
        assert!(
            (1..=<M::Keys as KeyShape>::LEN).contains(&level),
            "{} has no tie level {level}: levels run from 1 to its number of sort keys",
            M::SORT_ORDER,
        );
        SeekLevel { keys, level, walk: PhantomData }
    }
}

impl<DB, M, W> QueryFragment<DB> for SeekLevel<M, W>
where
    DB: Backend + SeekDialect,
    M: SortOrder,
    M::Keys: LevelKeys<DB>,
    W: Walk,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        // Parenthesised as a whole, like `Seek`, so it composes with any user filter.
        out.push_sql("(");
        // A union's innermost level (`k1 = $1 AND id > $2`) has an ORDER BY that equality
        // reduces to the last key, which the primary key's index serves too: where the tie
        // groups look large, PostgreSQL's generic plan walked that index past the cursor,
        // filtering for the group (every row past it, when the group had ended at the cursor).
        // Its last equality written as a range, `k1 >= $1 AND k1 <= $2`, the same rows, is no
        // constant to the planner: only the order's index serves the ORDER BY, still sought
        // exactly, and the statement still gets generic plans (a redundant `k1 <= $1` beside
        // the equality kept it on custom plans, the planner multiplying the two estimates).
        // Only the last: after a range on a key, an index stops its scan on no later key.
        // Measured by hand on 1,000,000 rows (see `union.rs`).
        let range = DB::UNITE_TIE_LEVELS && self.level == <M::Keys as KeyShape>::LEN;
        self.keys.walk_level(out.reborrow(), W::BACKWARD, self.level, range)?;
        out.push_sql(")");
        Ok(())
    }
}

// The SQL depends on the level, a runtime value: Diesel caches the statement by its SQL text.
impl<M: SortOrder + 'static, W: Walk> QueryId for SeekLevel<M, W> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<M: SortOrder, W> Expression for SeekLevel<M, W> {
    type SqlType = Bool;
}

impl<QS, M: SortOrder, W> AppearsOnTable<QS> for SeekLevel<M, W> where M::Keys: KeysAppearOn<QS> {}

impl<M: SortOrder, W> ValidGrouping<()> for SeekLevel<M, W> {
    type IsAggregate = is_aggregate::No;
}

impl<M: SortOrder, W> Clone for SeekLevel<M, W>
where
    M::Keys: Clone,
{
    fn clone(&self) -> Self {
        SeekLevel { keys: self.keys.clone(), level: self.level, walk: PhantomData }
    }
}

impl<M: SortOrder, W> std::fmt::Debug for SeekLevel<M, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeekLevel")
            .field("sort_order", &M::SORT_ORDER)
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}
