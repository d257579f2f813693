//! Nullable sort keys: with about 10% NULLs and heavy ties, walks forward and backward in both
//! placements and both directions equal the declared order (sorted in Rust, since NULL placement
//! cannot be asked of every engine the same way), for every page size: pages that start before,
//! straddle and start inside the NULL region, and cursors whose value is NULL.

use std::cmp::Ordering;

use diesel::prelude::*;
use keyset_runtime::{Keyset, PageRequest};
use keyset_tests::models::{
    RankAscNullsFirst, RankAscNullsLast, RankDescNullsFirst, RankDescNullsLast, RankDue, ScoreDue,
};
use keyset_tests::order::{key, plain};
use keyset_tests::schema::posts;
use keyset_tests::walk::{self, cursors};

use super::db;
use crate::Conn;

const ROWS: i64 = 240;
const LIMITS: &[u32] = &[1, 3, 10, 23, 1000];

/// Loads every row of the model unordered, sorts it with `cmp`, and checks that walks in both
/// directions at every page size return exactly that.
fn check<M, Q>(query: impl Fn() -> Q, cmp: impl Fn(&M, &M) -> Ordering)
where
    M: Keyset,
    M::Cursor: std::fmt::Debug + PartialEq,
    Q: keyset_runtime::PageQuery<'static, Conn, Model = M, Item = M> + diesel::RunQueryDsl<Conn>,
    Q: diesel::query_dsl::LoadQuery<'static, Conn, M>,
{
    let mut conn = db::seeded(ROWS);
    let mut expected: Vec<M> = query().load(&mut conn).unwrap();
    expected.sort_by(&cmp);
    let expected = cursors(&expected);
    for &limit in LIMITS {
        assert_eq!(
            cursors(&walk::forward(&mut conn, limit, &query)),
            expected,
            "forward, limit {limit}"
        );
        assert_eq!(
            cursors(&walk::backward(&mut conn, limit, &query)),
            expected,
            "backward, limit {limit}"
        );
    }
}

#[test]
fn leading_nullable_desc_nulls_last() {
    check(
        || posts::table.select(RankDescNullsLast::as_select()),
        |a: &RankDescNullsLast, b| {
            key(&a.rank, &b.rank, true, false).then(plain(&a.id, &b.id, true))
        },
    );
}

#[test]
fn leading_nullable_desc_nulls_first() {
    check(
        || posts::table.select(RankDescNullsFirst::as_select()),
        |a: &RankDescNullsFirst, b| {
            key(&a.rank, &b.rank, true, true).then(plain(&a.id, &b.id, false))
        },
    );
}

#[test]
fn leading_nullable_asc_nulls_last() {
    check(
        || posts::table.select(RankAscNullsLast::as_select()),
        |a: &RankAscNullsLast, b| {
            key(&a.rank, &b.rank, false, false).then(plain(&a.id, &b.id, false))
        },
    );
}

#[test]
fn leading_nullable_asc_nulls_first() {
    check(
        || posts::table.select(RankAscNullsFirst::as_select()),
        |a: &RankAscNullsFirst, b| {
            key(&a.rank, &b.rank, false, true).then(plain(&a.id, &b.id, true))
        },
    );
}

#[test]
fn two_nullable_keys_in_opposite_placements() {
    check(
        || posts::table.select(RankDue::as_select()),
        |a: &RankDue, b| {
            key(&a.rank, &b.rank, false, false)
                .then(key(&a.due, &b.due, true, true))
                .then(plain(&a.id, &b.id, false))
        },
    );
}

#[test]
fn nullable_key_behind_a_plain_one() {
    check(
        || posts::table.select(ScoreDue::as_select()),
        |a: &ScoreDue, b| {
            plain(&a.score, &b.score, true)
                .then(key(&a.due, &b.due, false, false))
                .then(plain(&a.id, &b.id, true))
        },
    );
}

/// A token issued for a row whose key is NULL carries the NULL, and pages on from it.
#[test]
fn a_null_cursor_value_round_trips_and_pages_on() {
    let mut conn = db::seeded(ROWS);
    let query = || posts::table.select(RankDescNullsLast::as_select());
    let mut expected: Vec<RankDescNullsLast> = query().load(&mut conn).unwrap();
    expected.sort_by(|a, b| key(&a.rank, &b.rank, true, false).then(plain(&a.id, &b.id, true)));
    let first_null = expected.iter().position(|row| row.rank.is_none()).unwrap();
    let cursor_row = &expected[first_null + 2];
    assert_eq!(cursor_row.rank, None);

    // Walk to the page that ends on that row, then take one step from it.
    let page = walk::page(&mut conn, &query, &PageRequest::first((first_null + 3) as u32));
    assert_eq!(page.items.last(), Some(cursor_row));
    let next = walk::page(&mut conn, &query, &PageRequest::after(page.next_cursor.unwrap(), 5));
    assert_eq!(next.items, expected[first_null + 3..first_null + 8]);
    let back = walk::page(&mut conn, &query, &PageRequest::before(next.prev_cursor.unwrap(), 4));
    assert_eq!(back.items, expected[first_null - 1..first_null + 3]);
}
