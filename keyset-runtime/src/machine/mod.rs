//! The page machine: what a page runs, decided once for every driver.
//!
//! A page is one statement; or, after a cursor, up to one per tie level (SQLite) or two at a
//! nullable leading key's NULL boundary (on SQLite the tie levels among its values, then its
//! NULLs), the next only while the page is short; or on PostgreSQL, in mixed directions, one
//! statement that holds every tie level, their `UNION ALL` (`sql/union.rs`). Which one is planned
//! in `plan.rs`. A page among a set of values (a feed) may first walk a window of the order's
//! index (`sql/window.rs`; on MariaDB after a statement that reads where the window ends), and
//! seeks once per value for what the window did not find. A page at a row's id in an order led by
//! a nullable key plans both of the key's regions, the row's region being read only by the
//! statements (`regions.rs`). A page in an order grouped by a joined row may walk the groups one
//! at a time (`groups.rs`).
//!
//! [`PageMachine`] hands out those statements one at a time as values ([`Statement`]: what to
//! add to the query, and how many rows it may return), takes each one's rows, and decides
//! whether another follows; then it hands the rows over as [`Fetched`], which issues the page's
//! tokens. It performs no IO: the drivers (`run/`) only run each statement on
//! their connection and hand the rows back, so the blocking and the async path run the same
//! statements, with the same binds, for the same request.
//!
//! A page walks one way, known before it starts: forward for the first page, a page number and a
//! page after a cursor, backward for the last page and a page before a cursor. The machine is
//! typed by that walk (`W`), and so are its statements, so that each statement shape is one
//! Diesel query type with a static `QueryId` where its SQL allows one.
//!
//! Statements after a cursor are disjoint, so rows inserted or deleted meanwhile never repeat a
//! row within a page. They are not one snapshot, though: a row whose *sort key* another
//! connection updates between two of them, from one tie level (or NULL region) into a later one,
//! can be read by both. Where sort keys are updated concurrently and a page must be exact, load
//! it inside a transaction, which makes SQLite read one snapshot.

mod groups;
mod plan;
mod regions;
mod statement;

use std::marker::PhantomData;

use crate::error::Error;
use crate::fetched::Fetched;
use crate::orders::SortOrder;
use crate::position::{row_regions, Position};
use crate::request::RequestError;
use crate::sql::{KeyShape, OrderBy, Region, Seek, SeekDialect, Stop, Walk, WindowEnd, Windowing};
use crate::token::CursorValue;

pub(crate) use plan::Copies;
use plan::{seek, tie_level, GroupStep, Plan};
pub use statement::Statement;

/// One page in the making, walking `W`: which statements it runs, and the rows they returned so
/// far, in the walk's order. A row is an `Item`: the model, or a tuple led by it (a join's
/// selection), whose model `model` finds.
pub(crate) struct PageMachine<M: SortOrder, W, Item> {
    position: Position<M::Cursor>,
    /// At a row's id with a nullable leading key, the row's cursor assuming its value is NULL,
    /// where the position's assumes one (see `regions.rs`): united with the position's first
    /// statement, or, where the first statement returns nothing, the page planned again from
    /// it; in a query that runs one statement, both are in it.
    other_region: Option<M::Cursor>,
    /// Whether the statements assuming a nullable leading key's NULL leave the row's value
    /// untested: they run after the values' found nothing (see `CursorKeys::skip_null_guard`).
    skip_null_guard: bool,
    /// After a feed's window came back short, the last row it found: the statements that
    /// follow go on past it.
    resume: Option<M::Cursor>,
    /// In a walk of the groups of a joined row, the cursor of the group found last: the
    /// statements that follow read its rows, then seek past it (`groups.rs`).
    group: Option<M::Cursor>,
    /// How the backend finds the end of a feed's window, and where it was found.
    windowing: Windowing,
    reach: Reach<M::Cursor>,
    model: fn(&Item) -> &M::Row,
    copies: Copies,
    /// What a page past a cursor runs on the page's backend (`plan::plan`).
    replan: fn(&Seek<M, W>, Copies, Stop) -> Plan,
    /// The page size served.
    limit: u32,
    offset: i64,
    plan: Plan,
    /// The plan before the statement last handed out: what [`again`](Self::again) rewinds to.
    issued: Plan,
    rows: Vec<Item>,
    walk: PhantomData<W>,
}

