//! Which statements a page past a cursor runs, as the backend, the key list and the cursor's
//! values decide ([`plan`]), and the statements of its tie levels and seeks.

use super::statement::Statement;
use crate::orders::SortOrder;
use crate::sql::{KeyShape, OrderBy, PerValue, Region, Seek, SeekDialect, SeekLevel, Stop, Walk};
use crate::token::Engine;

/// What a query lets a page run: copies of it ([`Repeat`](crate::Repeat)), and copies as the
/// branches of one `UNION ALL`, which also needs the model's columns to be the whole selection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Copies {
    pub(crate) repeats: bool,
    pub(crate) unite: bool,
    /// A page among a set of this many values (a feed), whose first statement may be the plain
    /// filter within a window of the order's index (`sql/window.rs`).
    pub(crate) probe: Option<usize>,
    /// A page among a set of values, whatever its statements (the window needs more of the
    /// query than a feed's seeks do).
    pub(crate) among: bool,
}

/// The statements that remain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Plan {
    /// A feed's first statement: the plain filter within a window of the order's index.
    Probe,
    /// The window's rows are awaited: they say what follows (see `PageMachine::fetched`).
    Probed,
    /// The row at which the window ends is awaited (`Statement::Boundary`).
    Reaching,
    /// The position's one statement.
    Whole,
    /// Tie levels, innermost first: the next to run, down to level 1; then, if `nulls_next`,
    /// the NULLs of a nullable leading key, whose values the levels walked. `inclusive`: the
    /// next level keeps the rows equal to the values (a start's innermost level).
    Levels {
        level: usize,
        nulls_next: bool,
        inclusive: bool,
    },
    /// Every tie level at once, their union ordered by the keys' output columns `names`.
    Union {
        names: &'static [&'static str],
    },
    /// A nullable leading key's NULL regions: the next to run.
    Region(RegionStep),
    /// At a row's id in an order led by a nullable key: the first statement of each of the
    /// key's regions, each guarded by the row's value, as one union over the output columns
    /// `names`.
    BothRegions {
        names: &'static [&'static str],
    },
    /// The union of both regions' first statements ran: its rows are awaited, which say the
    /// region that holds the row (see `PageMachine::fetched`).
    RegionsRead,
    /// An order grouped by a joined row, a group at a time (`groups.rs`): the step next.
    Groups(GroupStep),
    Done,
}

/// The NULL region a page fetches next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RegionStep {
    /// The cursor's region; then, if `more`, the other one.
    Cursor { more: bool },
    /// The region after the cursor's.
    Next,
}

/// The statement of a group walk a page runs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GroupStep {
    /// The rest of the cursor's group: equal to it on the group's keys, past it on the rest as
    /// the position says.
    Rest,
    /// The key of the next group: the first row past the cursor on the group's keys (as the
    /// position says, where it starts at their values: `first`), or strictly past the group
    /// read last.
    Next { first: bool },
    /// The next group's key is awaited (see `PageMachine::fetched`).
    Found,
    /// The rows of the group found.
    Rows,
}

impl Plan {
    pub(super) fn after_level(self) -> Plan {
        match self {
            Plan::Levels { level, nulls_next, .. } if level > 1 => {
                Plan::Levels { level: level - 1, nulls_next, inclusive: false }
            }
            // The levels walked the values; the NULLs are the region after them.
            Plan::Levels { nulls_next: true, .. } => Plan::Region(RegionStep::Next),
            _ => Plan::Done,
        }
    }
}

