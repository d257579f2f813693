//! Counts of a listing's rows served with a page: the policy a request asks for ([`Count`]),
//! what the listing allows ([`Paginated::count_cap`](crate::Paginated::count_cap),
//! [`Paginated::allow_exact_count`](crate::Paginated::allow_exact_count)), and what the page
//! reports ([`TotalCount`]).
//!
//! An exact `COUNT(*)` reads every row the listing matches, on every request: O(rows), where a
//! keyset page is O(page). So a page counts only when asked ([`PageRequest::count`]), and offers
//! two counts whose cost is bounded whatever the table's size:
//!
//! - **bounded**: `SELECT COUNT(*) FROM (SELECT 1 FROM .. WHERE .. LIMIT cap + 1) AS t`, the
//!   listing's own filters and binds, at most `cap + 1` rows read: exact up to the cap
//!   ([`TotalKind::Exact`]), "at least `cap`" beyond it ([`TotalKind::AtLeast`], "1,000+");
//! - **estimated**: the planner's row estimate for the listing's own query, one `EXPLAIN` (a
//!   planner call, no rows read): PostgreSQL's `EXPLAIN (FORMAT JSON)` top plan's `Plan Rows`,
//!   MariaDB's and MySQL's `EXPLAIN FORMAT=JSON` (the rows each table's access reads times the
//!   share its condition keeps, multiplied along a join's nested loop). SQLite's planner gives
//!   no row estimate, so there an estimated count is the bounded one, and reported as such (its
//!   kind says exact or at least, never estimated). An estimate is only as good as the table's
//!   statistics (`ANALYZE`; PostgreSQL's autovacuum keeps them): PostgreSQL never estimates
//!   fewer than one row, and a table never analyzed may be estimated far off;
//! - **exact**: `SELECT COUNT(*) FROM (SELECT 1 FROM .. WHERE ..) AS t`, refused unless the
//!   listing allows it ([`RequestError::CountRefused`], 400), since a client must not make the
//!   server count ten million rows on every request.
//!
//! The count runs after the page's statements, on the same connection, through the same driver
//! (sync or async): a page among a set counts among the set, a named order or a join counts the
//! query's rows (the order does not change them), and a sharded page sums its shards' counts
//! ([`Paginated::load_page_sharded`](crate::Paginated::load_page_sharded)).
//!
//! [`PageRequest::count`]: crate::PageRequest::count
//! [`RequestError::CountRefused`]: crate::RequestError::CountRefused

mod plan;
mod policy;
pub(crate) mod sql;
mod total;

pub(crate) use plan::estimated_rows;
#[doc(hidden)]
pub use policy::Counted;
pub(crate) use policy::Counting;
pub use total::{TotalCount, TotalKind};

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The count a page request asks for, beside the page ([`PageRequest::count`]); no count
/// without one. A query string names it `count=exact`, `count=bounded` or `count=estimated`.
///
/// ```
/// use keyset_runtime::{Count, PageRequest};
///
/// let request = PageRequest::first(20).count(Count::Bounded);
/// assert_eq!(request.requested_count(), Some(Count::Bounded));
/// assert_eq!("estimated".parse::<Count>(), Ok(Count::Estimated));
/// assert_eq!(Count::Exact.to_string(), "exact");
/// assert!("all".parse::<Count>().is_err());
/// ```
///
/// [`PageRequest::count`]: crate::PageRequest::count
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "async-graphql", derive(async_graphql::Enum))]
pub enum Count {
    /// Every row the listing matches, `COUNT(*)`: O(rows) per request. Served only where the
    /// listing allows it ([`Paginated::allow_exact_count`](crate::Paginated::allow_exact_count)).
    Exact,
    /// The rows up to the listing's cap ([`Paginated::count_cap`](crate::Paginated::count_cap),
    /// default [`Count::DEFAULT_CAP`]): exact below it, "at least the cap" at it. At most
    /// `cap + 1` rows read.
    Bounded,
    /// The planner's estimate of the listing's rows, with the page's approximate position; on
    /// SQLite, whose planner has none, the bounded count.
    Estimated,
}

impl Count {
    /// The cap of a bounded count unless the listing sets another
    /// ([`Paginated::count_cap`](crate::Paginated::count_cap)).
    pub const DEFAULT_CAP: u32 = 1_000;

    /// Its name in a query string: `exact`, `bounded` or `estimated`.
    ///
    /// ```
    /// # use keyset_runtime::Count;
    /// assert_eq!(Count::Bounded.name(), "bounded");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Count::Exact => "exact",
            Count::Bounded => "bounded",
            Count::Estimated => "estimated",
        }
    }

    /// Every count, in the order a schema lists them.
    pub(crate) const ALL: [Count; 3] = [Count::Exact, Count::Bounded, Count::Estimated];
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no [`Count`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is no count: one of `exact`, `bounded`, `estimated`")]
pub struct ParseCountError(pub String);

impl FromStr for Count {
    type Err = ParseCountError;

    fn from_str(name: &str) -> Result<Self, ParseCountError> {
        Count::ALL
            .into_iter()
            .find(|count| count.name() == name)
            .ok_or_else(|| ParseCountError(name.to_owned()))
    }
}