impl<M: SortOrder, W: Walk, Item> PageMachine<M, W, Item> {
    /// The page of `limit` rows (the size served) at `position`, which walks `W`, run on backend
    /// `DB`; `copies` says what the query allows ([`Copies`]). Fails when the cursor holds a
    /// value `DB` cannot bind (the client's token: see `token/bind.rs`), or a page number's
    /// OFFSET does not fit a `BIGINT`.
    pub(crate) fn new<DB: SeekDialect>(
        position: Position<M::Cursor>,
        (limit, copies): (u32, Copies),
        model: fn(&Item) -> &M::Row,
    ) -> Result<Self, Error> {
        debug_assert_eq!(position.is_backward(), W::BACKWARD, "a page walks its position's way");
        if let Some((cursor, _)) = position.seek() {
            cursor.check_bind(DB::ENGINE)?;
        }
        let offset = match position {
            Position::Number(number) => i64::from(number - 1)
                .checked_mul(i64::from(limit))
                .ok_or(RequestError::PageNumberTooLarge { number, limit })?,
            _ => 0,
        };
        let replan = plan::plan::<M, W, DB>;
        // Where the set's rows are dense, a short walk of the order's index finds the page.
        let edge = matches!(position, Position::First | Position::Last);
        let min_set = if edge { DB::EDGE_WINDOW_MIN_SET } else { DB::WINDOW_MIN_SET };
        let probe = copies.probe.is_some_and(|set| set >= min_set)
            && !<M::Keys as KeyShape>::LEADING_NULLABLE
            // A feed's window is not walked from a start: its end is read past a row.
            && !matches!(
                position,
                Position::Number(_) | Position::Start(..) | Position::Row(_) | Position::RowId(_)
            );
        let (position, other_region) = row_regions::<M>(position)?;
        let plan = match position.seek() {
            _ if probe => Plan::Probe,
            Some(_) if other_region.is_some() && !copies.repeats => Plan::Whole,
            Some((cursor, stop)) => {
                // At a row's id the statements read the row's values, which a group's do not.
                let grouped = other_region.is_none() && !matches!(position, Position::RowId(_));
                let groups = grouped.then(|| groups::plan::<M, DB>(copies, Some(stop))).flatten();
                groups.unwrap_or_else(|| replan(&Seek::new(cursor.clone()), copies, stop))
            }
            None if matches!(position, Position::Number(_)) => Plan::Whole,
            None => groups::plan::<M, DB>(copies, None).unwrap_or(Plan::Whole),
        };
        let walk = PhantomData;
        let mut machine = PageMachine {
            position,
            other_region,
            skip_null_guard: false,
            resume: None,
            group: None,
            windowing: DB::WINDOW,
            reach: Reach::Unread,
            model,
            copies,
            replan,
            limit,
            offset,
            plan,
            issued: plan,
            rows: Vec::new(),
            walk,
        };
        if let Some(names) = machine.regions_united().filter(|_| DB::UNITE_ROW_REGIONS) {
            machine.plan = Plan::BothRegions { names };
        }
        Ok(machine)
    }

    /// The cursor the next statement seeks past: the last row a feed's window found, else the
    /// position's (none for the first and last pages and a page number).
    fn cursor(&self) -> Option<&M::Cursor> {
        self.resume.as_ref().or(self.position.seek().map(|(cursor, _)| cursor))
    }

    /// How the next statement compares the cursor's keys: as the position says, or strictly
    /// past the last row a feed's window found.
    fn stop(&self) -> Stop {
        match (&self.resume, self.position.seek()) {
            (None, Some((_, stop))) => stop,
            _ => Stop::PAST,
        }
    }

