//! The sort keys of a model as one type-level list: `Key<column, direction, value, next>`, ending
//! in [`End`]. `#[derive(Keyset)]` writes the list once; the ORDER BY, its reverse and the seek
//! predicate are all rendered from it (`plain.rs`, `nullable.rs`, `level.rs`), so they cannot
//! disagree about columns or directions. This file holds the list's types and the traits that
//! render it; how one key writes itself is in `compare.rs`.

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::AppearsOnTable;
use diesel::query_builder::AstPass;
use diesel::QueryResult;

use super::dialect::SeekDialect;
use crate::token::{CursorValue, Writer};

/// Ascending sort direction (marker type).
#[derive(Debug, Clone, Copy, Default)]
pub struct Asc;

/// Descending sort direction (marker type).
#[derive(Debug, Clone, Copy, Default)]
pub struct Desc;

/// A sort direction, known at compile time.
pub trait KeyDirection: 'static {
    /// Whether this direction is descending.
    const DESC: bool;
}

impl KeyDirection for Asc {
    const DESC: bool = false;
}

impl KeyDirection for Desc {
    const DESC: bool = true;
}

/// One sort key: `column` sorted in direction `D`, with the cursor's `value` for it (or `()` when
/// only the columns are needed, as in an ORDER BY), followed by the `next` key.
#[derive(Debug, Clone, Copy)]
pub struct Key<C, D, V, N> {
    pub(super) column: C,
    pub(super) value: V,
    pub(super) next: N,
    /// Whether the comparisons read this key's value from the row the last key's value
    /// identifies, `(SELECT column FROM table WHERE id = ?)`, instead of binding `value` (see
    /// [`RowKeys`](super::RowKeys)).
    pub(super) from_row: bool,
    direction: PhantomData<D>,
}

impl<C, D, V, N> Key<C, D, V, N> {
    /// A key on `column` with the cursor's `value`, followed by `next`.
    pub fn new(column: C, value: V, next: N) -> Self {
        Key { column, value, next, from_row: false, direction: PhantomData }
    }

    /// The cursor's value for this key, and the keys that follow: what a merge of shards'
    /// pages compares in memory.
    pub(crate) fn value_and_next(&self) -> (&V, &N) {
        (&self.value, &self.next)
    }
}

/// The end of a key list.
#[derive(Debug, Clone, Copy, Default)]
pub struct End;

/// Facts about a key list that do not depend on the backend.
pub trait KeyShape: 'static {
    /// How many keys the list holds.
    const LEN: usize;
    /// Whether every key is ascending (true for the empty list).
    const ALL_ASC: bool;
    /// Whether every key is descending (true for the empty list).
    const ALL_DESC: bool;
    /// Whether some key is nullable: then the SQL depends on which cursor values are NULL.
    const NULLABLE: bool;
    /// Whether the leading key is nullable: then its NULLs form a [`Region`] of their own.
    const LEADING_NULLABLE: bool = false;
    /// Whether every key is ascending among the rows whose leading key is not NULL, and no other
    /// key is nullable: then a row value is exact in that region (see [`Region::Cursor`]).
    /// [`ALL_ASC`](Self::ALL_ASC) for a list without a nullable leading key.
    const VALUES_ALL_ASC: bool = Self::ALL_ASC;
    /// [`VALUES_ALL_ASC`](Self::VALUES_ALL_ASC), descending.
    const VALUES_ALL_DESC: bool = Self::ALL_DESC;
    /// Whether the leading key is descending (false for the empty list).
    const LEADING_DESC: bool = false;
    /// Whether a page past a cursor may be fetched one tie level at a time (see `level.rs`): no
    /// key is nullable but perhaps the leading one. A nullable key's tie levels are exact only
    /// where it leads: its NULLs are then a region of their own, fetched after the levels, where
    /// behind another key they lie inside that key's tie groups, and `x = NULL` is never true.
    const LEVELS: bool;
}

