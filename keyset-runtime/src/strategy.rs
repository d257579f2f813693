//! Which statements a page after a cursor may take, as far as the model's key types decide it:
//! with no nullable key but perhaps the leading one, a page may be one statement per tie level
//! ([`TieLevels`], where the backend prefers it); with a nullable key after the first it is one
//! predicate, or two seeks at a nullable leading key's NULL boundary ([`OneSeek`]). What the
//! page then runs is the page machine's decision (`machine.rs`); this module only names the
//! types the statements have.

use diesel::QueryResult;

use crate::order::SortOrder;
use crate::sql::{
    End, Key, KeyDirection, KeyShape, Nullable, NullsPlacement, Seek, SeekLevel, Walk,
};

/// A list of sort keys, and the statements a page of it may run. Implemented for every list
/// `#[derive(Keyset)]` writes.
pub trait FetchShape: KeyShape {
    /// [`TieLevels`] when no key is nullable but perhaps the leading one, else [`OneSeek`].
    type Strategy: Strategy;
    /// The strategy of this list where another key leads it: [`OneSeek`] once any key in it is
    /// nullable. A nullable key's tie levels are exact only where it leads: its NULLs are then
    /// a region of their own, fetched after the levels, where behind another key they lie
    /// inside that key's tie groups, and `x = NULL` is never true.
    type Following: Strategy;
}

/// How rows past a cursor may be fetched: [`TieLevels`] or [`OneSeek`].
pub trait Strategy: 'static {
    /// Whether a page may run one statement per tie level.
    const LEVELS: bool;
    /// The predicate of one tie level: [`SeekLevel`] where levels exist. A strategy without
    /// levels never plans one, and names the whole [`Seek`] here, so that a driver's bounds hold
    /// for every model.
    type Level<M: SortOrder, W: Walk>;
    /// Level `level` of `seek`. Called only when [`LEVELS`](Self::LEVELS) is true.
    fn level<M: SortOrder, W: Walk>(seek: Seek<M, W>, level: usize) -> Self::Level<M, W>;
}

/// No nullable key but perhaps the leading one: a page after a cursor may be one exact index
/// seek per tie level (`created_at = ? AND id < ?`, then `created_at < ?` while the page is
/// short), where the backend prefers it (`SeekDialect::SEEK_PER_TIE_LEVEL`, SQLite). With a
/// nullable leading key the levels run among its values, after a non-NULL cursor (no NULL
/// matches `x = ?` or `x < ?`), and its NULLs follow as a region of their own where they come
/// after the values; after a NULL cursor the page is fetched by regions, as with [`OneSeek`].
///
/// The levels are disjoint, so rows inserted or deleted meanwhile never repeat a row within a
/// page. The statements are not one snapshot, though: a row whose *sort key* another connection
/// updates between two of them, from one level into a later one, can be read by both. Where sort
/// keys are updated concurrently and a page must be exact, load it inside a transaction
/// (`conn.transaction(|conn| ..load_page(conn))`), which makes SQLite read one snapshot. (The
/// same holds for the two seeks at a NULL boundary.)
#[derive(Debug, Clone, Copy)]
pub struct TieLevels;

/// A nullable key after the first: one predicate, which handles NULL cursor values; or, with a
/// nullable leading key too, the cursor's region alone where every row past the cursor lies in
/// it, and at the NULL boundary, where the backend prefers it
/// (`SeekDialect::SPLIT_NULL_REGIONS`), two seeks, one per region, the second only when the
/// first leaves the page short.
#[derive(Debug, Clone, Copy)]
pub struct OneSeek;

impl Strategy for TieLevels {
    const LEVELS: bool = true;
    type Level<M: SortOrder, W: Walk> = SeekLevel<M, W>;
    fn level<M: SortOrder, W: Walk>(seek: Seek<M, W>, level: usize) -> SeekLevel<M, W> {
        seek.level(level)
    }
}

impl Strategy for OneSeek {
    const LEVELS: bool = false;
    type Level<M: SortOrder, W: Walk> = Seek<M, W>;
    fn level<M: SortOrder, W: Walk>(seek: Seek<M, W>, _: usize) -> Seek<M, W> {
        seek
    }
}

impl FetchShape for End {
    type Strategy = TieLevels;
    type Following = TieLevels;
}

impl<C: 'static, D: KeyDirection, V: 'static, N: FetchShape> FetchShape for Key<C, D, V, N> {
    type Strategy = N::Following;
    type Following = N::Following;
}

impl<C, D, P, V, N> FetchShape for Key<C, Nullable<D, P>, V, N>
where
    C: 'static,
    D: KeyDirection,
    P: NullsPlacement,
    V: 'static,
    N: FetchShape,
{
    type Strategy = N::Following;
    type Following = OneSeek;
}

/// The predicate of one tie level of model `M`'s seek walking `W`.
pub type LevelOf<M, W> =
    <<<M as SortOrder>::Keys as FetchShape>::Strategy as Strategy>::Level<M, W>;