    /// The next statement to run, or `None` when the page is complete.
    pub(crate) fn next(&mut self) -> Option<Statement<M, W>> {
        self.issued = self.plan;
        // One row more than the page: it tells whether another page follows.
        let limit = i64::from(self.limit) + 1 - self.rows.len() as i64;
        if limit <= 0 {
            self.plan = Plan::Done;
        }
        let (cursor, stop) = (self.cursor(), self.stop());
        // At a row given by its id, the statements read the row's values (`RowKeys`).
        let row = matches!(self.position, Position::RowId(_)) && self.resume.is_none();
        // Levels, unions and regions are planned only for a page from a cursor.
        let (plan, statement) = match (self.plan, cursor) {
            (Plan::Done | Plan::Probed | Plan::Reaching | Plan::RegionsRead, _) => return None,
            (Plan::Groups(step), cursor) => {
                groups::statement(step, self.group.as_ref().or(cursor), stop, limit)?
            }
            (Plan::BothRegions { names }, Some(cursor)) => {
                let levels = self.both_regions(cursor)?;
                let order = OrderBy::new();
                (Plan::RegionsRead, Statement::Levels { levels, order, names, limit })
            }
            (Plan::Probe, cursor) => {
                let seek = cursor.map(|cursor| Seek::new(cursor.clone()));
                let set = self.copies.probe.map_or(0, |set| set as i64);
                let rows = limit.saturating_add(set).saturating_mul(PROBE_WINDOW);
                let order = OrderBy::new();
                let end = match (&self.reach, self.windowing) {
                    (_, Windowing::Subquery) => WindowEnd::rows(rows),
                    (Reach::Unread, Windowing::ReadFirst) => {
                        // A power of two: the offset is written into the SQL (`WindowRow`).
                        let rows = u64::try_from(rows.max(1)).unwrap_or(1);
                        let rows = rows.checked_next_power_of_two().unwrap_or(u64::MAX);
                        let offset = i64::try_from(rows - 1).unwrap_or(i64::MAX);
                        self.plan = Plan::Reaching;
                        return Some(Statement::Boundary { seek, offset, order });
                    }
                    (Reach::Row(end), Windowing::ReadFirst) => {
                        WindowEnd::At(Seek::new(end.clone()))
                    }
                };
                (Plan::Probed, Statement::Probe { seek, end, order, limit })
            }
            (_, None) => {
                let (order, offset) = (OrderBy::new(), self.offset);
                let statement = match self.position {
                    Position::Number(_) => Statement::Number { order, limit, offset },
                    _ => Statement::Edge { order, limit },
                };
                (Plan::Done, statement)
            }
            (Plan::Whole, Some(cursor)) => match &self.other_region {
                Some(other) if !self.copies.repeats => {
                    let (cursor, other) = (Seek::new(cursor.clone()), Seek::new(other.clone()));
                    let level =
                        cursor.reading_row(true).start_either(other.reading_row(true), stop);
                    (Plan::Done, Statement::Level { level, order: OrderBy::new(), limit })
                }
                _ => {
                    let row = (stop, row, self.skip_null_guard);
                    (Plan::Done, seek(cursor, row, Region::Whole, OrderBy::new(), limit))
                }
            },
            (Plan::Levels { level, inclusive, .. }, Some(cursor)) => {
                let (level, order) = tie_level::<M, W>(cursor, level, (inclusive, row));
                (self.plan.after_level(), Statement::Level { level, order, limit })
            }
            (Plan::Union { names }, Some(cursor)) => {
                let levels = stop.keys(<M::Keys as KeyShape>::LEN);
                let levels = (1..=levels).rev().map(|level| {
                    tie_level::<M, W>(cursor, level, (stop.inclusive && level == levels, row))
                });
                let (levels, order) = (levels.collect(), OrderBy::new().on_one_side());
                (Plan::Done, Statement::Levels { levels, order, names, limit })
            }
            (Plan::Region(step), Some(cursor)) => {
                let (region, next) = step.region();
                let order = OrderBy::new().on_one_side();
                (next, seek(cursor, (stop, row, self.skip_null_guard), region, order, limit))
            }
        };
        self.plan = plan;
        Some(statement)
    }