impl RegionStep {
    /// The region to fetch now, and what follows it.
    pub(super) fn region(self) -> (Region, Plan) {
        match self {
            RegionStep::Cursor { more: true } => (Region::Cursor, Plan::Region(RegionStep::Next)),
            RegionStep::Cursor { more: false } => (Region::Cursor, Plan::Done),
            RegionStep::Next => (Region::Next, Plan::Done),
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
///
/// A start at values is planned alike over the keys it compares (`stop`): its levels are those
/// keys', and where it compares the leading key alone, it is one comparison (per region).
pub(super) fn plan<M: SortOrder, W: Walk, DB: SeekDialect>(
    seek: &Seek<M, W>,
    copies: Copies,
    stop: Stop,
) -> Plan {
    let len = <M::Keys as KeyShape>::LEN;
    let levels = stop.keys(len);
    let null = seek.leading_is_null();
    let leveled = <M::Keys as KeyShape>::LEVELS && levels > 1 && !null;
    let repeats = copies.repeats;
    // Among a nullable leading key's values a row value of uniform directions is exact already.
    let row_value = DB::ROW_VALUES
        && !M::POSTGRES_FDW
        && (<M::Keys as KeyShape>::VALUES_ALL_ASC || <M::Keys as KeyShape>::VALUES_ALL_DESC);
    let names = M::SELECTED_NAMES.filter(|names| names.len() == len);
    // A feed's loop over its values seeks each value's rows in the prefix's index, where the
    // cursor's tie group is that value's rows at the cursor's values alone: one statement.
    let per_value_loop = copies.among && DB::PER_VALUE == PerValue::InLoop;
    // Through Spider every statement is one range of the index (`SortOrder::SPIDER`).
    let per_level = DB::SEEK_PER_TIE_LEVEL || (M::SPIDER && matches!(DB::ENGINE, Engine::Mysql));
    if repeats && leveled && per_level && !per_value_loop {
        // After a NULL cursor the region is `x IS NULL AND id < ?`, one exact seek already.
        Plan::Levels { level: levels, nulls_next: seek.next_region(), inclusive: stop.inclusive }
    } else if let (true, Some(names)) = (
        copies.unite && leveled && DB::UNITE_TIE_LEVELS && !row_value && !seek.next_region(),
        names,
    ) {
        Plan::Union { names }
    } else if seek.one_region() {
        // One statement, so boxed queries get it too. Its ORDER BY leaves out what the region
        // makes moot: MariaDB sorted every row past a NULL cursor under the pinned placement.
        Plan::Region(RegionStep::Cursor { more: false })
    } else if !repeats {
        Plan::Whole
    } else if seek.splits::<DB>() {
        Plan::Region(RegionStep::Cursor { more: true })
    } else {
        Plan::Whole
    }
}

/// Tie level `level` of the seek past `cursor` (`inclusive`: a start's innermost level, which
/// keeps the rows equal to the values; `row`: its values read from the row of the cursor's
/// id), under the ORDER BY of the rows a level holds (a nullable leading key's values, where it
/// has one).
pub(super) fn tie_level<M: SortOrder, W: Walk>(
    cursor: &M::Cursor,
    level: usize,
    (inclusive, row): (bool, bool),
) -> (SeekLevel<M, W>, OrderBy<M, W>) {
    let seek = Seek::new(cursor.clone()).reading_row(row);
    (seek.start_level(level, inclusive), OrderBy::new().on_one_side())
}

/// The rows past `cursor` as `stop` says within `region`, in one statement: a cursor's seek,
/// whose statement Diesel may cache by type, or a start's or one at a row's id (`row`, its
/// values read from the row, a nullable leading key assumed NULL testing it unless
/// `skip_guard`), rendered apart (`SeekLevel::start`).
pub(super) fn seek<M: SortOrder, W: Walk>(
    cursor: &M::Cursor,
    (stop, row, skip_guard): (Stop, bool, bool),
    region: Region,
    order: OrderBy<M, W>,
    limit: i64,
) -> Statement<M, W> {
    let seek = Seek::new(cursor.clone()).reading_row(row).skipping_null_guard(skip_guard);
    match stop {
        Stop::PAST if !row => Statement::Seek { seek: seek.within(region), order, limit },
        stop => Statement::Level { level: seek.start(stop, region), order, limit },
    }
}
