//! What a listing counts for a request: the count asked for, refused or served as the listing
//! allows ([`Counting`]), the statement that serves it on an engine ([`Counted`]), and the
//! [`TotalCount`] its result makes.

use super::{Count, TotalCount, TotalKind};
use crate::position::Position;
use crate::request::RequestError;
use crate::token::Engine;

/// A request's count and the listing's rules for it: the cap of a bounded count, and whether
/// exact counts are served. Carried by a [`Paginated`](crate::Paginated) (and Relay's
/// arguments) to the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counting {
    pub(crate) asked: Option<Count>,
    pub(crate) cap: u32,
    pub(crate) exact: bool,
}

impl Default for Counting {
    /// No count asked; a bounded count capped at [`Count::DEFAULT_CAP`]; exact ones refused.
    fn default() -> Self {
        Counting { asked: None, cap: Count::DEFAULT_CAP, exact: false }
    }
}

impl Counting {
    /// The count to run, if any: refused when it is exact and the listing does not allow that.
    /// Checked before any statement.
    pub(crate) fn check(&self) -> Result<Option<Count>, RequestError> {
        match self.asked {
            Some(Count::Exact) if !self.exact => {
                Err(RequestError::CountRefused { count: Count::Exact })
            }
            asked => Ok(asked),
        }
    }

    /// The statement that serves `count` on `engine`: an estimate where the engine's planner
    /// gives one, else a bounded count.
    pub(crate) fn statement(&self, count: Count, engine: Engine) -> Counted {
        match count {
            Count::Exact => Counted::All,
            Count::Estimated if engine != Engine::Sqlite => Counted::Plan(self.cap),
            Count::Bounded | Count::Estimated => Counted::UpTo(self.cap),
        }
    }
}

/// How a count is run: the statement, and what its result means. (Named in hidden signatures
/// only.)
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// `COUNT(*)` of every row.
    All,
    /// `COUNT(*)` of at most `cap + 1` rows: `cap + 1` means "at least `cap`".
    UpTo(u32),
    /// The planner's estimate, read off `EXPLAIN`; where the plan holds none, a bounded count
    /// capped here.
    Plan(u32),
}

impl Counted {
    /// The LIMIT of a bounded count's subquery: one row past the cap, which tells "more".
    pub(crate) fn limit(cap: u32) -> i64 {
        i64::from(cap) + 1
    }

    /// The total that `rows`, the result of this count's statement, makes (for [`Counted::Plan`],
    /// the estimate read off the plan).
    pub(crate) fn total(self, rows: i64) -> TotalCount {
        let rows = u64::try_from(rows).unwrap_or(0);
        match self {
            Counted::All => TotalCount::new(TotalKind::Exact, rows),
            Counted::UpTo(cap) if rows > u64::from(cap) => {
                TotalCount::new(TotalKind::AtLeast, u64::from(cap))
            }
            Counted::UpTo(_) => TotalCount::new(TotalKind::Exact, rows),
            Counted::Plan(_) => TotalCount::new(TotalKind::Estimated, rows),
        }
    }
}

impl TotalCount {
    /// The listing's total over several shards, each shard's count of its own rows: the sum,
    /// an estimate where any shard's is one, else at least the sum where any shard's reached its
    /// cap, else exact.
    pub(crate) fn sum(totals: impl IntoIterator<Item = TotalCount>) -> Option<TotalCount> {
        totals.into_iter().reduce(|a, b| {
            let kind = match (a.kind, b.kind) {
                (TotalKind::Estimated, _) | (_, TotalKind::Estimated) => TotalKind::Estimated,
                (TotalKind::AtLeast, _) | (_, TotalKind::AtLeast) => TotalKind::AtLeast,
                _ => TotalKind::Exact,
            };
            TotalCount::new(kind, a.count.saturating_add(b.count))
        })
    }