impl KeyShape for End {
    const LEN: usize = 0;
    const ALL_ASC: bool = true;
    const ALL_DESC: bool = true;
    const NULLABLE: bool = false;
    const LEVELS: bool = true;
}

impl<C: 'static, D: KeyDirection, V: 'static, N: KeyShape> KeyShape for Key<C, D, V, N> {
    const LEN: usize = 1 + N::LEN;
    const LEADING_DESC: bool = D::DESC;
    const ALL_ASC: bool = !D::DESC && N::ALL_ASC;
    const ALL_DESC: bool = D::DESC && N::ALL_DESC;
    const NULLABLE: bool = N::NULLABLE;
    const LEVELS: bool = !N::NULLABLE;
}

/// What the page machine reads of a cursor's values, whatever the backend: whether its leading
/// key is NULL, and so which [`Region`]s lie past it; and how a start's values, given as text or
/// typed, become a cursor's.
pub trait CursorKeys: KeyShape {
    /// The leading key's value type: what a typed start gives
    /// ([`Paginated::start_at`](crate::Paginated::start_at)); `()` for the empty list.
    type Leading;
    /// Whether the cursor's value for a nullable leading key is NULL (false without one).
    fn leading_is_null(&self) -> bool {
        false
    }
    /// Whether rows past the cursor lie in another region than the cursor's: the leading key is
    /// nullable, and its NULLs come after a non-NULL cursor value, or its non-NULLs after a NULL.
    fn has_next_region(&self, backward: bool) -> bool {
        let _ = backward;
        false
    }
    /// Writes the values of the first keys, one per text, each read by its key's type
    /// ([`CursorValue::from_text`]), as a cursor's token bytes hold them. Fails with where the
    /// text its key's type cannot read is, and what that type takes; texts past the last key
    /// are not read.
    fn write_texts(texts: &[String], out: &mut Writer) -> Result<(), (usize, &'static str)>;
    /// Writes the last key's value as a token's bytes hold it: a row's primary key, where the
    /// list is [`RowKeys`](super::RowKeys).
    fn write_last(&self, out: &mut Writer);
    /// Makes every key but the last read its value from the row the last key's value
    /// identifies (see [`RowKeys`](super::RowKeys)), in every comparison the list renders.
    fn read_from_row(&mut self);
    /// Leaves a nullable leading key whose value the cursor assumes NULL untested against the
    /// row's (see `RowKeys`): where its statements run only after the statement that assumes
    /// a value found nothing, the row's value is NULL, or the row is not listed and the page is
    /// refused whatever they find. (SQLite tests the guard row by row.)
    fn skip_null_guard(&mut self) {}
}

impl CursorKeys for End {
    type Leading = ();
    fn write_texts(_: &[String], _: &mut Writer) -> Result<(), (usize, &'static str)> {
        Ok(())
    }
    fn write_last(&self, _: &mut Writer) {}
    fn read_from_row(&mut self) {}
}

impl<C: 'static, D: KeyDirection, V: CursorValue + 'static, N: CursorKeys> CursorKeys
    for Key<C, D, V, N>
{
    type Leading = V;
    fn write_texts(texts: &[String], out: &mut Writer) -> Result<(), (usize, &'static str)> {
        write_texts::<V, N>(texts, out)
    }
    fn write_last(&self, out: &mut Writer) {
        write_last(self, out)
    }
    fn read_from_row(&mut self) {
        read_from_row(self)
    }
}

/// [`CursorKeys::write_last`] for any key.
pub(super) fn write_last<C, D, V: CursorValue, N: CursorKeys>(
    key: &Key<C, D, V, N>,
    out: &mut Writer,
) {
    match N::LEN {
        0 => key.value.write(out),
        _ => key.next.write_last(out),
    }
}

/// [`CursorKeys::read_from_row`] for any key.
pub(super) fn read_from_row<C, D, V, N: CursorKeys>(key: &mut Key<C, D, V, N>) {
    key.from_row = N::LEN > 0;
    key.next.read_from_row();
}

/// [`CursorKeys::write_texts`] for a list led by a key of values `V`, followed by `N`.
pub(super) fn write_texts<V: CursorValue, N: CursorKeys>(
    texts: &[String],
    out: &mut Writer,
) -> Result<(), (usize, &'static str)> {
    let Some((text, rest)) = texts.split_first() else { return Ok(()) };
    V::from_text(text).map_err(|expected| (0, expected))?.write(out);
    N::write_texts(rest, out).map_err(|(at, expected)| (at + 1, expected))
}

/// How an ORDER BY writes a nullable leading key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeadingNulls {
    /// NULLs and values are mixed: pin the placement.
    Pin,
    /// Every row is on one side of the NULL boundary: the placement is moot, and left unpinned
    /// so that an index without a NULLS clause serves the order (unless the engine's indexes
    /// declare one, [`SeekDialect::INDEX_NULLS_CLAUSE`]).
    OneSide,
}