/// A query that a page may run more than once: a page after a cursor may run one statement per
/// tie level, or two at a NULL boundary, each on its own copy of the query. Implemented for
/// Diesel's select statements (plain, filtered, joined) when they are `Clone`, as their parts
/// usually are, and for boxed queries, which are not `Clone` and so give no copy: they are paged
/// with the single predicate, as on every backend.
///
/// For a query type of your own: [`REPEATS`](Self::REPEATS) says whether
/// [`again`](Self::again) gives a copy, on every call.
pub trait Repeat: Sized {
    /// Whether [`again`](Self::again) gives a copy.
    const REPEATS: bool;
    /// A copy of the query, to run once more; `None` when it has none.
    fn again(&self) -> Option<Self>;
    /// Whether the query can be a parenthesised branch of a `UNION ALL`, which a page may run
    /// its tie levels as (see `sql/union.rs`): a select statement without a locking clause
    /// (PostgreSQL refuses `FOR UPDATE` in a union).
    #[doc(hidden)]
    fn unites() -> bool {
        false
    }
}

// Diesel names these types only through this doc-hidden module (the one `table!` expands to),
// unless a feature that opts into breaking changes is on. A select statement pages only without
// a LIMIT or OFFSET of its own: the page gives every statement its own, so one the query held
// would be a second (a compile error, where Diesel's `.limit()` used to drop it silently).
impl<F, S, D, W, O, G, H, LC: 'static> Repeat
    for diesel::internal::table_macro::SelectStatement<F, S, D, W, O, NoLimitOffset, G, H, LC>
where
    Self: Clone,
{
    const REPEATS: bool = true;
    fn again(&self) -> Option<Self> {
        Some(self.clone())
    }
    fn unites() -> bool {
        std::any::TypeId::of::<LC>() == std::any::TypeId::of::<NoLocking>()
    }
}

/// The parts of a select statement's type, to name what Diesel does not export. (Public in this
/// private module because `Repeat`'s impl names it.)
#[doc(hidden)]
pub trait Parts {
    /// The LIMIT and OFFSET clause.
    type LimitOffset;
    /// The locking clause (`FOR UPDATE`, ..).
    type Locking;
}

impl<F, S, D, W, O, LOf, G, H, LC> Parts
    for diesel::internal::table_macro::SelectStatement<F, S, D, W, O, LOf, G, H, LC>
{
    type LimitOffset = LOf;
    type Locking = LC;
}

/// The LIMIT and OFFSET clause of a statement without either: the default of Diesel's
/// `SelectStatement`, read off the statement of a table declared for no other use.
type NoLimitOffset = <diesel::internal::table_macro::SelectStatement<
    diesel::internal::table_macro::FromClause<unused::table>,
> as Parts>::LimitOffset;

/// The locking clause of a statement without one, read off the same way.
type NoLocking = <diesel::internal::table_macro::SelectStatement<
    diesel::internal::table_macro::FromClause<unused::table>,
> as Parts>::Locking;

#[doc(hidden)]
pub mod unused {
    diesel::table! {
        /// Never queried: its select statement's type names Diesel's defaults.
        keyset_unused (id) {
            id -> Integer,
        }
    }
    pub use keyset_unused::table;
}

impl<'a, ST, QS, DB, GB> Repeat
    for diesel::internal::table_macro::BoxedSelectStatement<'a, ST, QS, DB, GB>
{
    const REPEATS: bool = false;
    fn again(&self) -> Option<Self> {
        None
    }
}

/// The query for the statement just planned: a copy while another statement may follow, the
/// query itself for the last one.
pub(crate) fn next_copy<Q: Repeat>(query: &mut Option<Q>, copy: bool) -> Result<Q, crate::Error> {
    let copied = if copy { query.as_ref().and_then(Repeat::again) } else { None };
    copied.or_else(|| query.take()).ok_or_else(|| crate::Error::Database(no_copy()))
}

/// Each branch of a union paired with a copy of the query to run it on: the query itself for the
/// last. Fails only when [`Repeat::again`] gives no copy where `REPEATS` promised one.
pub(crate) fn branches<Q: Repeat, B>(query: Q, branches: Vec<B>) -> QueryResult<Vec<(Q, B)>> {
    let mut query = Some(query);
    let last = branches.len().saturating_sub(1);
    let mut paired = Vec::with_capacity(branches.len());
    for (index, branch) in branches.into_iter().enumerate() {
        let copy = if index < last { query.as_ref().and_then(Repeat::again) } else { query.take() };
        paired.push((copy.ok_or_else(no_copy)?, branch));
    }
    Ok(paired)
}

/// `Repeat::REPEATS` promised copies that `again` did not give.
fn no_copy() -> diesel::result::Error {
    diesel::result::Error::QueryBuilderError(
        "`Repeat::again` gave no copy of a query whose `REPEATS` is true".into(),
    )
}