    /// For an estimate, the page's approximate position: "about page k of n" for the page of
    /// `limit` rows at `position`, which fetched `fetched` rows (its probe row included). The
    /// estimate is raised to the rows the page has shown to exist (those before a page by
    /// number, and those it fetched), so that a planner's low guess never says "page 3 of 2".
    pub(crate) fn placed<C>(mut self, position: &Position<C>, limit: u32, fetched: usize) -> Self {
        if self.kind != TotalKind::Estimated {
            return self;
        }
        let limit = u64::from(limit.max(1));
        let before = match position {
            Position::Number(number) => u64::from(number.saturating_sub(1)) * limit,
            _ => 0,
        };
        self.count = self.count.max(before + fetched as u64);
        let pages = self.count.div_ceil(limit);
        self.pages = Some(pages);
        self.page = match position {
            Position::First => Some(1),
            Position::Number(number) => Some(u64::from(*number)),
            Position::Last => Some(pages.max(1)),
            Position::After(_)
            | Position::Before(_)
            | Position::Start(..)
            | Position::Row(_)
            | Position::RowId(_) => None,
        };
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bounded_count_says_at_least_only_past_its_cap() {
        let bounded = Counted::UpTo(1_000);
        assert_eq!(bounded.total(1_000), TotalCount::new(TotalKind::Exact, 1_000));
        assert_eq!(bounded.total(1_001), TotalCount::new(TotalKind::AtLeast, 1_000));
        assert_eq!(bounded.total(0), TotalCount::new(TotalKind::Exact, 0));
        assert_eq!(Counted::limit(1_000), 1_001);
    }

    #[test]
    fn exact_counts_are_refused_unless_allowed() {
        let asked = |count| Counting { asked: Some(count), ..Counting::default() };
        let refused = RequestError::CountRefused { count: Count::Exact };
        assert_eq!(asked(Count::Exact).check(), Err(refused));
        assert_eq!(Counting { exact: true, ..asked(Count::Exact) }.check(), Ok(Some(Count::Exact)));
        assert_eq!(asked(Count::Bounded).check(), Ok(Some(Count::Bounded)));
        assert_eq!(Counting::default().check(), Ok(None));
    }

    #[test]
    fn sqlite_estimates_by_a_bounded_count() {
        let counting = Counting::default();
        assert_eq!(counting.statement(Count::Estimated, Engine::Sqlite), Counted::UpTo(1_000));
        assert_eq!(counting.statement(Count::Estimated, Engine::Postgres), Counted::Plan(1_000));
        assert_eq!(counting.statement(Count::Estimated, Engine::Mysql), Counted::Plan(1_000));
        assert_eq!(counting.statement(Count::Exact, Engine::Sqlite), Counted::All);
    }

    #[test]
    fn an_estimate_places_the_page() {
        let estimate = TotalCount::new(TotalKind::Estimated, 95);
        let first = estimate.placed::<()>(&Position::First, 20, 21);
        assert_eq!((first.page, first.pages), (Some(1), Some(5)));
        let third = estimate.placed::<()>(&Position::Number(3), 20, 21);
        assert_eq!((third.page, third.pages), (Some(3), Some(5)));
        let last = estimate.placed::<()>(&Position::Last, 20, 16);
        assert_eq!((last.page, last.pages), (Some(5), Some(5)));
        let after = estimate.placed(&Position::After(()), 20, 21);
        assert_eq!((after.page, after.pages), (None, Some(5)));
        // A low estimate is raised to the rows the page has shown to exist.
        let low =
            TotalCount::new(TotalKind::Estimated, 1).placed::<()>(&Position::Number(4), 20, 21);
        assert_eq!((low.count, low.page, low.pages), (81, Some(4), Some(5)));
        // Other kinds are left as they are.
        let exact = TotalCount::new(TotalKind::Exact, 95).placed::<()>(&Position::First, 20, 21);
        assert_eq!((exact.page, exact.pages), (None, None));
    }

    #[test]
    fn shards_sum_their_counts() {
        let (exact, at_least) =
            (TotalCount::new(TotalKind::Exact, 5), TotalCount::new(TotalKind::AtLeast, 1_000));
        assert_eq!(TotalCount::sum([exact, exact]), Some(TotalCount::new(TotalKind::Exact, 10)));
        assert_eq!(
            TotalCount::sum([exact, at_least]),
            Some(TotalCount::new(TotalKind::AtLeast, 1_005))
        );
        let estimate = TotalCount::new(TotalKind::Estimated, 7);
        assert_eq!(
            TotalCount::sum([at_least, estimate]),
            Some(TotalCount::new(TotalKind::Estimated, 1_007))
        );
        assert_eq!(TotalCount::sum([]), None);
    }
}
