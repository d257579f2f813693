//! The page machine: what a page runs, decided once for every driver.
//!
//! A page is one statement; or, after a cursor, up to one per tie level (SQLite) or two at a
//! nullable leading key's NULL boundary (on SQLite the tie levels among its values, then its
//! NULLs), the next only while the page is short; or on PostgreSQL, in mixed directions, one
//! statement that holds every tie level, their `UNION ALL` (`sql/union.rs`). [`PageMachine`]
//! hands out those statements one at a time as values ([`Statement`]: what to add to the query,
//! and how many rows it may return), takes each one's rows, and decides whether another
//! follows; then it hands the rows over as [`Fetched`], which issues the page's tokens. It performs no IO: the sync driver
//! ([`load_page`](crate::Paginated::load_page)) and the async one (`load_page_async`) only run
//! each statement on their connection and hand the rows back, so both run the same statements,
//! with the same binds, for the same request.

use crate::fetched::Fetched;
use crate::order::SortOrder;
use crate::position::Position;
use crate::request::RequestError;
use crate::sql::{Backward, Forward, OrderBy, Region, Seek, SeekDialect, SeekKeys};
use crate::strategy::{FetchShape, LevelOf, Strategy};

/// One statement of a page, as what it adds to the query: a driver builds
/// `query.filter(..).order(..).limit(..)` from it and loads the rows. (Named in the drivers'
/// bounds only.)
#[doc(hidden)]
pub enum Statement<M: SortOrder> {
    /// The first rows: `ORDER BY .. LIMIT limit`.
    First { order: OrderBy<M, Forward>, limit: i64 },
    /// Page `n`: `ORDER BY .. LIMIT limit OFFSET offset`.
    Number { order: OrderBy<M, Forward>, limit: i64, offset: i64 },
    /// The last rows, walking backward: `ORDER BY <reversed> LIMIT limit`.
    Last { order: OrderBy<M, Backward>, limit: i64 },
    /// Rows after a cursor: `WHERE seek ORDER BY .. LIMIT limit`.
    After { seek: Seek<M, Forward>, order: OrderBy<M, Forward>, limit: i64 },
    /// Rows before a cursor, walking backward.
    Before { seek: Seek<M, Backward>, order: OrderBy<M, Backward>, limit: i64 },
    /// One tie level of the rows after a cursor.
    AfterLevel { level: LevelOf<M, Forward>, order: OrderBy<M, Forward>, limit: i64 },
    /// One tie level of the rows before a cursor.
    BeforeLevel { level: LevelOf<M, Backward>, order: OrderBy<M, Backward>, limit: i64 },
    /// Every tie level of the rows after a cursor, innermost first, as one statement: each
    /// level under its ORDER BY and limited to `limit`, their `UNION ALL` ordered by `order`
    /// over the output columns `names` (see [`Union`](crate::sql::Union)).
    AfterLevels {
        levels: Vec<(LevelOf<M, Forward>, OrderBy<M, Forward>)>,
        order: OrderBy<M, Forward>,
        names: &'static [&'static str],
        limit: i64,
    },
    /// Every tie level of the rows before a cursor, as one statement.
    BeforeLevels {
        levels: Vec<(LevelOf<M, Backward>, OrderBy<M, Backward>)>,
        order: OrderBy<M, Backward>,
        names: &'static [&'static str],
        limit: i64,
    },
}

/// What a query lets a page run: copies of it ([`Repeat`](crate::Repeat)), and copies as the
/// branches of one `UNION ALL`, which also needs the model's columns to be the whole selection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Copies {
    pub(crate) repeats: bool,
    pub(crate) unite: bool,
}

impl Copies {
    /// What query `Q` allows.
    pub(crate) fn of<Q: crate::Repeat + crate::Paginate>() -> Self {
        Copies { repeats: Q::REPEATS, unite: Q::REPEATS && Q::MODEL_ALONE && Q::unites() }
    }
}

/// The statements that remain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// The position's one statement.
    Whole,
    /// Tie levels, innermost first: the next to run, down to level 1; then, if `nulls_next`,
    /// the NULLs of a nullable leading key, whose values the levels walked.
    Levels {
        level: usize,
        nulls_next: bool,
    },
    /// Every tie level at once, their union ordered by the keys' output columns `names`.
    Union {
        names: &'static [&'static str],
    },
    /// A nullable leading key's NULL regions: the next to run.
    Region(RegionStep),
    Done,
}

/// The NULL region a page fetches next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RegionStep {
    /// The cursor's region (`null`: it is the NULLs); then, if `more`, the other one.
    Cursor { null: bool, more: bool },
    /// The region after the cursor's (`null`: the cursor's is the NULLs).
    Next { null: bool },
}

