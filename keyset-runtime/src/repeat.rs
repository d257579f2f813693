//! [`Repeat`]: whether a page may run a query more than once (one statement per tie level, two at
//! a NULL boundary, a union of copies), and the copies it runs.

use diesel::QueryResult;

use crate::error::Error;

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
    /// The size of the set of values the query pages among
    /// ([`Paginate::among`](crate::Paginate::among)), whose page may first walk a window of the
    /// order's index as long as the set and the page (see `sql/window.rs`); `None` for any
    /// other query.
    #[doc(hidden)]
    fn probes(&self) -> Option<usize> {
        None
    }
    /// Whether the query's set of values (a page among them) may be paged or counted on
    /// `engine`: checked before any statement.
    #[doc(hidden)]
    fn check_set(&self, engine: crate::token::Engine) -> Result<(), Error> {
        let _ = engine;
        Ok(())
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

/// What a count checks before it runs: a page among a set of values refuses the set where its
/// page would ([`Repeat::check_set`]). (Named in hidden bounds only.)
#[doc(hidden)]
pub trait CheckSet {
    /// Whether the query's set may be counted on `engine`.
    fn check_set(&self, engine: crate::token::Engine) -> Result<(), Error>;
}

impl<Q: Repeat> CheckSet for Q {
    fn check_set(&self, engine: crate::token::Engine) -> Result<(), Error> {
        Repeat::check_set(self, engine)
    }
}

/// The query for the statement just planned: a copy while another statement may follow, the
/// query itself for the last one.
pub(crate) fn next_copy<Q: Repeat>(query: &mut Option<Q>, copy: bool) -> Result<Q, Error> {
    let copied = if copy { query.as_ref().and_then(Repeat::again) } else { None };
    copied.or_else(|| query.take()).ok_or_else(|| Error::Database(no_copy()))
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
