//! [`Statement`]: one statement of a page, as the page machine hands it to a driver.

use crate::orders::SortOrder;
use crate::sql::{GroupOrder, OrderBy, Seek, SeekLevel, WindowEnd};

/// One statement of a page walking `W`, as what it adds to the query: a driver builds
/// `query.filter(..).order(..).limit(..)` from it and loads the rows. (Named in hidden bounds
/// only.)
#[doc(hidden)]
pub enum Statement<M: SortOrder, W> {
    /// The first rows (forward) or the last (backward): `ORDER BY .. LIMIT limit`.
    Edge { order: OrderBy<M, W>, limit: i64 },
    /// Page `n`: `ORDER BY .. LIMIT limit OFFSET offset`.
    Number { order: OrderBy<M, W>, limit: i64, offset: i64 },
    /// Rows past a cursor, in one predicate (or one region of a nullable leading key):
    /// `WHERE seek ORDER BY .. LIMIT limit`.
    Seek { seek: Seek<M, W>, order: OrderBy<M, W>, limit: i64 },
    /// One tie level of the rows past a cursor.
    Level { level: SeekLevel<M, W>, order: OrderBy<M, W>, limit: i64 },
    /// A page among a set of values, first: the rows past the position (`seek`, none on the
    /// first or last page) up to the `end` of a window of the order's index, filtered by the
    /// set (see [`Window`](crate::sql::Window)).
    Probe { seek: Option<Seek<M, W>>, end: WindowEnd<M, W>, order: OrderBy<M, W>, limit: i64 },
    /// Before a [`Probe`](Statement::Probe), where the engine reads the window's end first
    /// ([`Windowing::ReadFirst`](crate::sql::Windowing::ReadFirst)): the row `offset` rows on
    /// from the first past the position, at most one.
    Boundary { seek: Option<Seek<M, W>>, offset: i64, order: OrderBy<M, W> },
    /// The key of the next group in an order grouped by a joined row: the first row past
    /// `level` (from the start without one) under the ORDER BY of the group's keys alone,
    /// `LIMIT 1` (see `groups.rs`).
    GroupKey { level: Option<SeekLevel<M, W>>, order: GroupOrder<M, W> },
    /// Every tie level of the rows past a cursor, innermost first, as one statement: each level
    /// under its ORDER BY and limited to `limit`, their `UNION ALL` ordered by `order` over the
    /// output columns `names` (see [`Union`](crate::sql::Union)).
    Levels {
        levels: Vec<(SeekLevel<M, W>, OrderBy<M, W>)>,
        order: OrderBy<M, W>,
        names: &'static [&'static str],
        limit: i64,
    },
}
