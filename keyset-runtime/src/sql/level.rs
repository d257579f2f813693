//! One tie level of a seek: the rows past the cursor that tie with it on the first `level - 1`
//! keys and are past it on key `level`, e.g. `created_at = ? AND id < ?`.
//!
//! "Strictly past the cursor" over keys `k1..kn` is the disjoint union, in the walk's order, of
//! level `n` (`k1 = c1 AND .. AND k(n-1) = c(n-1) AND kn ≻ cn`), then level `n - 1`, .., then
//! level 1 (`k1 ≻ c1`). Each level is an equality prefix plus one range: an exact index seek on
//! every engine, where SQLite seeks only the leading column of the single predicate (see
//! [`SeekDialect::SEEK_PER_TIE_LEVEL`]). The levels are rendered from the same type-level key
//! list as the ORDER BY and the single predicate (`LevelKeys`, in `plain.rs` and `nullable.rs`),
//! so they cannot disagree with them.
//!
//! `x = NULL` is never true, so a nullable key's levels lie within one region of its NULLs or its
//! values (`nullable.rs`): exact where it leads, the page then fetching its other region after the
//! levels, and never planned for a nullable key behind another (`KeyShape::LEVELS`).
//!
//! A page that starts at values ("from 1 March") rather than past a row runs the same parts with
//! two differences: it compares only the first `d` keys it was given values for (its levels are
//! `d` down to 1), and its innermost comparison may keep the rows equal to the values
//! (`created_at <= ?`). Where one statement serves it better, it runs as the seek's single
//! predicate stopped at that depth ([`SeekLevel::start`]). Both have SQL that depends on run-time
//! values beyond the binds, so they are rendered here, never by [`Seek`](super::Seek), whose
//! statements Diesel may cache by type.

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::{is_aggregate, AppearsOnTable, ValidGrouping};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::Bool;
use diesel::{Expression, QueryResult};

use super::dialect::SeekDialect;
use super::keys::{KeyShape, KeysAppearOn, LevelKeys, Region, Stop};
use super::predicate::walk_seek;
use super::walk::Walk;
use crate::orders::SortOrder;

/// One tie level of a [`Seek`](super::Seek), or a start's predicate, as a predicate: built by
/// `Seek::start_level` and `Seek::start`.
pub struct SeekLevel<M: SortOrder, W> {
    keys: M::Keys,
    /// [`Part::Either`]'s other keys.
    other: Option<M::Keys>,
    part: Part,
    walk: PhantomData<W>,
}

/// Which part of the rows past a cursor's values a [`SeekLevel`] selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Tie level `level`; its last comparison keeps the equal rows when `inclusive`.
    Level { level: usize, inclusive: bool },
    /// A start's rows in one predicate: past the values as `stop` says, within `region`.
    Start { stop: Stop, region: Region },
    /// The rows of either of two starts, past each one's values as `stop` says: a page at a
    /// row's id with a nullable leading key, whose two keys assume the row's value is and is not
    /// NULL, each holding no row where it is wrong (see `RowKeys`), on a query that runs one
    /// statement only.
    Either { stop: Stop },
    /// The rows of the cursor's group: equal to it on the first `depth` keys, a joined row's
    /// (see `SortOrder::GROUP_KEYS`); with `rest`, only those past it on the keys that follow,
    /// as that stop says.
    Group { depth: usize, rest: Option<Stop> },
}

impl<M: SortOrder, W> SeekLevel<M, W> {
    pub(super) fn new(keys: M::Keys, level: usize, inclusive: bool) -> Self {
        assert!(
            (1..=<M::Keys as KeyShape>::LEN).contains(&level),
            "{} has no tie level {level}: levels run from 1 to its number of sort keys",
            M::SORT_ORDER,
        );
        SeekLevel { keys, other: None, part: Part::Level { level, inclusive }, walk: PhantomData }
    }

    /// The rows past `keys`' values as `stop` says (the first `stop.depth` keys compared, the
    /// equal rows kept when `stop.inclusive`), within `region`, in one predicate shaped as a
    /// cursor's seek is.
    pub(super) fn start(keys: M::Keys, stop: Stop, region: Region) -> Self {
        SeekLevel { keys, other: None, part: Part::Start { stop, region }, walk: PhantomData }
    }

    /// The rows equal to `keys`' values on the first `depth` keys, and with `rest` past them on
    /// the rest as it says ([`Part::Group`]).
    pub(super) fn group(keys: M::Keys, depth: usize, rest: Option<Stop>) -> Self {
        assert!(
            (1..<M::Keys as KeyShape>::LEN).contains(&depth),
            "{} has no group of {depth} keys: a group's keys are followed by the model's own",
            M::SORT_ORDER,
        );
        SeekLevel { keys, other: None, part: Part::Group { depth, rest }, walk: PhantomData }
    }

    /// The rows past `keys`' values or past `other`'s, as `stop` says, in one predicate
    /// ([`Part::Either`]).
    pub(super) fn either(keys: M::Keys, other: M::Keys, stop: Stop) -> Self {
        SeekLevel { keys, other: Some(other), part: Part::Either { stop }, walk: PhantomData }
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
        // Through postgres_fdw, no row value (`SortOrder::POSTGRES_FDW`).
        let row_values = !M::POSTGRES_FDW;
        let (level, inclusive) = match self.part {
            Part::Level { level, inclusive } => (level, inclusive),
            Part::Start { stop, region } => {
                return walk_seek(&self.keys, out, (W::BACKWARD, region, row_values), stop)
            }
            Part::Either { stop } => {
                out.push_sql("(");
                walk_seek(
                    &self.keys,
                    out.reborrow(),
                    (W::BACKWARD, Region::Whole, row_values),
                    stop,
                )?;
                if let Some(other) = &self.other {
                    out.push_sql(" OR ");
                    walk_seek(
                        other,
                        out.reborrow(),
                        (W::BACKWARD, Region::Whole, row_values),
                        stop,
                    )?;
                }
                out.push_sql(")");
                return Ok(());
            }
            Part::Group { depth, rest } => {
                out.push_sql("(");
                self.keys.walk_group(out.reborrow(), (W::BACKWARD, row_values), depth, rest)?;
                out.push_sql(")");
                return Ok(());
            }
        };
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
        // Measured by hand on 1,000,000 rows (see `union.rs`). Not through postgres_fdw: the
        // coordinator then estimated the level at a row per partition and sorted the level's
        // rows itself, each server sending all of them unordered, where with the equality it
        // merges the servers' rows in order (and each server plans its own statement anew).
        let range = DB::UNITE_TIE_LEVELS && !M::POSTGRES_FDW && level == <M::Keys as KeyShape>::LEN;
        self.keys.walk_level(out.reborrow(), W::BACKWARD, level, (range, inclusive))?;
        out.push_sql(")");
        Ok(())
    }
}

// The SQL depends on the part, a runtime value: Diesel caches the statement by its SQL text.
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
        let (keys, other) = (self.keys.clone(), self.other.clone());
        SeekLevel { keys, other, part: self.part, walk: PhantomData }
    }
}

impl<M: SortOrder, W> std::fmt::Debug for SeekLevel<M, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeekLevel")
            .field("sort_order", &M::SORT_ORDER)
            .field("part", &self.part)
            .finish_non_exhaustive()
    }
}