/// Which rows past the cursor a seek predicate selects. Only a nullable leading key makes the
/// difference: its NULLs form a region of their own, before or after the other rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// Every row past the cursor, in one predicate.
    Whole,
    /// The rows past the cursor in the cursor's own region (NULL or not NULL on the leading key):
    /// a predicate without the `OR x IS [NOT] NULL` disjunct, so that it is one index seek.
    Cursor,
    /// The whole region after the cursor's (`x IS NULL` or `x IS NOT NULL`), fetched only when
    /// the cursor's region runs out before the page is full.
    Next,
}

/// How far a predicate compares a cursor's keys, and whether it keeps the rows equal to them:
/// a cursor's seek is strictly past every key ([`Stop::PAST`]); a page that starts at values
/// compares the first `depth` keys and, `inclusive`, keeps the rows equal to them there ("from
/// 1 March": `created_at <= ?` in `created_at DESC`).
/// (Named in the hidden `Position` only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop {
    /// How many leading keys are compared, from 1; past the number of keys, every key.
    pub depth: usize,
    /// Whether the rows equal to the values on those keys are kept.
    pub inclusive: bool,
}

impl Stop {
    /// Strictly past the cursor on every key: a cursor's seek.
    pub const PAST: Stop = Stop { depth: usize::MAX, inclusive: false };
    /// At or past the cursor on every key: from a row on, that row included.
    pub const FROM: Stop = Stop { depth: usize::MAX, inclusive: true };

    /// Whether `key` (from 1) is the last key compared, in a list of `len` keys.
    pub(super) fn last(self, key: usize, len: usize) -> bool {
        key >= len || key >= self.depth
    }

    /// The same stop, seen from the next key.
    pub(super) fn deeper(self) -> Stop {
        Stop { depth: self.depth.saturating_sub(1), ..self }
    }

    /// How many keys of a list of `len` are compared.
    pub(crate) fn keys(self, len: usize) -> usize {
        self.depth.min(len)
    }
}

/// Renders the columns of a key list: in an ORDER BY, or as a row value `(c1, c2)`.
pub trait SortColumns<DB: Backend + SeekDialect>: KeyShape {
    /// `c1 DESC, c2 ASC` (every direction flipped when `backward`). `leading` says how a
    /// nullable leading key is written; every later key is written in full. Each key is its
    /// column, or with `names` (one per key) that output column's name, as the ORDER BY of a
    /// `UNION ALL` must write it.
    fn walk_order<'b>(
        &'b self,
        out: AstPass<'_, 'b, DB>,
        backward: bool,
        leading: LeadingNulls,
        names: &[&'static str],
    ) -> QueryResult<()>;
    /// `c1, c2`.
    fn walk_columns<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// `c1`: the leading key's column (what a feed's window bounds, `window.rs`).
    fn walk_leading<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// `c1 DESC, c2 ASC` over the first `depth` keys only: the ORDER BY of the statement that
    /// finds a group's key (see `SortOrder::GROUP_KEYS`). Planned only for lists without a
    /// nullable key, whose keys override it.
    fn walk_order_prefix<'b>(
        &'b self,
        out: AstPass<'_, 'b, DB>,
        backward: bool,
        depth: usize,
    ) -> QueryResult<()> {
        let _ = (out, backward, depth);
        Err(ungrouped())
    }
}