/// One page in the making: which statements it runs, and the rows they returned so far, in the
/// walk's order. A row is an `Item`: the model, or a tuple led by it (a join's selection), whose
/// model `model` finds.
pub(crate) struct PageMachine<M: SortOrder, Item> {
    position: Position<M::Cursor>,
    model: fn(&Item) -> &M::Row,
    /// The page size served.
    limit: u32,
    offset: i64,
    plan: Plan,
    rows: Vec<Item>,
}

impl<M: SortOrder, Item> PageMachine<M, Item> {
    /// The page of `limit` rows (the size served, already clamped) at `position`, run on backend
    /// `DB`; `copies` says what the query allows ([`Copies`]). Fails when a page number's OFFSET
    /// does not fit a `BIGINT`.
    pub(crate) fn new<DB: SeekDialect>(
        position: Position<M::Cursor>,
        (limit, copies): (u32, Copies),
        model: fn(&Item) -> &M::Row,
    ) -> Result<Self, RequestError>
    where
        M::Keys: SeekKeys<DB>,
    {
        let offset = match position {
            Position::Number(number) => i64::from(number - 1)
                .checked_mul(i64::from(limit))
                .ok_or(RequestError::PageNumberTooLarge { number, limit })?,
            _ => 0,
        };
        let plan = match &position {
            Position::After(cursor) => {
                plan::<M, _, DB>(Seek::<M, Forward>::new(cursor.clone()), copies)
            }
            Position::Before(cursor) => {
                plan::<M, _, DB>(Seek::<M, Backward>::new(cursor.clone()), copies)
            }
            _ => Plan::Whole,
        };
        Ok(PageMachine { position, model, limit, offset, plan, rows: Vec::new() })
    }

    /// The next statement to run, or `None` when the page is complete.
    pub(crate) fn next(&mut self) -> Option<Statement<M>> {
        // One row more than the page: it tells whether another page follows.
        let missing = i64::from(self.limit) + 1 - self.rows.len() as i64;
        if missing <= 0 {
            self.plan = Plan::Done;
        }
        let (plan, statement) = match (self.plan, &self.position) {
            (Plan::Done, _) => return None,
            (Plan::Whole, position) => (Plan::Done, whole(position, missing, self.offset)),
            (Plan::Levels { level, .. }, Position::After(cursor)) => {
                let (level, order) = tie_level::<M, Forward>(cursor, level);
                let statement = Statement::AfterLevel { level, order, limit: missing };
                (self.plan.after_level(), statement)
            }
            (Plan::Levels { level, .. }, Position::Before(cursor)) => {
                let (level, order) = tie_level::<M, Backward>(cursor, level);
                let statement = Statement::BeforeLevel { level, order, limit: missing };
                (self.plan.after_level(), statement)
            }
            (Plan::Union { names }, Position::After(cursor)) => {
                let levels = levels::<M, Forward>(cursor);
                let order = OrderBy::<M, Forward>::new().one_side(false);
                (Plan::Done, Statement::AfterLevels { levels, order, names, limit: missing })
            }
            (Plan::Union { names }, Position::Before(cursor)) => {
                let levels = levels::<M, Backward>(cursor);
                let order = OrderBy::<M, Backward>::new().one_side(false);
                (Plan::Done, Statement::BeforeLevels { levels, order, names, limit: missing })
            }
            (Plan::Region(step), Position::After(cursor)) => {
                let (region, nulls, next) = step.region();
                let seek = Seek::<M, Forward>::new(cursor.clone()).region(region);
                (
                    next,
                    Statement::After {
                        seek,
                        order: OrderBy::<M, Forward>::new().one_side(nulls),
                        limit: missing,
                    },
                )
            }
            (Plan::Region(step), Position::Before(cursor)) => {
                let (region, nulls, next) = step.region();
                let (seek, order) = (
                    Seek::<M, Backward>::new(cursor.clone()).region(region),
                    OrderBy::<M, Backward>::new(),
                );
                (next, Statement::Before { seek, order: order.one_side(nulls), limit: missing })
            }
            // Levels and regions are planned only for a page from a cursor.
            (_, position) => (Plan::Done, whole(position, missing, self.offset)),
        };
        self.plan = plan;
        Some(statement)
    }

    /// Whether another statement may follow the one just handed out: if not, the driver may
    /// give it the query itself instead of a copy.
    pub(crate) fn may_continue(&self) -> bool {
        self.plan != Plan::Done
    }

    /// Takes the rows the last statement returned.
    pub(crate) fn fetched(&mut self, rows: Vec<Item>) {
        self.rows.extend(rows);
    }

    /// The rows the page fetched, in the walk's order: what the tokens are issued from.
    pub(crate) fn into_fetched(self) -> Fetched<M, Item> {
        let PageMachine { position, model, limit, rows, .. } = self;
        Fetched { position, model, limit, rows }
    }
}

/// The strategy the model's key types allow.
type StrategyOf<M> = <<M as SortOrder>::Keys as FetchShape>::Strategy;

