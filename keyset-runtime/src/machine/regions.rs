//! A page at a row given by its id in an order led by a nullable key (see `RowKeys`): which of the
//! key's regions holds the row is read only by the statements, so the page plans both: the values'
//! hold nothing where the row's value is NULL, and the NULLs', where they run beside them, test
//! that it is (`CursorKeys::skip_null_guard`). Where the query can be a union's branch and the
//! engine runs the union well (`SeekDialect::UNITE_ROW_REGIONS`), the first statements of both
//! regions run as one union, and its first row says the region; else the values' statements run
//! first, and the NULLs' only where the first finds nothing ([`PageMachine::fetched`]).

use std::marker::PhantomData;

use super::{PageMachine, Plan, Reach, Statement};
use crate::orders::SortOrder;
use crate::position::Position;
use crate::sql::{KeyShape, OrderBy, Seek, SeekLevel, Stop, Walk};

impl<M: SortOrder, W: Walk, Item> PageMachine<M, W, Item> {
    /// The machine of the page at a row's id in one region of its nullable leading key, which
    /// `cursor` assumes, planned afresh.
    pub(super) fn in_region(&self, cursor: M::Cursor) -> Self {
        let plan = (self.replan)(&Seek::new(cursor.clone()), self.copies, Stop::FROM);
        PageMachine {
            position: Position::RowId(cursor),
            other_region: None,
            skip_null_guard: false,
            resume: None,
            group: None,
            windowing: self.windowing,
            reach: Reach::Unread,
            model: self.model,
            copies: self.copies,
            replan: self.replan,
            limit: self.limit,
            offset: 0,
            plan,
            issued: plan,
            rows: Vec::new(),
            walk: PhantomData,
        }
    }

    /// At a row's id in an order led by a nullable key, the output columns by which the first
    /// statements of both regions run as one union, where the query can be a union's branch
    /// and each region's first statement is a predicate or a union of them: the page then runs the
    /// statements a token's page runs, whichever region holds the row. (Else the values'
    /// statements run first, and the NULLs' only where the first finds nothing.)
    pub(super) fn regions_united(&self) -> Option<&'static [&'static str]> {
        let other = self.other_region.as_ref()?;
        let (cursor, _) = self.position.seek()?;
        let names = M::SELECTED_NAMES.filter(|names| names.len() == <M::Keys as KeyShape>::LEN)?;
        let unites = |cursor: &M::Cursor| branches(self.in_region(cursor.clone()).next()).is_some();
        let united = self.copies.unite && self.copies.probe.is_none();
        (united && unites(cursor) && unites(other)).then_some(names)
    }

    /// The branches of the union of both regions' first statements, the position's region
    /// first.
    pub(super) fn both_regions(&self, cursor: &M::Cursor) -> Option<Vec<Branch<M, W>>> {
        let other = self.other_region.as_ref()?;
        let mut levels = Vec::new();
        for cursor in [cursor, other] {
            levels.extend(branches(self.in_region(cursor.clone()).next())?);
        }
        Some(levels)
    }

    /// After the union of both regions' first statements, whose first row is `first`: the
    /// region of that row holds the row (or the row is not listed, and the page is refused),
    /// and the rest of the page is that region's plan after its first statement, which the
    /// union ran.
    pub(super) fn region_read(&mut self, first: Option<&Item>) {
        self.plan = Plan::Done;
        let Some(row) = first else { return };
        let null = Seek::<M, W>::new(M::cursor((self.model)(row))).leading_is_null();
        let assumes = |cursor: &M::Cursor| Seek::<M, W>::new(cursor.clone()).leading_is_null();
        let cursor = self.position.seek().map(|(cursor, _)| cursor.clone());
        let other = self.other_region.take();
        if let Some(cursor) = cursor.into_iter().chain(other).find(|cursor| assumes(cursor) == null)
        {
            let mut region = self.in_region(cursor);
            region.next();
            (self.position, self.plan) = (region.position, region.plan);
        }
    }
}

/// The branches that `statement`, a region's first, adds to the union of both regions of a
/// nullable leading key at a row's id: itself, or a union's own (PostgreSQL's tie levels in mixed
/// directions). `None` for a statement that cannot be a branch.
fn branches<M: SortOrder, W>(statement: Option<Statement<M, W>>) -> Option<Vec<Branch<M, W>>> {
    match statement? {
        Statement::Level { level, order, .. } => Some(vec![(level, order)]),
        Statement::Levels { levels, .. } => Some(levels),
        _ => None,
    }
}

/// A branch of a union: a predicate under its ORDER BY.
type Branch<M, W> = (SeekLevel<M, W>, OrderBy<M, W>);