    /// The statement last handed out, once more: for a driver whose run of it failed before
    /// any row came back (a cached plan gone stale), and that runs it again.
    pub(crate) fn again(&mut self) -> Option<Statement<M, W>> {
        self.plan = self.issued;
        self.next()
    }

    /// Whether another statement may follow the one just handed out: if not, the driver may
    /// give it the query itself instead of a copy.
    pub(crate) fn may_continue(&self) -> bool {
        self.plan != Plan::Done || (self.other_region.is_some() && self.copies.repeats)
    }

    /// Takes the rows the last statement returned. After the statement that reads where a feed's
    /// window ends, plans the window ending at its row (the seeks per value without one). After
    /// the window, plans what follows: nothing when it filled the page, else the seeks per value
    /// past the last row it found (or past the position, when it found none).
    pub(crate) fn fetched(&mut self, rows: Vec<Item>) {
        if self.plan == Plan::Reaching {
            // No row: fewer rows are left than the window's, or the query's filters leave out
            // the table's row there. The seeks per value take the page.
            self.plan = match rows.first() {
                Some(row) => {
                    self.reach = Reach::Row(M::cursor((self.model)(row)));
                    Plan::Probe
                }
                None => self.seeks(),
            };
            return;
        }
        if self.plan == Plan::Groups(GroupStep::Found) {
            // The next group's key, or no group left.
            self.group = rows.first().map(|row| M::cursor((self.model)(row)));
            self.plan = match self.group {
                Some(_) => Plan::Groups(GroupStep::Rows),
                None => Plan::Done,
            };
            return;
        }
        if self.plan == Plan::RegionsRead {
            self.region_read(rows.first());
            self.rows.extend(rows);
            return;
        }
        if let Some(other) = self.other_region.take() {
            if rows.is_empty() && self.copies.repeats {
                // Nothing among the values from the row's: its value is NULL, or it is not listed.
                *self = self.in_region(other);
                self.skip_null_guard = true;
                return;
            }
        }
        self.rows.extend(rows);
        if self.plan != Plan::Probed {
            return;
        }
        self.plan = Plan::Done;
        if self.rows.len() > self.limit as usize {
            return;
        }
        if let Some(row) = self.rows.last() {
            self.resume = Some(M::cursor((self.model)(row)));
        }
        self.plan = self.seeks();
    }

    /// The plan of the seeks per value past the cursor (from the start without one).
    fn seeks(&self) -> Plan {
        match self.cursor() {
            Some(cursor) => (self.replan)(&Seek::new(cursor.clone()), self.copies, self.stop()),
            None => Plan::Whole,
        }
    }

    /// The rows the page fetched, in the walk's order: what the tokens are issued from.
    pub(crate) fn into_fetched(self) -> Fetched<M, Item> {
        let PageMachine { position, model, limit, rows, .. } = self;
        Fetched { position, model, limit, rows, total: None }
    }
}

/// Where a feed's window ends, on a backend that reads it first ([`Windowing::ReadFirst`]).
enum Reach<Cursor> {
    /// Not read yet.
    Unread,
    /// At the leading value of this row's cursor.
    Row(Cursor),
}

/// How many rows of the order's index a feed's window spans, per row of the page and per value of
/// the set: `4 × (limit + 1 + |set|)`. Where at least one in `4 × (1 + |set| / (limit + 1))` of the
/// rows past the cursor is the set's, the window fills the page. It grows with the set because
/// the seeks that follow a short window cost one index descent per value: a window of a few rows
/// per value costs about as much, so a page reads at most a bounded multiple of
/// `|set| + limit` entries either way, and a large set whose rows are common among the recent
/// ones (1,000 of 10,000 authors) is served by the window alone. Measured on PostgreSQL
/// (1M posts, pages of 20): with `4 × (limit + 1)`, the first page of 1,000 uniform authors ran
/// the window (84 rows, 8 of the set's) and then 1,000 seeks, 14.9 ms against 0.86 ms for the
/// plain filter (a run at load 8); with this window, the window alone, 1.09 ms against 0.58
/// (`docs/benchmarks.md`, 2026-12-04).
const PROBE_WINDOW: i64 = 4;