/// Tie level `level` of the seek past `cursor`, under the ORDER BY of the rows a level holds (a
/// nullable leading key's values, where it has one).
fn tie_level<M: SortOrder, W: crate::sql::Walk>(
    cursor: &M::Cursor,
    level: usize,
) -> (LevelOf<M, W>, OrderBy<M, W>) {
    (<StrategyOf<M>>::level(Seek::new(cursor.clone()), level), OrderBy::new().one_side(false))
}

/// Every tie level of the seek past `cursor`, innermost first, each with its ORDER BY.
fn levels<M: SortOrder, W: crate::sql::Walk>(
    cursor: &M::Cursor,
) -> Vec<(LevelOf<M, W>, OrderBy<M, W>)> {
    let levels = <M::Keys as crate::sql::KeyShape>::LEN;
    (1..=levels).rev().map(|level| tie_level::<M, W>(cursor, level)).collect()
}

impl Plan {
    fn after_level(self) -> Plan {
        match self {
            Plan::Levels { level, nulls_next } if level > 1 => {
                Plan::Levels { level: level - 1, nulls_next }
            }
            // The levels walked the values; the NULLs are the region after them.
            Plan::Levels { nulls_next: true, .. } => Plan::Region(RegionStep::Next { null: false }),
            _ => Plan::Done,
        }
    }
}

impl RegionStep {
    /// The region to fetch now, whether it is the NULLs, and what follows it.
    fn region(self) -> (Region, bool, Plan) {
        match self {
            RegionStep::Cursor { null, more: true } => {
                (Region::Cursor, null, Plan::Region(RegionStep::Next { null }))
            }
            RegionStep::Cursor { null, more: false } => (Region::Cursor, null, Plan::Done),
            RegionStep::Next { null } => (Region::Next, !null, Plan::Done),
        }
    }
}

/// What a page past `seek` runs on `DB`: one seek per tie level where the backend prefers it and
/// the keys have levels (among a nullable leading key's values, its NULLs after them where they
/// follow); the levels' union in one statement where the backend prefers that, no row value
/// seeks the order, and every row past the cursor lies in the levels; else the cursor's region
/// alone where every row past it lies there (a nullable leading key's NULLs, or its values); two
/// seeks where a nullable leading key's NULL boundary lies ahead and the backend prefers that;
/// else the single predicate. Several statements, or a union, need copies of the query.
fn plan<M: SortOrder, W: crate::sql::Walk, DB: SeekDialect>(
    seek: Seek<M, W>,
    copies: Copies,
) -> Plan
where
    M::Keys: SeekKeys<DB>,
{
    use crate::sql::KeyShape;
    let levels = <M::Keys as KeyShape>::LEN;
    let null = seek.leading_is_null::<DB>();
    let leveled = <StrategyOf<M>>::LEVELS && levels > 1 && !null;
    let repeats = copies.repeats;
    // Among a nullable leading key's values a row value of uniform directions is exact already.
    let row_value = DB::ROW_VALUES
        && (<M::Keys as KeyShape>::VALUES_ALL_ASC || <M::Keys as KeyShape>::VALUES_ALL_DESC);
    let names = M::SELECTED_NAMES.filter(|names| names.len() == levels);
    if repeats && leveled && DB::SEEK_PER_TIE_LEVEL {
        // After a NULL cursor the region is `x IS NULL AND id < ?`, one exact seek already.
        Plan::Levels { level: levels, nulls_next: seek.next_region::<DB>() }
    } else if let (true, Some(names)) = (
        copies.unite && leveled && DB::UNITE_TIE_LEVELS && !row_value && !seek.next_region::<DB>(),
        names,
    ) {
        Plan::Union { names }
    } else if seek.one_region::<DB>() {
        // One statement, so boxed queries get it too. Its ORDER BY leaves out what the region
        // makes moot: MariaDB sorted every row past a NULL cursor under the pinned placement.
        Plan::Region(RegionStep::Cursor { null, more: false })
    } else if !repeats {
        Plan::Whole
    } else if seek.splits::<DB>() {
        Plan::Region(RegionStep::Cursor { null, more: true })
    } else {
        Plan::Whole
    }
}

/// The one statement of a page that needs one: from the start or end, by page number, or past a
/// cursor with the single predicate.
fn whole<M: SortOrder>(position: &Position<M::Cursor>, limit: i64, offset: i64) -> Statement<M> {
    match position {
        Position::First => Statement::First { order: OrderBy::<M, Forward>::new(), limit },
        Position::Number(_) => {
            Statement::Number { order: OrderBy::<M, Forward>::new(), limit, offset }
        }
        Position::Last => Statement::Last { order: OrderBy::<M, Backward>::new(), limit },
        Position::After(cursor) => Statement::After {
            seek: Seek::<M, Forward>::new(cursor.clone()),
            order: OrderBy::<M, Forward>::new(),
            limit,
        },
        Position::Before(cursor) => Statement::Before {
            seek: Seek::<M, Backward>::new(cursor.clone()),
            order: OrderBy::<M, Backward>::new(),
            limit,
        },
    }
}