/// What rendering a group's statements reports for a key list the page machine never walks by
/// groups (one with a nullable key): a bug, never the client's.
pub(super) fn ungrouped() -> diesel::result::Error {
    diesel::result::Error::QueryBuilderError(
        "a group's statement was planned for an order with a nullable key".into(),
    )
}

/// Renders the comparisons of a key list against the cursor's values, each value a bound
/// parameter (never spliced into the SQL).
pub trait SeekKeys<DB: Backend + SeekDialect>: SortColumns<DB> + CursorKeys {
    /// `c1 < ? OR (c1 = ? AND (c2 < ? OR (c2 = ? AND c3 < ?)))`: strictly past the cursor in the
    /// list's order, with the last key strict so the cursor row itself is never returned; or,
    /// as `stop` says, over the first keys only, the last of them inclusive (`c1 <= ?`).
    fn walk_chain<'b>(
        &'b self,
        out: AstPass<'_, 'b, DB>,
        backward: bool,
        region: Region,
        stop: Stop,
    ) -> QueryResult<()>;
    /// `c1 <= ?`: the redundant bound on the leading key that turns the chain into an index
    /// range on every engine (see the `sql` module docs). Writes nothing and returns `false`
    /// when there is no bound to write. `stop` is the chain's: a later key may bound only where
    /// the chain compares it.
    fn walk_leading_bound<'b>(
        &'b self,
        out: AstPass<'_, 'b, DB>,
        backward: bool,
        region: Region,
        stop: Stop,
    ) -> QueryResult<bool>;
    /// `?, ?`: the values of a row-value comparison.
    fn walk_values<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// `c1 IS NULL` or `c1 IS NOT NULL`: the region after the cursor's.
    fn walk_next_region<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
    /// ` FROM t WHERE id = ?`, the last key's column and value: the row whose values the other
    /// keys read (see [`RowKeys`](super::RowKeys)). An error for a list whose last key is not a plain column.
    fn walk_row<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()>;
}

/// Renders one tie level of a key list against the cursor's values (see `level.rs`).
pub trait LevelKeys<DB: Backend + SeekDialect>: SeekKeys<DB> {
    /// `c1 = ? AND c2 < ?` for `level` 2: equal to the cursor on the first `level - 1` keys,
    /// strictly past it on key `level` (every comparison flipped when `backward`), or at or past
    /// it when `inclusive`. With `range`, the last equality is written `c1 >= ? AND c1 <= ?`,
    /// the same rows (see `SeekLevel`'s `walk_ast` for why).
    fn walk_level<'b>(
        &'b self,
        out: AstPass<'_, 'b, DB>,
        backward: bool,
        level: usize,
        range_inclusive: (bool, bool),
    ) -> QueryResult<()>;
    /// `c1 = ? AND c2 = ?`, equal to the cursor on the first `depth` keys (a group's rows, see
    /// `SortOrder::GROUP_KEYS`), and with `rest` past it on the keys that follow as that stop
    /// says, in one predicate shaped as a seek is (the rest of the cursor's group; a row value
    /// only with `row_values`). Planned only for lists without a nullable key, whose keys
    /// override it.
    fn walk_group<'b>(
        &'b self,
        out: AstPass<'_, 'b, DB>,
        backward_row_values: (bool, bool),
        depth: usize,
        rest: Option<Stop>,
    ) -> QueryResult<()> {
        let _ = (out, backward_row_values, depth, rest);
        Err(ungrouped())
    }
}

/// Every column of a key list can be used in a query whose FROM clause is `QS` (a table, or a
/// join that contains the model's table).
pub trait KeysAppearOn<QS> {}

impl<QS> KeysAppearOn<QS> for End {}

impl<QS, C: AppearsOnTable<QS>, D, V, N: KeysAppearOn<QS>> KeysAppearOn<QS> for Key<C, D, V, N> {}
