//! A page in an order grouped by a joined row, walked a group at a time.
//!
//! In `authors.name, authors.id, posts.created_at DESC, posts.id DESC` (the joined keys end with
//! the joined table's primary key, so each group is one author's posts, `SortOrder::GROUP_KEYS`),
//! the rows past a cursor are the rest of the cursor's author's posts, then every later author's
//! posts, author by author. Where the engine sorts an ORDER BY over two tables in a temporary
//! table whatever the indexes (`SeekDialect::WALK_GROUPS`), one statement over all of them reads
//! and sorts every later author's posts; the page walks them a group at a time instead, each
//! statement one index seek per table:
//!
//! 1. the rest of the cursor's group: `authors.name = ? AND authors.id = ? AND (posts.created_at
//!    < ? OR ..)` under the whole ORDER BY (the author is one row, the posts a range of their
//!    `(author_id, created_at, id)` index);
//! 2. while the page is short, the next group's key: the first row past the group on the joined
//!    keys alone, under their ORDER BY alone, `LIMIT 1` (a walk of the authors' index that stops
//!    at the first author the query's join and filters keep);
//! 3. that group's rows from its start, `authors.name = ? AND authors.id = ?`; then 2 again.
//!
//! So a page runs one statement, plus two per group it reaches; it reads its rows plus one
//! entry per author it skips (one with no rows the query keeps). The first and last pages, and a
//! page that starts at values of the joined keys only ("authors from M"), begin at step 2, from
//! the end or those values. Measured on
//! MariaDB by the joins bench (`docs/benchmarks.md`).
//!
//! The groups are disjoint and read in order, so a writer between two statements never makes a
//! page repeat a row; a group emptied meanwhile is passed by.

use super::plan::{Copies, GroupStep, Plan};
use super::statement::Statement;
use crate::orders::SortOrder;
use crate::sql::{GroupOrder, KeyShape, OrderBy, Region, Seek, SeekDialect, Stop, Walk};

/// How a page starts its group walk on `DB`, where it walks one: past a cursor at `stop`, or
/// from an end (`None`). Only a query that runs more than once, in an order led by a joined
/// row's keys, none of its keys nullable (a nullable key's equality is never true).
pub(super) fn plan<M: SortOrder, DB: SeekDialect>(
    copies: Copies,
    stop: Option<Stop>,
) -> Option<Plan> {
    let (depth, len) = (M::GROUP_KEYS, <M::Keys as KeyShape>::LEN);
    let walks = DB::WALK_GROUPS && copies.repeats && (1..len).contains(&depth);
    let walks = walks && !<M::Keys as KeyShape>::NULLABLE;
    // From an end, or at values of the group's keys alone, no group is part-read.
    let step = match stop {
        Some(stop) if stop.keys(len) > depth => GroupStep::Rest,
        _ => GroupStep::Next { first: true },
    };
    walks.then_some(Plan::Groups(step))
}

/// The statement of `step`, of the group of `cursor` (the position's, or the group read last;
/// none from an end), with the page's `stop` and `limit`; and the plan after it. `None` for
/// [`GroupStep::Found`], which awaits rows instead.
pub(super) fn statement<M: SortOrder, W: Walk>(
    step: GroupStep,
    cursor: Option<&M::Cursor>,
    stop: Stop,
    limit: i64,
) -> Option<(Plan, Statement<M, W>)> {
    let depth = M::GROUP_KEYS;
    let seek = cursor.map(|cursor| Seek::new(cursor.clone()));
    let next = Plan::Groups(GroupStep::Next { first: false });
    Some(match step {
        GroupStep::Rest => {
            // The position's stop, seen from the first key after the group's.
            let rest = Stop { depth: stop.depth.saturating_sub(depth), ..stop };
            let level = seek?.group(depth, Some(rest));
            (next, Statement::Level { level, order: OrderBy::new(), limit })
        }
        GroupStep::Next { first } => {
            let stop = if first { stop } else { Stop { depth, inclusive: false } };
            let level = seek.map(|seek| seek.start(stop, Region::Whole));
            let order = GroupOrder::new();
            (Plan::Groups(GroupStep::Found), Statement::GroupKey { level, order })
        }
        GroupStep::Rows => {
            let level = seek?.group(depth, None);
            (next, Statement::Level { level, order: OrderBy::new(), limit })
        }
        GroupStep::Found => return None,
    })
}
